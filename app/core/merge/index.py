"""Merging two (or, for git, three) versions of index.md by Session ID with a rule per column (issue 26 §2).

A sync tool's copy of index.md (or git's other side) holds rows the original lacks and cells it changed. The
merge keeps the original's bytes and adds to them: the original's rows in their order (a changed cell
rewrites only its row's line), then the rows only the other version holds, each line byte for byte, in that
version's order. A row both hold is merged cell by cell:

- Referenced By: the union of both sets, this file's order first (three-way: what either side removed stays
  removed);
- Updated At: the later one; Status: the later row's, `stale` over `active` over `idle` when equal;
- Topic, Summary, Keywords and extra columns: the later row's value; when Updated At is equal or not a time,
  the cell is open (ours' value stays, see OpenCell), except that a row `doctor --fix` guessed from a
  snapshot takes the other version's cells at an equal Updated At: one restored from an orphan snapshot (its
  Keywords are RESTORED_KEYWORDS) or caught up with a newer snapshot (its Keywords hold CAUGHT_UP_KEYWORD).
  Its Summary and Keywords were guessed or are older, and the real row has the snapshot's Updated At (a
  snapshot that syncs in before its index.md is restored or caught up on the machine it reaches, and the
  real row follows);
- Agent Name and Started At must be equal, else the two are different sessions that got one ID
  (`id_collision`): both lines are kept, never merged.

Malformed rows and Session IDs written on several lines are never merged: every distinct line of either
version is kept byte for byte. With git's common ancestor (base) a cell changed on one side only takes that
side, and a row one side deleted and the other left unchanged stays deleted. Text outside the table is kept
when both versions agree; else ours' is kept and theirs' lines that ours lacks are reported (`outside`).
Columns are matched by name; a version with a column ours lacks is not merged (`unparsed`: its cells would
be lost).

With marker_size (git's merge driver), the rows left open also get ONE standard conflict block right after
the table's last row: `<<<<<<< ours`, each open row as the table holds it (ours' value in each open cell),
`=======`, the same rows with theirs' values in those cells, `>>>>>>> theirs`. The table stays a valid table
holding ours' values, so every reader still reads every row; deciding for theirs replaces a table row by
its line in the block, deciding for ours drops the block.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..formats.clock import parse as parse_time
from ..formats.index import IndexFile, Row, format_refs, is_guessed, parse_refs
from ..formats.text import BOM, BOM_BYTES, decode, encode, escape, line_body, line_ending, split_lines, unescape
from .result import Merged, OpenCell, Prefer, conflict_block

STATUS_RANK = {"idle": 0, "active": 1, "stale": 2}  # equal Updated At: stale over active over idle
SAME_SESSION = ("Agent Name", "Started At")  # cells that tell two sessions apart: never merged


@dataclass
class _Version:
    """One version of index.md as the merge reads it: the parsed file, its rows by Session ID (malformed rows by
    their first cell): the first line of each ID, and every line of the IDs written on several lines."""

    index: IndexFile
    first: dict[str, Row] = field(default_factory=dict)
    several: dict[str, list[Row]] = field(default_factory=dict)

    @classmethod
    def read(cls, index: IndexFile) -> _Version:
        """The version's rows by Session ID."""
        version = cls(index)
        first, several = version.first, version.several
        for row in index.rows:
            had = first.setdefault(row.id, row)
            if had is not row:
                several.setdefault(row.id, [had]).append(row)
        return version

    def holds(self, sid: str) -> bool:
        """Whether the table holds a line of sid."""
        return sid in self.first

    def only(self, sid: str) -> Row | None:
        """The one well-formed row of sid, when the table holds exactly one line of it."""
        row = self.first.get(sid)
        return row if row is not None and row.problem is None and sid not in self.several else None

    def rows_of(self, sid: str) -> list[Row]:
        """Every line of sid."""
        rows = self.several.get(sid)
        if rows is not None:
            return rows
        row = self.first.get(sid)
        return [row] if row is not None else []

    def keys(self, sid: str) -> set[tuple[str, ...]]:
        """The cells of every line of sid (two lines with the same cells are one row written twice)."""
        return {row.raw_cells for row in self.rows_of(sid)}

    def line(self, row: Row) -> bytes:
        """row's line as written, with its ending."""
        span = self.index.span_of(row)
        if span is None:  # (rows read from the bytes always know where they are)
            return encode(self.index.lines[row.line])
        return self.index.data[span[0] : span[1]]

    def outside(self) -> tuple[str, str]:
        """The text before the table's header and the text after its last row (BOM left out)."""
        index = self.index
        data, (rows_at, end) = index.data, index.row_span()
        start = len(BOM_BYTES) if index.bom else 0
        return decode(data[start : rows_at - len(index.header_bytes())]), decode(data[end:])


