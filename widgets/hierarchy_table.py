"""The Hierarchy screen's tables: the Warm panel (facts, lookup rows, project files) and the Cold panel (daily
logs), and the row they draw.

Virtualised like the board's other tables (only the rows on screen become Strips). A lookup row whose target
is broken, or a project file no lookup row targets, is drawn with `!` and what is wrong; user text goes
into Segments as-is, never markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from memboard.widgets.row_table import Column, RowTable, header_cell


@dataclass(frozen=True)
class HierarchyRow:
    """One item of the warm or cold layer: a fact, a lookup row, a project file, a daily log."""

    id: str  # kind:key (unique in the screen)
    kind: str  # fact | lookup | project | daily
    key: str  # a key path, a need, a path, a date
    value: str  # a value, a target, a note, a size
    line: int | None = None  # 1-based line in its file
    path: str = ""  # the file it is in (relative to the workspace)
    problem: str | None = None

    def haystack(self) -> str:
        """What the text filter looks in (lower case)."""
        return " ".join((self.kind, self.key, self.value, self.path, self.problem or "")).lower()


HierarchyColumn = Column[HierarchyRow]
"""A column of these tables."""

KIND_COLUMN = HierarchyColumn("kind", "Kind", 7, lambda r, now: r.kind)
KEY_COLUMN = HierarchyColumn("key", "Key / need / file", 0, lambda r, now: r.key)
VALUE_COLUMN = HierarchyColumn("value", "Value / target", 0, lambda r, now: r.value)
DATE_COLUMN = HierarchyColumn("key", "Date", 10, lambda r, now: r.key)
LOG_COLUMN = HierarchyColumn("path", "Daily log", 0, lambda r, now: r.path)
SIZE_COLUMN = HierarchyColumn("value", "Size", 9, lambda r, now: r.value)


class HierarchyTable(RowTable):
    """A panel's table of hierarchy items (cold=True: the daily logs' columns)."""

    COMPONENT_CLASSES = {
        "hierarchy-table--header",
        "hierarchy-table--cursor",
        "hierarchy-table--cursor-blurred",
        "hierarchy-table--fresh",
        "hierarchy-table--problem",
        "hierarchy-table--dim",
    }

    COLUMNS_FROM = 2
    STAY_WITHOUT_KEEP = True

    class CursorMoved(RowTable.CursorMoved):
        """The item under the cursor changed."""

    class HeaderClicked(RowTable.HeaderClicked):
        """A column header was clicked."""

    def __init__(self, *, cold: bool = False, id: str | None = None, classes: str | None = None) -> None:
        """An empty table of the warm items (or, cold, of the daily logs)."""
        super().__init__(id=id, classes=classes)
        self.cold = cold
        self.rows: list[HierarchyRow] = []

    def _component_style(self, name: str) -> Style:
        """A component class's rich style (the colours partial, so the cursor's background shows through)."""
        partial = name not in ("header", "cursor", "cursor-blurred", "fresh")
        return self.get_component_rich_style(f"hierarchy-table--{name}", partial=partial)

    def on_resize(self) -> None:
        """Keep the cursor visible when the size changes."""
        self._scroll_cursor_into_view()

    def _layout(self) -> list[tuple[HierarchyColumn, int]]:
        """The columns for the current width."""
        width = self.scrollable_content_region.width
        if self.cold:
            rest = max(width - 2 - DATE_COLUMN.width - SIZE_COLUMN.width - 3, 10)
            return [(DATE_COLUMN, DATE_COLUMN.width), (LOG_COLUMN, rest), (SIZE_COLUMN, SIZE_COLUMN.width)]
        rest = max(width - 2 - KIND_COLUMN.width - 3, 20)
        key = rest // 2
        return [(KIND_COLUMN, KIND_COLUMN.width), (KEY_COLUMN, key), (VALUE_COLUMN, rest - key)]

    def _header(self, layout: list[tuple[HierarchyColumn, int]], width: int) -> Strip:
        """The header line."""
        text = "  " + "".join(header_cell(c.title, w) + " " for c, w in layout)
        return Strip([Segment(set_cell_size(text, width), self._style("header"))], width)

    def _row(self, row: HierarchyRow, index: int, layout: list[tuple[HierarchyColumn, int]], width: int) -> Strip:
        """One row: `!` and the problem colour for a broken one, the kind dim."""
        base = self.rich_style
        if row.id in self.fresh:
            base = base + self._style("fresh")
        if index == self.cursor:
            base = base + self._style("cursor" if self.has_focus else "cursor-blurred")
        problem = base + self._style("problem")

        def style_of(column: HierarchyColumn) -> Style:
            """A cell's style."""
            if row.problem and column in (VALUE_COLUMN, LOG_COLUMN):
                return problem
            if column in (KIND_COLUMN, SIZE_COLUMN):
                return base + self._style("dim")
            return base

        first = Segment("! " if row.problem else "  ", problem if row.problem else base)
        return self._line(row, first, layout, width, base, style_of)
