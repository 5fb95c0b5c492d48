"""A one-line footer of the keys of the place in front: cheap to draw (one Content) and clickable.

Every screen has its own bar, and the board's bar follows its state (the table, the filter box,
the full-width pane). The bar draws FooterKeys (plain data, defined here) that a KeySource gives
it for a place: the board's App is one (its action table, with the user's keymap applied), a test
may pass another. Help and quit are pinned to the right and stay visible at any width: when the
line is too narrow, the other keys give way from the end and an ellipsis says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from textual.content import Content
from textual.events import Click
from textual.widgets import Static

KEY_STYLE = "bold $footer-key-foreground"
LABEL_STYLE = "$footer-description-foreground"
MORE = " …"


@dataclass(frozen=True)
class FooterKey:
    """One footer entry as the bar draws it: its key as shown, what a click runs, its label, its group."""

    key: str
    action: str
    """The action a click runs, with its namespace (`app.archive`, `screen.edit`; "" for none)."""
    label: str
    group: str = ""
    """Consecutive entries of one group share its label (`1234 status`)."""
    pinned: bool = False
    """Shown at the right, whatever the width (help and quit)."""


@runtime_checkable
class KeySource(Protocol):
    """What gives a bar its entries: the footer keys of a place (`board`, `pane`, `filter`, a screen's)."""

    def footer_keys(self, context: str) -> Sequence[FooterKey]:
        """The place's footer entries, in order."""


@dataclass(frozen=True)
class Item:
    """One drawn entry: its keys (one per member of a group), its label, and what a click runs."""

    keys: tuple[tuple[str, str], ...]  # (key as shown, action with its namespace or "")
    label: str

    @property
    def width(self) -> int:
        """Cells it takes, with the space before it."""
        return 1 + sum(len(key) for key, _ in self.keys) + 1 + len(self.label)


def items(entries: Sequence[FooterKey]) -> tuple[list[Item], list[Item]]:
    """The entries (groups joined) and the pinned ones, as drawn items."""
    free: list[Item] = []
    pinned: list[Item] = []
    i = 0
    while i < len(entries):
        entry = entries[i]
        members = [entry]
        while entry.group and i + len(members) < len(entries) and entries[i + len(members)].group == entry.group:
            members.append(entries[i + len(members)])
        label = entry.group if entry.group and len(members) > 1 else entry.label
        item = Item(tuple((m.key, m.action) for m in members), label)
        (pinned if entry.pinned else free).append(item)
        i += len(members)
    return free, pinned


class KeyBar(Static):
    """The keys of one place (`board`, `pane`, `filter` or a screen's footer) as `key label` pairs."""

    def __init__(self, context: str = "board", *, id: str | None = None, keys: KeySource | None = None) -> None:
        """A bar for the context's keys, from keys (by default the App, when it is a KeySource)."""
        super().__init__(id=id or "keys", classes="key-bar")
        self.context = context
        self.key_source = keys
        self._spans: list[tuple[int, int, str]] = []
        self._drawn: tuple[str, int] | None = None

    def on_mount(self) -> None:
        """Draw the keys."""
        self.redraw()

    def on_resize(self) -> None:
        """Fit the keys to the new width."""
        self.redraw()

    def show(self, context: str) -> None:
        """Show another place's keys."""
        if context != self.context:
            self.context = context
            self.redraw()

    def redraw(self) -> None:
        """Draw the context's keys into the bar's width (once per context and width)."""
        width = self.size.width or self.app.size.width
        if self._drawn == (self.context, width):
            return
        self._drawn = (self.context, width)
        self.update(self.render_keys(width))

    def render_keys(self, width: int) -> Content:
        """The bar's content at width: free keys that fit, an ellipsis if some do not, the pinned keys at the right."""
        source = self.key_source if self.key_source is not None else self.app
        free, pinned = items(source.footer_keys(self.context) if isinstance(source, KeySource) else ())
        room = width - sum(item.width for item in pinned) - 1
        shown: list[Item] = []
        used = 0
        for number, item in enumerate(free):
            last = number == len(free) - 1
            if used + item.width + (0 if last else len(MORE)) > room:
                break
            shown.append(item)
            used += item.width
        parts: list[tuple[str, str] | str] = []
        spans: list[tuple[int, int, str]] = []
        at = 0
        for item in shown:
            at = self._append(item, parts, spans, at)
        if len(shown) < len(free):
            parts.append((MORE, LABEL_STYLE))
            at += len(MORE)
        gap = width - at - sum(item.width for item in pinned) - 1
        if gap > 0:
            parts.append(" " * gap)
            at += gap
        for item in pinned:
            at = self._append(item, parts, spans, at)
        self._spans = spans
        return Content.assemble(*parts)

    @staticmethod
    def _append(item: Item, parts: list, spans: list[tuple[int, int, str]], at: int) -> int:
        """Add one item's parts (keys, then label) from column at; the column after it."""
        parts.append(" ")
        at += 1
        for key, action in item.keys:
            parts.append((key, KEY_STYLE))
            spans.append((at, at + len(key), action))
            at += len(key)
        label = " " + item.label
        parts.append((label, LABEL_STYLE))
        if len(item.keys) == 1:  # a key's label is part of it (a click on `help` of `? help` opens help)
            spans[-1] = (spans[-1][0], at + len(label), spans[-1][2])
        return at + len(label)

    @property
    def text(self) -> str:
        """What the bar shows, as plain text."""
        return self.render_keys(self.size.width or self.app.size.width).plain

    def on_click(self, event: Click) -> None:
        """Run the action of the clicked key (a lone key's label counts as part of it; a group's names them all)."""
        for start, end, action in self._spans:
            if start <= event.x < end and action:
                self.run_worker(self.app.run_action(action, self.screen), exclusive=False)
                return
