"""The notes view's status lines: counts per status with the filters in use, then counts per type."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from memboard.widgets.status_line import append_counts, append_problem, append_shown

STATUS_KEYS = ("all", "active", "superseded")


class NotesStatus(Static):
    """Two lines above the notes table: counts per status, shown and filters; counts per type.

    The status colours are component classes, set in notes.tcss with the table's.
    """

    COMPONENT_CLASSES = {"notes-status--active", "notes-status--superseded", "notes-status--problem"}

    def show(
        self,
        counts: dict[str, int],
        types: dict[str, int],
        *,
        problems: int,
        shown: int,
        status: str,
        note_type: str,
        text: str,
        loading: bool,
    ) -> None:
        """Render both lines from the view's state (status and note_type are `all` when not filtered)."""
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append("▤ notes ", style="bold")
        append_counts(out, STATUS_KEYS, counts, status, self.colour)
        append_problem(out, problems, "with metadata problems", self.colour("problem"))
        append_shown(out, shown, text, loading)
        out.append("\n")
        for number, (name, count) in enumerate((n, c) for n, c in types.items() if c or n == note_type):
            if number:
                out.append(" · ", style="dim")
            look = Style(reverse=True, bold=True) if name == note_type else Style(dim=not count)
            out.append(f"{name} {count:,}", style=look)
        self.update(out, layout=False)

    def colour(self, status: str) -> Style:
        """The colour of a status (active, superseded, problem) from the stylesheet."""
        return self.get_component_rich_style(f"notes-status--{status}", partial=True)
