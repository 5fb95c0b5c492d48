"""Merge-conflict markers a git merge, rebase or stash left in a file.

They are written as git writes them: `<<<<<<< ours`, `||||||| base` (diff3 style),
`=======`, `>>>>>>> theirs`, seven marker characters at the start of a line (what `git diff
--check` looks for), or more where the file's `conflict-marker-size` attribute asks for more (git
passes the size to memboard's merge driver, which writes its blocks with it), followed by a space
or the line's end. Seven-character markers count as soon as one is there; longer ones only as a
complete block, opened and closed with markers of the same size (a run of eight `<` is text until
its block closes), and inside a block only markers of its own size count (git uses longer markers
so that the file's own seven-character lines stay text). An index.md that holds them is not a
table to write on: every change is refused until a person resolves them.
"""

from __future__ import annotations

from .text import BOM_BYTES

MARKER_SIZE = 7
SHOWN_LINES = 8  # marker line numbers named in a one-line message before it says "…"


def _marker(body: bytes) -> tuple[bytes, int] | None:
    """(marker character, size) of a conflict-marker line (`<`, `|`, `=`, `>`, MARKER_SIZE times or more), else
    None."""
    if len(body) < MARKER_SIZE or body[:1] not in (b"<", b"|", b"=", b">"):
        return None
    char = body[:1]
    size = len(body) - len(body.lstrip(char))
    if size < MARKER_SIZE or (len(body) > size and body[size : size + 1] not in (b" ", b"\t")):
        return None
    return char, size


def has_block_marker(data: bytes) -> bool:
    """Whether any line of data opens or closes a conflict block (`<` or `>` markers of any size): a cheap first
    look before marker_lines reads a whole file."""
    for line in data.split(b"\n"):
        found = _marker(line.removeprefix(BOM_BYTES).rstrip(b"\r"))
        if found is not None and found[0] in (b"<", b">"):
            return True
    return False


class _Scan:
    """marker_lines' state: the markers found, those waiting for a closing marker, the open block's size."""

    def __init__(self) -> None:
        """Outside any block, nothing found."""
        self.found: list[int] = []
        self.pending: list[tuple[int, int]] = []  # `=`/`|` markers outside a block: (line, size)
        self.held: list[int] = []  # the markers of an open block longer than MARKER_SIZE (counted when it closes)
        self.size = 0  # the open block's marker size, 0 outside a block

    def mark(self, number: int, kind: bytes, size: int) -> None:
        """One marker line."""
        if self.size and size != self.size:
            return  # a marker of another size inside a block is the file's text
        if kind == b"<":
            self.size, self.pending = size, []
            self._count(number)
        elif kind == b">":
            if self.size:
                self._count(number)
                self.found += self.held
            else:
                waiting = [n for n, s in self.pending if s == size]
                if size == MARKER_SIZE or waiting:
                    self.found += waiting + [number]
            self.size, self.pending, self.held = 0, [], []
        elif self.size:
            self._count(number)
        else:
            self.pending.append((number, size))

    def _count(self, number: int) -> None:
        """A marker of the open block: counted now (seven characters) or when the block closes (longer)."""
        (self.found if self.size == MARKER_SIZE else self.held).append(number)


def marker_lines(data: bytes) -> list[int]:
    """Line numbers (from 1) of the merge-conflict markers in a file; empty when it has none.

    A conflict needs a `<<<<<<<` or `>>>>>>>` line: a lone `=======` is a Markdown heading
    underline, and `|||||||` or `=======` count only inside (or just before the end of) a
    conflict block. Marker-like lines inside a fenced code block are text.
    """
    if b"<<<<<<<" not in data and b">>>>>>>" not in data:  # the common case costs one scan
        return []
    lines = data.split(b"\n")
    text: set[int] = set()  # openings of longer markers that never close: read as text
    while True:
        scan = _scan(lines, text)
        if not scan.held:
            return scan.found
        text.add(scan.held[0])


def _scan(lines: list[bytes], text: set[int]) -> _Scan:
    """One pass over a file's lines (those numbered in text are text whatever they look like)."""
    scan = _Scan()
    fence: bytes | None = None
    for number, line in enumerate(lines, start=1):
        body = line[:-1] if line.endswith(b"\r") else line
        if number == 1 and body.startswith(BOM_BYTES):
            body = body[len(BOM_BYTES) :]
        mark = _marker(body) if number not in text else None
        if mark is None:
            stripped = body.lstrip()
            if scan.size:
                continue
            if fence is not None:
                if stripped.startswith(fence):
                    fence = None
            elif stripped.startswith((b"```", b"~~~")):
                fence = stripped[:3]
            continue
        if fence is not None and not scan.size:
            continue
        scan.mark(number, *mark)
    return scan


def line_list(numbers: list[int]) -> str:
    """Line numbers for a one-line message: `line 5` or `lines 5, 7, 9` (the first few, then `…`)."""
    shown = ", ".join(str(n) for n in numbers[:SHOWN_LINES])
    return ("line " if len(numbers) == 1 else "lines ") + shown + (", …" if len(numbers) > SHOWN_LINES else "")


def marker_refusal(numbers: list[int]) -> str:
    """The one line every change is refused with while index.md holds conflict markers."""
    return (
        f"index.md holds merge-conflict markers ({line_list(numbers)}); decide them with `memboard resolve "
        "--prefer ours|theirs` or by hand (keep the rows you want from each side, delete the marker lines), then "
        "try again; nothing written"
    )


def marker_warning(numbers: list[int]) -> str:
    """The warning of read-only commands that read through the conflict markers."""
    return (
        f"warning: index.md holds merge-conflict markers ({line_list(numbers)}); rows of both sides "
        "are shown; decide the conflict (`memboard resolve --prefer ours|theirs`, or by hand) before changing anything"
    )
