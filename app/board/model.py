"""The board's data, apart from any widget: rows of the index, counts, filters and sorting.

Plain Python (no Textual import) so that it can be tested and benchmarked on its own.
Filtering is a substring test over a lowercase haystack precomputed once per row, which
keeps a keystroke at 100k rows well under the 50 ms budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..core.formats.clock import age_label, parse
from ..core.formats.index import STATUSES, IndexFile, Row, parse_refs

ALL = "all"
STATUS_FILTERS = (ALL, *STATUSES)

# sortable columns: key -> header label
SORT_COLUMNS: dict[str, str] = {
    "line": "File order",
    "id": "Session ID",
    "agent": "Agent Name",
    "topic": "Topic",
    "summary": "Summary",
    "keywords": "Keywords",
    "status": "Status",
    "refs": "Referenced By",
    "started_at": "Started At",
    "updated_at": "Updated At",
    "age": "Age",
}

HIDDEN = {code for code in (*range(0x20), *range(0x7F, 0xA0)) if chr(code) not in "\n\t"} | {
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
}  # control characters, and bidi overrides that reorder text
SHOWN = dict.fromkeys(HIDDEN, "\ufffd")


def printable(text: str) -> str:
    """Text from the memory (a row, a snapshot, a note), safe to put on the screen: control characters (an
    escape sequence a hand edit left, which the terminal would run) and bidi overrides become U+FFFD, one
    character for one (offsets stay valid); line breaks and tabs stay."""
    return text if text.isprintable() else text.translate(SHOWN)


def _same(value: str, _default: str) -> str:
    """The value itself (BoardRow.from_row without a shared pool)."""
    return value


def fast_time(text: str) -> datetime | None:
    """Parse `YYYY-MM-DD HH:MM` without strptime (100k rows), else fall back to clock.parse."""
    t = text.strip()
    if len(t) == 16 and t[4] == "-" and t[7] == "-" and t[10] == " " and t[13] == ":":
        try:
            return datetime(int(t[0:4]), int(t[5:7]), int(t[8:10]), int(t[11:13]), int(t[14:16]))
        except ValueError:
            return None
    return parse(t)


@dataclass(slots=True)
class BoardRow:
    """One index row as the board shows it."""

    line: int
    id: str
    agent: str
    topic: str
    summary: str
    keywords: str
    status: str
    referenced_by: str
    started_at: str
    updated_at: str
    problem: str | None
    has_snapshot: bool = False
    haystack: str = ""
    _age: str | None = field(default=None, repr=False)
    dup: int = 0
    """Which of the rows sharing this Session ID it is (1, 2, …), 0 when the ID is not repeated."""
    dups: int = 0
    """How many rows share this Session ID (0 when it is not repeated)."""

    @classmethod
    def from_row(cls, row: Row, has_snapshot: bool = False, shared: dict[str, str] | None = None) -> BoardRow:
        """Build a board row from a parsed index row.

        shared, when given, keeps one copy of each text several rows hold (statuses, agents, the
        placeholder topic and summary, timestamps): 100k rows hold far fewer distinct texts.
        """
        one = shared.setdefault if shared is not None else _same
        get = row.get
        out = cls(
            row.line,
            row.id,
            one(get("agent"), get("agent")),
            one(get("topic"), get("topic")),
            one(get("summary"), get("summary")),
            one(get("keywords"), get("keywords")),
            one(row.status, row.status),
            one(get("referenced_by"), get("referenced_by")),
            one(get("started_at"), get("started_at")),
            one(get("updated_at"), get("updated_at")),
            row.problem,
            has_snapshot,
        )
        if row.problem and not out.id:
            out.id = " | ".join(row.raw_cells)[:80]
        out.haystack = "\n".join((out.id, out.agent, out.topic, out.summary, out.keywords)).lower()
        return out

    @property
    def key(self) -> str:
        """What identifies the row on the board: its Session ID, `ID#2`, `ID#3`… for later rows sharing it."""
        return self.id if self.dup <= 1 else f"{self.id}#{self.dup}"

    @property
    def refs(self) -> list[str]:
        """Referenced By as a list of IDs."""
        return parse_refs(self.referenced_by)

    @property
    def ref_count(self) -> int:
        """How many sessions reference this one."""
        return len(self.refs)

    def age(self, now: datetime) -> str:
        """Age of Updated At, such as `3d` (cached: the clock moves in minutes)."""
        if self._age is None:
            self._age = age_label(fast_time(self.updated_at), now)
        return self._age


@dataclass
class IndexSource:
    """Where a model's rows came from: the file bytes and the table's position in them.

    Kept so that the next read can reuse every row before the first changed byte.
    """

    data: bytes
    header_line: int | None
    table_end: int
    prelude: bytes  # the header and separator lines

    @classmethod
    def of(cls, index: IndexFile) -> IndexSource:
        """Remember an index's bytes and table position."""
        return cls(index.data, index.header_line, index.table_end, index.header_bytes())


