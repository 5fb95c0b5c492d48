"""What the board's virtualised tables share: a cursor over a list of rows, paging, scrolling it into view,
clicks on rows and headers, and component styles looked up once per rendering pass.

The session table (widgets/session_table.py) and the notes table (widgets/note_table.py) add their
columns, their rows' look and their own messages (so each keeps its handler names).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from rich.style import Style
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

R = TypeVar("R")


@dataclass(frozen=True)
class Column(Generic[R]):
    """A table column: its sort key, header, width in cells (0 = take the rest) and a row's cell text."""

    key: str
    title: str
    width: int
    text: Callable[[R, datetime], str]


def cell_line(text: str) -> str:
    """A cell as one display line: control characters become spaces."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else " " for ch in text)


class Keyed(Protocol):
    """A row the cursor can stand on: it has an ID."""

    @property
    def id(self) -> str:
        """The row's ID (what CursorMoved carries)."""


class RowTable(ScrollView, can_focus=True):
    """A virtualised table: the header on line 0, then self.rows from the scroll offset."""

    # the table's own moving keys (the board's action table lists them for the help, owner "table";
    # ids let a user keymap rebind them)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "up", show=False, id="table.cursor_up"),
        Binding("down,j", "cursor_down", "down", show=False, id="table.cursor_down"),
        Binding("pageup", "page_up", "page up", show=False, id="table.page_up"),
        Binding("pagedown", "page_down", "page down", show=False, id="table.page_down"),
        Binding("home", "first", "first", show=False, id="table.first"),
        Binding("end", "last", "last", show=False, id="table.last"),
    ]

    COLUMNS_FROM: ClassVar[int] = 0  # the screen column where the first column starts (after any mark)

    cursor = reactive(0, always_update=True, repaint=False)

    class CursorMoved(Message):
        """The row under the cursor changed (key is None when the table is empty)."""

        def __init__(self, key: str | None) -> None:
            """Carry the new row's key."""
            self.key = key
            super().__init__()

    class HeaderClicked(Message):
        """A column header was clicked (sort by it)."""

        def __init__(self, column: str) -> None:
            """Carry the column key."""
            self.column = column
            super().__init__()

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        """An empty table."""
        super().__init__(name=name, id=id, classes=classes)
        self.rows: Sequence[Keyed] = []
        self._last_key: str | None = None
        self._styles: dict[str, Style] = {}

    @property
    def current(self) -> Any:
        """The row under the cursor (None when there is none)."""
        if 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor]
        return None

    def move_cursor(self, index: int) -> None:
        """Put the cursor on a row (clamped), scroll it into view and announce a change."""
        index = max(0, min(index, len(self.rows) - 1)) if self.rows else 0
        self.cursor = index
        self._scroll_cursor_into_view()
        self.refresh()
        key = self.current.id if self.current else None
        if key != self._last_key:
            self._last_key = key
            self.post_message(self.CursorMoved(key))

    def _page_height(self) -> int:
        """How many rows fit under the header."""
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_cursor_into_view(self) -> None:
        """Scroll so that the cursor row is visible."""
        top = int(self.scroll_offset.y)
        page = self._page_height()
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + page:
            self.scroll_to(y=self.cursor - page + 1, animate=False, immediate=True)

    def notify_style_update(self) -> None:
        """Forget cached component styles when CSS or the theme changes."""
        self._styles = {}
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        """Render the visible lines, looking each component style up once per pass."""
        self._styles = {}
        return super().render_lines(crop)

    def _style(self, name: str) -> Style:
        """A component class's rich style, cached for one rendering pass (see _component_style)."""
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self._component_style(name)
        return style

    def _component_style(self, name: str) -> Style:
        """The rich style of the table's component class `name` (each table says how it layers them)."""
        raise LookupError(name)

    def _layout(self) -> list[tuple[Any, int]]:
        """The columns on screen with their widths (each column has a `key`)."""
        return []

    # -- actions ------------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        """Move up one row."""
        self.move_cursor(self.cursor - 1)

    def action_cursor_down(self) -> None:
        """Move down one row."""
        self.move_cursor(self.cursor + 1)

    def action_page_up(self) -> None:
        """Move up one page."""
        self.move_cursor(self.cursor - self._page_height())

    def action_page_down(self) -> None:
        """Move down one page."""
        self.move_cursor(self.cursor + self._page_height())

    def action_first(self) -> None:
        """Go to the first row."""
        self.move_cursor(0)

    def action_last(self) -> None:
        """Go to the last row."""
        self.move_cursor(len(self.rows) - 1)

    def on_click(self, event: Click) -> None:
        """Click a row to select it, a header to sort by its column."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            x = self.COLUMNS_FROM
            for column, width in self._layout():
                if x <= offset.x < x + width + 1:
                    self.post_message(self.HeaderClicked(column.key))
                    return
                x += width + 1
            return
        index = int(self.scroll_offset.y) + offset.y - 1
        if 0 <= index < len(self.rows):
            self.move_cursor(index)

    def on_focus(self) -> None:
        """Repaint the cursor in its focused colour."""
        self.refresh()

    def on_blur(self) -> None:
        """Repaint the cursor in its blurred colour."""
        self.refresh()
