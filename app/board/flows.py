"""The board's modal flows: continue, release, archive, update, organize, doctor, and the chain view.

A flow starts on the UI thread (a key or the palette) and runs in one thread worker (group
"flow"), against a FlowHost: the App, as the flows see it. The worker reads the root, builds a
plan with the core's plan builders, shows it in PreviewScreen and, on confirm, applies exactly
that plan with apply_exact. When the files changed since the preview, the rebuilt plan is
previewed again; nothing is ever applied blind. Refusals are explained in a MessageScreen and
nothing is written.

The worker never touches a widget. It talks to the board with messages, which post_message
delivers thread-safely: AskScreen (show a modal; the answer comes back through a Future),
FlowFinished (re-read the files, move the cursor, say what happened) and JumpToSession. A
flow ends once the board has shown its result, so the next flow starts on fresh rows; when
the board closes under a waiting flow, the wait ends (BoardClosed) and so does the flow.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import datetime
from functools import partial
from typing import Any, Protocol, TypeVar, runtime_checkable

from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import NoActiveWorker, Worker, get_current_worker

from ..core import config
from ..core.errors import Incomplete, MemboardError, StalePlan
from ..core.files.execute import apply_exact
from ..core.files.root import MemoryRoot
from ..core.formats.clock import now
from ..core.formats.layout import session_path
from ..core.ops.archive import plan_archive
from ..core.ops.common import find_row, load_index
from ..core.ops.continue_from import plan_continue
from ..core.ops.doctor import diagnose
from ..core.ops.organize import continued_sources, plan_organize
from ..core.ops.query import chain, list_rows
from ..core.ops.release import plan_release
from ..core.ops.sequence import plan_sequence
from ..core.ops.update import plan_update
from ..core.plan import Plan
from ..core.results import Finding, OrganizeResult
from .messages import AskScreen, FlowFinished, JumpToSession
from .screens import (
    NEW_SESSION,
    ChainScreen,
    Choice,
    MessageScreen,
    PreviewScreen,
    SessionPicker,
    StaleDaysScreen,
    UpdateForm,
    UpdateScreen,
)

STALE_NOTE = (
    "The files changed since the last preview (another writer was here). Nothing was written; "
    "this is the plan rebuilt from the current files. Review it again."
)
INCOMPLETE_NOTE = "Some steps were written. Press d (doctor) to find and repair what is left."

UNEXPECTED_NOTE = "The board re-reads the files now; if anything looks half-done, press d (doctor)."

WAIT_SECONDS = 0.1  # how often a waiting flow checks whether the board closed under it

Builder = Callable[[MemoryRoot], Plan]
Result = TypeVar("Result")


class BoardClosed(Exception):
    """The board closed while a flow waited on it: the flow ends without another word or write."""


@runtime_checkable
class FlowHost(Protocol):
    """The board as the flows see it; MemboardApp provides it, a test may pass a stand-in.

    On the UI thread, when a flow starts: the selection, whether a modal is open, bell,
    notify, run_worker. In the flow's thread: memory_root and agent_name only; everything
    else goes back through post_message, which is thread-safe.
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


def outcome_of(plan: Plan) -> str:
    """The line that tells the user what an applied plan did."""
    return plan.success or "; ".join(plan.report) or f"{plan.op} done"


def finding_lines(findings: list[Finding]) -> list[str]:
    """Doctor findings as report lines, each with its planned fix (or why there is none)."""
    if not findings:
        return ["No inconsistencies found."]
    lines = []
    for f in findings:
        where = f" {f.id}" if f.id else ""
        fix = f" → fix: {f.fix}" if f.fix else " → not repaired automatically (fix by hand)"
        lines.append(f"• {f.kind}{where}: {f.message}{fix}")
    return lines


def organize_lines(plan: Plan[OrganizeResult]) -> list[str]:
    """Organize's report (deleted, marked stale, kept, protected, blocked) with each reason."""
    lines = list(plan.report)
    reasons = plan.result.reasons
    if reasons:
        lines.append("why:")
        lines += [f"  {sid or '(no ID)'}: {why}" for sid, why in reasons.items()]
    return lines


