"""Doctor's kinds of finding, each on or off (`x` in doctor's preview): what its repair plan leaves out.

A root with 10,965 missing snapshots and three one-sided links can fix its links alone: each kind
doctor would repair is a line with its count and its fix, checked while it is repaired; `space` (or
`x`) leaves it out or puts it back, `enter` works the plan out again without the kinds left out and
previews it (exactly that plan is what `enter` there applies), `escape` goes back to the preview as
it was. A kind whose repair goes with others' (a sync-conflict copy's merge, a note's) cannot be left
out and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from memboard.styles import FLOWS_TCSS
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.rows import printable

from ..actions import bindings

HINT = (
    "space: leave a kind out or put it back · enter: preview the plan without the kinds left out · "
    "esc: back to the preview as it was. Nothing is written before you confirm the preview."
)


@dataclass(frozen=True)
class Kind:
    """One kind of finding doctor would repair: its name, how many, its first fix, whether it can be left out."""

    name: str
    count: int
    fix: str
    leavable: bool


class KindsScreen(ModalScreen[frozenset[str] | None]):
    """Each kind of repair on or off; returns the kinds left out (None on escape: nothing changes)."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("kinds")

    def __init__(self, kinds: list[Kind], left_out: frozenset[str]):
        """Offer kinds, those in left_out starting off."""
        super().__init__()
        self.kinds = kinds
        self.left_out = set(left_out)

    def compose(self) -> ComposeResult:
        """Title, hint and one line per kind."""
        with Vertical(id="picker-dialog"):
            yield Label(Text("Doctor: which kinds of finding to repair"), id="picker-title")
            yield Static(Text(HINT), id="picker-hint")
            yield OptionList(*(self.option(kind) for kind in self.kinds), id="picker-list")
        yield KeyBar("kinds")

    def option(self, kind: Kind) -> Option:
        """A kind's line: on or off, its name, count and fix (or why it cannot be left out)."""
        off = kind.name in self.left_out
        mark = "[ ]" if off else "[✓]"
        state = "left out" if off else "repaired"
        why = "" if kind.leavable else " (cannot be left out: its repair goes with others')"
        text = Text(f"{mark} {kind.name}  {kind.count:,} {state}{why}")
        text.append(f"  · {printable(kind.fix)}", style="dim")
        return Option(text, id=kind.name)

    def on_mount(self) -> None:
        """Highlight the first kind."""
        listing = self.query_one(OptionList)
        listing.highlighted = 0 if listing.option_count else None
        listing.focus()

    def action_flip(self) -> None:
        """Leave the highlighted kind out, or put it back (a kind that cannot be left out rings the bell)."""
        listing = self.query_one(OptionList)
        number = listing.highlighted
        if number is None or not self.kinds[number].leavable:
            self.app.bell()
            return
        self.left_out ^= {self.kinds[number].name}
        listing.replace_option_prompt_at_index(number, self.option(self.kinds[number]).prompt)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """enter: preview the plan with the kinds as chosen."""
        event.stop()
        self.action_done()

    def action_done(self) -> None:
        """Answer with the kinds left out."""
        self.dismiss(frozenset(self.left_out))

    def action_cancel(self) -> None:
        """Back to the preview as it was."""
        self.dismiss(None)
