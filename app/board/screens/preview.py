"""The preview modal (what a plan will do, in words or as the exact diff; confirm or cancel) and a
message modal (a refusal or a failure, with the flow that fixes it where there is one)."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Label, Static
from textual.worker import get_current_worker

from memboard.styles import FLOWS_TCSS
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.line_view import LineView

from ...core.plan import Plan
from ...core.results import DoctorResult
from ..actions import bindings
from ..messages import ViewCompleted, ViewFailed
from ..planview import DIFF_PENDING, HEADS, Dropped, PlanView, ViewLine, folded, next_head
from ..wording import Fix

CONFIRM_AGAIN = 200  # above this many file changes (or index rows), the first `y` repeats the counts and asks again
READABLE_TITLE = "what will change · d: the exact diff"
RAW_TITLE = "the exact diff (what --dry-run prints) · d: back to words"
TICK = 0.5  # how often the time spent working out a large plan's rows is shown again
UNDESCRIBED = "The changes could not be worked out in words or as a diff"
LEAVE_OUT = "leave-out"  # what a preview that offers it (doctor's) answers when `x` asks to leave kinds out


def repairs(plan: Plan) -> bool:
    """Whether doctor's plan repairs (or leaves out) a finding: something `x` can leave out or put back."""
    result = plan.result
    return isinstance(result, DoctorResult) and any(finding.fix for finding in result.findings)


class PreviewScreen(ModalScreen[bool | str]):
    """A plan before it is written: what will happen, the counts, the changes (or the exact diff); True applies it,
    LEAVE_OUT (doctor's preview only) asks which kinds of finding to leave out of it."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("preview")

    def __init__(
        self, title: str, plan: Plan, view: PlanView, *, notes: list[str] | None = None, leave_out: bool = False
    ):
        """Preview plan (its view prepared off the UI thread) under title; notes say why it is shown again;
        leave_out offers `x` (doctor: leave kinds of finding out of the plan)."""
        super().__init__()
        self.leave_out = leave_out and repairs(plan)  # (`x` on a plan that repairs nothing would list no kind)
        self.title_text = title
        self.plan = plan
        self.view = view
        self.notes = [*(notes or []), *view.notes]  # a stale preview, then BOM and line-ending changes in words
        self.raw = False
        self.armed = False  # a large plan's first `y` was pressed
        self.started = time.monotonic()  # when the rows of a large plan began to be worked out
        self.ticker: Timer | None = None  # shows how long that takes, until they are out
        self.failed = ""  # why they could not be worked out, if so
        self.folded = False  # each group of the words shown as its head alone (z)

    def compose(self) -> ComposeResult:
        """Title, notes, what will happen, the counts, the changes, the confirmation line and the buttons."""
        with Vertical(id="preview-dialog"):
            yield Label(Text(self.title_text), id="preview-title")
            for note in self.notes:
                yield Static(Text(note), classes="preview-note")
            yield Static(Text("\n".join(self.view.headline)), id="preview-headline")
            yield Static(Text("\n".join(self.view.counts)), id="preview-counts")
            body = LineView(self.words, id="preview-body")
            body.border_title = "nothing will change" if self.plan.empty else READABLE_TITLE
            yield body
            yield Static(id="preview-again")
            with Horizontal(id="preview-buttons"):
                if self.plan.empty:  # nothing to apply, nothing to cancel: one way out
                    yield Button("Close (enter / esc)", variant="primary", id="confirm", compact=True)
                else:
                    yield Button("Apply (enter / y)", variant="success", id="confirm", compact=True)
                    yield Button("Cancel (esc / n)", variant="error", id="cancel", compact=True)
        yield KeyBar(self.footer)

    @property
    def footer(self) -> str:
        """The footer's place: doctor's preview offers `x`; a plan with nothing to do offers no apply."""
        place = "preview-doctor" if self.leave_out else "preview"
        return f"{place}-empty" if self.plan.empty else place

    def on_mount(self) -> None:
        """Focus the changes so the arrow keys scroll them; start working out a large plan's rows."""
        self.query_one("#preview-again").display = False
        self.query_one("#preview-body").focus()
        if self.view.pending:
            self.started = time.monotonic()
            self.ticker = self.set_interval(TICK, self.tick)
            self.call_after_refresh(self.start_completing)  # the outline is drawn first, then the thread starts

    def start_completing(self) -> None:
        """Start working out the whole view in a thread."""
        self.run_worker(self.complete_view, thread=True, exclusive=True, group="preview-rows")

    def complete_view(self) -> None:
        """Work out the whole view (every row, the exact diff) in a thread and hand it to the screen."""
        worker = get_current_worker()
        later = self.view.later
        if later is None:
            return
        try:
            view = later(lambda: worker.is_cancelled)
            if self.raw:
                _ = view.raw  # the exact diff was asked for while it was worked out: draw its lines here too
        except Dropped:
            return
        except Exception as exc:  # the plan stands (it is exact): only its description failed
            self.post_message(ViewFailed(f"{type(exc).__name__}: {exc}"))
            return
        if not worker.is_cancelled:
            self.post_message(ViewCompleted(view))

    def tick(self) -> None:
        """Say how long the rows have taken so far."""
        if self.view.pending:
            counts = self.query_one("#preview-counts", Static)
            seconds = time.monotonic() - self.started
            counts.update(Text("\n".join([*self.view.counts[:-1], f"{self.view.counts[-1]} {seconds:.1f} s"])))

    def stop_ticking(self) -> None:
        """The rows are out (or cannot be): the time they take is no longer shown."""
        if self.ticker is not None:
            self.ticker.stop()

    def on_view_failed(self, message: ViewFailed) -> None:
        """Say that the rows could not be worked out; the plan can still be applied (asked twice) or cancelled."""
        message.stop()
        self.stop_ticking()
        self.failed = f"{UNDESCRIBED} ({message.error}). The plan itself is exact: y twice applies it, esc cancels."
        self.query_one("#preview-counts", Static).update(Text("\n".join([*self.view.counts[:-1], UNDESCRIBED])))
        self.query_one("#preview-body", LineView).set_lines([ViewLine(self.failed, "refusal")])

    def on_view_completed(self, message: ViewCompleted) -> None:
        """Show the whole view in place of the outline (where the changes were scrolled to stays)."""
        message.stop()
        self.stop_ticking()
        self.view = message.view
        self.query_one("#preview-counts", Static).update(Text("\n".join(self.view.counts)))
        body = self.query_one("#preview-body", LineView)
        body.set_lines(self.view.raw if self.raw else self.words, words=not self.raw, top=self.raw)

    @property
    def body_text(self) -> str:
        """What the changes view holds now (words or the exact diff), unwrapped."""
        return self.query_one("#preview-body", LineView).text

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Confirm or cancel from the buttons."""
        event.stop()
        if event.button.id == "confirm":
            self.action_confirm()
        else:
            self.action_cancel()

    def action_toggle_diff(self) -> None:
        """Switch between the changes in words and the exact diff."""
        self.raw = not self.raw
        body = self.query_one("#preview-body", LineView)
        if self.failed:
            body.set_lines([ViewLine(self.failed, "refusal")])
        elif self.raw and self.view.pending:
            body.set_lines([ViewLine(DIFF_PENDING, "muted")])
        else:
            body.set_lines(self.view.raw if self.raw else self.words, words=not self.raw)
        body.border_title = RAW_TITLE if self.raw else READABLE_TITLE

    @property
    def words(self) -> list[ViewLine]:
        """The changes in words as shown: every line, or each group folded into its head (z)."""
        return folded(self.view.readable) if self.folded else self.view.readable

    def action_next_group(self) -> None:
        """Scroll the words to the next group's head (a file, what a plan leaves, a kind of finding)."""
        if self.raw or self.failed:
            self.app.bell()
            return
        body = self.query_one("#preview-body", LineView)
        body.scroll_to_line(next_head(self.words, body.top_line))

    def action_fold(self) -> None:
        """Fold every group of the words into its head, or show them whole again (the head in view stays)."""
        if self.raw or self.failed:
            self.app.bell()
            return
        body = self.query_one("#preview-body", LineView)
        top = body.top_line
        passed = sum(1 for line in self.words[: top + 1] if line.kind in HEADS)  # heads at or above the top line
        self.folded = not self.folded
        lines = self.words
        body.set_lines(lines)
        heads = [number for number, line in enumerate(lines) if line.kind in HEADS]
        if passed:
            body.scroll_to_line(heads[passed - 1])

    def action_confirm(self) -> None:
        """Apply this plan; a large one (over 200 file changes or index rows, or rows still being worked out)
        asks once more, repeating its counts."""
        if (self.view.pending or max(self.view.total, self.view.rows) > CONFIRM_AGAIN) and not self.armed:
            self.armed = True
            again = self.query_one("#preview-again", Static)
            if self.view.pending:  # (its last counts line says the rows are being worked out)
                line = (
                    f"{' · '.join(self.view.counts[:-1])}; what changes in each one is still being worked out: "
                    "press y again to apply it as it is, esc to cancel."
                )
            else:
                line = (
                    f"{' · '.join(self.view.counts)}. This is a large change: press y again to apply it, esc to cancel."
                )
            again.update(Text(line))
            again.display = True
            button = self.query_one("#confirm", Button)
            button.label = "Apply: y again"
            button.refresh(layout=True)
            self.query_one(KeyBar).show("preview-again")  # the footer says what the dialog says
            return
        self.dismiss(True)

    def action_cancel(self) -> None:
        """Write nothing."""
        self.dismiss(False)

    def action_leave_out(self) -> None:
        """Ask which kinds of finding to leave out of the plan (doctor's preview; elsewhere the bell)."""
        if not self.leave_out:
            self.app.bell()
            return
        self.dismiss(LEAVE_OUT)


