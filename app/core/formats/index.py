"""The board file `index.md`: a line-based reader and a byte-preserving editor.

Only the lines of rows that change are rewritten. Text around the table, blank lines,
malformed rows, unknown columns, CRLF endings, a UTF-8 BOM and bytes that are not valid
UTF-8 all survive unchanged. (mistletoe is not used here: a line scan is many times faster
on a large index and keeps the hook path free of heavy imports.)
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from typing import NamedTuple

from ..errors import Refused
from . import collector
from .ids import DAYS, ID_SHAPE_RE, MAX_ID_LENGTH, is_valid_id, real_date
from .markers import has_block_marker, marker_lines, marker_refusal
from .text import (
    BOM,
    BOM_BYTES,
    decode,
    encode,
    escape,
    is_separator,
    line_body,
    line_ending,
    split_cells,
    split_lines,
    unescape,
)

COLUMNS = (
    "Session ID",
    "Agent Name",
    "Topic",
    "Summary",
    "Keywords",
    "Status",
    "Referenced By",
    "Started At",
    "Updated At",
)
FIELDS = (
    "id",
    "agent",
    "topic",
    "summary",
    "keywords",
    "status",
    "referenced_by",
    "started_at",
    "updated_at",
)
FIELD_OF_COLUMN = dict(zip(COLUMNS, FIELDS))
COLUMN_OF_FIELD = dict(zip(FIELDS, COLUMNS))
STATUSES = ("idle", "active", "stale")
# every character str.strip() removes (str.isspace), except the newline that ends a line
WHITESPACE = (
    "\t\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)
_WS_BYTES = b"(?:" + b"|".join(re.escape(ch.encode("utf-8")) for ch in WHITESPACE) + b")"
# in UTF-8 bytes: a newline followed by a line that does not start with `|` once stripped (not a table line)
NOT_TABLE_LINE_RE = re.compile(b"\n(?!" + _WS_BYTES + b"*\\|)")
NO_PIPE_FIRST_RE = re.compile(b"\n[^|]")  # cheap pre-filter: most table lines start with `|` right away
NO_REFS = "-"
# the Keywords of a row `doctor --fix` restored from an orphan snapshot's Metadata: its Summary and Keywords are
# guesses, so at an equal Updated At the merge of two versions takes the other version's cells (core.merge.index)
RESTORED_KEYWORDS = "restored-from-snapshot, session-snapshot"
# the keyword `doctor --fix` adds to a row it caught up with a newer snapshot (row_behind_snapshot): its Updated At
# is the snapshot's but its Summary and Keywords are older, so at an equal Updated At it yields the same way
CAUGHT_UP_KEYWORD = "caught-up-from-snapshot"


def with_keyword(keywords: str, word: str) -> str:
    """A Keywords cell with word added at its end (unchanged when it holds word already)."""
    words = [w.strip() for w in keywords.split(",") if w.strip() and w.strip() != NO_REFS]
    return keywords if word in words else ", ".join([*words, word])


def is_guessed(keywords: str) -> bool:
    """Whether a row's Keywords say `doctor --fix` guessed its cells from a snapshot (restored or caught up)."""
    return keywords == RESTORED_KEYWORDS or CAUGHT_UP_KEYWORD in (w.strip() for w in keywords.split(","))


OUTSIDE = (
    "is outside the table (after a line that ends it), where Markdown reads no row: "
    "`memboard doctor --fix` moves it into the table"
)
AROUND = 500  # at most this many lines outside a Rewrite's region (see diff.rewritten)


def parse_refs(value: str) -> list[str]:
    """Referenced By as a list of IDs (`-` or empty means none)."""
    if value == NO_REFS:  # (most rows: organize asks 85k of them at 100k rows)
        return []
    value = value.strip()
    if value in ("", NO_REFS):
        return []
    return [part.strip() for part in value.split(",") if part.strip()]


def format_refs(ids: list[str]) -> str:
    """Referenced By text for a list of IDs."""
    return ", ".join(ids) if ids else NO_REFS


@dataclass(slots=True, eq=False)
class Row:
    """One table line of the index: where it is, its raw cells and its known fields.

    A field's value is read from its cell when asked for (`\\|` unescaped): a large index makes
    100k rows, and most callers ask for a few fields of each. `fields` maps each known field
    to its cell (shared by every row of one header); `known` holds the values of a row read
    cell by cell (escaped pipes, or cells that do not line up with the header). A lean row (IndexFile's
    `lean`) keeps no cells: they are split again from its line in `source` when asked for (a row holding
    nine strings costs ~960 bytes, 1 GB at 1M rows). Rows compare and hash by line, cells and problem.
    """

    line: int
    kept: tuple[str, ...] | None  # the raw cells (None: a lean row, see raw_cells)
    fields: dict[str, int] = field(repr=False)
    problem: str | None = None
    known: dict[str, str] | None = field(default=None, repr=False)
    offset: int = field(default=-1, repr=False)  # where its line starts in the file's bytes (-1: not known)
    id: str = ""  # the Session ID cell
    status: str = ""  # the Status cell
    source: bytes = field(default=b"", repr=False)  # a lean row's file bytes, its line starting at `at`
    at: int = field(default=-1, repr=False)

    def __eq__(self, other: object) -> bool:
        """Same line, same cells, same problem."""
        if not isinstance(other, Row):
            return NotImplemented
        return (self.line, self.raw_cells, self.problem) == (other.line, other.raw_cells, other.problem)

    def __hash__(self) -> int:
        """The hash of line, cells and problem."""
        return hash((self.line, self.raw_cells, self.problem))

    @property
    def raw_cells(self) -> tuple[str, ...]:
        """The row's cells as written (`\\|` kept), split from its line again for a lean row."""
        kept = self.kept
        return kept if kept is not None else lean_cells(self.source, self.at)

    @property
    def values(self) -> dict[str, str]:
        """Every known field's value (a new dict)."""
        if self.known is not None:
            return dict(self.known)
        cells = self.raw_cells
        return {name: unescape(cells[pos]) for name, pos in self.fields.items()}

    @property
    def refs(self) -> list[str]:
        """Referenced By as a list."""
        return parse_refs(self.get("referenced_by"))

    def get(self, name: str, default: str = "") -> str:
        """A known field's value."""
        if self.known is not None:
            return self.known.get(name, default)
        pos = self.fields.get(name)
        if pos is None:
            return default
        kept = self.kept
        if kept is None:
            return lean_cell(self.source, self.at, pos)
        raw = kept[pos]
        return unescape(raw) if "\\" in raw else raw


