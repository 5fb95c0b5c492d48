"""The conflict blocks memboard's git merge driver leaves, and deciding them (`memboard resolve`, issue 26 §5).

The driver keeps each file valid, holding ours' values, and shows what it could not decide as standard
conflict blocks: index.md gets one block right after the table's last row holding both versions of each
undecided row; a snapshot, an archive file or a note gets a block per open Metadata field right before its
Metadata table (a blank line after them), holding both versions of the field's row. Deciding them:

- `--prefer ours` keeps the table's row; `--prefer theirs` puts the block's theirs row in the table in place
  of ours' (rows matched by Session ID, Metadata rows by Field); the blocks go, and the blank line after them.
- A block git's own line merge left (the driver's fallback) is decided the same way, line by line: a row the
  table holds outside the blocks is decided in the table, every other line of the preferred side takes the
  block's place, and a row only the other side holds is kept too (prefer decides cells, never which rows
  exist).

`only` decides one session's rows of index.md (or, for another file, its blocks when the file belongs to
that session or note). Markers of any size git uses (`<<<<<<<` and longer: `--marker-size`) are read;
marker-like lines inside a fenced code block outside any conflict are text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..formats.text import BOM_BYTES, is_separator, split_cells
from .kinds import kind_of, subject_of
from .result import Prefer

MIN_MARKER = 7
SESSION_ID = "Session ID"
FIELD = "Field"  # the key column of a Metadata table


@dataclass
class Block:
    """One conflict block: its lines [start, end) in the file, and each side's lines (with their endings)."""

    start: int
    end: int
    size: int
    opening: bytes  # the `<<<<<<< ours` line and the `>>>>>>> theirs` line, as written
    closing: bytes
    ours: list[bytes] = field(default_factory=list)
    base: list[bytes] | None = None
    theirs: list[bytes] = field(default_factory=list)


def _lines(data: bytes) -> list[bytes]:
    """data's lines, each with its ending (the last may have none)."""
    lines = data.split(b"\n")
    out = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def _body(line: bytes) -> bytes:
    """A line without its ending (`\\n` or `\\r\\n`)."""
    if line.endswith(b"\n"):
        line = line[:-1]
    return line[:-1] if line.endswith(b"\r") else line


def _ending(line: bytes) -> bytes:
    """A line's ending (b"" for a last line that has none)."""
    return line[len(_body(line)) :]


def _marker(body: bytes) -> tuple[bytes, int] | None:
    """(marker character, size) of a conflict-marker line (`<`, `|`, `=`, `>` seven times or more), else None."""
    if not body or body[:1] not in (b"<", b"|", b"=", b">"):
        return None
    char = body[:1]
    size = len(body) - len(body.lstrip(char))
    if size < MIN_MARKER or (len(body) > size and body[size : size + 1] not in (b" ", b"\t")):
        return None
    return char, size


def find_blocks(lines: list[bytes]) -> list[Block]:
    """The complete conflict blocks among lines, in order (an unclosed one is text)."""
    blocks: list[Block] = []
    fence: bytes | None = None
    i = 0
    while i < len(lines):
        body = _body(lines[i])
        if i == 0 and body.startswith(BOM_BYTES):
            body = body[len(BOM_BYTES) :]
        mark = _marker(body)
        if mark is None or mark[0] != b"<" or fence is not None:
            stripped = body.lstrip()
            if fence is not None and stripped.startswith(fence):
                fence = None
            elif fence is None and stripped.startswith((b"```", b"~~~")):
                fence = stripped[:3]
            i += 1
            continue
        block = _read_block(lines, i, mark[1])
        if block is None:
            i += 1
            continue
        blocks.append(block)
        i = block.end
    return blocks


