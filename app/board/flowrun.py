"""How a board flow runs: in one thread worker, against a FlowHost, talking to the board by messages.

A flow starts on the UI thread (a key or the palette) and runs in one thread worker (group
"flow"). It builds a plan with the core's builders (off the worker too, in a planning thread:
"planning…" shows with the time it takes once it takes long, and escape drops it), shows the
plan in a PreviewScreen and, on confirm, applies exactly that plan with apply_exact (a progress
bar while a large one is written). When the files changed since the preview, the rebuilt plan
is previewed again; nothing is ever applied blind. Refusals are explained in a MessageScreen,
in the board's own keys, with the flow that fixes them where there is one; nothing is written.

The worker never touches a widget. It asks the user through its host's `ask`, which on the
board is Textual's own push_screen_wait, run on the board's loop from the flow's thread; it
waits for what the board does for it (showing its result, a plan built in the planning thread)
through the host's `wait`; and it tells the board by messages, which post_message delivers
thread-safely: FlowFinished (re-read the files, move the cursor, say what happened, log it,
start a fix flow) and AskScreen (show a screen that does not answer: the progress bar). A flow
ends once the board has shown its result, so the next flow starts on fresh rows; when the board
closes under a waiting flow, the wait ends (BoardClosed) and so does the flow.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from functools import partial
from typing import Any, Protocol, TypeVar, runtime_checkable

from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker

from ..core.errors import Incomplete, MemboardError, StalePlan
from ..core.files.execute import SETTLE_WAIT, apply_exact, settled_build
from ..core.files.root import MemoryRoot
from ..core.files.settle import Budget, settle_seconds
from ..core.formats import clock
from ..core.plan import Plan
from .messages import AskScreen, BoardClosed, FlowFinished, LogEntry, Logged
from .planning import PLANNING
from .planview import Left, PlanView, ViewLine, build
from .screens import LEAVE_OUT, MessageScreen, PlanningScreen, PreviewScreen, ProgressScreen, Tally
from .wording import done_words, fix_for, refusal_words
from .written import Written, kept_details

STALE_NOTE = (
    "The files changed since the last preview (another writer was here). Nothing was written; "
    "this is the plan rebuilt from the current files. Review it again."
)
INCOMPLETE_NOTE = (
    "Some steps were written. f runs doctor now (d on the board later): it finds and repairs what is left."
)
UNEXPECTED_NOTE = "The board re-reads the files now; if anything looks half-done, press d (doctor)."

PLANNING_DELAY = 0.3  # a plan built faster than this shows no "planning…" at all
PROGRESS_FROM = 50  # plans with at least this many file changes show a progress bar while written

Builder = Callable[[MemoryRoot], Plan]
Words = Callable[[Plan], tuple[list[str], list[ViewLine], dict[str, str]]]
Result = TypeVar("Result")


class Cancelled(Exception):
    """The user stopped a plan while it was being built: nothing was written."""


@runtime_checkable
class FlowHost(Protocol):
    """The board as the flows see it; MemboardApp provides it, a test may pass a stand-in.

    On the UI thread, when a flow starts: the selection, whether a modal is open, bell,
    notify, run_worker. In the flow's thread: memory_root and agent_name, ask and wait (both
    raise BoardClosed when the board closes first); everything else goes back through
    post_message, which is thread-safe.
    """

    memory_root: MemoryRoot
    agent_name: str

    @property
    def current_session_id(self) -> str | None:
        """The Session ID of the row under the cursor (None if none or not a valid ID)."""

    @property
    def marked_session_ids(self) -> list[str]:
        """Marked rows' IDs in table order."""

    def modal_open(self) -> bool:
        """Whether a modal (a flow's, help, the palette) is on top of the board."""

    def bell(self) -> None:
        """Ring the terminal bell (a key that cannot act now)."""

    def notify(self, message: str, *, severity: SeverityLevel = "information") -> None:
        """Show a short toast."""

    def post_message(self, message: Message) -> bool:
        """Queue a message for the board (from any thread); False when the board is closing."""

    def ask(self, screen: Screen[Result]) -> Result | None:
        """From the flow's thread: show a modal and wait for its answer (None when dismissed without one)."""

    def wait(self, future: Future[Result]) -> Result:
        """From the flow's thread: wait for future (the board showing a result, a plan being built)."""

    def run_worker(
        self,
        work: Callable[[], None],
        *,
        name: str = "",
        group: str = "default",
        exit_on_error: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[None]:
        """Run work in a worker (the flows use one thread worker, group "flow")."""


def plain_words(words: Callable[[Plan], list[str]]) -> Words:
    """An operation's headline words as Words (no block, no reasons)."""
    return lambda plan: (words(plan), [], {})


class FlowRunner:
    """The machinery every flow uses: asking the board, building plans, previewing, applying, reporting."""

    def __init__(self, host: FlowHost) -> None:
        """Flows for host (the board's App)."""
        self.host = host
        self.worker: Worker[None] | None = None
        self.subject: str | None = None  # the session the running flow is about (its result log line names it)

    # -- starting (UI thread) ---------------------------------------------------------------

    def running(self) -> bool:
        """Whether a flow is still running (one flow at a time)."""
        return self.worker is not None and not self.worker.is_finished

    def may_start(self) -> bool:
        """Whether a flow may start now (none running, no modal open); rings the bell when not."""
        if self.running() or self.host.modal_open():
            self.host.bell()
            return False
        return True

    def start(self, op: str, body: Callable[..., None], *args: Any) -> None:
        """Run body(*args) as the flow worker (thread, group "flow"), explaining any error in a modal."""
        first = args[0] if args else None
        if isinstance(first, list) and len(first) == 1:
            first = first[0]  # (archive: the one row marked or selected)
        self.subject = first if isinstance(first, str) else None
        self.worker = self.host.run_worker(
            lambda: self.run(op, body, *args), name=op, group="flow", exclusive=True, thread=True, exit_on_error=False
        )

    # -- in the flow's thread -------------------------------------------------------------

    def run(self, op: str, body: Callable[..., None], *args: Any) -> None:
        """Run a flow's body; a refusal or an unexpected error is explained, a closed board ends it. The board's
        background work waits while the flow is at work (planning.py)."""
        with PLANNING.building():
            self._run(op, body, *args)

    def _run(self, op: str, body: Callable[..., None], *args: Any) -> None:
        """run's body: the flow, its refusal or error explained, a closed board ending it."""
        try:
            try:
                body(*args)
            except Cancelled:
                self.finish(op, f"{op} cancelled while planning: nothing written")
            except MemboardError as exc:
                self.refuse(op, op.capitalize(), exc)
            except Exception as exc:
                self.ask(
                    MessageScreen(
                        f"{op.capitalize()}: failed", f"{type(exc).__name__}: {exc}", footnote=UNEXPECTED_NOTE
                    )
                )
                self.finish(op, f"{op} failed: {exc}", applied=True, severity="error")
        except BoardClosed:
            return  # the board is gone: nobody to tell, nothing more to write

    def ask(self, screen: Screen[Result]) -> Result | None:
        """Show a modal on the board and wait for its answer (None when it was dismissed without one); the board's
        background work goes on meanwhile (planning.py)."""
        with PLANNING.aside():
            return self.host.ask(screen)

    def wait(self, future: Future[Result]) -> Result:
        """Wait for future; BoardClosed when the board closes first."""
        return self.host.wait(future)

    def choose(self, op: str, picker: Screen[Result]) -> Result | None:
        """Ask the user to pick in picker; when it is dismissed instead, the flow ends cancelled (None)."""
        picked = self.ask(picker)
        if picked is None:
            self.finish(op, f"{op} cancelled: nothing written")
        return picked

    def planned(self, title: str, work: Callable[[], Result]) -> Result:
        """work() (building a plan or a list) in a planning thread; past PLANNING_DELAY a "planning…" screen
        shows how long it takes, and escape there raises Cancelled (the work's result is dropped)."""
        future: Future[Result] = Future()
        started = time.monotonic()

        def build() -> None:
            """Run work and hand over its result or its error."""
            try:
                with PLANNING.building():  # the board's own background work waits meanwhile (planning.py)
                    result = work()
                future.set_result(result)
            except BaseException as exc:  # re-raised in the flow's thread by future.result()
                future.set_exception(exc)

        threading.Thread(target=build, name="memboard-planning", daemon=True).start()
        try:
            return future.result(timeout=PLANNING_DELAY)
        except FutureTimeout:
            pass
        if not self.ask(PlanningScreen(title, future, started)):
            raise Cancelled()
        return self.wait(future)

    def finish(
        self,
        op: str,
        outcome: str,
        *,
        applied: bool = False,
        severity: SeverityLevel = "information",
        select_id: str | None = None,
        clear_marks: bool = False,
        details: list[str] | None = None,
        follow_up: tuple[str, str | None] | None = None,
        plan: Plan | None = None,
    ) -> None:
        """Report the flow's end and wait until the board shows its result (re-read when applied); plan: what it
        wrote (the result log opens it)."""
        said = set(outcome.split("; "))  # a detail the outcome already says is not printed twice
        rest = kept_details([line for line in details or [] if line not in said])
        finished = FlowFinished(op, outcome, applied, severity, select_id, clear_marks, rest, follow_up)
        finished.written = Written.of(plan) if plan is not None else None  # the log keeps this, not the plan
        finished.session_id = select_id or self.subject
        shown = self.tell(finished)
        if shown is not None:
            self.wait(shown)

    def log(self, finished: FlowFinished) -> None:
        """Add the end of a flow of a view other than the session table to the result log (its line opens what
        it wrote; one that wrote nothing is about no session on the table)."""
        if finished.outcome:
            entry = LogEntry.of(finished, clock.now_to_the_second())
            entry.session_id = None
            self.host.post_message(Logged(entry))

    def tell(self, finished: FlowFinished) -> Future[None] | None:
        """Post a flow's end to the view that shows it; what completes once it is shown (None: nobody to tell)."""
        return finished.shown if self.host.post_message(finished) else None

    def refuse(self, op: str, title: str, exc: Exception, session_id: str | None = None) -> bool:
        """Explain a refusal in the board's words, offering its fix flow where there is one; nothing was written.
        True when the user chose the fix (it starts once this flow ends)."""
        text = refusal_words(exc)
        fix = fix_for(exc, session_id)
        answer = self.ask(MessageScreen(f"{title}: refused", text, fix=fix))
        follow = (fix.action, fix.session_id) if fix is not None and answer == "fix" else None
        self.finish(op, f"{op} refused: nothing written", severity="warning", details=[text], follow_up=follow)
        return follow is not None

    def refuse_read_only(self, op: str, title: str) -> bool:
        """Refuse a changing flow up front on a root memboard cannot write; True when refused."""
        reason = self.host.memory_root.read_only_reason()
        if reason is None:
            return False
        self.ask(
            MessageScreen(
                f"{title}: refused",
                f"Nothing can be written here: {reason}. The board still shows "
                "the memory; changes are refused before anything is planned.",
            )
        )
        self.finish(op, f"{op} refused: the root is read-only, nothing written", severity="warning")
        return True

    def incomplete(self, op: str, title: str, exc: Exception) -> None:
        """Explain a write that stopped half-way, offering doctor; the board re-reads what is on disk."""
        text = refusal_words(exc)
        fix = fix_for(exc, None)
        answer = self.ask(MessageScreen(f"{title}: incomplete", text, footnote=INCOMPLETE_NOTE, fix=fix))
        follow = (fix.action, None) if fix is not None and answer == "fix" else None
        self.finish(
            op,
            f"{op} incomplete: doctor repairs the rest",
            applied=True,
            severity="error",
            details=[text],
            follow_up=follow,
        )

    @staticmethod
    def plan_view(plan: Plan, words: Words | None) -> PlanView:
        """The preview's view of plan (call it off the UI thread: it diffs and parses)."""
        headline, block, reasons = words(plan) if words else (list(plan.report), [], {})
        if isinstance(block, Left):  # what the plan leaves comes after what it changes
            return build(plan, headline, None, reasons, left=block)
        return build(plan, headline, block, reasons)

    @contextmanager
    def progress(self, title: str, total: int) -> Iterator[Tally | None]:
        """A progress bar for writing total file changes (None below PROGRESS_FROM: too quick to need one);
        it is gone again when the block ends, before anything else is shown."""
        if total < PROGRESS_FROM:
            yield None
            return
        tally = Tally(total)
        gone: Future[None] = Future()
        if not self.host.post_message(AskScreen(ProgressScreen(title, tally), gone.set_result)):
            raise BoardClosed()
        try:
            yield tally
        finally:
            tally.ended = True
            self.wait(gone)

    def apply(self, plan: Plan, build_plan: Builder, title: str) -> None:
        """Apply exactly plan, with a progress bar while a large one is written."""
        with self.progress(title, len(plan.changes)) as tally:
            apply_exact(self.host.memory_root, plan, build_plan, progress=tally.step if tally else None)

    def preview_and_apply(
        self,
        op: str,
        title: str,
        build_plan: Builder,
        *,
        plan: Plan | None = None,
        words: Words | None = None,
        select: Callable[[Plan], str | None] | None = None,
        clear_marks: bool = False,
        back_on_cancel: bool = False,
        session_id: str | None = None,
        leave_out: bool = False,
    ) -> str:
        """Build (unless given), preview, and on confirm apply exactly the previewed plan.

        A stale preview is rebuilt and shown again; a refusal is explained. Returns "applied",
        "cancelled" (at the preview; reported unless back_on_cancel), "refused" (at apply, nothing
        written, no fix flow chosen), "ended" (refused before a preview, failed half-way, nothing
        to change, or a fix flow chosen) or LEAVE_OUT (leave_out offers `x` in the preview, and it was
        pressed: doctor asks which kinds to leave out and previews again; nothing written).
        """
        root = self.host.memory_root
        try:
            if plan is None:
                plan, view = self.planned(title, lambda: self.plan_and_view(root, build_plan, words))
            else:
                view = self.planned(title, partial(self.plan_view, plan, words))
        except MemboardError as exc:
            self.refuse(op, title, exc, session_id)
            return "ended"
        notes: list[str] = []
        while True:
            answer = self.ask(PreviewScreen(title, plan, view, notes=notes, leave_out=leave_out))
            if answer == LEAVE_OUT:
                return LEAVE_OUT
            if not answer and (back_on_cancel or not plan.empty):  # (an empty plan is closed, not cancelled)
                if not back_on_cancel:
                    self.finish(op, f"{op} cancelled: nothing written")
                return "cancelled"
            if plan.empty:
                self.finish(op, f"{op}: nothing to change")
                return "ended"
            try:
                self.apply(plan, build_plan, title)
            except StalePlan as exc:
                plan, notes = exc.fresh_plan, [STALE_NOTE]
                view = self.planned(title, partial(self.plan_view, plan, words))
                continue
            except Incomplete as exc:
                self.incomplete(op, title, exc)
                return "ended"
            except MemboardError as exc:
                return "ended" if self.refuse(op, title, exc, session_id) else "refused"
            self.finish(
                op,
                done_words(plan),
                applied=True,
                select_id=select(plan) if select else None,
                clear_marks=clear_marks,
                details=list(plan.report),
                plan=plan,
            )
            return "applied"

    def plan_and_view(self, root: MemoryRoot, build_plan: Builder, words: Words | None) -> tuple[Plan, PlanView]:
        """A plan and its preview's view, built together (in the planning thread)."""
        plan = self.settled(build_plan)
        return plan, self.plan_view(plan, words)

    def settled(self, build_plan: Builder) -> Plan:
        """A plan built as `--dry-run` builds it: from files seen settled (the core's settled_build), so that a
        preview never shows a plan made from a file caught mid-save."""
        root = self.host.memory_root
        root.window = settle_seconds()  # as `execute` sets it for a dry run
        return settled_build(root, build_plan, Budget(SETTLE_WAIT))