def _lean_line(source: bytes, at: int) -> bytes:
    """The bytes of the line that starts at `at` (its ending included: the reader's line)."""
    nl = source.find(b"\n", at)
    return source[at : len(source) if nl < 0 else nl + 1]


def lean_cells(source: bytes, at: int) -> tuple[str, ...]:
    """A lean row's cells, split from its line as IndexFile's reader split them (one of its two fast ways: a row
    is lean only when one of them read it)."""
    line = _lean_line(source, at).decode("utf-8", "surrogateescape")
    strip = str.strip
    if "\\" not in line:
        parts = line.split("|")
        if not parts[-1].strip():
            parts.pop()
        del parts[0]
        return tuple(map(strip, parts))
    parts = line.replace("\\|", "\0").split("|")
    if not parts[-1].strip():
        parts.pop()
    del parts[0]
    return tuple("\n".join(map(strip, parts)).replace("\0", "\\|").split("\n"))


def lean_cell(source: bytes, at: int, pos: int) -> str:
    """The value of a lean row's cell at pos (its cells unescaped), split off its line alone when the line holds no
    backslash: `|` and `\\` are single bytes in UTF-8, never part of another character."""
    line = _lean_line(source, at)
    if b"\\" not in line:
        return line.split(b"|", pos + 2)[pos + 1].decode("utf-8", "surrogateescape").strip()
    # (lean_cells' second way, on this cell alone: the escaped pipes set aside as NUL, which no such line holds)
    piece = line.replace(b"\\|", b"\0").split(b"|", pos + 2)[pos + 1]
    raw = piece.decode("utf-8", "surrogateescape").strip().replace("\0", "\\|")
    return unescape(raw) if "\\" in raw else raw


def _field_positions(columns: list[str]) -> dict[str, int]:
    """Each known field's cell in a header's columns (the last one where a column repeats)."""
    return {FIELD_OF_COLUMN[c]: pos for pos, c in enumerate(columns) if c in FIELD_OF_COLUMN}


def row_problem(sid: str, status: str | None) -> str | None:
    """Why a row whose cells line up with the header cannot be used (its ID or Status), or None."""
    if not sid.isascii():
        return "Session ID has characters outside ASCII (fullwidth or other Unicode digits?); IDs are ASCII"
    if not is_valid_id(sid):
        return "Session ID is not of the form YYYY-MM-DD-HHMM-agent-name"
    if status not in STATUSES:
        return f"Status {status!r} is not idle, active or stale"
    return None


def _irregular_row(
    width: int, positions: list[tuple[int, str]], fields: dict[str, int], i: int, line: str, offset: int
) -> Row:
    """A row read cell by cell: escaped pipes, or cells that do not line up with the header (width cells;
    positions and fields: the header's known columns, see IndexFile)."""
    cells = split_cells(line_body(line)) or []
    values = {}
    for pos, name in positions:
        if pos < len(cells):
            raw = cells[pos]
            values[name] = unescape(raw) if "\\" in raw else raw
    if len(cells) != width:
        problem: str | None = f"has {len(cells)} cells, the header has {width}"
    else:
        problem = row_problem(values.get("id", ""), values.get("status"))
    return Row(i, tuple(cells), fields, problem, values, offset, values.get("id", ""), values.get("status", ""))


