"""The board's data, apart from any widget: rows of the index, counts, filters and sorting.

Plain Python (no Textual import) so that it can be tested and benchmarked on its own.
Filtering is a substring test over a lowercase haystack precomputed once per row, which
keeps a keystroke at 100k rows well under the 50 ms budget.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from memboard.widgets.rows import BoardRow

from ..core.formats.index import STATUSES, IndexFile

ALL = "all"


class Searchable(Protocol):
    """A row the text filter searches: its lowercase haystack."""

    haystack: str


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


H = TypeVar("H", bound=Searchable)
LastView = tuple[tuple[Any, ...], str, list[H]]


def narrowed(
    last: LastView[H] | None, key: tuple[Any, ...], text: str, start: Callable[[], list[H]]
) -> tuple[list[H], LastView[H]]:
    """The rows holding every word of text (lowercased), and the view to narrow from next time.

    Typing narrows: when text extends the last view's text under the same key (filters and order),
    only the last result is searched; else the rows start() gives.
    """
    needle = text.lower()
    words = needle.split()
    if last is not None and last[0] == key and last[1] and needle.startswith(last[1]):
        rows = last[2]
        # the previous words already hold, except the last one, which may have grown
        done = len(last[1].split()) - (0 if last[1][-1].isspace() else 1)
        words = words[max(done, 0) :]
    else:
        rows = start()
    for w in words:  # one tight pass per word: cheaper than all() per row
        rows = [r for r in rows if w in r.haystack]
    return rows, (key, needle, rows)


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
        self._last_view: LastView[BoardRow] | None = None
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
        # rows an agent appended below text under the table: shown, marked as rows memboard does not use
        rows += [BoardRow.from_row(r, r.id in snapshot_ids, shared) for r in index.outside]
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

        def start() -> list[BoardRow]:
            """Every row in this order with this status."""
            rows = self.ordered(column, reverse)
            return rows if status == ALL else [r for r in rows if r.status == status]

        rows, self._last_view = narrowed(self._last_view, (status, column, reverse), text, start)
        return rows

    def new_ids(self, previous: BoardModel | None) -> set[str]:
        """IDs present now that the previous model did not have (empty on a first read)."""
        if previous is None or not previous.complete or not previous.rows:
            return set()
        return set(self.by_id) - set(previous.by_id)