@dataclass
class _RowMerge:
    """What merging one Session ID's two (or three) rows gave: the merged cells, the open ones, the changes."""

    cells: list[str]
    open: list[tuple[int, str, str]] = field(default_factory=list)  # (cell, ours' raw, theirs' raw)
    changed: int = 0


def _value(raw: str) -> str:
    """A raw cell's value (`\\|` unescaped)."""
    return unescape(raw) if "\\" in raw else raw


def _time(raw: str) -> datetime | None:
    """A cell read as a time, None when it is not one."""
    return parse_time(_value(raw))


def _later(ours: datetime | None, theirs: datetime | None) -> str | None:
    """Which side is later ("ours", "theirs"), None when equal or either is not a time."""
    if ours is None or theirs is None or ours == theirs:
        return None
    return "ours" if ours > theirs else "theirs"


def _refs(ours: str, theirs: str, base: str | None) -> str:
    """Referenced By merged: ours' IDs (less those theirs removed since base), then theirs' new ones."""
    mine, other = parse_refs(_value(ours)), parse_refs(_value(theirs))
    was = set(parse_refs(_value(base))) if base is not None else set()
    kept = [r for r in mine if r in other or r not in was]
    kept += [r for r in dict.fromkeys(other) if r not in mine and r not in was]
    return ours if kept == mine else escape(format_refs(kept))


def _cell(column: str, ours: str, theirs: str, base: str | None, later: str | None) -> str | None:
    """Two different cells of one column decided by its rule (base: the ancestor's cell, for Referenced By);
    None when no rule decides (an open cell)."""
    if column == "Referenced By":
        return _refs(ours, theirs, base)
    if column in SAME_SESSION:
        return ours  # (rows that do not collide: the same time written two ways)
    if column == "Updated At":
        mine, other = _time(ours), _time(theirs)
        if mine is not None and mine == other:
            return ours  # one time written two ways
        side = _later(mine, other)
        return None if side is None else (ours if side == "ours" else theirs)
    if column == "Status":
        if later is None:
            rank_o, rank_t = STATUS_RANK.get(_value(ours), -1), STATUS_RANK.get(_value(theirs), -1)
            return ours if rank_o >= rank_t else theirs
        return ours if later == "ours" else theirs
    if later is None:
        return None
    return ours if later == "ours" else theirs


def _merge_row(columns: list[str], ours: Row, theirs: Row, base: Row | None) -> _RowMerge:
    """The cells of one session's row merged column by column (three-way when base is its ancestor's row)."""
    at = {name: pos for pos, name in enumerate(columns)}
    updated = at.get("Updated At")
    later = None
    if updated is not None:
        later = _later(_time(ours.raw_cells[updated]), _time(theirs.raw_cells[updated]))
    if later is None and updated is not None:
        later = _not_guessed(at.get("Keywords"), ours, theirs)
    merged = _RowMerge(list(ours.raw_cells))
    for pos, column in enumerate(columns):
        mine, other = ours.raw_cells[pos], theirs.raw_cells[pos]
        if _value(mine) == _value(other):
            continue
        was = base.raw_cells[pos] if base is not None else None
        if was is not None and _value(was) == _value(mine):
            decided: str | None = other  # changed on their side only
        elif was is not None and _value(was) == _value(other):
            decided = mine  # changed on our side only
        else:
            decided = _cell(column, mine, other, was, later)
        if decided is None:
            merged.open.append((pos, mine, other))
        elif decided != mine:
            merged.cells[pos] = decided
            merged.changed += 1
    return merged


