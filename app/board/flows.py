"""The board's modal flows: continue, release, archive, update, organize, doctor, and the chain view.

Each flow runs in one thread worker (group "flow"): it reads the root, builds a plan with the
core's plan builders, shows it in PreviewScreen and, on confirm, applies exactly that plan
with apply_exact. When the files changed since the preview, the rebuilt plan is previewed
again; nothing is ever applied blind. Refusals are explained in a MessageScreen and nothing is
written. The worker reports back to the App with FlowFinished / JumpToSession messages.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout

from textual import work
from textual.screen import ModalScreen, Screen

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
from .messages import FlowFinished, JumpToSession
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

Builder = Callable[[MemoryRoot], Plan]


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


def flow(op: str):
    """Run a flow method as the one flow worker (thread, group "flow"), explaining any error in a modal."""

    def decorate(method):
        @functools.wraps(method)
        def guarded(self, *args):
            try:
                method(self, *args)
            except MemboardError as exc:
                self._refuse(op, op.capitalize(), exc)
            except Exception as exc:
                self._ask(MessageScreen(f"{op.capitalize()}: failed", f"{type(exc).__name__}: {exc}",
                                        footnote=UNEXPECTED_NOTE))
                self._finish(op, f"{op} failed: {exc}", applied=True, severity="error")

        return work(thread=True, exclusive=True, group="flow", exit_on_error=False)(guarded)

    return decorate


class FlowsMixin:
    """Actions and workers of the modal flows, mixed into the board's App.

    The App provides memory_root, current_session_id, marked_session_ids, clear_marks(),
    refresh_model(), select_session(id) and agent_name; its BINDINGS map c r a o u g d to
    the actions below.
    """

    # -- actions (bound by the App) -------------------------------------------------------

    def action_continue_session(self) -> None:
        """Continue from the selected session: pick the session that continues, preview, apply."""
        source = self._selected("continue")
        if source:
            self.flow_continue(source)

    def action_release(self) -> None:
        """Release one of the selected session's references: pick it, preview, apply."""
        source = self._selected("release")
        if source:
            self.flow_release(source)

    def action_archive(self) -> None:
        """Archive the marked sessions (or the selected one): one combined preview, then apply."""
        if not self._can_start():
            return
        ids = list(self.marked_session_ids)
        if not ids:
            sid = self.current_session_id
            if not sid:
                self.notify("Select or mark a session to archive", severity="warning")
                return
            ids = [sid]
        self.flow_archive(ids)

    def action_update(self) -> None:
        """Edit the selected session's Topic, Summary, Keywords and snapshot; preview the merge."""
        sid = self._selected("update")
        if sid:
            self.flow_update(sid)

    def action_organize(self) -> None:
        """The whole organize pass: ask stale days, preview, apply."""
        if self._can_start():
            self.flow_organize()

    def action_doctor(self) -> None:
        """Doctor: findings and the repair plan, previewed; confirm repairs."""
        if self._can_start():
            self.flow_doctor()

    def action_chain(self) -> None:
        """Show the selected session's reference chain; enter jumps to a session."""
        sid = self._selected("chain")
        if sid:
            self.flow_chain(sid)

    # -- messages back from the workers ---------------------------------------------------

    def on_flow_finished(self, message: FlowFinished) -> None:
        """Refresh the board after a write, move the cursor if asked, say what happened."""
        if message.applied:
            self.refresh_model()
        if message.select_id:
            self.select_session(message.select_id)
        if message.outcome:
            self.notify(message.outcome, title=message.op, severity=message.severity)

    def on_jump_to_session(self, message: JumpToSession) -> None:
        """Move the cursor to the session chosen in the chain view."""
        self.select_session(message.session_id)

    # -- guards ---------------------------------------------------------------------------

    def flow_running(self) -> bool:
        """Whether a flow worker is still running (one flow at a time)."""
        return any(w.group == "flow" and not w.is_finished for w in self.workers)

    def _can_start(self) -> bool:
        """Whether a flow may start now (none running, no modal open)."""
        if self.flow_running() or isinstance(self.screen, ModalScreen):
            self.bell()
            return False
        return True

    def _selected(self, op: str) -> str | None:
        """The selected session's ID, or None (with a hint) when a flow cannot start."""
        if not self._can_start():
            return None
        sid = self.current_session_id
        if not sid:
            self.notify(f"Select a session to {op}", severity="warning")
        return sid

    # -- worker-side helpers (run in the flow's thread) -----------------------------------

    def _ask(self, screen: Screen):
        """Show a modal and wait for its result (from the worker thread).

        Like `call_from_thread(push_screen_wait, …)`, but the wait ends, cancelling the flow,
        when the board closes with the modal still open: a thread blocked forever on a modal
        that will never answer would keep the process from exiting.
        """
        loop = self._loop
        if loop is None or loop.is_closed():
            raise asyncio.CancelledError()

        async def show():
            with self._context():
                return await self.push_screen_wait(screen)

        future = asyncio.run_coroutine_threadsafe(show(), loop)
        while True:
            try:
                return future.result(timeout=0.1)
            except FutureTimeout:
                if self._exit or not self.is_running or loop.is_closed():
                    future.cancel()
                    raise asyncio.CancelledError() from None

    def _finish(self, op: str, outcome: str, *, applied: bool = False, severity: str = "information",
                select_id: str | None = None, clear_marks: bool = False) -> None:
        """Report the flow's end to the App (thread-safe)."""
        if clear_marks:
            self.call_from_thread(self.clear_marks)
        self.post_message(FlowFinished(op, outcome, applied, severity, select_id))

    def _refuse(self, op: str, title: str, exc: Exception) -> None:
        """Explain a refusal in a modal; nothing was written."""
        self._ask(MessageScreen(f"{title}: refused", str(exc)))
        self._finish(op, f"{op} refused: nothing written", severity="warning")

    def _incomplete(self, op: str, title: str, exc: Exception) -> None:
        """Explain a write that stopped half-way; the board re-reads what is on disk."""
        self._ask(MessageScreen(f"{title}: incomplete", str(exc), footnote=INCOMPLETE_NOTE))
        self._finish(op, f"{op} incomplete: run doctor", applied=True, severity="error")

    def _preview_and_apply(
        self,
        op: str,
        title: str,
        build: Builder,
        *,
        plan: Plan | None = None,
        describe: Callable[[Plan], list[str]] | None = None,
        select: Callable[[Plan], str | None] | None = None,
    ) -> Plan | None:
        """Build (unless given), preview, and on confirm apply exactly the previewed plan.

        A stale preview is rebuilt and shown again; a refusal is explained. Returns the
        applied plan, or None when nothing was applied.
        """
        root = self.memory_root
        if plan is None:
            try:
                plan = build(root)
            except MemboardError as exc:
                self._refuse(op, title, exc)
                return None
        notes: list[str] = []
        while True:
            report = describe(plan) if describe else plan.report
            if not self._ask(PreviewScreen(title, plan, report=report, notes=notes, diff=plan.diff())):
                self._finish(op, f"{op} cancelled: nothing written")
                return None
            if plan.empty:
                self._finish(op, f"{op}: nothing to change")
                return None
            try:
                apply_exact(root, plan, build)
            except StalePlan as exc:
                plan = exc.fresh_plan
                notes = [STALE_NOTE]
                continue
            except Incomplete as exc:
                self._incomplete(op, title, exc)
                return None
            except MemboardError as exc:
                self._refuse(op, title, exc)
                return None
            self._finish(op, outcome_of(plan), applied=True, select_id=select(plan) if select else None)
            return plan

    # -- the flows ------------------------------------------------------------------------

    @flow("continue")
    def flow_continue(self, source_id: str) -> None:
        """Pick the session that continues from source_id (or a new one), preview, apply."""
        title = f"Continue from {source_id}"
        rows = sorted(list_rows(self.memory_root), key=lambda r: r.updated_at or "", reverse=True)
        choices = [
            Choice(r.id, f"{r.agent} · {r.status} · {r.topic}")
            for r in rows
            if r.id != source_id and not r.problem
        ]
        picked = self._ask(
            SessionPicker(
                f"{title}: which session continues?",
                choices,
                new_label="new session (manual registration)",
                hint=f"The selected row {source_id} is the source. Pick the current session, "
                "or register a new one that continues from it.",
            )
        )
        if picked is None:
            self._finish("continue", "continue cancelled: nothing written")
            return
        as_id = None if picked == NEW_SESSION else picked
        when = now()
        agent = self.agent_name

        def build(root: MemoryRoot) -> Plan:
            """The continue plan, fixed to this moment."""
            return plan_continue(root, source_id, when, as_id, agent=agent)

        self._preview_and_apply("continue", title, build, select=lambda p: p.result.session_id)

    @flow("release")
    def flow_release(self, source_id: str) -> None:
        """Pick one of source_id's referencing sessions, preview the release, apply."""
        title = f"Release {source_id}"
        root = self.memory_root
        try:
            row = find_row(load_index(root), source_id)
        except MemboardError as exc:
            self._refuse("release", title, exc)
            return
        choices = [Choice(sid, "listed in Referenced By") for sid in row.refs]
        for sid in continued_sources(root, {source_id}).get(source_id, []):
            if sid not in row.refs:
                choices.append(Choice(sid, "lists it in Continues From only (one-sided link)"))
        if not choices:
            self._ask(MessageScreen(title, f"{source_id} is referenced by nobody: nothing to release.", error=False))
            self._finish("release", "nothing to release")
            return
        picked = self._ask(SessionPicker(f"{title}: which reference?", choices,
                                         hint=f"The session picked stops continuing from {source_id}."))
        if picked is None:
            self._finish("release", "release cancelled: nothing written")
            return
        self._preview_and_apply("release", f"{title} from {picked}",
                                lambda r: plan_release(r, source_id, picked))

    @flow("archive")
    def flow_archive(self, ids: list[str]) -> None:
        """Archive one session, or several in one combined preview applied one by one."""
        when = now()
        if len(ids) == 1:
            sid = ids[0]
            plan = self._preview_and_apply("archive", f"Archive {sid}", lambda r: plan_archive(r, sid, when))
            if plan is not None and self.marked_session_ids:
                self.call_from_thread(self.clear_marks)
            return
        self._archive_many(ids, when)

    def _archive_many(self, ids: list[str], when) -> None:
        """The marked-rows archive: preview the sequence, apply step by step, stop at a refusal."""
        root = self.memory_root
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
                self._ask(MessageScreen(f"{title}: refused", reasons,
                                        footnote=f"Already done: {', '.join(done)}." if done else "Nothing was written."))
                self._finish("archive", f"archive refused: {said_done()}", applied=bool(done), severity="warning")
                return
            refusals = [f"{sid} will not be archived: {why}" for sid, why in seq.refused.items()]
            combined = seq.combined()
            order = "order: " + " → ".join(sid for sid, _ in seq.steps)
            screen = PreviewScreen(title, combined, report=[order, *combined.report], notes=notes, refusals=refusals,
                                   diff=combined.diff())
            if not self._ask(screen):
                self._finish("archive", f"archive cancelled: {said_done()}", applied=bool(done))
                return
            stale = False
            for sid, step in seq.steps:
                try:
                    apply_exact(root, step, lambda r, sid=sid: build_one(r, sid))
                except StalePlan:
                    stale = True
                    break
                except Incomplete as exc:
                    self._incomplete("archive", f"{title} ({said_done()})", exc)
                    return
                except MemboardError as exc:
                    self._ask(MessageScreen(f"Archive {sid}: refused", str(exc),
                                            footnote=f"Stopped here; {said_done()}."))
                    self._finish("archive", f"archive stopped at {sid}: {said_done()}", applied=bool(done),
                                 severity="warning")
                    return
                done.append(sid)
            if not stale:
                skipped = f"; not archived: {', '.join(seq.refused)}" if seq.refused else ""
                self._finish("archive", said_done() + skipped, applied=True, clear_marks=True,
                             severity="warning" if seq.refused else "information")
                return
            pending = [sid for sid in pending if sid not in done]
            notes = [STALE_NOTE + (f" Already {said_done()}." if done else "")]

    @flow("update")
    def flow_update(self, session_id: str) -> None:
        """Edit the fields and snapshot, preview the merged result, apply."""
        title = f"Update {session_id}"
        root = self.memory_root
        try:
            row = find_row(load_index(root), session_id)
            snap = root.read(session_path(session_id))
        except MemboardError as exc:
            self._refuse("update", title, exc)
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
            edited = self._ask(UpdateScreen(form, has_snapshot=snap is not None))
            if edited is None:
                self._finish("update", "update cancelled: nothing written")
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
                self._ask(MessageScreen(f"{title}: cannot preview", str(exc),
                                        footnote="Nothing was written. Back to the editor."))
                continue
            self._preview_and_apply("update", title, build, plan=plan)
            return

    @flow("organize")
    def flow_organize(self) -> None:
        """Ask stale days, preview the whole organize pass, apply."""
        days = self._ask(StaleDaysScreen(config.stale_days()))
        if days is None:
            self._finish("organize", "organize cancelled: nothing written")
            return
        when = now()
        self._preview_and_apply(
            "organize",
            f"Organize memory (stale after {days} days)",
            lambda r: plan_organize(r, when, days),
            describe=organize_lines,
        )

    @flow("doctor")
    def flow_doctor(self) -> None:
        """Diagnose the root, preview the repairs, apply them."""
        when = now()
        self._preview_and_apply(
            "doctor",
            "Doctor: findings and repairs",
            lambda r: diagnose(r, when)[1],
            describe=lambda p: finding_lines(p.result.findings),
        )

    @flow("chain")
    def flow_chain(self, session_id: str) -> None:
        """Read the chain, show it as a tree, jump to the session picked."""
        try:
            data = chain(self.memory_root, session_id)
        except MemboardError as exc:
            self._ask(MessageScreen(f"Chain of {session_id}", str(exc), footnote=""))
            return
        picked = self._ask(ChainScreen(data))
        if picked:
            self.post_message(JumpToSession(picked))
