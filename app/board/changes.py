"""What a plan will change, in words a person reads at a glance: per file, per index row, per
snapshot section. Built only from the plan's exact before/after bytes (index.md is read with
the core's own parser), so it can never say something the plan does not do.

Plain Python (no Textual): the flows build it off the UI thread, the preview draws its lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memboard.widgets.panes import SectionDiff

from ..core.diff import changed_line_numbers
from ..core.formats.index import COLUMN_OF_FIELD, FIELDS, IndexFile, Row
from ..core.formats.layout import INDEX, NOTES
from ..core.formats.note import read_note
from ..core.formats.text import decode, encode
from ..core.plan import Change
from .loader import merge_view

DETAIL_LIMIT = 200  # above this many file changes, files are listed by name only (the exact diff has all)
SMALL_FILE = 20  # a created or deleted file of at most this many lines is shown whole
FEW_ROWS = 2000  # up to this many changed rows are read on their own, not with every row of the index


@dataclass(frozen=True)
class FieldChange:
    """One cell of a row, before and after."""

    column: str
    before: str
    after: str


@dataclass(frozen=True)
class RowChange:
    """One index row that will be added, removed or changed (with its changed cells)."""

    session_id: str
    kind: str  # "added", "removed" or "changed"
    status: str = ""
    topic: str = ""
    fields: tuple[FieldChange, ...] = ()


@dataclass
class FileChange:
    """One file step of a plan, described: its kind, its line counts and what changes inside."""

    kind: str  # create, modify, delete, move
    path: str
    dest: str | None
    added: int
    removed: int
    rows: list[RowChange] = field(default_factory=list)
    other_lines: int = 0  # index.md lines outside the table's rows that change
    sections: list[SectionDiff] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # a small created or deleted file, whole
    fields: list[FieldChange] = field(default_factory=list)  # a note's metadata cells that change
    bodies: list[str] = field(default_factory=list)  # a note's sections whose text changes (What, Why, ...)

    @property
    def target(self) -> str:
        """Where the file ends up (a move's destination)."""
        return self.dest or self.path


def line_counts(diff: str) -> tuple[int, int]:
    """Lines a unified diff adds and removes (file headers not counted)."""
    added = removed = 0
    for line in diff.split("\n"):
        if line.startswith("+") and not line.startswith("+++ "):
            added += 1
        elif line.startswith("-") and not line.startswith("--- "):
            removed += 1
    return added, removed


def _table_rows(index: IndexFile, lines: list[str]) -> list[Row]:
    """The rows of these table lines, parsed under index's own header (so cells map to the same columns)."""
    if index.header_line is None or not lines:
        return []
    head = index.lines[index.header_line] + index.lines[index.header_line + 1]
    return IndexFile(encode(head + "".join(lines))).rows


def _rows_at(index: IndexFile, numbers: list[int]) -> tuple[list[Row], int]:
    """The table rows on these line numbers of index (in file order: a few read on their own under its header,
    many picked from all its rows, read once), and how many of the lines are outside the table's rows."""
    if index.header_line is None:
        return [], len(numbers)
    first, end = index.header_line + 2, index.table_end
    table = [n for n in numbers if first <= n < end]
    outside = len(numbers) - len(table)
    if len(table) > FEW_ROWS:
        at = {row.line: row for row in index.rows}
        if all(n in at for n in table):
            return [at[n] for n in table], outside
    return _table_rows(index, [index.lines[n] for n in table]), outside


def row_changes(before: bytes | None, after: bytes | None) -> tuple[list[RowChange], int]:
    """The index rows a change adds, removes or changes (paired by Session ID; in file order, rows
    added at the end last), and how many lines outside the table's rows change."""
    old, new = IndexFile(before or b""), IndexFile(after or b"")
    # the lines the change removes and adds, matched as the exact diff matches them (linear at 100k rows)
    gone_numbers, came_numbers = changed_line_numbers(old.lines, new.lines)
    gone, gone_other = _rows_at(old, gone_numbers)
    came, came_other = _rows_at(new, came_numbers)
    pending: dict[str, list[tuple[int, Row]]] = {}
    for order, row in enumerate(gone):
        pending.setdefault(row.id, []).append((order, row))
    out: list[tuple[tuple[int, int], RowChange]] = []
    for order, row in enumerate(came):
        earlier = pending.get(row.id)
        if earlier:
            at, was = earlier.pop(0)
            out.append(((0, at), _changed(was, row)))
        else:
            out.append(((1, order), RowChange(row.id or "(row without an ID)", "added", row.status, row.get("topic"))))
    for rows in pending.values():
        out += [
            ((0, at), RowChange(r.id or "(row without an ID)", "removed", r.status, r.get("topic"))) for at, r in rows
        ]
    out.sort(key=lambda pair: pair[0])
    return [change for _, change in out], max(gone_other, came_other)


def _changed(old: Row, new: Row) -> RowChange:
    """A row changed in place: each known cell that differs (or the row's other cells, as one)."""
    names: tuple[str, ...] | list[str] = FIELDS
    same_columns = old.fields is new.fields or old.fields == new.fields
    if old.known is None and new.known is None and len(old.raw_cells) == len(new.raw_cells) and same_columns:
        differ = {i for i, (a, b) in enumerate(zip(old.raw_cells, new.raw_cells)) if a != b}
        names = [name for name in FIELDS if old.fields.get(name) in differ]  # only the cells that differ
    fields = tuple(
        FieldChange(COLUMN_OF_FIELD[name], old.get(name), new.get(name))
        for name in names
        if old.get(name) != new.get(name)
    )
    if not fields:
        fields = (FieldChange("other cells", " | ".join(old.raw_cells), " | ".join(new.raw_cells)),)
    return RowChange(new.id, "changed", new.status, new.get("topic"), fields)


def _is_snapshot(path: str) -> bool:
    """Whether path holds a session snapshot (live or archived)."""
    return path.startswith("sessions/") or path.endswith("/session.md")


def _is_note(path: str) -> bool:
    """Whether path holds a typed note."""
    return path.startswith(f"{NOTES}/") and path.endswith(".md")


def note_changes(before: bytes, after: bytes) -> tuple[list[FieldChange], list[str]]:
    """A note's metadata cells that change (`Status  active → superseded`) and the sections whose text does."""
    old, new = read_note(before), read_note(after)
    was, now = old.cells(), new.cells()
    fields = [FieldChange(name, was[name], now[name]) for name in was if was[name] != now.get(name)]
    old_bodies, new_bodies = old.bodies(), new.bodies()
    return fields, [name for name in old_bodies if old_bodies[name] != new_bodies.get(name)]


def _text(data: bytes | None) -> str:
    """File bytes as text for reading (BOM dropped, undecodable bytes kept as they decode)."""
    return decode(data or b"").lstrip("\ufeff")


def describe_change(ch: Change, diff: str, detailed: bool = True) -> FileChange:
    """One change described; detailed adds the snapshot sections and small files' lines."""
    added, removed = line_counts(diff)
    out = FileChange(ch.kind, ch.path, ch.dest, added, removed)
    before, after = ch.before, ch.after if ch.kind != "move" or ch.after is not None else ch.before
    if ch.kind == "delete":
        after = None
    if INDEX in (ch.path, ch.dest) and ch.kind in ("create", "modify"):
        out.rows, out.other_lines = row_changes(before, after)
    elif not detailed or before == after:
        return out
    elif _is_note(out.target) and ch.kind in ("modify", "move") and before is not None and after is not None:
        out.fields, out.bodies = note_changes(before, after)
    elif _is_snapshot(out.target) and ch.kind in ("create", "modify", "move"):
        out.sections = merge_view(_text(before), _text(after)).sections
    elif ch.kind in ("create", "delete"):
        text = _text(after if ch.kind == "create" else before)
        lines = text.splitlines()
        if len(lines) <= SMALL_FILE:
            out.lines = lines
    return out


def describe(changes: list[Change], diffs: list[str]) -> list[FileChange]:
    """Every change of a plan described, in the order it will be written (diffs: each change's own)."""
    detailed = len(changes) <= DETAIL_LIMIT
    return [describe_change(ch, diff, detailed) for ch, diff in zip(changes, diffs)]


def counts(files: Sequence[FileChange] | Sequence[Change]) -> str:
    """The files (described, or a plan's changes) in one line: how many and of which kind
    (`3 file changes: 1 created, 1 moved, 1 changed`)."""
    if not files:
        return "No file changes: nothing will be written."
    first: dict[tuple[str, str], str] = {}  # each file once, by its first step's kind (index.md changed twice: one)
    for f in files:
        first.setdefault((getattr(f, "tree", ""), f.path), f.kind)
    kinds = {"create": "created", "modify": "changed", "move": "moved", "delete": "deleted"}
    tally = {word: sum(1 for k in first.values() if k == kind) for kind, word in kinds.items()}
    noun = "file change" if len(first) == 1 else "file changes"
    parts = [f"{n:,} {word}" for word, n in tally.items() if n]
    return f"{len(first):,} {noun}: {', '.join(parts)}"


def row_counts(files: list[FileChange]) -> str:
    """The index rows in one line (`index.md: 2 rows deleted, 1 row changed`), "" when none change."""
    rows = [r for f in files for r in f.rows]
    if not rows:
        return ""
    words = {"removed": "deleted", "added": "added", "changed": "changed"}
    parts = []
    for kind, word in words.items():
        n = sum(1 for r in rows if r.kind == kind)
        if n:
            parts.append(f"{n:,} {'row' if n == 1 else 'rows'} {word}")
    return f"{INDEX}: {', '.join(parts)}"