class IndexFile:
    """A parsed `index.md`: the original lines plus the board table's rows.

    Parsing is lazy where it can be: the table's header and extent are found by scanning the
    text, while the list of lines and the rows are built on first use. A SessionStart append
    and an ID lookup therefore never split or parse a large index line by line.
    """

    def __init__(self, data: bytes, lean: bool = False, grown_from: IndexFile | None = None):
        """Parse index bytes; never fails, problems are recorded on rows (lean: `rows` are lean rows, see Row).
        grown_from: an IndexFile of a prefix of data (rows appended to it); see _grown."""
        self.data = data
        self.lean = lean
        self.bom = data.startswith(BOM_BYTES)
        self._start = len(BOM_BYTES) if self.bom else 0  # byte offset where the text begins
        self._text: str | None = None
        self._lines: list[str] | None = None
        self.header_line: int | None = None
        self.columns: list[str] = []
        self._rows: list[Row] | None = None
        self._ids: frozenset[str] | None = None
        self._unmentioned: set[str] = set()  # texts a search found in no line of the table
        self._count: int | None = None  # the number of table rows, once each_row has read them all
        self._table_end: int | None = None
        self.problems: list[str] = []
        # byte offsets (in data) of the header line, the first row line and the end of the table
        self._header_off = self._rows_off = self._end_off = 0
        self.grown = grown_from is not None and self._grown(grown_from)  # (only the appended bytes were scanned)
        if not self.grown:
            self._parse()

    @classmethod
    def empty(cls) -> IndexFile:
        """An index file that does not exist yet."""
        return cls(b"")

    @property
    def text(self) -> str:
        """The file's text without the BOM (decoded on first use)."""
        if self._text is None:
            self._text = decode(self.data[self._start :])
        return self._text

    @property
    def lines(self) -> list[str]:
        """The file's lines with their endings (split on first use)."""
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    def _parse(self) -> None:
        """Find the board table (outside code fences) and note its extent, working on the bytes.

        Newlines and `|` are single bytes in UTF-8 and never part of another character, so
        lines can be found in the bytes; each line before the header is decoded on its own.
        """
        fence: str | None = None
        data = self.data
        size = len(data)
        pos = self._start
        i = 0
        while pos < size:
            nl = data.find(b"\n", pos)
            end = size if nl < 0 else nl + 1
            body = line_body(decode(data[pos:end]))
            stripped = body.lstrip()
            if fence:
                if stripped.startswith(fence):
                    fence = None
            elif stripped.startswith("```") or stripped.startswith("~~~"):
                fence = stripped[:3]
            elif stripped.startswith("|") and end < size:
                cells = split_cells(body)
                if cells and "Session ID" in [unescape(c) for c in cells]:
                    nl2 = data.find(b"\n", end)
                    end2 = size if nl2 < 0 else nl2 + 1
                    sep = split_cells(line_body(decode(data[end:end2])))
                    if sep is not None and is_separator(sep):
                        self.header_line = i
                        self.columns = [unescape(c) for c in cells]
                        self._header_off = pos
                        self._read_rows(end2)
                        return
            pos = end
            i += 1
        self._table_end = i
        self._end_off = size

    def _grown(self, before: IndexFile) -> bool:
        """Take the table's header and where its rows start from before, the IndexFile of a prefix of this file, and
        look for the table's end from where before's ended; whether it could (else nothing is set), which also means
        every row of before is a row here, unchanged. The same as _parse: the lines before the header are the same
        bytes, every line of the prefix that was a table line still is (its test looks no further than its `|`), and
        the line that ended the table is tested again (whitespace up to the prefix's end may go on with a `|`). Not
        when the table ran to the prefix's end on an unended line (the added bytes go on with that row)."""
        old, data = before.data, self.data
        if before.header_line is None or before.lean != self.lean or len(data) <= len(old) or not data.startswith(old):
            return False
        if before._end_off == len(old) and not old.endswith(b"\n"):
            return False
        self.header_line, self.columns, self._header_off = before.header_line, list(before.columns), before._header_off
        self._read_rows(before._rows_off, before._end_off - 1)
        return True

    def _read_rows(self, offset: int, scanned: int = 0) -> None:
        """Note the table's extent from its first row line at byte `offset` (rows are read on first use); scanned:
        the lines that start before it are known to be table lines (_grown's)."""
        cols = self.columns
        missing = [c for c in COLUMNS if c not in cols]
        if missing:
            self.problems.append("index table lacks column(s): " + ", ".join(missing))
        data = self.data
        size = len(data)
        self._rows_off = offset
        if offset >= size:
            end = size
        else:
            # the first line that does not start with `|` once stripped (split_cells' own test)
            end = size
            pos = max(offset - 1, scanned)
            while True:
                m = NO_PIPE_FIRST_RE.search(data, pos)
                if m is None:
                    break
                if NOT_TABLE_LINE_RE.match(data, m.start()):
                    end = m.start() + 1
                    break
                pos = m.start() + 1
        self._end_off = end

    @property
    def table_end(self) -> int:
        """The number of the first line after the table (counted on first use: appends need only offsets)."""
        if self._table_end is None:  # set by _parse when there is no table
            data = self.data
            start, end = self._rows_off, self._end_off
            count = data.count(b"\n", start, end)
            if end == len(data) and end > start and not data.endswith(b"\n"):
                count += 1
            self._table_end = (self.header_line or 0) + 2 + count
        return self._table_end

    def header_bytes(self) -> bytes:
        """The table's header and separator lines as they are in the file (b"" without a table)."""
        return self.data[self._header_off : self._rows_off] if self.header_line is not None else b""

    def row_span(self) -> tuple[int, int]:
        """Byte offsets in data where the table's row lines start and end ((0, 0) without a table)."""
        return (self._rows_off, self._end_off) if self.header_line is not None else (0, 0)

    @cached_property
    def _positions(self) -> list[tuple[int, str]]:
        """(cell position, field name) of every known column of the header."""
        return [(pos, FIELD_OF_COLUMN[c]) for pos, c in enumerate(self.columns) if c in FIELD_OF_COLUMN]

    def column_of(self, name: str) -> int:
        """The cell of a known field an edit writes (its first column of that name)."""
        at = self._columns_at.get(name)
        if at is None:
            raise ValueError(f"{COLUMN_OF_FIELD[name]} is not a column of this table")
        return at

    @cached_property
    def _columns_at(self) -> dict[str, int]:
        """Each known field's first column (where edits write it, as `columns.index` finds it)."""
        out: dict[str, int] = {}
        for pos, c in enumerate(self.columns):
            if c in FIELD_OF_COLUMN:
                out.setdefault(FIELD_OF_COLUMN[c], pos)
        return out

    @cached_property
    def _fields(self) -> dict[str, int]:
        """Each known field's cell (shared by every row)."""
        return _field_positions(self.columns)

    @cached_property
    def _reader(self) -> Callable[[bytes, int, int, int], Iterator[Row]]:
        """How the rows of this table are read (see _make_reader), each keeping its cells."""
        return self._make_reader(lean=False)

    @cached_property
    def _lean_reader(self) -> Callable[[bytes, int, int, int], Iterator[Row]]:
        """How the rows of a lean IndexFile are read: a row either fast way reads keeps no cells (see Row)."""
        return self._make_reader(lean=True)

    def _make_reader(self, lean: bool) -> Callable[[bytes, int, int, int], Iterator[Row]]:
        """How the rows of this table are read: `reader(data, start, end, number)` yields the Row of each line
        of data[start:end], the first one being line `number`, each line decoded on its own (no list of every
        line of the file is made). Most rows have no escaped pipe and as many cells as the header, so their
        cells are the pieces between pipes (split_cells' result), read in one loop; any other row is read cell
        by cell. The reader holds no reference to the file: an IndexFile and its rows are freed as soon as no
        one holds them, without waiting for the cyclic collector."""
        fields, width = self._fields, len(self.columns) + 1
        irregular = partial(_irregular_row, len(self.columns), self._positions, fields)
        fast = "id" in fields and "status" in fields
        at_id, at_status = fields.get("id", 0), fields.get("status", 0)
        strip, id_match, day = str.strip, ID_SHAPE_RE.fullmatch, DAYS.get  # (a usual row's checks, inline: see below)
        usual_status = {status: status for status in STATUSES}.get

        def read(data: bytes, pos: int, end: int, number: int) -> Iterator[Row]:
            while pos < end:
                nl = data.find(b"\n", pos, end)
                stop = end if nl < 0 else nl + 1
                line = data[pos:stop].decode("utf-8", "surrogateescape")  # (text.decode: 100k calls)
                row = None
                if fast and "\\" not in line:
                    parts = line.split("|")
                    if not parts[-1].strip():
                        parts.pop()
                    if len(parts) == width:
                        del parts[0]
                        cells = tuple(map(strip, parts))
                        sid, status = cells[at_id], cells[at_status]
                        usual = status in STATUSES and len(sid) <= MAX_ID_LENGTH and id_match(sid) is not None
                        problem = None if usual and (day(sid[:10]) or real_date(sid[:10])) else row_problem(sid, status)
                        if lean:  # (the status one of STATUSES' strings: not one per row either)
                            row = Row(
                                number, None, fields, problem, None, pos, sid, usual_status(status, status), data, pos
                            )
                        else:
                            row = Row(number, cells, fields, problem, None, pos, sid, status)
                elif fast and "\\\\" not in line and "\0" not in line:
                    # every backslash stands alone, so each `\|` is an escaped pipe and every other `|` splits:
                    # split with the escaped ones set aside (NUL stands in for them), then put them back (in the
                    # cells joined by `\n`, which no cell holds: three calls instead of one per cell)
                    parts = line.replace("\\|", "\0").split("|")
                    if not parts[-1].strip():
                        parts.pop()
                    if len(parts) == width:
                        del parts[0]
                        cells = tuple("\n".join(map(strip, parts)).replace("\0", "\\|").split("\n"))
                        sid, status = cells[at_id], cells[at_status]
                        if "\\" not in sid and "\\" not in status:  # (else the row's id is its unescaped cell)
                            usual = status in STATUSES and len(sid) <= MAX_ID_LENGTH and id_match(sid) is not None
                            problem = (
                                None if usual and (day(sid[:10]) or real_date(sid[:10])) else row_problem(sid, status)
                            )
                            if lean:
                                row = Row(
                                    number,
                                    None,
                                    fields,
                                    problem,
                                    None,
                                    pos,
                                    sid,
                                    usual_status(status, status),
                                    data,
                                    pos,
                                )
                            else:
                                row = Row(number, cells, fields, problem, None, pos, sid, status)
                yield row or irregular(number, line, pos)
                pos, number = stop, number + 1

        return read

    @property
    def rows(self) -> list[Row]:
        """Every table row in file order, parsed on first use (appending needs none of them)."""
        if self._rows is None:
            if self.header_line is None:
                self._rows = []
            else:
                read = self._lean_reader if self.lean else self._reader
                with collector.paused():  # 100k rows and their cells hold no cycles: no passes over them as they grow
                    self._rows = list(read(self.data, self._rows_off, self._end_off, self.header_line + 2))
        return self._rows

    @cached_property
    def outside(self) -> list[Row]:
        """Rows in the protocol's shape (the table's cells, a valid Session ID) on lines outside the table and
        outside code fences: an agent appended its row below text under the table, where Markdown no longer
        reads it as a row. Each has OUTSIDE as its problem; none is in `rows`, and every write keeps its line."""
        if self.header_line is None:
            return []
        data = self.data
        out: list[Row] = []
        for lo, hi in ((self._start, self._header_off), (self._end_off, len(data))):
            if data.find(b"|", lo, hi) < 0:  # (most files: no pipe outside the table at all)
                continue
            fence: str | None = None
            run: list[Row] = []  # the rows of a run of `|` lines; a run with a separator line is a table of its own
            table = False
            pos = lo
            while pos < hi:
                nl = data.find(b"\n", pos, hi)
                stop = hi if nl < 0 else nl + 1
                body = line_body(decode(data[pos:stop]))
                stripped = body.lstrip()
                if not fence and stripped.startswith("|"):
                    cells = split_cells(body)
                    table = table or (cells is not None and is_separator(cells))
                    row = next(self._reader(data, pos, stop, data.count(b"\n", self._start, pos)))
                    if len(row.raw_cells) == len(self.columns) and is_valid_id(row.id):
                        run.append(replace(row, problem=OUTSIDE))
                else:
                    out += [] if table else run
                    run, table = [], False
                    if fence:
                        if stripped.startswith(fence):
                            fence = None
                    elif stripped.startswith("```") or stripped.startswith("~~~"):
                        fence = stripped[:3]
                pos = stop
            out += [] if table else run
        return out

    def iter_rows(self) -> Iterator[Row]:
        """Every table row in file order, read one line at a time and kept by no one (a large index
        streams through in little memory); the same rows as `rows`."""
        if self._rows is not None or self.header_line is None:
            return iter(self.rows)
        return self._read_rows_from_bytes()

    def each_row(self) -> Iterator[Row]:
        """Every table row in file order, as iter_rows (kept by no one), and once the last is read the table's
        Session IDs and its number of rows are known (ids, row_count) without a list of the rows: a pass over
        1M rows that keeps only what it decides holds a few hundred MB less."""
        if self._rows is not None or self.header_line is None:
            yield from self.rows
            return
        ids: set[str] = set()
        add = ids.add
        count = 0
        for row in self._read_rows_from_bytes():
            add(row.id)
            count += 1
            yield row
        self._ids = frozenset(ids)
        self._count = count

    def row_count(self) -> int:
        """The number of table rows (counted by each_row when it read them all, else from the rows)."""
        if self._rows is None and self._count is not None:
            return self._count
        return len(self.rows)

    def _read_rows_from_bytes(self) -> Iterator[Row]:
        """The table's rows, each line decoded on its own (no list of every line of the file is made)."""
        return self._reader(self.data, self._rows_off, self._end_off, (self.header_line or 0) + 2)

    def line_reader(self) -> tuple[dict[str, int], Callable[[bytes, int, int, int], Iterator[Row]]]:
        """For a reader of the table's lines themselves (`list --json`): each known field's cell, and the rows'
        reader (see _reader): reader(data, pos, stop, number) yields the Row of each line between those bytes."""
        return self._fields, self._reader

    def span_of(self, row: Row) -> tuple[int, int] | None:
        """The byte offsets where row's line starts and ends (its ending included), when the row knows them."""
        if row.offset < 0:
            return None
        nl = self.data.find(b"\n", row.offset)
        return row.offset, len(self.data) if nl < 0 else nl + 1

    def locate(self, row: Row) -> tuple[str, tuple[int, int] | None]:
        """The text of row's line (with its ending) and, when the row knows where it is, the byte offsets
        where that line starts and ends (read from those bytes: no list of every line is made)."""
        span = self.span_of(row)
        if span is None:
            return self.lines[row.line], None
        return decode(self.data[span[0] : span[1]]), span

    # -- queries -----------------------------------------------------------------------

    @property
    def has_table(self) -> bool:
        """Whether the file holds the board table."""
        return self.header_line is not None

    def find(self, session_id: str) -> list[Row]:
        """All rows whose Session ID cell equals session_id."""
        return list(self._matching(session_id, numbered=True))

    def holds_id(self, session_id: str) -> bool:
        """Whether a table row's Session ID cell equals session_id (find without counting line numbers, stopping
        at the first: a new Session ID is checked against the table in one substring search, found or not)."""
        return next(self._matching(session_id, numbered=False), None) is not None

    def _matching(self, session_id: str, numbered: bool) -> Iterator[Row]:
        """The rows whose Session ID cell equals session_id, in order (numbered: with their line numbers; else
        numbered 0, no lines counted)."""
        if (
            self._rows is not None
            or self.header_line is None
            or not session_id
            or "|" in session_id
            or "\n" in session_id
        ):
            yield from (r for r in self.rows if r.id == session_id)
            return
        # rows not parsed yet: only table lines whose bytes contain the ID at all can hold it
        data = self.data
        key = encode(session_id)
        start, end = self._rows_off, self._end_off
        # line numbers are counted on from the previous line that held the ID's text, not from the table's start:
        # one pass over the table however many cells hold that text (an ID quoted in 10% of 100k rows)
        number, counted = self.header_line + 2, start
        at = data.find(key, start, end)
        if at < 0:
            self._unmentioned.add(session_id)
        while at >= 0:
            line_start = data.rfind(b"\n", start, at) + 1 or start
            nl = data.find(b"\n", at, end)
            line_end = end if nl < 0 else nl + 1
            if numbered:
                number += data.count(b"\n", counted, line_start)
                counted = line_start
            row = next(self._reader(data, line_start, line_end, number if numbered else 0))
            if row.id == session_id:
                yield row
            at = data.find(key, line_end, end)

    def unmentioned(self, text: str) -> bool:
        """Whether a search already made on this index (holds_id, find) found text in no line of its table: no row
        mentions it (False when no such search was made)."""
        return text in self._unmentioned

    def rows_mentioning(self, text: str) -> list[Row]:
        """The table rows whose line holds text anywhere (a substring search, then those lines read alone)."""
        if self._rows is not None or self.header_line is None or not text or "\n" in text:
            return [r for r in self.rows if text and text in "|".join(r.raw_cells)]
        data = self.data
        key = encode(text)
        start, end = self._rows_off, self._end_off
        out = []
        at = data.find(key, start, end)
        while at >= 0:
            line_start = data.rfind(b"\n", start, at) + 1 or start
            nl = data.find(b"\n", at, end)
            line_end = end if nl < 0 else nl + 1
            out.append(next(self._reader(data, line_start, line_end, 0)))
            at = data.find(key, line_end, end)
        return out

    def ids(self) -> frozenset[str]:
        """Every Session ID in the table (including those of malformed rows; worked out once)."""
        if self._ids is None:
            self._ids = frozenset(r.id for r in self.rows)
        return self._ids

    def _ending_before(self, offset: int) -> str:
        """The ending of the line that ends at byte offset (exclusive)."""
        data = self.data
        if offset > self._start and data[offset - 1] == 0x0A:
            return "\r\n" if offset - 1 > self._start and data[offset - 2] == 0x0D else "\n"
        return ""

    def eol(self) -> str:
        """The line ending new lines should use: the table's own, else the file's first."""
        data = self.data
        candidates = []
        if self.has_table:
            # the table's last line, then the header line
            candidates = [
                self._ending_before(self._end_off),
                self._ending_before(data.find(b"\n", self._header_off) + 1),
            ]
        if len(data) > self._start:
            first = data.find(b"\n", self._start)
            candidates.append(self._ending_before(first + 1) if first >= 0 else "")
        for ending in candidates:
            if ending:
                return ending
        return "\n"

    def missing_columns(self) -> list[str]:
        """Protocol columns the board table lacks (none when there is no table yet)."""
        return [c for c in COLUMNS if c not in self.columns] if self.has_table else []

    @cached_property
    def conflict_lines(self) -> list[int]:
        """Line numbers (from 1) of merge-conflict markers a git merge left in the file (usually none).

        A block needs a `<<<<<<<` or `>>>>>>>` line, which does not start with `|` and so lies
        before the table's rows or after them: only that text is scanned first (a large
        index's rows cost nothing), and the whole file only when it holds a conflict.
        """
        data = self.data
        if (
            self.header_line is None
            or has_block_marker(data[: self._rows_off])
            or has_block_marker(data[self._end_off :])
        ):
            return marker_lines(data)
        return []

    def refuse_conflicts(self) -> None:
        """Raise Refused while the file holds merge-conflict markers: it is not a table to write on."""
        if self.conflict_lines:
            raise Refused(marker_refusal(self.conflict_lines), says_written=True)

    def edit(self) -> IndexEdit:
        """Start an edit of this file; refused when it holds conflict markers or its table lacks protocol columns."""
        self.refuse_conflicts()
        missing = self.missing_columns()
        if missing:
            raise Refused(
                f"index.md's table lacks the column(s) {', '.join(missing)}; add them to its header before changing it"
            )
        return IndexEdit(self)