def _read_block(lines: list[bytes], start: int, size: int) -> Block | None:
    """The block opening at lines[start] with markers of size, or None when it is never closed."""
    block = Block(start, start, size, lines[start], b"")
    side = block.ours
    for j in range(start + 1, len(lines)):
        mark = _marker(_body(lines[j]))
        if mark is not None and mark[1] == size:
            if mark[0] == b"|" and side is block.ours and block.base is None:
                block.base = side = []
                continue
            if mark[0] == b"=" and side is not block.theirs:
                side = block.theirs
                continue
            if mark[0] == b">" and side is block.theirs:
                block.end, block.closing = j + 1, lines[j]
                return block
        side.append(lines[j])
    return None


def resolve_blocks(rel: str, data: bytes, prefer: Prefer, only: str | None = None) -> tuple[bytes, list[str]]:
    """The file rel (relative to the root) with the driver's conflict blocks decided by prefer (those of
    session or note `only`, else every one), and the IDs decided."""
    bom = BOM_BYTES if data.startswith(BOM_BYTES) else b""
    lines = _lines(data[len(bom) :])
    blocks = find_blocks(lines)
    index = kind_of(rel) == "index"
    subject = subject_of(rel)
    if not blocks or (not index and only is not None and only != subject):
        return data, []
    table = _Table(lines, blocks, SESSION_ID if index else FIELD)
    decision = _Decision(table, prefer)
    kept: list[list[bytes]] = []
    decided: list[str] = []
    for block in blocks:
        ids = [table.key_of(line) for line in block.ours + block.theirs]
        chosen, other = (block.ours, block.theirs) if prefer == "ours" else (block.theirs, block.ours)
        if not index or only is None:
            kept.append(decision.block(block, chosen, other))
            decided += [sid for sid in dict.fromkeys(ids) if index and sid and sid not in decided]
        elif only not in ids:
            kept.append(lines[block.start : block.end])  # another session's rows: left as they are
        else:
            mine = [x for x in chosen if table.key_of(x) == only] or [x for x in other if table.key_of(x) == only]
            rest = [[x for x in side if table.key_of(x) != only] for side in (block.ours, block.theirs)]
            kept.append(decision.block(block, mine, []) + _rebuilt(block, *rest))
            decided += [only] if only not in decided else []
    if not index and subject:
        decided = [subject]
    out = b"".join(_spliced(lines, blocks, kept, decision.swaps))
    if blocks[-1].end == len(lines) and not data.endswith(b"\n"):  # the file ended with a block and no line end
        out = out[: len(out) - len(_ending(out))]
    if kind_of(rel) == "note":
        return _retitled_note(bom + data[len(bom) :], bom + out), decided
    return bom + out, decided


def _retitled_note(before: bytes, after: bytes) -> bytes:
    """A note whose Title the decision changed, its `# heading` saying the new Title (as merge_note retitles
    a note when a merge changes its Title): a heading that said the old Title says the new one."""
    from ..formats.snapshot import Snapshot, with_text  # lazy: only a decided note reads its Title
    from .documents import retitled  # lazy: as above

    old = Snapshot(before).metadata().get("Title", "")
    doc = Snapshot(after)
    new = doc.metadata().get("Title", old)
    if new == old or doc.title != old:
        return after
    return with_text(after, retitled(doc.text(), old, new))


def _spliced(lines: list[bytes], blocks: list[Block], kept: list[list[bytes]], swaps: dict[int, bytes]) -> list[bytes]:
    """lines with each block replaced by its kept lines and each line at a swapped index by its new line; a
    blank line right after blocks that all went, between blank lines, goes with them (the driver set its blocks
    apart from the Metadata table with it)."""
    out: list[bytes] = []
    at = 0
    for n, (block, keep) in enumerate(zip(blocks, kept, strict=True)):
        out += [swaps.get(i, lines[i]) for i in range(at, block.start)]
        out += keep
        at = block.end
        run_gone = (n + 1 == len(blocks) or blocks[n + 1].start != at) and not any(_run(blocks, kept, n))
        between_blanks = at < len(lines) and not _body(lines[at]).strip() and (not out or not _body(out[-1]).strip())
        if run_gone and between_blanks:
            at += 1
    out += [swaps.get(i, lines[i]) for i in range(at, len(lines))]
    return out


