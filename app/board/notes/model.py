"""The notes view's data, apart from any widget: one row per note, counts, filters and sorting.

Plain Python (no Textual import), like the session table's model (board/model.py): the text filter
is a substring test over a lowercase haystack made once per note, narrowed while typing extends it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from memboard.widgets.rows import NoteRow

from ...core.formats.note import STATUSES
from ...core.formats.topic import TYPES
from ...core.results import NoteView
from ..model import ALL, LastView, narrowed

STATUS_FILTERS = (ALL, *STATUSES)
TYPE_FILTERS = (ALL, *TYPES)
OTHER = "other"  # the count of notes whose Type is none of TYPES
SORT_COLUMNS = ("id", "type", "scope", "status", "project", "updated")  # what a click on a header sorts by


def sort_key(name: str) -> Callable[[NoteRow], Any]:
    """A key function for sorting rows by a column of SORT_COLUMNS (ties by ID)."""
    if name == "id":
        return lambda r: r.id
    if name == "updated":
        return lambda r: (r.view.updated, r.id)
    return lambda r: (getattr(r.view, name).casefold(), r.id)


class NotesModel:
    """Every note of one read of notes/, with counts per status and per type and cached sort orders."""

    def __init__(self, rows: list[NoteRow], now: datetime, complete: bool = True) -> None:
        """Wrap rows (in ID order) read at time now; complete is False while the first read goes on."""
        self.rows = rows
        self.now = now
        self.complete = complete
        self.by_id = {r.id: r for r in rows}
        self._orders: dict[str, list[NoteRow]] = {"id": rows}
        self._last_view: LastView[NoteRow] | None = None
        counts = dict.fromkeys(STATUS_FILTERS, 0)
        types = dict.fromkeys((*TYPES, OTHER), 0)
        problems = 0
        for r in rows:
            view = r.view
            if view.status in counts:
                counts[view.status] += 1
            types[view.type if view.type in types else OTHER] += 1
            problems += view.problem is not None
        counts[ALL] = len(rows)
        self.counts = counts
        self.type_counts = types
        self.problems = problems

    @classmethod
    def of(cls, views: Mapping[str, NoteView], now: datetime, complete: bool = True) -> NotesModel:
        """A model of these notes (note ID -> metadata), rows in ID order."""
        return cls([NoteRow.of(views[key]) for key in sorted(views)], now, complete)

    @classmethod
    def empty(cls, now: datetime) -> NotesModel:
        """A model with no notes, still to be read."""
        return cls([], now, complete=False)

    def views(self) -> dict[str, NoteView]:
        """Note ID -> metadata of every note (what the supersede chain walks)."""
        return {r.id: r.view for r in self.rows}

    def ordered(self, column: str = "id", reverse: bool = False) -> list[NoteRow]:
        """Rows sorted by a column (cached per column; reversed on demand)."""
        if column not in self._orders:
            self._orders[column] = sorted(self.rows, key=sort_key(column))
        rows = self._orders[column]
        return rows[::-1] if reverse else rows

    def view(
        self, text: str = "", status: str = ALL, note_type: str = ALL, column: str = "id", reverse: bool = False
    ) -> list[NoteRow]:
        """Rows matching the text filter (every word, in ID, title, type, scope, project or session),
        the status and the type; typing that extends the previous text searches the previous result."""

        def start() -> list[NoteRow]:
            """Every note in this order with this status and type."""
            rows = self.ordered(column, reverse)
            if status != ALL:
                rows = [r for r in rows if r.view.status == status]
            if note_type != ALL:
                rows = [r for r in rows if r.view.type == note_type]
            return rows

        rows, self._last_view = narrowed(self._last_view, (status, note_type, column, reverse), text, start)
        return rows

    def new_ids(self, previous: NotesModel) -> set[str]:
        """IDs present now that a complete previous model did not have (empty after a first read)."""
        if not previous.complete or not previous.rows:
            return set()
        return set(self.by_id) - set(previous.by_id)