class Rewrite(NamedTuple):
    """A file's new lines as its old ones with some lines of one region replaced or removed, every other line
    kept in place, and the writer's word that the region's lines, old and new, are pairwise distinct and found
    nowhere else in either file (see diff.rewritten, which makes the patch from it)."""

    lo: int  # the region's first line
    hi: int  # the line after its last
    lines: dict[int, str]  # by line number: its new text (with its ending), or "" when it is removed
    # by line number: where each line of `lines` starts in the old bytes, when the writer knows (see diff.rewrite_pieces)
    starts: dict[int, int | None] | None = None

    def new_line(self, line: int) -> bytes | None:
        """The new bytes of a line the rewrite replaces (None: it removes the line)."""
        text = self.lines[line]
        return text.encode("utf-8", "surrogateescape") if text else None


class IndexEdit:
    """Accumulates row replacements, deletions and appends, then renders the new bytes."""

    def __init__(self, index: IndexFile):
        """Begin an edit of index."""
        self.index = index
        self.replace: dict[int, str] = {}
        self.appended: list[str] = []
        self.cells: dict[int, list[str]] = {}  # pending cells of rows already changed in this edit
        self.once: set[int] = set()  # lines set_each changed with once=True (no pending cells kept)
        # where each replaced line starts in the bytes, when known (its end is the next newline: an int per line, not
        # a pair, at 666k lines changed of 1M)
        self.spans: dict[int, int | None] = {}
        self.ids_kept = True  # no rewritten line reads another Session ID than its row had (see rewrite)

    def _render(self, raw_cells: list[str], ending: str) -> str:
        """A table line from raw cells."""
        return "| " + " | ".join(raw_cells) + " |" + ending

    def set_fields(self, row: Row, changes: dict[str, str]) -> IndexEdit:
        """Rewrite row's line with the given field changes; other cells keep their raw text."""
        return self.set_each([row], changes)

    def set_each(self, rows: list[Row], changes: dict[str, str], once: bool = False) -> IndexEdit:
        """set_fields for each of rows, in one pass: the columns and their new cells are worked out once
        (organize marks 40k rows stale). once: the edit sets no field of these rows again, so their pending cells
        are not kept (400k rows marked stale at 1M rows hold their lines' cells otherwise); setting one again
        is refused (ValueError), as it would start from its old cells."""
        if not rows:
            return self
        index = self.index
        columns = index._columns_at
        cells_for = [  # each changed column, its value and the cell that says it (column_of: the refusal)
            (columns[name] if name in columns else index.column_of(name), value, escape(value))
            for name, value in changes.items()
        ]
        if "id" in changes:
            self.ids_kept = False  # (a new ID: the line reads as another row, see rewrite)
        replace, cells_of, spans, once_set = self.replace, self.cells, self.spans, self.once
        data = index.data
        find, size = data.find, len(data)
        for row in rows:
            line = row.line
            if replace.get(line) == "":  # deleted in this edit: nothing to set
                continue
            if row.problem:
                self.ids_kept = False  # (a row not read as a row: its new line may read another way)
            if line in once_set:
                raise ValueError(f"line {line + 1} was set once already in this edit")
            base = cells_of.get(line, row.raw_cells)
            cells: list[str] | None = None
            for pos, value, raw_value in cells_for:
                raw = base[pos]
                if (unescape(raw) if "\\" in raw else raw) != value:
                    if cells is None:
                        cells = list(base)
                    cells[pos] = raw_value
            if cells is None:  # a no-op keeps the line's own spacing
                continue
            if once:
                once_set.add(line)
            else:
                cells_of[line] = cells
            body = "| " + " | ".join(cells) + " |"
            start = row.offset
            if start < 0:  # (a row that does not know where its line is)
                original = index.lines[line]
                new = body + line_ending(original)
                same = body == line_body(original)
            else:  # compared in bytes, in place: no decoding or copy of the old line (organize rewrites 40k rows)
                nl = find(b"\n", start)  # (span_of, inline)
                stop, ending = (size, "") if nl < 0 else (nl, "\n")
                if stop > start and data[stop - 1] == 0x0D:  # (line_body: the `\n`, then a `\r`)
                    stop -= 1
                    ending = "\r\n" if ending else ""
                new = body + ending
                # an ASCII line is as long in bytes as in characters: one of another length is not encoded to tell
                if body.isascii() and len(body) != stop - start:
                    same = False
                else:
                    body_bytes = body.encode("utf-8", "surrogateescape")
                    same = len(body_bytes) == stop - start and data.startswith(body_bytes, start)
            if not same:
                replace[line] = new
                spans[line] = None if start < 0 else start
            else:
                replace.pop(line, None)
        return self

    @property
    def changed(self) -> bool:
        """Whether the edit changes any line (rewrites, deletes or appends a row)."""
        return bool(self.replace or self.appended)

    def delete(self, row: Row) -> IndexEdit:
        """Remove row's line."""
        self.replace[row.line] = ""
        self.spans[row.line] = None if row.offset < 0 else row.offset
        return self

    def move_in(self, row: Row) -> IndexEdit:
        """Move a row found outside the table (IndexFile.outside) to the table's end, its text kept byte for byte."""
        text, span = self.index.locate(row)
        self.replace[row.line] = ""
        self.spans[row.line] = None if span is None else span[0]
        self.appended.append(line_body(text))
        self.ids_kept = False  # (a line that was no row becomes one)
        return self

    def append(self, values: dict[str, str]) -> IndexEdit:
        """Add a new row after the last table line; unknown columns get empty cells."""
        cols = self.index.columns or list(COLUMNS)
        cells = [escape(values.get(FIELD_OF_COLUMN.get(c, ""), "")) if c in FIELD_OF_COLUMN else "" for c in cols]
        self.appended.append(self._render(cells, ""))
        return self

    def _spliced(self) -> bytes | None:
        """The new bytes when the edit only appends to an existing table (no line list needed), else None."""
        found = self.spliced()
        if found is None:
            return None
        at, inserted = found
        view = memoryview(self.index.data)  # one copy of a large index, not three
        return b"".join((view[:at], inserted, view[at:]))

    def spliced(self) -> tuple[int, bytes] | None:
        """(offset, bytes) of what to_bytes inserts when the edit only appends rows to an existing table, keeping
        everything before and after them as it is (the rows go above text under the table); else None."""
        index = self.index
        if not self.appended or self.replace or not index.has_table:
            return None
        data = index.data
        if b"\x00" in data or data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return None  # (to_bytes says why such a file is not written)
        eol = index.eol()
        at = index._end_off
        lead = eol if at == len(data) and at > index._start and data[at - 1] != 0x0A else ""
        return at, encode(lead + "".join(line + eol for line in self.appended))

    def appended_bytes(self) -> bytes | None:
        """The bytes the edit adds when it only appends rows to a table that ends the file (what follows the
        file's bytes: a line end first when its last line has none), else None (rows inserted above text
        under the table, or any other edit, need the file's new bytes: to_bytes)."""
        index = self.index
        data = index.data
        if not self.appended or self.replace or not index.has_table or index._end_off != len(data):
            return None
        if b"\x00" in data or data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return None  # (to_bytes says why such a file is not written)
        eol = index.eol()
        lead = eol if data and data[-1] != 0x0A else ""
        return encode(lead + "".join(line + eol for line in self.appended))

    def _patched(self) -> bytes | None:
        """The new bytes when the edit only rewrites or deletes rows whose place in the bytes is known:
        the old bytes with those lines replaced (no line list of the whole file needed), else None."""
        if self.appended or not self.replace:
            return None
        replace, spans = self.replace, self.spans
        data = self.index.data
        view = memoryview(data)
        size = len(data)
        # written as they come into one buffer that getvalue hands over without a copy: no list of a piece per
        # changed line (a memoryview each) and no encoded new line kept (1M rows: ~200 MB less at the peak)
        out = io.BytesIO()
        write = out.write
        done = 0
        find = data.find
        for line in sorted(replace):  # in line order, which is the order of their bytes
            start = spans.get(line)
            if start is None:
                return None
            if start > done:  # (most changed rows lie next to another one: no empty piece between them)
                write(view[done:start])
            new = replace[line]
            if new:
                write(new.encode("utf-8", "surrogateescape"))  # (text.encode: 100k calls)
            nl = find(b"\n", start)
            done = size if nl < 0 else nl + 1
        write(view[done:])
        return out.getvalue()

    def rewrite(self) -> Rewrite | None:
        """The edit as a Rewrite of the table's row lines, when it only rewrites or removes rows and the file
        bears out the Rewrite's word: the rows' Session IDs are distinct (so are their lines, and a rewritten
        line, keeping its row's ID, matches no other row), and no line outside the table reads as a row with
        one of them. Else None (the patch is then found by comparing the files' lines)."""
        index = self.index
        if self.appended or not self.replace or not self.ids_kept or not index.has_table:
            return None
        ids = index.ids()
        count = index.row_count()  # (after ids: a table each_row read knows both without its rows)
        if len(ids) != count:
            return None
        data = index.data
        start, end = index._rows_off, index._end_off
        if data.count(b"\n", 0, start) + data.count(b"\n", end) >= AROUND:
            return None  # (diff.rewritten takes no more lines around the region either)
        read = index._reader
        for line in data[:start].split(b"\n") + data[end:].split(b"\n"):
            # a line equal to a row's reads as that row, with its ID (most lines hold no pipe at all)
            if b"|" in line and next(read(line, 0, len(line), 0)).id in ids:
                return None
        lo = (index.header_line or 0) + 2
        return Rewrite(lo, lo + count, self.replace, self.spans)  # (one line per row)

    def to_text(self) -> str:
        """The new file text (without BOM)."""
        index = self.index
        spliced = self._spliced()
        if spliced is not None:
            return decode(spliced[index._start :])
        eol = index.eol()
        lines = list(index.lines)
        for pos, new in self.replace.items():
            lines[pos] = new
        if not self.appended:
            return "".join(lines)
        new_lines = [line + eol for line in self.appended]
        if index.has_table:
            at = index.table_end
            if at > 0 and not line_ending(lines[at - 1]) and lines[at - 1] != "":
                lines[at - 1] += eol
            elif at > 0 and lines[at - 1] == "":
                # the last table row was deleted and had no ending: find the previous line
                k = at - 1
                while k > 0 and lines[k] == "":
                    k -= 1
                if not line_ending(lines[k]):
                    lines[k] += eol
            lines[at:at] = new_lines
            return "".join(lines)
        # no table yet: add one at the end of the file
        header = "| " + " | ".join(COLUMNS) + " |" + eol
        sep = "|" + "|".join("---" for _ in COLUMNS) + "|" + eol
        text = "".join(lines)
        if text and not text.endswith("\n"):
            text += eol
        if text and not text.endswith(eol + eol) and text.strip():
            text += eol
        return text + header + sep + "".join(new_lines)

    def to_bytes(self) -> bytes:
        """The new file bytes, with the BOM kept when the original had one."""
        data = self.index.data
        if (
            data
            and (b"\x00" in data or data.startswith((b"\xff\xfe", b"\xfe\xff")))
            and (self.replace or self.appended)
        ):
            raise Refused(
                "index.md holds NUL bytes (UTF-16 or binary?); memboard writes only UTF-8 text, convert it first"
            )
        spliced = self._spliced()
        if spliced is None:
            spliced = self._patched()
        if spliced is not None:
            return spliced
        text = self.to_text()
        return encode((BOM if self.index.bom else "") + text)


