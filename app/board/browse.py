"""The browse screen: a live, filterable table beside a detail pane, with a key bar, that every board view is.

The sessions view (sessions.py) and the notes view (notes/screen.py) are subclasses: each says which
widgets it shows (its status line, table and pane), how it reads its rows (a reload worker, off the
UI thread, posting a message back) and what its pane shows. What they share lives here once: the
filter box (`/`, enter keeps, escape clears), the cursor that shows the row at once and reads its
detail in a worker (after typing pauses, while the filter is being typed), sorting by a clicked
header, the flash of rows that are new, the full-width pane (enter, escape), the live watcher that
polls the files every half second, the one lock that keeps reads in order, and the footer that
follows where the user is. A new view is one more subclass, installed under a name (see
docs/how-it-is-built/board.md).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.command import CommandPalette
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Static

from memboard.widgets.key_bar import KeyBar
from memboard.widgets.row_table import RowTable

from .actions import bindings

POLL_SECONDS = 0.5  # how often the live watcher looks at the files
FRESH_SECONDS = 3.0  # how long a new row stays highlighted
DETAIL_DELAY = 0.2  # while a filter is typed, the pane waits this long for the cursor to rest


class Row(Protocol):
    """What a browse screen needs of a row: its ID."""

    @property
    def id(self) -> str:
        """The row's ID (a Session ID, a note's ID)."""


class Model(Protocol):
    """What a browse screen needs of a model: its rows, whether they are all read, what is new."""

    rows: Any
    complete: bool

    def new_ids(self, previous: Any) -> set[str]:
        """IDs in this model that previous did not have."""


R = TypeVar("R", bound=Row)
M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class Ids:
    """The DOM ids of a browse screen's parts (the styles address them)."""

    status: str
    filter_bar: str
    filter_label: str
    filter: str
    main: str
    table: str
    pane: str
    keys: str


class BrowseFilter(Input):
    """A browse screen's text filter; escape clears it and goes back to the table."""

    BINDINGS = bindings("filter")

    def action_clear_filter(self) -> None:
        """Clear the filter text and return to the table."""
        self.value = ""
        self.screen.query_one(RowTable).focus()


