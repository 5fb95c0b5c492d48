"""The notes view's status lines: counts per status with the filters in use, then counts per type."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

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
        for key in STATUS_KEYS:
            look = Style(bold=True) if key == "all" else self.colour(key)
            out.append(f" {key} {counts.get(key, 0):,} ", style=Style(reverse=True) + look if key == status else look)
            out.append(" ")
        if problems:
            out.append(f" ! {problems} with metadata problems ", style=self.colour("problem"))
            out.append(" ")
        if loading:
            out.append(" loading… ", style="italic")
        out.append(f"│ showing {shown:,}", style="dim")
        if text:
            out.append("  filter ", style="dim")
            out.append(repr(text)[1:-1] if not text.isprintable() else text, style="bold")
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