class LaidOut(NamedTuple):
    """The bytes of an index whose rows Markdown reads in no table, with the line that makes them a table."""

    data: bytes  # the file with that line inserted, every other byte kept
    line: int  # the line (0-based) it is inserted before
    what: str  # what was wrong, in words
    fix: str  # what the insertion is, in words


def laid_out(index: IndexFile) -> LaidOut | None:
    """An index that has no table (IndexFile.has_table) but lines in the table's shape, made one by inserting a
    single line: the separator under a `| Session ID | ...` header that lacks it, else the protocol's header and
    separator above the first row in the protocol's shape (its cells, a valid Session ID). None when neither
    applies (or the result would still read no table). Lines inside code fences are never looked at."""
    if index.has_table or not index.data or b"|" not in index.data:
        return None
    eol = index.eol()
    lines = index.lines
    fence: str | None = None
    for i, line in enumerate(lines):
        body = line_body(line)
        stripped = body.lstrip()
        if fence:
            fence = None if stripped.startswith(fence) else fence
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        cells = split_cells(body) if stripped.startswith("|") else None
        if not cells:
            continue
        ending = line_ending(line) or eol
        if "Session ID" in [unescape(c) for c in cells]:
            sep = "|" + "|".join("---" for _ in cells) + "|" + eol
            new = [*lines[:i], body + ending, sep, *lines[i + 1 :]]
            at, what, fix = i + 1, "a table header with no separator line under it", "insert the separator line"
        elif len(cells) == len(COLUMNS) and is_valid_id(unescape(cells[0]).strip()):
            head = "| " + " | ".join(COLUMNS) + " |" + eol + "|" + "|".join("---" for _ in COLUMNS) + "|" + eol
            new = [*lines[:i], head, *lines[i:]]
            at, what, fix = i, "rows with no table header above them", "insert the protocol's header and separator"
        else:
            continue
        data = encode((BOM if index.bom else "") + "".join(new))
        return LaidOut(data, at, what, fix) if IndexFile(data).has_table else None
    return None


