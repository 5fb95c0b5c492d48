"""Modals shown while the board works: "planning…" with the time it takes (escape cancels), and a
progress bar while a large plan is written.

Both watch state a flow's thread fills in (a Future, a Tally) on a short timer: the flow never
touches a widget, the screen never waits. "planning…" is also told the moment its plan is built (a
message, which any thread may post), so a large preview does not wait up to a tick for nothing.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, ProgressBar, Static

from memboard.styles import FLOWS_TCSS
from memboard.widgets.key_bar import KeyBar

from ..actions import bindings

TICK = 0.1  # seconds between looks at the work


class PlanningScreen(ModalScreen[bool]):
    """ "planning…" with the elapsed time while a plan is built; True once it is built, False when cancelled."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("planning")

    def __init__(self, title: str, work: Future, started: float | None = None):
        """Watch work (the plan being built) under title; started is when it began (time.monotonic)."""
        super().__init__()
        self.title_text = title
        self.work = work
        self.started = time.monotonic() if started is None else started

    def compose(self) -> ComposeResult:
        """Title, the planning line, the hint."""
        with Vertical(id="planning-dialog"):
            yield Label(Text(self.title_text), id="planning-title")
            yield Static(self.line(), id="planning-line")
            yield Static(Text("Nothing is written while a plan is built. esc cancels."), id="planning-hint")
        yield KeyBar("planning")

    def line(self) -> Text:
        """`planning… 2.4 s`."""
        return Text(f"planning… {time.monotonic() - self.started:.1f} s")

    class Built(Message):
        """The plan watched is built (posted from the planning thread)."""

    def on_mount(self) -> None:
        """Look at the work every tick, and at once when it is done."""
        self.set_interval(TICK, self.tick)
        self.work.add_done_callback(lambda _work: self.post_message(self.Built()))

    def on_planning_screen_built(self, _message: Built) -> None:
        """The plan is built: close now rather than at the next tick."""
        self.tick()

    def tick(self) -> None:
        """Show the time taken; close once the plan is built."""
        if self.work.done():
            if self.is_current:  # under help or the palette: close once it is in front again
                self.dismiss(True)
            return
        self.query_one("#planning-line", Static).update(self.line())

    def action_cancel(self) -> None:
        """Stop waiting: the plan is dropped when it is done, nothing is written."""
        self.dismiss(False)


@dataclass
class Tally:
    """How far a write has come: steps done of total, and whether it ended (set by the flow's thread)."""

    total: int
    done: int = 0
    ended: bool = False

    def step(self, done: int, total: int) -> None:
        """apply's progress callback: done of total steps are written."""
        self.done, self.total = done, total

    def step_from(self, before: int, done: int, total: int) -> None:
        """The progress callback of one plan among several: before steps were written by the plans before it."""
        self.done = before + done


class ProgressScreen(ModalScreen[None]):
    """A progress bar while a plan is written; it closes itself when the write ends (no key stops a write:
    quit says so, help opens over it)."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("progress")

    def __init__(self, title: str, tally: Tally):
        """Show tally's progress under title."""
        super().__init__()
        self.title_text = title
        self.tally = tally

    def compose(self) -> ComposeResult:
        """Title, the bar, the steps line."""
        with Vertical(id="progress-dialog"):
            yield Label(Text(self.title_text), id="progress-title")
            yield ProgressBar(total=self.tally.total, show_eta=False, id="progress-bar")
            yield Static(self.line(), id="progress-line")
        yield KeyBar("progress")

    def line(self) -> Text:
        """`writing 1,234 of 11,365 file changes…`, then `verifying…` once every change is written."""
        if self.tally.done >= self.tally.total:
            return Text(f"all {self.tally.total:,} file changes written; verifying them… (under the root's lock)")
        return Text(
            f"writing {self.tally.done:,} of {self.tally.total:,} file changes… (under the root's lock; "
            "the board waits until it is done)"
        )

    def on_mount(self) -> None:
        """Look at the write every tick."""
        self.set_interval(TICK, self.tick)
        self.tick()

    def tick(self) -> None:
        """Move the bar; close once the write ended."""
        if self.tally.ended:
            if self.is_current:
                self.dismiss(None)
            return
        self.query_one(ProgressBar).update(total=self.tally.total, progress=self.tally.done)
        self.query_one("#progress-line", Static).update(self.line())
