"""A virtualised table of the known session-memory spaces (the Spaces screen), and the row it draws.

The same approach as the session and notes tables: the widget keeps the model's row list and turns
only the visible rows into Strips, so 200 spaces (or 20,000) scroll and filter alike. A space that
cannot be resolved is drawn with `!` and its one-line problem where its ages would be, never hidden;
Updated is red past the config's space_stale_days. User text goes into Segments as-is, never markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from memboard.core.formats.clock import minutes_label
from memboard.widgets.row_table import Column, RowTable, cell_line, fit, header_cell


def project_name(path: str) -> str:
    """A project as the table names it: its folder's name (the pane shows the whole path)."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return name or path


@dataclass(frozen=True)
class SpaceRow:
    """One known space as the table draws it (the model reads it off the UI thread)."""

    id: str  # the space's ID: its target folder's absolute path
    name: str  # its name (a route's name, else the folder it belongs to)
    project: str
    rule: str
    updated: str | None = None  # Last Updated (or the file's time), `YYYY-MM-DD HH:MM`
    updated_age: int | None = None  # minutes
    stale: bool = False
    history: int | None = None
    research_open: int | None = None
    research_topics: int | None = None
    dream_age: int | None = None
    dream_due: bool = False
    archive_due: bool = False
    config_invalid: bool = False
    legacy: bool = False
    half_archived: bool = False
    problem: str | None = None
    exists: bool = True

    @property
    def flags(self) -> str:
        """The Flags cell: `!` invalid config, `L` legacy data, `A` archive due, `H` half-archived."""
        return "".join(
            mark
            for mark, on in (
                ("!", self.config_invalid),
                ("L", self.legacy),
                ("A", self.archive_due),
                ("H", self.half_archived),
            )
            if on
        )

    @property
    def research(self) -> str:
        """The Research cell: open / total topics."""
        if self.research_topics is None:
            return "-"
        return f"{self.research_open or 0}/{self.research_topics}"

    @property
    def dream(self) -> str:
        """The Dream cell: the dream's age, `due` when entries are newer than it."""
        if self.dream_due:
            return "due" if self.dream_age is None else f"{minutes_label(self.dream_age)} due"
        return minutes_label(self.dream_age)

    def haystack(self) -> str:
        """What the text filter looks in (lower case): name, ID, project, rule, flags, problem."""
        return " ".join((self.name, self.id, self.project, self.rule, self.flags, self.problem or "")).lower()


SpaceColumn = Column[SpaceRow]
"""A column of this table."""

NAME_COLUMN = SpaceColumn("name", "Space", 0, lambda r, now: r.name)
PROJECT_COLUMN = SpaceColumn("project", "Project", 0, lambda r, now: project_name(r.project))
RULE_COLUMN = SpaceColumn("rule", "Rule", 16, lambda r, now: r.rule)
UPDATED_COLUMN = SpaceColumn("updated", "Updated", 7, lambda r, now: minutes_label(r.updated_age))
HISTORY_COLUMN = SpaceColumn("history", "History", 7, lambda r, now: "-" if r.history is None else f"{r.history:,}")
RESEARCH_COLUMN = SpaceColumn("research", "Research", 8, lambda r, now: r.research)
DREAM_COLUMN = SpaceColumn("dream", "Dream", 7, lambda r, now: r.dream)
FLAGS_COLUMN = SpaceColumn("flags", "Flags", 5, lambda r, now: r.flags)
DATA_COLUMNS = (UPDATED_COLUMN, HISTORY_COLUMN, RESEARCH_COLUMN, DREAM_COLUMN, FLAGS_COLUMN)


