"""A virtualised table of notes: a ScrollView that renders only the lines on screen.

The same approach as the session table (widgets/session_table.py): the widget keeps a reference to
the model's row list and turns just the visible rows into Strips, so 10k notes open, scroll and
filter like 40. User text goes into Segments as-is: it is never parsed as markup.
"""

from __future__ import annotations

from datetime import datetime

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip

from memboard.widgets.row_table import Column, RowTable, cell_line
from memboard.widgets.rows import NoteRow

NoteColumn = Column[NoteRow]
"""A column of this table."""

KEY_COLUMN = NoteColumn("id", "Topic key", 0, lambda r, now: r.id)
TYPE_COLUMN = NoteColumn("type", "Type", 10, lambda r, now: r.view.type or "?")
SCOPE_COLUMN = NoteColumn("scope", "Scope", 7, lambda r, now: r.view.scope or "?")
STATUS_COLUMN = NoteColumn("status", "Status", 10, lambda r, now: r.view.status or "?")
PROJECT_COLUMN = NoteColumn("project", "Project", 12, lambda r, now: r.view.project or "·")
AGE_COLUMN = NoteColumn("updated", "Age", 4, lambda r, now: r.age(now))
UPDATED_COLUMN = NoteColumn("updated", "Updated", 16, lambda r, now: r.view.updated)
TITLE_COLUMN = NoteColumn("title", "Title", 0, lambda r, now: r.view.title)
STATUSES = ("active", "superseded")


def layout_for(width: int) -> list[tuple[NoteColumn, int]]:
    """The columns that fit a table this wide, with their widths (the topic key, then the title, take the rest)."""
    fixed = [TYPE_COLUMN, STATUS_COLUMN]
    if width >= 72:
        fixed.insert(1, SCOPE_COLUMN)
    if width >= 88:
        fixed.append(PROJECT_COLUMN)
    fixed.append(UPDATED_COLUMN if width >= 96 else AGE_COLUMN)
    flex = [KEY_COLUMN] + ([TITLE_COLUMN] if width >= 140 else [])
    used = 2 + sum(c.width + 1 for c in fixed) + len(flex)
    rest = max(width - used, 12 * len(flex))
    share = rest // len(flex)
    layout: list[tuple[NoteColumn, int]] = [(flex[0], share)]
    layout += [(c, c.width) for c in fixed]
    if len(flex) > 1:
        layout.append((flex[1], rest - share))
    return layout


class NoteTable(RowTable):
    """The notes view's table (virtualised: renders only visible rows)."""

    COMPONENT_CLASSES = {
        "note-table--header",
        "note-table--cursor",
        "note-table--cursor-blurred",
        "note-table--fresh",
        "note-table--active",
        "note-table--superseded",
        "note-table--problem",
        "note-table--dim",
    }

    COLUMNS_FROM = 2  # after the mark column

    class CursorMoved(RowTable.CursorMoved):
        """The note under the cursor changed (key is None when the table is empty)."""

    class HeaderClicked(RowTable.HeaderClicked):
        """A column header was clicked (sort by it)."""

    def __init__(self, *, id: str | None = None) -> None:
        """An empty table."""
        super().__init__(id=id)
        self.rows: list[NoteRow] = []
        self.fresh: set[str] = set()
        self.now = datetime.now()
        self.sort_column = "id"
        self.sort_reverse = False
        self._columns: tuple[int, list[tuple[NoteColumn, int]]] | None = None

    # -- data ---------------------------------------------------------------------------

    def set_rows(self, rows: list[NoteRow], now: datetime, keep: str | None = None) -> None:
        """Show rows, keeping the cursor on the note keep when it is still there."""
        self.rows = rows
        self.now = now
        self.virtual_size = Size(self.virtual_size.width, len(rows) + 1)
        target = min(self.cursor, max(len(rows) - 1, 0))
        if keep is not None:
            target = next((i for i, row in enumerate(rows) if row.id == keep), target)
        self.move_cursor(target)
        self.refresh()

    def _component_style(self, name: str) -> Style:
        """A component class's rich style: whole for the header, cursor and fresh rows; only what it sets for
        the colours of a status or of dim text, so a row's background (the cursor's) shows through them."""
        partial = name not in ("header", "cursor", "cursor-blurred", "fresh")
        return self.get_component_rich_style(f"note-table--{name}", partial=partial)

    def on_resize(self) -> None:
        """Keep the cursor visible when the size changes."""
        self._columns = None
        self._scroll_cursor_into_view()

    # -- rendering ----------------------------------------------------------------------

    def _layout(self) -> list[tuple[NoteColumn, int]]:
        """The columns for the current width (cached per width)."""
        width = self.scrollable_content_region.width
        if self._columns is None or self._columns[0] != width:
            self._columns = (width, layout_for(width))
        return self._columns[1]

    def render_line(self, y: int) -> Strip:
        """One screen line: the header at y == 0, else the row at scroll offset + y - 1."""
        width = self.scrollable_content_region.width
        layout = self._layout()
        if y == 0:
            return self._header(layout, width)
        index = int(self.scroll_offset.y) + y - 1
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        return self._row(self.rows[index], index, layout, width)

    def _header(self, layout: list[tuple[NoteColumn, int]], width: int) -> Strip:
        """The header line with a sort arrow on the sorted column."""
        parts = ["  "]
        for column, col_width in layout:
            title = column.title
            if column.key == self.sort_column and (column.key != "id" or self.sort_reverse):
                title += " ▼" if self.sort_reverse else " ▲"
            parts.append(set_cell_size(title, col_width) + " ")
        return Strip([Segment(set_cell_size("".join(parts), width), self._style("header"))], width)

    def _row(self, row: NoteRow, index: int, layout: list[tuple[NoteColumn, int]], width: int) -> Strip:
        """One row as segments: a mark, the cells, the status coloured, the row background by state."""
        base = self.rich_style
        if row.id in self.fresh:
            base = base + self._style("fresh")
        if index == self.cursor:
            base = base + self._style("cursor" if self.has_focus else "cursor-blurred")
        problem = row.view.problem is not None
        status_style = (
            self._style("problem" if problem else row.status) if problem or row.status in STATUSES else Style()
        )
        superseded = row.status == "superseded"
        segments = [Segment("! " if problem else "  ", base + status_style if problem else base)]
        for column, col_width in layout:
            text = set_cell_size(cell_line(column.text(row, self.now)), col_width) + " "
            if column is STATUS_COLUMN:
                style = base + status_style
            elif superseded or column in (AGE_COLUMN, UPDATED_COLUMN, PROJECT_COLUMN, SCOPE_COLUMN):
                style = base + self._style("dim")
            else:
                style = base
            segments.append(Segment(text, style))
        used = sum(cell_len(s.text) for s in segments)
        if used < width:
            segments.append(Segment(" " * (width - used), base))
        return Strip(segments).crop(0, width).simplify()
