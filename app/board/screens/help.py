"""The help screen (`?`): every key from the action table, those of the place in front first, then what the
board shows (prose after the keys: on an 80x24 terminal the first screen of help is keys)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from memboard.widgets.key_bar import KeyBar

from ..actions import ACTIONS, Action, Where, bindings, close_hint, help_sections

ABOUT = """\
# memboard

The table is `index.md`, live: when a hook or an agent changes it (or a snapshot), the
board updates within a second and keeps the cursor, marks and filters. New rows flash.
Rows memboard cannot parse are shown with `!` and `??`, never hidden; so are rows that
share a Session ID (`d` repairs what it can).

The pane shows the selected session: its row, its snapshot and, when the snapshot
changed since the previous revision, the diff of that merge by section. Items that
vanished without `[superseded]`, `[resolved]` or `[done]` are **policy breaks**. On a
narrow terminal the pane folds away: `enter` opens it full width.

`n` shows the typed notes of `notes/` the same way: live, filtered, each note beside its
change since its previous revision, supersede chains with `g`; `n` again comes back.

Every change is previewed first: what will happen in words, each file with a header,
`d` for the exact diff. Nothing is written before you confirm; `l` lists what each
change did in this run. The footer always shows the keys of what is in front.
"""


def key_table(table: tuple[Action, ...] = ACTIONS, first: Where | None = None) -> Content:
    """The key tables: a heading per place (first: the place in front), then one aligned `keys  what it does`
    line per entry."""
    parts: list[str | tuple[str, str]] = []
    for heading, rows in help_sections(table, first):
        if parts:
            parts.append("\n\n")
        parts.append((heading, "bold $text-primary"))
        width = max(len(keys) for keys, _ in rows) + 2
        for keys, what in rows:
            parts += ["\n  ", (keys.ljust(width), "bold $text-accent"), what]
    return Content.assemble(*parts)


class HelpScreen(ModalScreen[None]):
    """The keys and what the board shows."""

    BINDINGS = bindings("help")

    def __init__(self, table: tuple[Action, ...] = ACTIONS, first: Where | None = None) -> None:
        """The help of table's keys (the board's, with the user's keymap applied), first those of the place in
        front."""
        super().__init__()
        self.table = table
        self.first = first

    def compose(self) -> ComposeResult:
        """The help text in a scrollable box, its close keys on the border."""
        from textual.widgets import Markdown  # imported on first use: start-up stays light

        box = VerticalScroll(id="help-box")
        box.border_title = "help"
        box.border_subtitle = close_hint("help", self.table)
        with box:
            yield Static(key_table(self.table, self.first), id="help-keys")
            yield Markdown(ABOUT, id="help-text")
        yield KeyBar("help")

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)
