"""A one-line footer of the board's keys: cheap to draw (one Text) and clickable.

Textual's Footer mounts a widget per key and restyles them all on every focus change,
which costs a noticeable part of the board's first paint; this bar renders the same
bindings (grouped ones share a label) as a single line.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.events import Click
from textual.widgets import Static


class KeyBar(Static):
    """The shown bindings of the app as `key label` pairs; clicking one runs its action."""

    def __init__(self, bindings: Sequence[BindingType], *, id: str | None = None) -> None:
        """A bar for these bindings (the Binding entries with show=True are drawn)."""
        super().__init__(id=id)
        self.bindings = [b for b in bindings if isinstance(b, Binding) and b.show]
        self._spans: list[tuple[int, int, str]] = []

    def on_mount(self) -> None:
        """Draw the keys."""
        self.update(self._render_keys())

    def _render_keys(self) -> Content:
        """The bar's content, remembering where each key sits for clicks."""
        parts: list[tuple[str, str]] = []
        width = 0
        spans: list[tuple[int, int, str]] = []
        i = 0
        bindings = self.bindings
        while i < len(bindings):
            binding = bindings[i]
            group = binding.group
            members = [binding]
            if group is not None:
                while i + len(members) < len(bindings) and bindings[i + len(members)].group == group:
                    members.append(bindings[i + len(members)])
            parts.append((" ", ""))
            width += 1
            for member in members:
                key = self.app.get_key_display(member)
                parts.append((key, "bold $footer-key-foreground"))
                spans.append((width, width + len(key), member.action))
                width += len(key)
            label = " " + (group.description.strip() if group is not None else binding.description)
            parts.append((label, "$footer-description-foreground"))
            width += len(label)
            i += len(members)
        self._spans = spans
        return Content.assemble(*parts)

    def on_click(self, event: Click) -> None:
        """Run the action of the clicked key."""
        for start, end, action in self._spans:
            if start <= event.x < end + 1:
                self.run_worker(self.app.run_action(action), exclusive=False)
                return