def layout_for(width: int) -> list[tuple[SpaceColumn, int]]:
    """The columns that fit a table this wide (Space and Project share what the others leave)."""
    fixed = list(DATA_COLUMNS)
    if width >= 96:
        fixed.insert(0, RULE_COLUMN)
    used = 2 + sum(c.width + 1 for c in fixed) + 2
    rest = max(width - used, 20)
    name = max(rest // 2, 10)
    return [(NAME_COLUMN, name), (PROJECT_COLUMN, rest - name), *((c, c.width) for c in fixed)]


class SpaceTable(RowTable):
    """The Spaces screen's table (virtualised: renders only visible rows)."""

    COMPONENT_CLASSES = {
        "space-table--header",
        "space-table--cursor",
        "space-table--cursor-blurred",
        "space-table--fresh",
        "space-table--stale",
        "space-table--problem",
        "space-table--due",
        "space-table--dim",
    }

    COLUMNS_FROM = 2  # after the mark column
    DEFAULT_SORT = "name"
    STAY_WITHOUT_KEEP = True

    class CursorMoved(RowTable.CursorMoved):
        """The space under the cursor changed (key is None when the table is empty)."""

    class HeaderClicked(RowTable.HeaderClicked):
        """A column header was clicked (sort by it)."""

    def __init__(self, *, id: str | None = None) -> None:
        """An empty table."""
        super().__init__(id=id)
        self.rows: list[SpaceRow] = []
        self._columns: tuple[int, list[tuple[SpaceColumn, int]]] | None = None

    def _component_style(self, name: str) -> Style:
        """A component class's rich style: whole for the header, cursor and fresh rows; only what it sets for
        the colours, so the cursor's background shows through them."""
        partial = name not in ("header", "cursor", "cursor-blurred", "fresh")
        return self.get_component_rich_style(f"space-table--{name}", partial=partial)

    def on_resize(self) -> None:
        """Keep the cursor visible when the size changes."""
        self._columns = None
        self._scroll_cursor_into_view()

    def _layout(self) -> list[tuple[SpaceColumn, int]]:
        """The columns for the current width (cached per width)."""
        width = self.scrollable_content_region.width
        if self._columns is None or self._columns[0] != width:
            self._columns = (width, layout_for(width))
        return self._columns[1]

    def _header(self, layout: list[tuple[SpaceColumn, int]], width: int) -> Strip:
        """The header line with a sort arrow on the sorted column."""
        parts = ["  "]
        for column, col_width in layout:
            sorted_here = column.key == self.sort_column and (column.key != "name" or self.sort_reverse)
            mark = ("▼" if self.sort_reverse else "▲") if sorted_here else ""
            parts.append(header_cell(column.title, col_width, mark) + " ")
        return Strip([Segment(set_cell_size("".join(parts), width), self._style("header"))], width)

    def _row(self, row: SpaceRow, index: int, layout: list[tuple[SpaceColumn, int]], width: int) -> Strip:
        """One row: a mark (`!` for a problem), the cells; Updated red when stale, a due dream marked; a
        space with a problem says it in place of its ages."""
        base = self.rich_style
        if row.id in self.fresh:
            base = base + self._style("fresh")
        if index == self.cursor:
            base = base + self._style("cursor" if self.has_focus else "cursor-blurred")
        problem_style = base + self._style("problem")
        first = Segment("! " if row.problem else "  ", problem_style if row.problem else base)
        if row.problem and row.history is None:
            head = [(c, w) for c, w in layout if c not in DATA_COLUMNS]
            segments = [first]
            for column, col_width in head:
                segments.append(Segment(fit(cell_line(column.text(row, self.now)), col_width) + " ", base))
            used = 2 + sum(w + 1 for _, w in head)
            flags = row.flags
            tail = (f"{flags}  " if flags else "") + cell_line(row.problem)
            segments.append(Segment(fit(tail, max(width - used, 0)), problem_style))
            return Strip(segments).crop(0, width).simplify()
        dim = self._style("dim")

        def style_of(column: SpaceColumn) -> Style:
            """A cell's style: a stale Updated red, a due dream and the flags marked, the project dim."""
            if column is UPDATED_COLUMN and row.stale:
                return base + self._style("stale")
            if column is DREAM_COLUMN and row.dream_due:
                return base + self._style("due")
            if column is FLAGS_COLUMN and row.flags:
                return base + self._style("problem")
            if column in (PROJECT_COLUMN, RULE_COLUMN):
                return base + dim
            return base

        return self._line(row, first, layout, width, base, style_of)