class BoardFlows:
    """The seven flows: started on the UI thread, each run in the one flow worker against a FlowHost."""

    def __init__(self, host: FlowHost) -> None:
        """Flows for host (the board's App)."""
        self.host = host
        self.worker: Worker[None] | None = None

    # -- starting a flow (UI thread) --------------------------------------------------------

    def continue_session(self) -> None:
        """Continue from the selected session: pick the session that continues, preview, apply."""
        source = self.selected("continue")
        if source:
            self.start("continue", self.flow_continue, source)

    def release(self) -> None:
        """Release one of the selected session's references: pick it, preview, apply."""
        source = self.selected("release")
        if source:
            self.start("release", self.flow_release, source)

    def archive(self) -> None:
        """Archive the marked sessions (or the selected one): one combined preview, then apply."""
        if not self.may_start():
            return
        ids = list(self.host.marked_session_ids)
        if not ids:
            sid = self.host.current_session_id
            if not sid:
                self.host.notify("Select or mark a session to archive", severity="warning")
                return
            ids = [sid]
        self.start("archive", self.flow_archive, ids)

    def update(self) -> None:
        """Edit the selected session's Topic, Summary, Keywords and snapshot; preview the merge."""
        sid = self.selected("update")
        if sid:
            self.start("update", self.flow_update, sid)

    def organize(self) -> None:
        """The whole organize pass: ask stale days, preview, apply."""
        if self.may_start():
            self.start("organize", self.flow_organize)

    def doctor(self) -> None:
        """Doctor: findings and the repair plan, previewed; confirm repairs."""
        if self.may_start():
            self.start("doctor", self.flow_doctor)

    def chain(self) -> None:
        """Show the selected session's reference chain; enter jumps to a session."""
        sid = self.selected("chain")
        if sid:
            self.start("chain", self.flow_chain, sid)

    def running(self) -> bool:
        """Whether a flow is still running (one flow at a time)."""
        return self.worker is not None and not self.worker.is_finished

    def may_start(self) -> bool:
        """Whether a flow may start now (none running, no modal open); rings the bell when not."""
        if self.running() or self.host.modal_open():
            self.host.bell()
            return False
        return True

    def selected(self, op: str) -> str | None:
        """The selected session's ID, or None (with a hint) when a flow cannot start."""
        if not self.may_start():
            return None
        sid = self.host.current_session_id
        if not sid:
            self.host.notify(f"Select a session to {op}", severity="warning")
        return sid

    def start(self, op: str, body: Callable[..., None], *args: Any) -> None:
        """Run body(*args) as the flow worker (thread, group "flow"), explaining any error in a modal."""
        work = partial(self.run, op, body, *args)
        self.worker = self.host.run_worker(
            work, name=op, group="flow", exclusive=True, thread=True, exit_on_error=False
        )

    # -- in the flow's thread ---------------------------------------------------------------

    def run(self, op: str, body: Callable[..., None], *args: Any) -> None:
        """Run a flow's body; a refusal or an unexpected error is explained, a closed board ends it."""
        try:
            try:
                body(*args)
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
        """Show a modal on the board and wait for its answer (None when it was dismissed without one)."""
        answer: Future[Result | None] = Future()
        if not self.host.post_message(AskScreen(screen, answer.set_result)):
            raise BoardClosed()
        return self.wait(answer)

    def wait(self, future: Future[Result]) -> Result:
        """Wait for the board to complete future; BoardClosed when the board closes first."""
        while True:
            try:
                return future.result(timeout=WAIT_SECONDS)
            except FutureTimeout:
                if self.board_closed():
                    raise BoardClosed() from None

    @staticmethod
    def board_closed() -> bool:
        """Whether the board closed under this flow (it cancels its workers as it closes)."""
        try:
            return get_current_worker().is_cancelled
        except NoActiveWorker:  # run outside a worker (a test's stand-in host): never closed
            return False

    def finish(
        self,
        op: str,
        outcome: str,
        *,
        applied: bool = False,
        severity: SeverityLevel = "information",
        select_id: str | None = None,
        clear_marks: bool = False,
    ) -> None:
        """Report the flow's end and wait until the board shows its result (re-read when applied)."""
        finished = FlowFinished(op, outcome, applied, severity, select_id, clear_marks)
        if self.host.post_message(finished):
            self.wait(finished.shown)

    def refuse(self, op: str, title: str, exc: Exception) -> None:
        """Explain a refusal in a modal; nothing was written."""
        self.ask(MessageScreen(f"{title}: refused", str(exc)))
        self.finish(op, f"{op} refused: nothing written", severity="warning")

    def incomplete(self, op: str, title: str, exc: Exception) -> None:
        """Explain a write that stopped half-way; the board re-reads what is on disk."""
        self.ask(MessageScreen(f"{title}: incomplete", str(exc), footnote=INCOMPLETE_NOTE))
        self.finish(op, f"{op} incomplete: run doctor", applied=True, severity="error")

    def preview_and_apply(
        self,
        op: str,
        title: str,
        build: Builder,
        *,
        plan: Plan | None = None,
        describe: Callable[[Plan], list[str]] | None = None,
        select: Callable[[Plan], str | None] | None = None,
        clear_marks: bool = False,
    ) -> Plan | None:
        """Build (unless given), preview, and on confirm apply exactly the previewed plan.

        A stale preview is rebuilt and shown again; a refusal is explained. Returns the
        applied plan, or None when nothing was applied.
        """
        root = self.host.memory_root
        if plan is None:
            try:
                plan = build(root)
            except MemboardError as exc:
                self.refuse(op, title, exc)
                return None
        notes: list[str] = []
        while True:
            report = describe(plan) if describe else plan.report
            if not self.ask(PreviewScreen(title, plan, report=report, notes=notes, diff=plan.diff())):
                self.finish(op, f"{op} cancelled: nothing written")
                return None
            if plan.empty:
                self.finish(op, f"{op}: nothing to change")
                return None
            try:
                apply_exact(root, plan, build)
            except StalePlan as exc:
                plan = exc.fresh_plan
                notes = [STALE_NOTE]
                continue
            except Incomplete as exc:
                self.incomplete(op, title, exc)
                return None
            except MemboardError as exc:
                self.refuse(op, title, exc)
                return None
            self.finish(
                op, outcome_of(plan), applied=True, select_id=select(plan) if select else None, clear_marks=clear_marks
            )
            return plan

    # -- the flows (each a worker body) -----------------------------------------------------

    def flow_continue(self, source_id: str) -> None:
        """Pick the session that continues from source_id (or a new one), preview, apply."""
        title = f"Continue from {source_id}"
        rows = sorted(list_rows(self.host.memory_root), key=lambda r: r.updated_at or "", reverse=True)
        choices = [
            Choice(r.id, f"{r.agent} · {r.status} · {r.topic}") for r in rows if r.id != source_id and not r.problem
        ]
        picked = self.ask(
            SessionPicker(
                f"{title}: which session continues?",
                choices,
                new_label="new session (manual registration)",
                hint=f"The selected row {source_id} is the source. Pick the current session, "
                "or register a new one that continues from it.",
            )
        )
        if picked is None:
            self.finish("continue", "continue cancelled: nothing written")
            return
        as_id = None if picked == NEW_SESSION else picked
        when = now()
        agent = self.host.agent_name

        def build(root: MemoryRoot) -> Plan:
            """The continue plan, fixed to this moment."""
            return plan_continue(root, source_id, when, as_id, agent=agent)

        self.preview_and_apply("continue", title, build, select=lambda p: p.result.session_id)

    def flow_release(self, source_id: str) -> None:
        """Pick one of source_id's referencing sessions, preview the release, apply."""
        title = f"Release {source_id}"
        root = self.host.memory_root
        try:
            row = find_row(load_index(root), source_id)
        except MemboardError as exc:
            self.refuse("release", title, exc)
            return
        choices = [Choice(sid, "listed in Referenced By") for sid in row.refs]
        for sid in continued_sources(root, {source_id}).get(source_id, []):
            if sid not in row.refs:
                choices.append(Choice(sid, "lists it in Continues From only (one-sided link)"))
        if not choices:
            self.ask(MessageScreen(title, f"{source_id} is referenced by nobody: nothing to release.", error=False))
            self.finish("release", "nothing to release")
            return
        picked = self.ask(
            SessionPicker(
                f"{title}: which reference?", choices, hint=f"The session picked stops continuing from {source_id}."
            )
        )
        if picked is None:
            self.finish("release", "release cancelled: nothing written")
            return
        self.preview_and_apply("release", f"{title} from {picked}", lambda r: plan_release(r, source_id, picked))

    def flow_archive(self, ids: list[str]) -> None:
        """Archive one session, or several in one combined preview applied one by one."""
        when = now()
        if len(ids) == 1:
            sid = ids[0]
            self.preview_and_apply("archive", f"Archive {sid}", lambda r: plan_archive(r, sid, when), clear_marks=True)
            return
        self.archive_many(ids, when)

    def archive_many(self, ids: list[str], when: datetime) -> None:
        """The marked-rows archive: preview the sequence, apply step by step, stop at a refusal."""
        root = self.host.memory_root
        title = f"Archive {len(ids)} marked sessions"
        pending = list(ids)
        done: list[str] = []
        notes: list[str] = []

        def build_one(r: MemoryRoot, sid: str) -> Plan:
            """One archive step, fixed to this moment."""
            return plan_archive(r, sid, when)

        def said_done() -> str:
            """Which sessions were archived so far."""
            return f"archived {', '.join(done)}" if done else "nothing written"

        while True:
            seq = plan_sequence(root, "archive", pending, build_one)
            if not seq.steps:
                reasons = "\n".join(f"{sid}: {why}" for sid, why in seq.refused.items())
                self.ask(
                    MessageScreen(
                        f"{title}: refused",
                        reasons,
                        footnote=f"Already done: {', '.join(done)}." if done else "Nothing was written.",
                    )
                )
                self.finish("archive", f"archive refused: {said_done()}", applied=bool(done), severity="warning")
                return
            refusals = [f"{sid} will not be archived: {why}" for sid, why in seq.refused.items()]
            combined = seq.combined()
            order = "order: " + " → ".join(sid for sid, _ in seq.steps)
            screen = PreviewScreen(
                title, combined, report=[order, *combined.report], notes=notes, refusals=refusals, diff=combined.diff()
            )
            if not self.ask(screen):
                self.finish("archive", f"archive cancelled: {said_done()}", applied=bool(done))
                return
            stale = False
            for sid, step in seq.steps:
                try:
                    apply_exact(root, step, partial(build_one, sid=sid))
                except StalePlan:
                    stale = True
                    break
                except Incomplete as exc:
                    self.incomplete("archive", f"{title} ({said_done()})", exc)
                    return
                except MemboardError as exc:
                    self.ask(
                        MessageScreen(f"Archive {sid}: refused", str(exc), footnote=f"Stopped here; {said_done()}.")
                    )
                    self.finish(
                        "archive", f"archive stopped at {sid}: {said_done()}", applied=bool(done), severity="warning"
                    )
                    return
                done.append(sid)
            if not stale:
                skipped = f"; not archived: {', '.join(seq.refused)}" if seq.refused else ""
                self.finish(
                    "archive",
                    said_done() + skipped,
                    applied=True,
                    clear_marks=True,
                    severity="warning" if seq.refused else "information",
                )
                return
            pending = [sid for sid in pending if sid not in done]
            notes = [STALE_NOTE + (f" Already {said_done()}." if done else "")]

    def flow_update(self, session_id: str) -> None:
        """Edit the fields and snapshot, preview the merged result, apply."""
        title = f"Update {session_id}"
        root = self.host.memory_root
        try:
            row = find_row(load_index(root), session_id)
            snap = root.read(session_path(session_id))
        except MemboardError as exc:
            self.refuse("update", title, exc)
            return
        start = UpdateForm(
            session_id,
            row.get("topic"),
            row.get("summary"),
            row.get("keywords"),
            snap.decode("utf-8-sig", "replace") if snap is not None else "",
        )
        form = start
        while True:
            edited = self.ask(UpdateScreen(form, has_snapshot=snap is not None))
            if edited is None:
                self.finish("update", "update cancelled: nothing written")
                return
            form = edited
            changes = form.changes_from(start)
            when = now()

            def build(r: MemoryRoot, changes=changes, when=when) -> Plan:
                """The update plan for the edited form, fixed to this moment."""
                return plan_update(r, session_id, when, **changes)

            try:
                plan = build(root)
            except MemboardError as exc:
                self.ask(
                    MessageScreen(
                        f"{title}: cannot preview", str(exc), footnote="Nothing was written. Back to the editor."
                    )
                )
                continue
            self.preview_and_apply("update", title, build, plan=plan)
            return

    def flow_organize(self) -> None:
        """Ask stale days, preview the whole organize pass, apply."""
        days = self.ask(StaleDaysScreen(config.stale_days()))
        if days is None:
            self.finish("organize", "organize cancelled: nothing written")
            return
        when = now()
        self.preview_and_apply(
            "organize",
            f"Organize memory (stale after {days} days)",
            lambda r: plan_organize(r, when, days),
            describe=organize_lines,
        )

    def flow_doctor(self) -> None:
        """Diagnose the root, preview the repairs, apply them."""
        when = now()
        self.preview_and_apply(
            "doctor",
            "Doctor: findings and repairs",
            lambda r: diagnose(r, when)[1],
            describe=lambda p: finding_lines(p.result.findings),
        )

    def flow_chain(self, session_id: str) -> None:
        """Read the chain, show it as a tree, jump to the session picked."""
        try:
            data = chain(self.host.memory_root, session_id)
        except MemboardError as exc:
            self.ask(MessageScreen(f"Chain of {session_id}", str(exc), footnote=""))
            return
        picked = self.ask(ChainScreen(data))
        if picked:
            self.host.post_message(JumpToSession(picked))
