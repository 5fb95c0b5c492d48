"""The board's status area: the line above the table (counts per status, the active filters, the
sort and marks) and the banner under it that warns about the root itself."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from memboard.widgets.status_line import append_counts, append_problem, append_shown


class BoardStatus(Static):
    """The board's title line: root name, counts per status, filters, sort and marks.

    The status colours are component classes, set in board.tcss with the table's.
    """

    COMPONENT_CLASSES = {"board-status--idle", "board-status--active", "board-status--stale", "board-status--problem"}

    def __init__(self, root_name: str, *, id: str | None = None) -> None:
        """A status line for the root called root_name."""
        super().__init__(id=id)
        self.root_name = root_name

    def show(
        self,
        counts: dict[str, int],
        *,
        shown: int,
        status: str,
        text: str,
        sort: str,
        reverse: bool,
        marked: int,
        loading: bool = False,
    ) -> None:
        """Render the line from the board's state (sort is "" for file order)."""
        out = self._line(counts, shown, status, text, sort, reverse, marked, loading, titled=True)
        if marked and self.size.width and out.cell_len > self.size.width:  # (80 columns and a problem count)
            out = self._line(counts, shown, status, text, sort, reverse, marked, loading, titled=False)
        self.update(out, layout=False)  # one line, fixed height: no relayout per keystroke

    def _line(
        self,
        counts: dict[str, int],
        shown: int,
        status: str,
        text: str,
        sort: str,
        reverse: bool,
        marked: int,
        loading: bool,
        titled: bool,
    ) -> Text:
        """The line; without the title and root name (titled False) when the marks would be cut off."""
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append("▦ memboard " if titled else "▦ ", style="bold")
        if titled:
            out.append(self.root_name + " ", style="dim")
        append_counts(out, ("all", "idle", "active", "stale"), counts, status, self.status_style)
        append_problem(out, counts.get("unparseable", 0), "unparseable", self.status_style("problem"))
        append_problem(out, counts.get("duplicate", 0), "share an ID", self.status_style("problem"))
        if marked:  # before what is shown: at 80 columns the line's end is cut, and marks are what a change acts on
            out.append(f"│ {marked} marked  ", style="bold")
        append_shown(out, shown, text, loading)
        if sort:
            out.append(f"  │ sort {sort} {'▼' if reverse else '▲'}", style="dim")
        return out

    def status_style(self, status: str) -> Style:
        """The colour of a status (idle, active, stale, problem) from the stylesheet."""
        return self.get_component_rich_style(f"board-status--{status}", partial=True)


class BoardBanner(Static):
    """The banner under the status line: one line per problem with the root itself (read-only,
    merge-conflict markers in index.md, sync-conflict copies); hidden while there is none."""

    def __init__(self, *, id: str | None = None) -> None:
        """An empty, hidden banner."""
        super().__init__(id=id)
        self.lines: list[tuple[str, str]] = []
        self.display = False

    def show(self, lines: list[tuple[str, str]]) -> None:
        """Show (severity, text) lines; `error` lines (changes are refused) colour the whole banner."""
        if lines == self.lines:
            return
        self.lines = list(lines)
        out = Text()
        for number, (_, line) in enumerate(lines):
            if number:
                out.append("\n")
            out.append("⚠ ", style="bold")
            out.append(line)
        self.set_class(any(severity == "error" for severity, _ in lines), "-error")
        self.update(out)
        self.display = bool(lines)