class BrowseScreen(Screen[None], Generic[R, M]):
    """A table of rows beside a pane: filter, cursor, pane, watcher, reload lock, key bar (see the module).

    A view is a subclass that defines every hook `VIEW_HOOKS` names: the base has no
    table, pane or rows of its own, and raises NotImplementedError for a hook a view left out."""

    VIEW_HOOKS = ("make_status", "make_table", "make_pane", "apply_view", "show_pane", "load_pane", "poll")

    IDS: ClassVar[Ids]
    FOOTER: ClassVar[str]  # the key bar's place on the table
    PANE_FOOTER: ClassVar[str | None] = None  # its place in the full-width pane (None: FOOTER)
    FILTER_FOOTER: ClassVar[str | None] = None  # its place in the filter box (None: FOOTER)
    PLACEHOLDER: ClassVar[str] = ""  # the filter box's
    SORTABLE: ClassVar[frozenset[str] | None] = None  # the headers a click sorts by (None: every one)
    GC_FREEZE: ClassVar[int] = 20_000  # from this many rows, a complete model is frozen out of the cyclic GC

    def __init__(self, *, watch: bool = True, sort_column: str = "") -> None:
        """A browse screen; watch=False turns its file watcher off."""
        super().__init__()
        self.watch_files = watch
        self.filter_text = ""
        self.sort_column = sort_column
        self.sort_reverse = False
        self._detail_timer: Timer | None = None
        self._read_lock = threading.Lock()  # one read at a time: models reach the screen in the order read

    # -- what a view says -------------------------------------------------------------------

    def make_status(self) -> Widget:
        """The status line above the filter."""
        raise NotImplementedError

    def make_table(self) -> RowTable:
        """The table widget."""
        raise NotImplementedError

    def make_pane(self) -> Widget:
        """The detail pane widget."""
        raise NotImplementedError

    def compose_top(self) -> Iterator[Widget]:
        """Widgets between the status line and the filter (the sessions view's banner)."""
        return iter(())

    def apply_view(self) -> None:
        """Filter and sort the model into the table, keeping the cursor's row."""
        raise NotImplementedError

    def show_pane(self, row: R | None) -> None:
        """Show row in the pane with what is read of it (None: the pane says why there is none)."""
        raise NotImplementedError

    def load_pane(self, row_id: str) -> object:
        """Read the row's detail for the pane (a worker that posts it back)."""
        raise NotImplementedError

    def poll(self) -> None:
        """The watcher's look at the files (every POLL_SECONDS while watching)."""
        raise NotImplementedError

    def reset_filters(self) -> None:
        """Show every row again: the filter text and the view's own filters (status, type) cleared."""
        self.set_filter("")

    def pane_cleared(self) -> None:
        """The cursor left every row (an empty table): forget what the pane held."""

    def default_reverse(self, column: str) -> bool:
        """Whether a first click on a column's header sorts it newest first."""
        return False

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Status, filter, the table beside the pane, keys."""
        ids = self.IDS
        yield self.make_status()
        yield from self.compose_top()
        with Horizontal(id=ids.filter_bar):
            yield Static("filter ›", id=ids.filter_label)
            yield BrowseFilter(value=self.filter_text, placeholder=self.PLACEHOLDER, id=ids.filter, compact=True)
        with Horizontal(id=ids.main):
            yield self.make_table()
            yield self.make_pane()
        yield KeyBar(self.FOOTER, id=ids.keys)

    def start_watching(self) -> None:
        """Poll the files every POLL_SECONDS (unless the watcher is off)."""
        if self.watch_files:
            self.set_interval(POLL_SECONDS, self.poll)

    @property
    def table(self) -> Any:
        """The table widget."""
        return self.query_one(RowTable)

    @property
    def filter_box(self) -> BrowseFilter:
        """The filter box."""
        return self.query_one(BrowseFilter)

    # -- models -----------------------------------------------------------------------------

    def swap_model(self, previous: M, model: M) -> tuple[str | None, str | None]:
        """Show model in place of previous: frozen when big, new rows flashed, the view applied.
        The IDs under the cursor before and after."""
        if model.complete and len(model.rows) >= self.GC_FREEZE:
            # a big model is a million long-lived objects: keep the cyclic GC from walking them on
            # every keystroke's allocations (gen-2 passes cost ~100 ms at 100k rows, 10k notes)
            gc.collect()
            gc.freeze()
        fresh = model.new_ids(previous)
        table = self.table
        if fresh:
            table.fresh = table.fresh | fresh
            self.set_timer(FRESH_SECONDS, self._clear_fresh)
        before = table.current.id if table.current else None
        self.apply_view()
        return before, table.current.id if table.current else None

    def _clear_fresh(self) -> None:
        """End the highlight of new rows."""
        try:
            self.table.fresh = set()
            self.table.refresh()
        except NoMatches:  # the board is closing: its widgets are gone
            pass

    def select(self, row_id: str) -> bool:
        """Move the cursor to a row (the caller knows it is in the model), clearing filters if they hide it."""
        if not any(r.id == row_id for r in self.table.rows):
            self.reset_filters()
        for i, row in enumerate(self.table.rows):
            if row.id == row_id:
                self.table.move_cursor(i)
                return True
        return False

    # -- the cursor and the pane --------------------------------------------------------------

    @on(RowTable.CursorMoved)
    def _cursor_moved(self, message: RowTable.CursorMoved) -> None:
        """Show the new row at once and read its detail in a worker."""
        row = self.table.current
        if row is None:
            self.pane_cleared()
            self.show_pane(None)
            return
        if isinstance(self.focused, BrowseFilter):
            # typing a filter moves the cursor on every key: show the row once it rests
            if self._detail_timer is not None:
                self._detail_timer.stop()
            self._detail_timer = self.set_timer(DETAIL_DELAY, self.show_current)
        else:
            self.show_pane(row)
            # after the next refresh: the cursor repaints first, the detail follows
            self.call_after_refresh(self.load_pane, row.id)

    def show_current(self) -> None:
        """Show the cursor's row in the pane and read its detail (after typing pauses)."""
        row = self.table.current
        self.show_pane(row)
        if row is not None:
            self.load_pane(row.id)

    @on(RowTable.HeaderClicked)
    def _header_clicked(self, message: RowTable.HeaderClicked) -> None:
        """Sort by a clicked column (again to reverse)."""
        if self.SORTABLE is not None and message.column not in self.SORTABLE:
            return
        if message.column == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = message.column, self.default_reverse(message.column)
        self.apply_view()

    def action_open(self) -> None:
        """Open the pane full width (again to go back)."""
        self.toggle_class("-expanded")
        if self.has_class("-expanded"):
            self.query_one(f"#{self.IDS.pane}").focus()
        else:
            self.table.focus()
        self.call_after_refresh(self.update_footer)

    def action_leave_pane(self) -> None:
        """Leave the full-width pane (escape)."""
        if self.has_class("-expanded"):
            self.remove_class("-expanded")
            self.table.focus()
            self.call_after_refresh(self.update_footer)

    def update_footer(self) -> None:
        """Show the keys of where the user is: the table, the filter box or the full pane (the palette's while
        it is open over this screen)."""
        if isinstance(self.app.screen, CommandPalette):
            context = "palette"
        elif self.has_class("-expanded"):
            context = self.PANE_FOOTER or self.FOOTER
        elif isinstance(self.focused, BrowseFilter):
            context = self.FILTER_FOOTER or self.FOOTER
        else:
            context = self.FOOTER
        try:
            self.query_one(f"#{self.IDS.keys}", KeyBar).show(context)
        except NoMatches:
            pass

    def on_screen_suspend(self) -> None:
        """A screen opened over this one: the footer shows the palette's keys if it is the palette."""
        self.call_after_refresh(self.update_footer)

    def on_screen_resume(self) -> None:
        """Back in front: the footer shows this screen's keys again."""
        self.call_after_refresh(self.update_footer)

    def on_descendant_focus(self) -> None:
        """The focus moved: the footer follows."""
        self.call_after_refresh(self.update_footer)

    # -- the filter -------------------------------------------------------------------------

    def set_filter(self, text: str) -> None:
        """Filter by text (shown in the box), as if typed."""
        self.filter_text = text
        if not self.is_mounted:
            return
        box = self.filter_box
        with box.prevent(Input.Changed):
            box.value = text
        self.query_one(f"#{self.IDS.filter_bar}").display = bool(text)
        self.apply_view()

    def action_filter(self) -> None:
        """Show and focus the text filter."""
        self.query_one(f"#{self.IDS.filter_bar}").display = True
        # focus now, not via call_later: keys typed right after `/` must land in the box,
        # never on the view's single-letter actions
        self.set_focus(self.filter_box)
        self.call_after_refresh(self.update_footer)

    @on(Input.Changed, "BrowseFilter")
    def _filter_changed(self, event: Input.Changed) -> None:
        """Filter on every keystroke."""
        event.stop()
        self.filter_text = event.value
        self.apply_view()

    @on(Input.Submitted, "BrowseFilter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        """Keep the filter and go back to the table (showing the selected row now)."""
        event.stop()
        self.table.focus()
        self.call_after_refresh(self.update_footer)
        if self._detail_timer is not None:
            self._detail_timer.stop()
        self.show_current()

    @on(Input.Blurred, "BrowseFilter")
    def _filter_blurred(self, event: Input.Blurred) -> None:
        """Hide an empty filter box."""
        event.stop()
        if not event.value:
            self.query_one(f"#{self.IDS.filter_bar}").display = False
