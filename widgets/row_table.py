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

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.geometry import Region, Size
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
    cut: Callable[[str, int], str] | None = None
    """How a cell too long for the column is cut (None: `fit`, with `…` at its end)."""


def cell_line(text: str) -> str:
    """A cell as one display line: control characters become spaces."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else " " for ch in text)


def fit(text: str, width: int) -> str:
    """Text in exactly width cells: padded, or cut with `…` at its end when it is longer."""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    if width <= 0:
        return ""
    # rstrip: a cut through a wide character leaves a pad space, which would part the `…` from the text
    return set_cell_size(set_cell_size(text, width - 1).rstrip() + "…", width)


def header_cell(title: str, width: int, mark: str = "") -> str:
    """A header's title in width cells with the sort mark beside it (`Status ▲`, else `Status▲`): the
    word kept whole while it fits beside the mark, else cut with `…`."""
    if not mark:
        return fit(title, width)
    for text in (f"{title} {mark}", f"{title}{mark}"):
        if cell_len(text) <= width:
            return set_cell_size(text, width)
    return fit(title, max(width - 1, 0)) + mark if width > 1 else set_cell_size(mark, width)


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
        Binding("pageup,ctrl+b", "page_up", "page up", show=False, id="table.page_up"),
        Binding("pagedown,ctrl+f", "page_down", "page down", show=False, id="table.page_down"),
        Binding("ctrl+u", "half_page_up", "half page up", show=False, id="table.half_page_up"),
        Binding("ctrl+d", "half_page_down", "half page down", show=False, id="table.half_page_down"),
        Binding("home", "first", "first", show=False, id="table.first"),
        Binding("end,G", "last", "last", show=False, id="table.last"),
    ]

    DEFAULT_SORT: ClassVar[str] = ""  # the column a fresh table is sorted by
    STAY_WITHOUT_KEEP: ClassVar[bool] = False  # set_rows without keep leaves the cursor where it stood
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
        self.empty_text = ""  # why there is no row, drawn where the rows would be
        self.fresh: set[str] = set()  # rows highlighted as new
        self.now = datetime.now()
        self.sort_column = self.DEFAULT_SORT
        self.sort_reverse = False
        self._last_key: str | None = None
        self._styles: dict[str, Style] = {}

    def set_rows(self, rows: Sequence[Keyed], now: datetime, keep: str | None = None) -> None:
        """Show rows, keeping the cursor on the row keep when it is still there (else where it stood; without
        keep, at the top unless STAY_WITHOUT_KEEP)."""
        self.rows = rows
        self.now = now
        self.virtual_size = Size(self.virtual_size.width, len(rows) + 1)
        near = min(self.cursor, max(len(rows) - 1, 0))
        target = near if keep is not None or self.STAY_WITHOUT_KEEP else 0
        if keep is not None:
            target = next((i for i, row in enumerate(rows) if row.id == keep), target)
        self.move_cursor(target)
        self.refresh()

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

    def _header(self, layout: list[tuple[Any, int]], width: int) -> Strip:
        """The header line (each table draws its own)."""
        return Strip.blank(width, self.rich_style)

    def _row(self, row: Any, index: int, layout: list[tuple[Any, int]], width: int) -> Strip:
        """One row's line (each table draws its own)."""
        return Strip.blank(width, self.rich_style)

    def _line(
        self,
        row: Any,
        first: Segment,
        layout: list[tuple[Any, int]],
        width: int,
        base: Style,
        style_of: Callable[[Any], Style],
    ) -> Strip:
        """A row's line: first (its mark), then each column's cell in the style style_of(column) gives,
        padded to width in base."""
        segments = [first]
        for column, col_width in layout:
            text = (column.cut or fit)(cell_line(column.text(row, self.now)), col_width) + " "
            segments.append(Segment(text, style_of(column)))
        used = sum(cell_len(s.text) for s in segments)
        if used < width:
            segments.append(Segment(" " * (width - used), base))
        # simplified: equal-styled neighbours joined, so a line's segments (and the SVG of
        # a snapshot test) do not depend on which rendering path produced them
        return Strip(segments).crop(0, width).simplify()

    def render_line(self, y: int) -> Strip:
        """One screen line: the header at y == 0, else the row at scroll offset + y - 1 (an empty table says
        empty_text, dimmed, on its first line)."""
        width = self.scrollable_content_region.width
        layout = self._layout()
        if y == 0:
            return self._header(layout, width)
        index = int(self.scroll_offset.y) + y - 1
        if index >= len(self.rows):
            if y == 1 and not self.rows and self.empty_text:
                return Strip(
                    [Segment(set_cell_size("  " + self.empty_text, width), self.rich_style + self._style("dim"))], width
                )
            return Strip.blank(width, self.rich_style)
        return self._row(self.rows[index], index, layout, width)

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

    def action_half_page_up(self) -> None:
        """Move up half a page (ctrl+u, as in less and vim)."""
        self.move_cursor(self.cursor - max(1, self._page_height() // 2))

    def action_half_page_down(self) -> None:
        """Move down half a page (ctrl+d, as in less and vim)."""
        self.move_cursor(self.cursor + max(1, self._page_height() // 2))

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