def _run(blocks: list[Block], kept: list[list[bytes]], n: int) -> list[list[bytes]]:
    """What replaces each block of the run of adjacent blocks ending with block n."""
    first = n
    while first > 0 and blocks[first - 1].end == blocks[first].start:
        first -= 1
    return kept[first : n + 1]


class _Table:
    """A file's lines, and where each table row outside the conflict blocks is, by its key: the cell under
    the header named key_header (index.md's Session ID, a Metadata table's Field), else the first cell."""

    def __init__(self, lines: list[bytes], blocks: list[Block], key_header: str):
        """Read the rows of lines outside blocks."""
        self.lines = lines
        self.header = key_header
        inside = {i for b in blocks for i in range(b.start, b.end)}
        self.column = 0
        outside = [i for i in range(len(lines)) if i not in inside]
        for i in outside:
            cells = self.cells(lines[i])
            if cells and key_header in cells:
                self.column = cells.index(key_header)
                break
        self.rows: dict[str, list[int]] = {}
        for i in outside:
            key = self.key_of(lines[i])
            if key:
                self.rows.setdefault(key, []).append(i)

    @staticmethod
    def cells(line: bytes) -> list[str] | None:
        """A table line's cells, else None."""
        return split_cells(_body(line).decode("utf-8", "replace"))

    def key_of(self, line: bytes) -> str:
        """The key of a table row ("" for any other line: text, a header, a separator)."""
        cells = self.cells(line)
        if not cells or len(cells) <= self.column or is_separator(cells) or self.header in cells:
            return ""
        return cells[self.column]


class _Decision:
    """Blocks being decided: the table's lines to replace (swaps), and what takes each block's place."""

    def __init__(self, table: _Table, prefer: Prefer):
        """No decision yet."""
        self.table = table
        self.prefer = prefer
        self.swaps: dict[int, bytes] = {}

    def block(self, block: Block, chosen: list[bytes], other: list[bytes]) -> list[bytes]:
        """Decide a block's chosen lines: a row the table holds outside the blocks is decided there, every other
        line takes the block's place, followed by the other side's rows whose key neither a chosen line nor the
        table holds (prefer decides cells, never which rows exist); the lines taking the block's place."""
        table = self.table
        place: list[bytes] = []
        done: set[str] = set()
        for line in chosen:
            key = table.key_of(line)
            if key and key in table.rows and key not in done:
                self._swap(block, key, line)
            elif not key or key not in table.rows:
                place.append(line)
            elif all(_body(x) != _body(line) for x in self._table_lines(key)):
                place.append(line)  # a second version of a row on the same side: kept, never lost
            done.add(key)
        for line in other:
            key = table.key_of(line)
            if key and key not in done and key not in table.rows:
                place.append(line)
                done.add(key)
        return place

    def _table_lines(self, key: str) -> list[bytes]:
        """The table's lines of key, with the swaps made."""
        return [self.swaps.get(i, self.table.lines[i]) for i in self.table.rows[key]]

    def _swap(self, block: Block, key: str, line: bytes) -> None:
        """Put line in the table in place of key's row (the one holding ours' version, when there are several),
        keeping that row's line ending."""
        if self.prefer == "ours":
            return  # the table holds ours' values already
        table = self.table
        where = table.rows[key]
        ours = {_body(x) for x in block.ours if table.key_of(x) == key}
        target = next((i for i in where if i not in self.swaps and _body(table.lines[i]) in ours), where[0])
        self.swaps[target] = _body(line) + _ending(table.lines[target])


def _rebuilt(block: Block, ours: list[bytes], theirs: list[bytes]) -> list[bytes]:
    """What is left of a block once one session's rows were decided: the lines both sides left when they are
    the same, else a block of the same markers holding them."""
    if [_body(x) for x in ours] == [_body(x) for x in theirs]:
        return ours
    eol = _ending(block.opening) or b"\n"
    return [block.opening, *ours, b"=" * block.size + eol, *theirs, block.closing]
