"""A virtualised table of sessions: a ScrollView that renders only the lines on screen.

Textual's DataTable builds every row up front (seconds at 10k rows); this widget keeps a
reference to the model's row list and turns just the visible rows into Strips, so opening,
scrolling and filtering cost the same at 40 rows as at 100k. User text goes into Segments
as-is: it is never parsed as markup.
"""

from __future__ import annotations

from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from memboard.widgets.row_table import Column, RowTable, header_cell
from memboard.widgets.rows import BoardRow

SessionColumn = Column[BoardRow]
"""A column of this table."""

ID_COLUMN = SessionColumn("id", "Session ID", 35, lambda r, now: r.id)
AGENT_COLUMN = SessionColumn("agent", "Agent", 18, lambda r, now: r.agent)
STATUS_COLUMN = SessionColumn("status", "Status", 7, lambda r, now: r.status if not r.problem else "??")
REFS_COLUMN = SessionColumn("refs", "Refs", 5, lambda r, now: str(r.ref_count) if r.ref_count else "·")
AGE_COLUMN = SessionColumn("age", "Age", 5, lambda r, now: r.age(now))
FOREGROUND = frozenset({"idle", "active", "stale", "problem", "dim"})  # component classes that colour text only
AGENT_FROM = 101  # table widths from which Agent, then Summary, get a column (101: not at 100 wide, scrollbar or not)
SUMMARY_FROM = 130
TOPIC_COLUMN = SessionColumn(
    "topic", "Topic", 0, lambda r, now: r.topic if not r.problem else f"unparseable: {r.problem}"
)
SUMMARY_COLUMN = SessionColumn("summary", "Summary", 0, lambda r, now: r.summary)


class SessionTable(RowTable):
    """The board's live table of sessions (virtualised: renders only visible rows)."""

    COMPONENT_CLASSES = {
        "session-table--header",
        "session-table--cursor",
        "session-table--cursor-blurred",
        "session-table--marked",
        "session-table--fresh",
        "session-table--idle",
        "session-table--active",
        "session-table--stale",
        "session-table--problem",
        "session-table--dim",
    }

    class CursorMoved(RowTable.CursorMoved):
        """The row under the cursor changed (key is None when the table is empty)."""

    class HeaderClicked(RowTable.HeaderClicked):
        """A column header was clicked (sort by it)."""

    DEFAULT_SORT = "line"

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        """An empty table."""
        super().__init__(name=name, id=id, classes=classes)
        self.rows: list[BoardRow] = []
        self.marked: set[str] = set()
        self._columns_cache: tuple[int, list[tuple[SessionColumn, int]]] | None = None

    # -- data ---------------------------------------------------------------------------

    def _component_style(self, name: str) -> Style:
        """A component class's rich style.

        A text colour (a status, dim, a problem) is laid over the row's background, so it carries no
        background of its own: the cursor's or the mark's stays under every cell."""
        whole = self.get_component_rich_style(f"session-table--{name}")
        if name not in FOREGROUND:
            return whole
        # the text style this rule sets, in the colour blended as a whole style has it
        return self.get_component_rich_style(f"session-table--{name}", partial=True) + Style.from_color(whole.color)

    def on_resize(self) -> None:
        """Keep the cursor visible when the size changes."""
        self._columns_cache = None
        self._scroll_cursor_into_view()

    # -- rendering ----------------------------------------------------------------------

    def _layout(self) -> list[tuple[SessionColumn, int]]:
        """Columns that fit the width, with their widths (Topic/Summary take the rest)."""
        width = self.scrollable_content_region.width
        if self._columns_cache and self._columns_cache[0] == width:
            return self._columns_cache[1]
        fixed = [ID_COLUMN, STATUS_COLUMN, REFS_COLUMN, AGE_COLUMN]
        flex = [TOPIC_COLUMN]
        if width >= AGENT_FROM:
            fixed.insert(1, AGENT_COLUMN)
        if width >= SUMMARY_FROM:
            flex.append(SUMMARY_COLUMN)
        used = 2 + sum(c.width + 1 for c in fixed) + len(flex)
        rest = max(width - used, 8 * len(flex))
        share = rest // len(flex)
        layout: list[tuple[SessionColumn, int]] = [(c, c.width) for c in fixed]
        for i, c in enumerate(flex):
            layout.append((c, share if i < len(flex) - 1 else rest - share * (len(flex) - 1)))
        self._columns_cache = (width, layout)
        return layout

    def visible_columns(self) -> list[str]:
        """The keys of the columns on screen, left to right (what `s` cycles through)."""
        return [column.key for column, _ in self._layout()]

    def _header(self, layout: list[tuple[SessionColumn, int]], width: int) -> Strip:
        """The header line with a sort arrow on the sorted column."""
        style = self._style("header")
        parts = ["  "]
        for column, col_width in layout:
            mark = ("▼" if self.sort_reverse else "▲") if column.key == self.sort_column else ""
            parts.append(header_cell(column.title, col_width, mark) + " ")
        text = set_cell_size("".join(parts), width)
        return Strip([Segment(text, style)], width)

    def _row(self, row: BoardRow, index: int, layout: list[tuple[SessionColumn, int]], width: int) -> Strip:
        """One row as segments: mark, cells, status coloured, row background by state."""
        base = self._styles.get("base")
        if base is None:
            base = self._styles["base"] = self.rich_style
        if row.id in self.fresh:
            base = base + self._style("fresh")
        marked = row.key in self.marked
        if marked:
            base = base + self._style("marked")
        if index == self.cursor:
            base = base + self._style("cursor" if self.has_focus else "cursor-blurred")
        if row.problem:
            status_style = self._style("problem")
        elif row.status in ("idle", "active", "stale"):
            status_style = self._style(row.status)
        else:
            status_style = Style()
        dim = self._style("dim")
        mark = "●" if marked else ("!" if row.problem or row.dups else " ")

        def style_of(column: SessionColumn) -> Style:
            """A cell's style: the status (and a broken row's topic) in its colour, quieter columns dim."""
            if column is STATUS_COLUMN or (column is TOPIC_COLUMN and row.problem):
                return base + status_style
            if (
                column in (REFS_COLUMN, AGE_COLUMN)
                or column is AGENT_COLUMN
                or (row.status == "idle" and not row.problem)
            ):
                return base + dim
            return base

        first = Segment(mark + " ", base + self._style("problem") if row.problem or row.dups else base)
        return self._line(row, first, layout, width, base, style_of)