class MessageScreen(ModalScreen[str | None]):
    """A short explanation (a refusal, a failure, or nothing to do) with OK, and the fix flow's button when
    one exists; returns "fix" when that was chosen."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("message")

    def __init__(
        self,
        title: str,
        message: str,
        *,
        footnote: str = "Nothing was written.",
        error: bool = True,
        fix: Fix | None = None,
    ):
        """Say message under title; error styles it as a refusal; fix offers the flow that repairs it."""
        super().__init__()
        self.title_text = title
        self.message = message
        self.footnote = footnote
        self.error = error
        self.fix = fix

    def compose(self) -> ComposeResult:
        """Title, message, the fix button (if any), OK."""
        with Vertical(id="message-dialog", classes="-error" if self.error else ""):
            yield Label(Text(self.title_text), id="message-title")
            yield Static(Text(self.message), id="message-text")
            if self.footnote:
                yield Static(Text(self.footnote), id="message-footnote")
            with Horizontal(id="message-buttons"):
                if self.fix is not None:
                    yield Button(f"{self.fix.label} (f)", variant="primary", id="fix")
                yield Button("OK (enter)", id="ok")
        yield KeyBar("message" if self.fix is not None else "message-plain")

    def on_mount(self) -> None:
        """Focus the OK button."""
        self.query_one("#ok").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Close, or run the fix."""
        event.stop()
        self.dismiss("fix" if event.button.id == "fix" else None)

    def action_close(self) -> None:
        """Close."""
        self.dismiss(None)

    def action_fix(self) -> None:
        """Run the fix flow (when the message offers one)."""
        if self.fix is not None:
            self.dismiss("fix")
