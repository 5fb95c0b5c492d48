"""Merge-conflict markers a git merge, rebase or stash left in a file.

They are written as git writes them: `<<<<<<< ours`, `||||||| base` (diff3 style),
`=======`, `>>>>>>> theirs`, each exactly seven marker characters at the start of a line,
followed by a space or the line's end (what `git diff --check` looks for). An index.md that
holds them is not a table to write on: every change is refused until a person resolves them.
"""

from __future__ import annotations

from .text import BOM_BYTES

MARKER_SIZE = 7
SHOWN_LINES = 8  # marker line numbers named in a one-line message before it says "…"


def _marker(body: bytes) -> bytes | None:
    """The marker character of a conflict-marker line (`<`, `|`, `=`, `>`), else None."""
    if len(body) < MARKER_SIZE or body[:1] not in (b"<", b"|", b"=", b">"):
        return None
    if body[:MARKER_SIZE] != body[:1] * MARKER_SIZE:
        return None
    if len(body) > MARKER_SIZE and body[MARKER_SIZE : MARKER_SIZE + 1] not in (b" ", b"\t"):
        return None
    return body[:1]


def marker_lines(data: bytes) -> list[int]:
    """Line numbers (from 1) of the merge-conflict markers in a file; empty when it has none.

    A conflict needs a `<<<<<<<` or `>>>>>>>` line: a lone `=======` is a Markdown heading
    underline, and `|||||||` or `=======` count only inside (or just before the end of) a
    conflict block. Marker-like lines inside a fenced code block are text.
    """
    if b"<<<<<<<" not in data and b">>>>>>>" not in data:  # the common case costs one scan
        return []
    found: list[int] = []
    pending: list[int] = []
    inside = False
    fence: bytes | None = None
    for number, line in enumerate(data.split(b"\n"), start=1):
        body = line[:-1] if line.endswith(b"\r") else line
        if number == 1 and body.startswith(BOM_BYTES):
            body = body[len(BOM_BYTES) :]
        kind = _marker(body)
        if kind is None:
            stripped = body.lstrip()
            if inside:
                continue
            if fence is not None:
                if stripped.startswith(fence):
                    fence = None
            elif stripped.startswith((b"```", b"~~~")):
                fence = stripped[:3]
            continue
        if fence is not None and not inside:
            continue
        if kind == b"<":
            found.append(number)
            inside, pending = True, []
        elif kind == b">":
            found += [] if inside else pending
            found.append(number)
            inside, pending = False, []
        elif inside:
            found.append(number)
        else:
            pending.append(number)
    return found


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