def _not_guessed(keywords: int | None, ours: Row, theirs: Row) -> str | None:
    """At an equal Updated At, the side that is not a row doctor guessed from a snapshot (restored from an
    orphan, or caught up: formats.index.is_guessed) ("ours", "theirs"), when the other one is; None when
    neither or both are."""
    if keywords is None:
        return None
    guessed = [is_guessed(_value(row.raw_cells[keywords])) for row in (ours, theirs)]
    if guessed == [False, True]:
        return "ours"
    return "theirs" if guessed == [True, False] else None


def _body(line: bytes) -> bytes:
    """A line's bytes without its `\\n` / `\\r\\n` ending."""
    if line.endswith(b"\n"):
        line = line[:-1]
    return line[:-1] if line.endswith(b"\r") else line


def _line(cells: list[str]) -> str:
    """A table line's body from raw cells."""
    return "| " + " | ".join(cells) + " |"


def _collides(columns: list[str], ours: Row, theirs: Row) -> bool:
    """Whether two rows of one Session ID name different sessions (Agent Name or Started At differ; one time
    written two ways is the same Started At)."""
    for pos, column in enumerate(columns):
        if column not in SAME_SESSION or len(ours.raw_cells) <= pos or len(theirs.raw_cells) <= pos:
            continue
        mine, other = _value(ours.raw_cells[pos]), _value(theirs.raw_cells[pos])
        if mine != other and (column != "Started At" or _time(mine) is None or _time(mine) != _time(other)):
            return True
    return False


def _missing_lines(ours: str, theirs: str) -> list[str]:
    """theirs' lines (without endings) that ours lacks."""
    have = {line_body(line) for line in split_lines(ours)}
    return [line_body(line) for line in split_lines(theirs) if line_body(line) not in have]


def _usable(index: IndexFile) -> bool:
    """Whether a version can be merged by rows: a table with the protocol's columns and no conflict markers."""
    return index.has_table and not index.missing_columns() and not index.conflict_lines


def _blank(data: bytes) -> bool:
    """Whether a version holds nothing (an original the sync tool renamed away, a file not there yet)."""
    return not decode(data).lstrip(BOM).strip()


def merge_index(
    ours: bytes,
    theirs: bytes,
    base: bytes | None = None,
    *,
    archived: frozenset[str] = frozenset(),
    prefer: Prefer | None = None,
    only: str | None = None,
    marker_size: int | None = None,
) -> Merged:
    """index.md merged from ours and theirs (and their common ancestor base, for git's driver).

    archived: Session IDs whose `archive/<id>/` exists (their rows only in theirs are held back);
    prefer: decide open cells with ours' or theirs' value (of session `only`, else every one);
    marker_size: leave one conflict block after the table for the open rows (git's driver) instead
    of ours' values alone."""
    if ours == theirs or _blank(theirs):
        return Merged(ours)
    mine = IndexFile(ours)
    other = IndexFile(theirs)
    if _blank(ours) and _usable(other):  # no original (rclone renamed it away): theirs' table, row by row
        start, end = other.row_span()
        mine = IndexFile(theirs[:start] + theirs[end:])
    if not _usable(mine) or not _usable(other):
        return Merged(ours, unparsed=True)
    aligned = _aligned(other, mine)
    if aligned is None:
        return Merged(ours, unparsed=True)
    ancestor = IndexFile(base) if base is not None else None
    if ancestor is not None and _usable(ancestor):
        ancestor = _aligned(ancestor, mine)
    else:
        ancestor = None  # an ancestor that cannot be read by rows: merged as two versions
    return _Merge(mine, aligned, ancestor, archived, prefer, only, marker_size).run()


