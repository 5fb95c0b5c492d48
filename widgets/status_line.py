"""The parts every view's status line is made of (the sessions view's, the notes view's): counts per
status with the one shown highlighted, a problem count, then what is shown and the text filter."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.style import Style
from rich.text import Text


def append_counts(
    out: Text, keys: Iterable[str], counts: dict[str, int], status: str, colour: Callable[[str], Style]
) -> None:
    """One ` key N ` chip per status (all in bold), the filtered one reversed."""
    for key in keys:
        look = Style(bold=True) if key == "all" else colour(key)
        out.append(f" {key} {counts.get(key, 0):,} ", style=Style(reverse=True) + look if key == status else look)
        out.append(" ")


def append_problem(out: Text, count: int, what: str, style: Style) -> None:
    """A ` ! N what ` chip, when count is not 0."""
    if count:
        out.append(f" ! {count} {what} ", style=style)
        out.append(" ")


def append_shown(out: Text, shown: int, text: str, loading: bool) -> None:
    """`loading…` while a first read goes on, how many rows are shown, and the text filter (escaped when it
    holds what a terminal would run)."""
    if loading:
        out.append(" loading… ", style="italic")
    out.append(f"│ showing {shown:,}", style="dim")
    if text:
        out.append("  filter ", style="dim")
        out.append(repr(text)[1:-1] if not text.isprintable() else text, style="bold")
