"""Resolve's question (R): whose value decides the open conflicts, ours or theirs, and which of them.

A merge of a sync-conflict copy leaves a cell open when no rule decides it (the same Summary changed
on both machines in the same minute); the git merge driver leaves a conflict block. This small modal
lists what is open and asks whose value wins: `o` keeps ours (this machine's file, or the branch you
are on), `t` takes theirs (the copy's, or the branch merged in); `s` narrows it to the selected
session's. The answer only picks the plan: the flow previews it exactly before anything is written.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from memboard.styles import FLOWS_TCSS
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.rows import printable

from ..actions import bindings
from ..results import OpenConflict, Prefer

Answer = tuple[Prefer, str | None]
"""Whose value decides, and the session or note ID it is limited to (None: every open conflict)."""


def conflict_line(conflict: OpenConflict) -> str:
    """One open conflict as listed: its file, its session or note, its column (or `conflict blocks`)."""
    what = conflict.column or "conflict blocks"
    return printable("  ".join(part for part in (conflict.file, conflict.id, what) if part))


def one_line(text: str) -> str:
    """A value on one line (line breaks shown as spaces), printable."""
    return printable(" ".join(text.split()))


class ResolveScreen(ModalScreen[Answer | None]):
    """Ask ours or theirs for the open conflicts (every one, or with `s` the selected session's); None on escape."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("resolve")

    def __init__(self, conflicts: list[OpenConflict], selected: str | None = None, *, only: bool = False):
        """Ask about conflicts; selected is the session under the board's cursor (offered for `s` when it has
        open conflicts of its own and others have some too); only starts narrowed to it."""
        super().__init__()
        self.conflicts = conflicts
        ids = {c.id for c in conflicts}
        self.selected = selected if selected and selected in ids and len(ids) > 1 else None
        self.only = only and self.selected is not None

    @property
    def scope(self) -> list[OpenConflict]:
        """The conflicts the answer decides."""
        if self.only and self.selected:
            return [c for c in self.conflicts if c.id == self.selected]
        return list(self.conflicts)

    def compose(self) -> ComposeResult:
        """Title, what is open (scrolling when long), the scope, a button per answer."""
        with Vertical(id="resolve-dialog"):
            yield Label(Text(self.heading()), id="resolve-title")
            with VerticalScroll(id="resolve-box"):
                yield Static(self.listing(), id="resolve-list")
            yield Static(Text(self.scope_line()), id="resolve-scope")
            with Horizontal(id="resolve-buttons"):
                yield Button("Keep ours (o)", id="ours", variant="primary")
                yield Button("Take theirs (t)", id="theirs")
                yield Button("Cancel (esc)", id="cancel")
        yield KeyBar("resolve")

    def heading(self) -> str:
        """`Resolve 3 open conflicts`."""
        n = len(self.scope)
        return f"Resolve {n} open {'conflict' if n == 1 else 'conflicts'}"

    def listing(self) -> Text:
        """The conflicts in scope, each with its two values (ours, theirs) or doctor's words, one line each."""
        out = Text(no_wrap=True, overflow="ellipsis")
        for number, conflict in enumerate(self.scope):
            if number:
                out.append("\n")
            out.append(conflict_line(conflict), style="bold")
            if conflict.column:
                out.append("\n  ours    ", style="dim")
                out.append(one_line(conflict.ours))
                out.append("\n  theirs  ", style="dim")
                out.append(one_line(conflict.theirs))
            elif conflict.message:
                out.append(f"\n  {one_line(conflict.message)}", style="dim")
        return out

    def scope_line(self) -> str:
        """What the answer decides and how `s` changes it; what ours and theirs are; what happens next."""
        if self.selected is None:
            scope = "Decides every one listed."
        elif self.only:
            scope = f"Decides only {self.selected}'s (s: every one)."
        else:
            scope = f"Decides every one (s: only {self.selected}'s)."
        archived = (
            " An archived session's (archived on one machine, updated on the other): ours is the archive's value, "
            "theirs the update's; it stays archived either way."
            if any(c.archived for c in self.scope)
            else ""
        )
        return (
            f"{scope} Ours: this machine's value (git: the branch you are on); theirs: the copy's (git: the "
            f"branch merged in).{archived} The plan is previewed next; nothing is written before you confirm."
        )

    def on_mount(self) -> None:
        """Focus the safe answer (cancel)."""
        self.query_one("#cancel").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer with the pressed button."""
        event.stop()
        if event.button.id in ("ours", "theirs"):
            self.action_prefer(str(event.button.id))
        else:
            self.dismiss(None)

    def action_prefer(self, prefer: str) -> None:
        """Answer: prefer's value decides the conflicts in scope."""
        chosen: Prefer = "theirs" if prefer == "theirs" else "ours"
        self.dismiss((chosen, self.selected if self.only else None))

    def action_scope(self) -> None:
        """Narrow to the selected session's open conflicts, or widen again to every one."""
        if self.selected is None:
            self.app.bell()
            return
        self.only = not self.only
        self.query_one("#resolve-title", Label).update(Text(self.heading()))
        self.query_one("#resolve-list", Static).update(self.listing())
        self.query_one("#resolve-scope", Static).update(Text(self.scope_line()))

    def action_cancel(self) -> None:
        """Decide nothing."""
        self.dismiss(None)