def sort_key(name: str):
    """A key function for BoardRow sorting by a column name from SORT_COLUMNS."""
    if name == "line":
        return lambda r: r.line
    if name == "refs":
        return lambda r: (r.ref_count, r.line)
    if name == "status":
        order = {s: i for i, s in enumerate(STATUSES)}
        return lambda r: (order.get(r.status, len(order)), r.line)
    return lambda r: (getattr(r, name).casefold(), r.line)


class BoardModel:
    """All rows of one read of the index, with counts and cached sort orders."""

    def __init__(self, rows: list[BoardRow], now: datetime, complete: bool = True, problems: list[str] | None = None):
        """Wrap rows read at time now; complete is False for a partial first read."""
        self.rows = rows
        self.now = now
        self.complete = complete
        self.problems = problems or []
        self.markers: list[int] = []  # merge-conflict marker lines of index.md (its rows are then read through them)
        self.source: IndexSource | None = None
        self._last_view: tuple[tuple[str, str, bool], str, list[BoardRow]] | None = None
        self._orders: dict[str, list[BoardRow]] = {"line": rows}
        self.missing = False  # index.md does not exist (as opposed to holding no row)
        self.by_id: dict[str, BoardRow] = {}
        for r in rows:
            self.by_id.setdefault(r.id, r)
        counts = dict.fromkeys(STATUSES, 0)
        bad = 0
        for r in rows:
            r.dup = r.dups = 0
            if r.problem:
                bad += 1
            elif r.status in counts:
                counts[r.status] += 1
        counts[ALL] = len(rows)
        counts["unparseable"] = bad
        counts["duplicate"] = self._number_duplicates() if len(self.by_id) < len(rows) else 0
        self.counts = counts

    def _number_duplicates(self) -> int:
        """Number the rows that share a Session ID (dup, dups); how many rows do."""
        seen: dict[str, list[BoardRow]] = {}
        for r in self.rows:
            seen.setdefault(r.id, []).append(r)
        shared = 0
        for group in seen.values():
            if len(group) > 1 and group[0].id:
                shared += len(group)
                for number, r in enumerate(group, 1):
                    r.dup, r.dups = number, len(group)
        return shared

    @classmethod
    def from_index(cls, index: IndexFile, snapshot_ids: set[str], now: datetime, complete: bool = True) -> BoardModel:
        """Build the model from a parsed index and the IDs that have a snapshot."""
        shared: dict[str, str] = {}  # one copy of each repeated text; rows stream in one at a time (100k rows)
        rows = [BoardRow.from_row(r, r.id in snapshot_ids, shared) for r in index.iter_rows()]
        model = cls(rows, now, complete, list(index.problems))
        model.source = IndexSource.of(index)
        model.markers = list(index.conflict_lines)
        return model

    @classmethod
    def empty(cls, now: datetime) -> BoardModel:
        """A model with no rows."""
        return cls([], now)

    def ordered(self, column: str = "line", reverse: bool = False) -> list[BoardRow]:
        """Rows sorted by a column (cached per column; reversed on demand). Age goes youngest first."""
        if column == "age":
            return self.ordered("updated_at", not reverse)
        if column not in self._orders:
            self._orders[column] = sorted(self.rows, key=sort_key(column))
        rows = self._orders[column]
        return rows[::-1] if reverse else rows

    def view(self, text: str = "", status: str = ALL, column: str = "line", reverse: bool = False) -> list[BoardRow]:
        """Rows matching the text filter (all words, any of ID/agent/topic/summary/keywords) and status.

        Typing narrows: when the text extends the previous query's (same status and order),
        only the previous result is searched.
        """
        key = (status, column, reverse)
        needle = text.lower()
        words = needle.split()
        last = self._last_view
        if last is not None and last[0] == key and last[1] and needle.startswith(last[1]):
            rows = last[2]
            # the previous words already hold, except the last one, which may have grown
            done = len(last[1].split()) - (0 if last[1][-1].isspace() else 1)
            words = words[max(done, 0) :]
        else:
            rows = self.ordered(column, reverse)
            if status != ALL:
                rows = [r for r in rows if r.status == status]
        for w in words:  # one tight pass per word: cheaper than all() per row
            rows = [r for r in rows if w in r.haystack]
        self._last_view = (key, needle, rows)
        return rows

    def new_ids(self, previous: BoardModel | None) -> set[str]:
        """IDs present now that the previous model did not have (empty on a first read)."""
        if previous is None or not previous.complete or not previous.rows:
            return set()
        return set(self.by_id) - set(previous.by_id)
