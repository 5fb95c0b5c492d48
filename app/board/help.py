"""The help screen (`?`): what the board shows and every key."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

HELP = """\
# memboard

The table is `index.md`, live: when a hook or an agent changes it (or a snapshot), the
board updates within a second and keeps the cursor, marks and filters. New rows flash.
Rows memboard cannot parse are shown with `!` and `??`, never hidden.

The pane shows the selected session: its row, its snapshot and, when the snapshot
changed since the previous revision, the diff of that merge by section. Items that
vanished without `[superseded]`, `[resolved]` or `[done]` are **policy breaks**.

| Key | What it does |
|---|---|
| `/` | filter by text (ID, agent, topic, summary, keywords); `enter` keeps, `escape` clears |
| `1`-`4` | show all / idle / active / stale rows |
| `s` / `S` | sort by the next column / reverse the order (or click a header) |
| `enter` | open: the snapshot pane full width (again or `escape` to go back) |
| `[` `]` | step to an older / newer snapshot revision |
| `space` | mark the row (archive acts on all marked rows) |
| `c` | continue from the selected session (pick the referencing session) |
| `r` | release a reference |
| `a` | archive the selected or marked sessions |
| `o` | organize: delete idle rows, mark overdue active rows stale |
| `u` | update topic, summary, keywords and the snapshot |
| `g` | the reference chain of the selected session |
| `d` | doctor: find and repair inconsistencies |
| `ctrl+p` | command palette (every action, themes) |
| `?` | this help |
| `q` | quit |

Every change is previewed as diffs first: `enter` or `y` applies exactly that plan,
`escape` or `n` cancels and writes nothing.
"""


class HelpScreen(ModalScreen[None]):
    """The keys and what the board shows."""

    BINDINGS = [
        Binding("escape,q,question_mark", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        """The help text in a scrollable box."""
        from textual.widgets import Markdown  # imported on first use: start-up stays light

        with VerticalScroll(id="help-box"):
            yield Markdown(HELP, id="help-text")

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)
