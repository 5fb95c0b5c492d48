"""What one change of this run wrote, opened from the result log (`l`, then enter on its line): read only.

The log keeps what each applied plan wrote (board/written.py: the files, rows and sections in words the
preview showed before it was confirmed, `d` for the exact diff when it is small; never the plan's bytes),
so this shows those, and says what a large change does not keep. Nothing here writes.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static
from textual.worker import get_current_worker

from memboard.styles import FLOWS_TCSS
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.line_view import LineView

from ..actions import bindings
from ..messages import LogEntry, ViewCompleted
from ..planview import PlanView, ViewLine

WORDS_TITLE = "what it wrote · d: the exact diff"
RAW_TITLE = "the exact diff it wrote · d: back to words"
WORKING = "Working out what it wrote in each file…"


class AppliedScreen(ModalScreen[None]):
    """One applied change of the result log: its outcome, its files in words or as the exact diff."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("applied")

    def __init__(self, entry: LogEntry):
        """Show what entry's plan (applied) wrote."""
        super().__init__()
        self.entry = entry
        self.view: PlanView | None = None
        self.raw = False

    def compose(self) -> ComposeResult:
        """Title, the outcome, the counts, the files."""
        entry = self.entry
        with Vertical(id="preview-dialog"):
            yield Label(Text(f"{entry.op} at {entry.at:%H:%M:%S}: what it wrote"), id="preview-title")
            yield Static(Text(entry.outcome), id="preview-headline")
            yield Static(id="preview-counts")
            body = LineView([ViewLine(WORKING, "muted")], id="preview-body")
            body.border_title = WORDS_TITLE
            yield body
        yield KeyBar("applied")

    def on_mount(self) -> None:
        """Focus the files and work them out in a thread."""
        self.query_one("#preview-body").focus()
        self.run_worker(self.describe, thread=True, exclusive=True, group="applied")

    def describe(self) -> None:
        """The plan's whole view (every file and row, the exact diff), handed to the screen."""
        worker = get_current_worker()
        written = self.entry.written
        if written is None:
            return
        view = written.view([self.entry.outcome])
        _ = view.raw  # the exact diff's lines, drawn here rather than on the UI thread at `d`
        if not worker.is_cancelled:
            self.post_message(ViewCompleted(view))

    def on_view_completed(self, message: ViewCompleted) -> None:
        """Show the files."""
        message.stop()
        self.view = message.view
        self.query_one("#preview-counts", Static).update(Text("\n".join([*self.view.counts, *self.view.notes])))
        self.show()

    def show(self) -> None:
        """Draw the words or the exact diff."""
        body = self.query_one("#preview-body", LineView)
        if self.view is not None and self.raw and not self.view.diff:
            body.set_lines([ViewLine(" ".join(self.view.notes) or "No exact diff is kept of it.", "muted")])
        elif self.view is not None:
            body.set_lines(self.view.raw if self.raw else self.view.readable, words=not self.raw)
        body.border_title = RAW_TITLE if self.raw else WORDS_TITLE

    def action_toggle_diff(self) -> None:
        """Switch between the files in words and the exact diff."""
        self.raw = not self.raw
        self.show()

    def action_close(self) -> None:
        """Back to the result log."""
        self.dismiss(None)