def _aligned(version: IndexFile, ours: IndexFile) -> IndexFile | None:
    """version with ours' columns: itself when its header names the same ones; its rows' cells put in ours'
    order (a column it lacks empty) when ours names every column it does, once; None when it has a column
    ours lacks (its cells would be lost)."""
    if version.columns == ours.columns:
        return version
    theirs_at = {name: pos for pos, name in enumerate(version.columns)}
    if len(theirs_at) != len(version.columns) or len(set(ours.columns)) != len(ours.columns):
        return None
    if not set(theirs_at) <= set(ours.columns):
        return None
    eol = version.eol()
    lines = [line_body(decode(ours.header_bytes()).split("\n", 1)[0]) + eol, "|" + "---|" * len(ours.columns) + eol]
    for row in version.rows:
        text = version.locate(row)[0]
        if len(row.raw_cells) != len(version.columns):
            lines.append(text)  # (malformed: its cells line up with no header; kept as written)
            continue
        cells = [row.raw_cells[theirs_at[name]] if name in theirs_at else "" for name in ours.columns]
        lines.append(_line(cells) + line_ending(text))
    start, end = version.row_span()
    head = len(version.header_bytes())
    data = version.data
    return IndexFile(data[: start - head] + encode("".join(lines)) + data[end:])


