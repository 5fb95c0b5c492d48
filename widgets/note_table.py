"""A virtualised table of notes: a ScrollView that renders only the lines on screen.

The same approach as the session table (widgets/session_table.py): the widget keeps a reference to
the model's row list and turns just the visible rows into Strips, so 10k notes open, scroll and
filter like 40. User text goes into Segments as-is: it is never parsed as markup.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from memboard.widgets.row_table import Column, RowTable, header_cell
from memboard.widgets.rows import NoteRow

NoteColumn = Column[NoteRow]
"""A column of this table."""


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


def middle_cut(text: str, width: int) -> str:
    """Text in width cells: whole, or its start and end with `…` between (`global/pr…ence/pr-style`), so two
    keys that share a long prefix (a scope and type) still read apart by their ends."""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    if width <= 1:
        return set_cell_size("…", width)
    tail = (width - 1) // 2
    head = width - 1 - tail
    start = set_cell_size(text, head).rstrip()
    end = ""
    for ch in reversed(text):  # the last cells, whole characters only
        if cell_len(ch + end) > tail:
            break
        end = ch + end
    return set_cell_size(start + "…" + end, width)


KEY_COLUMN = NoteColumn("id", "Topic key", 0, lambda r, now: r.id, middle_cut)
"""Drawn whole, or cut in the middle (middle_cut): two keys differ at their ends, and both stay in view."""


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

    DEFAULT_SORT = "id"
    STAY_WITHOUT_KEEP = True

    def __init__(self, *, id: str | None = None) -> None:
        """An empty table."""
        super().__init__(id=id)
        self.rows: list[NoteRow] = []
        self._columns: tuple[int, list[tuple[NoteColumn, int]]] | None = None

    # -- data ---------------------------------------------------------------------------

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

    def _header(self, layout: list[tuple[NoteColumn, int]], width: int) -> Strip:
        """The header line with a sort arrow on the sorted column."""
        parts = ["  "]
        for column, col_width in layout:
            sorted_here = column.key == self.sort_column and (column.key != "id" or self.sort_reverse)
            mark = ("▼" if self.sort_reverse else "▲") if sorted_here else ""
            parts.append(header_cell(column.title, col_width, mark) + " ")
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
        dim = self._style("dim")

        def style_of(column: NoteColumn) -> Style:
            """A cell's style: the status in its colour, the quieter columns (and superseded notes) dim."""
            if column is STATUS_COLUMN:
                return base + status_style
            if superseded or column in (AGE_COLUMN, UPDATED_COLUMN, PROJECT_COLUMN, SCOPE_COLUMN):
                return base + dim
            return base

        first = Segment("! " if problem else "  ", base + status_style if problem else base)
        return self._line(row, first, layout, width, base, style_of)