def readable_rows(data: bytes, markers: list[int]) -> list[Row]:
    """The index's rows read through its conflict markers (IndexFile.conflict_lines), for viewing
    only: both sides' rows and those past the conflict, each with its line in the file. A row inside a
    block whose Session ID the table also holds outside every block is left out: the table's row is the one
    in effect (memboard's git driver keeps the table valid, holding ours' values, and shows both versions of
    each undecided row in a block after it), so a row is listed once, not three times."""
    skip = {n - 1 for n in markers}
    lines = data.split(b"\n")
    kept = [i for i in range(len(lines)) if i not in skip]
    index = IndexFile(b"\n".join(lines[i] for i in kept))
    rows = [replace(row, line=kept[row.line], offset=-1) for row in index.rows]
    inside = _inside_blocks(lines, sorted(skip))
    if not inside:
        return rows
    table_ids = {row.id for row in rows if row.line not in inside}
    return [row for row in rows if row.line not in inside or row.id not in table_ids]


def _inside_blocks(lines: list[bytes], markers: list[int]) -> set[int]:
    """The line indexes between a block's opening (or, for a block whose opening was deleted, its first
    `=` or `|` marker) and its closing marker (markers: the marker lines' indexes, in order)."""
    inside: set[int] = set()
    start: int | None = None
    for at in markers:
        char = lines[at].removeprefix(BOM_BYTES)[:1]
        if char in (b"<", b"=", b"|") and start is None:
            start = at
        elif char == b">" and start is not None:
            inside.update(range(start + 1, at))
            start = None
    return inside