class _Merge:
    """One merge of index.md: ours' rows in order, then theirs' new lines, then the block of open rows."""

    def __init__(
        self,
        ours: IndexFile,
        theirs: IndexFile,
        base: IndexFile | None,
        archived: frozenset[str],
        prefer: Prefer | None,
        only: str | None,
        marker_size: int | None,
    ):
        """Read the versions (base None: two-way)."""
        self.ours, self.theirs = _Version.read(ours), _Version.read(theirs)
        self.base = _Version.read(base) if base is not None else None
        self.columns = ours.columns
        self.archived, self.prefer, self.only, self.marker_size = archived, prefer, only, marker_size
        self.eol = ours.eol()
        self.open: list[OpenCell] = []
        self.block: tuple[list[str], list[str]] = ([], [])
        self.added = self.cells = 0
        self.collisions: list[str] = []
        self.outside: list[str] = []
        self.held_back: list[tuple[str, str]] = []

    def _base_keys(self, sid: str) -> set[tuple[str, ...]]:
        """The ancestor's lines of sid (none without an ancestor)."""
        return self.base.keys(sid) if self.base is not None else set()

    def _pair(self, sid: str) -> tuple[Row, Row] | None:
        """Ours' and theirs' one well-formed row of sid, when each version holds exactly one line of it."""
        mine, other = self.ours.only(sid), self.theirs.only(sid)
        return (mine, other) if mine is not None and other is not None else None

    def _decide(self, sid: str, row: _RowMerge) -> None:
        """Decide row's open cells by prefer (when it names this session or every one)."""
        if self.prefer is None or (self.only is not None and self.only != sid):
            return
        if self.prefer == "theirs":
            for pos, mine, other in row.open:
                row.cells[pos] = other
                row.changed += mine != other
        row.open = []

    def _merged_line(self, sid: str, mine: Row, other: Row, line: bytes) -> bytes:
        """Ours' line of sid merged with theirs' (line: ours' as written, kept as it is for a collision)."""
        if mine.raw_cells == other.raw_cells:  # (most rows: the same in both)
            return line
        if _collides(self.columns, mine, other):
            self.collisions.append(sid)
            return line
        ancestor = self.base.only(sid) if self.base is not None else None
        row = _merge_row(self.columns, mine, other, ancestor)
        self._decide(sid, row)
        self.cells += row.changed
        text = decode(line)
        body = _line(row.cells) if row.changed else line_body(text)
        if row.open:
            theirs_cells = list(row.cells)
            for pos, _, raw in row.open:
                theirs_cells[pos] = raw
            theirs_line = _line(theirs_cells)
            for pos, mine_raw, other_raw in row.open:
                self.open.append(
                    OpenCell(sid, self.columns[pos], _value(mine_raw), _value(other_raw), body, theirs_line)
                )
            self.block[0].append(body)
            self.block[1].append(theirs_line)
        return encode(body + line_ending(text)) if row.changed else line

    def _another_session(self, row: Row) -> bool:
        """Whether theirs' row (one ours does not hold) is another session under an ID of ours (not yet named)."""
        if row.problem is not None or row.id in self.collisions:
            return False
        return any(_collides(self.columns, had, row) for had in self.ours.rows_of(row.id) if had.problem is None)

    def _rows(self) -> list[bytes]:
        """The table's lines: ours' (merged, or dropped where base shows theirs deleted them), then theirs' new."""
        ours, theirs = self.ours, self.theirs
        lines: list[bytes] = []
        for row in ours.index.rows:
            line = ours.line(row)
            pair = self._pair(row.id)
            if pair is not None:
                lines.append(self._merged_line(row.id, *pair, line))
            elif not theirs.holds(row.id) and row.raw_cells in self._base_keys(row.id):
                continue  # theirs deleted the session's row, ours left it as it was
            else:
                lines.append(line)
        seen: set[tuple[str, ...]] = set()
        outside = {row.raw_cells for row in ours.index.outside}
        eol = encode(self.eol)
        for row in theirs.index.rows:
            pair = self._pair(row.id)
            if pair is not None:
                if row.id in self.collisions:
                    lines.append(_body(theirs.line(row)) + eol)
                    self.added += 1
                continue
            if row.raw_cells in seen or row.raw_cells in ours.keys(row.id) or row.raw_cells in self._base_keys(row.id):
                continue  # kept once; or ours deleted it since the ancestor
            if row.raw_cells in outside:
                continue  # ours holds it below the table, where `doctor --fix` moves it in
            seen.add(row.raw_cells)
            body = _body(theirs.line(row))
            if self._another_session(row):
                self.collisions.append(row.id)
            if row.id in self.archived and not ours.holds(row.id):
                self.held_back.append((row.id, decode(body)))
                continue
            lines.append(body + eol)
            self.added += 1
        return lines

    def _around(self) -> tuple[str, str]:
        """The text before and after the table: ours', or (three-way) theirs' where only theirs changed it."""
        mine, other = self.ours.outside(), self.theirs.outside()
        was = self.base.outside() if self.base is not None else None
        kept: list[str] = []
        for i in range(2):
            if mine[i] == other[i]:
                kept.append(mine[i])
            elif was is not None and was[i] == mine[i]:
                kept.append(other[i])
            else:
                kept.append(mine[i])
                if was is None or was[i] != other[i]:
                    self.outside += _missing_lines(mine[i], other[i])
        return kept[0], kept[1]

    def run(self) -> Merged:
        """The merged bytes and what the merge could not decide."""
        index = self.ours.index
        before, after = self._around()
        eol = encode(self.eol)
        table = [index.header_bytes(), *self._rows()]
        if self.marker_size is not None and self.block[0]:
            table.append(encode(conflict_block(self.block[0], self.block[1], self.eol, self.marker_size)))
        for i in range(len(table) - 1):  # every line but the last ends: lines follow it
            if not table[i].endswith(b"\n"):
                table[i] += eol
        last = table[-1]
        if after or index.data.endswith(b"\n") or index.row_span()[1] < len(index.data):
            if not last.endswith(b"\n"):
                table[-1] = last + eol
        elif last.endswith(b"\n"):  # ours had no final newline: nor has the merge
            table[-1] = _body(last)
        data = b"".join([BOM_BYTES if index.bom else b"", encode(before), *table, encode(after)])
        return Merged(
            data,
            open=tuple(self.open),
            added=self.added,
            cells=self.cells,
            collisions=tuple(self.collisions),
            outside=tuple(self.outside),
            held_back=tuple(self.held_back),
        )
