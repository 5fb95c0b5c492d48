"""The board's modal flows: continue, release, archive, update, organize, doctor, resolve, and the chain view.

How a flow runs (its worker, the planning thread, the preview, the apply) is flowrun.py; this
module holds what each flow asks, builds and says. Changing flows refuse up front on a root
memboard cannot write. Core results are read through results.py, words come from wording.py.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial

from memboard.widgets.rows import printable

from ..core import config
from ..core.errors import Incomplete, MemboardError, StalePlan
from ..core.files.execute import apply_exact
from ..core.files.root import MemoryRoot
from ..core.formats.clock import now
from ..core.formats.layout import session_path
from ..core.formats.snapshot import Snapshot
from ..core.ops.archive import plan_archive
from ..core.ops.common import find_row, load_index
from ..core.ops.continue_from import plan_continue
from ..core.ops.doctor import LEAVABLE, diagnose
from ..core.ops.organize import continued_sources, plan_organize
from ..core.ops.release import plan_release
from ..core.ops.sequence import Sequence, plan_sequence
from ..core.ops.update import plan_update
from ..core.plan import Plan
from . import results
from .flowrun import STALE_NOTE, BoardClosed, Builder, FlowHost, FlowRunner, plain_words
from .messages import JumpToSession
from .planview import ViewLine
from .screens import (
    LEAVE_OUT,
    NEW_SESSION,
    ChainScreen,
    Choice,
    Kind,
    KindsScreen,
    MessageScreen,
    PreviewScreen,
    ResolveScreen,
    SessionPicker,
    StaleDaysScreen,
    UpdateForm,
    UpdateScreen,
)
from .wording import (
    archive_sequence,
    archive_words,
    continue_words,
    doctor_words,
    organize_words,
    refusal_words,
    release_words,
    resolve_words,
    update_words,
)

__all__ = ["BoardClosed", "BoardFlows", "Builder", "FlowHost"]

REFERENCED_BY = "by"  # a release choice: a session that continues from the selected one
CONTINUES_FROM = "from"  # a release choice: a session the selected one continues from


def headlined(headline: str, plan: Plan) -> tuple[list[str], list[ViewLine], dict[str, str]]:
    """A preview's words: headline, then the plan's own report lines."""
    return [headline, *plan.report], [], {}


def said_done(steps: list[tuple[str, Plan]]) -> str:
    """What a marked-rows archive has done so far (`archived A, B; deleted placeholder C`)."""
    archived = [sid for sid, step in steps if not results.archive_deletes(step)]
    deleted = [sid for sid, step in steps if results.archive_deletes(step)]
    parts = []
    if archived:
        parts.append(f"archived {', '.join(archived)}")
    if deleted:
        parts.append(f"deleted placeholder {'row' if len(deleted) == 1 else 'rows'} {', '.join(deleted)}")
    return "; ".join(parts) or "nothing written"


def doctor_plan(root: MemoryRoot, *, when: datetime, left_out: frozenset[str]) -> Plan:
    """Doctor's repair plan at when, without the repairs of the kinds left out."""
    return diagnose(root, when, left_out)[1]


def repair_kinds(plan: Plan | None) -> list[Kind]:
    """The kinds of finding doctor's plan repairs (or would, when left out), in the order found, with how many."""
    kinds: dict[str, Kind] = {}
    for finding in results.findings(plan) if plan is not None else []:
        if not finding.fix:
            continue
        known = kinds.get(finding.kind)
        count = known.count + 1 if known else 1
        fix = known.fix if known else finding.fix
        kinds[finding.kind] = Kind(finding.kind, count, fix, finding.kind in LEAVABLE)
    return list(kinds.values())


class BoardFlows(FlowRunner):
    """The seven flows: started on the UI thread, each run in the one flow worker against a FlowHost.

    drafts holds update drafts kept for later (session ID → the form it started from and the
    draft); only the flow worker touches it, one flow at a time.
    """

    def __init__(self, host: FlowHost) -> None:
        """Flows for host (the board's App)."""
        super().__init__(host)
        self.drafts: dict[str, tuple[UpdateForm, UpdateForm]] = {}

    # -- starting a flow (UI thread) --------------------------------------------------------

    def continue_session(self) -> None:
        """Continue from the selected session: pick the session that continues, preview, apply."""
        source = self.selected("continue")
        if source:
            self.start("continue", self.flow_continue, source)

    def release(self) -> None:
        """Release a reference of the selected session (either direction): pick it, preview, apply."""
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

    def resolve(self) -> None:
        """Resolve: pick ours or theirs for the open conflicts, preview the plan, apply."""
        if self.may_start():
            self.start("resolve", self.flow_resolve, self.host.current_session_id)

    def chain(self) -> None:
        """Show the selected session's reference chain; enter jumps to a session."""
        sid = self.selected("chain")
        if sid:
            self.start("chain", self.flow_chain, sid)

    def selected(self, op: str) -> str | None:
        """The selected session's ID, or None (with a hint) when a flow cannot start."""
        if not self.may_start():
            return None
        sid = self.host.current_session_id
        if not sid:
            self.host.notify(f"Select a session to {op}", severity="warning")
        return sid

    # -- the flows (each a worker body) -----------------------------------------------------

    def flow_continue(self, source_id: str) -> None:
        """Pick the session that continues from source_id (or a new one), preview, apply."""
        title = f"Continue from {source_id}"
        if self.refuse_read_only("continue", title):
            return
        rows = self.planned(title, lambda: results.listed_rows(self.host.memory_root))
        rows.sort(key=lambda r: r.updated_at, reverse=True)
        choices = [
            Choice(r.id, printable(f"{r.agent} · {r.status} · {r.topic}"))
            for r in rows
            if r.id != source_id and not r.problem
        ]
        while True:  # escape in the preview comes back to the picker
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
            if self.preview_continue(title, source_id, None if picked == NEW_SESSION else picked) != "cancelled":
                return

    def preview_continue(self, title: str, source_id: str, as_id: str | None) -> str:
        """Preview (and on confirm apply) source_id continued as as_id (None: a new session); preview_and_apply's
        outcome ("cancelled": back to the picker)."""
        when, agent = now(), self.host.agent_name

        def build(root: MemoryRoot) -> Plan:
            """The continue plan, fixed to this moment."""
            return plan_continue(root, source_id, when, as_id, agent=agent)

        return self.preview_and_apply(
            "continue",
            title,
            build,
            words=plain_words(lambda p: continue_words(p, as_id is None)),
            select=results.session_of,
            back_on_cancel=True,
            session_id=source_id,
        )

    def release_choices(self, session_id: str) -> list[Choice]:
        """What session_id can release: sessions that continue from it, and sessions it continues from."""
        root = self.host.memory_root
        index = load_index(root)
        row = find_row(index, session_id)
        choices = [
            Choice(sid, "continues from it (listed in its Referenced By)", f"{REFERENCED_BY}\x00{sid}")
            for sid in row.refs
        ]
        for sid in continued_sources(root, {session_id}).get(session_id, []):
            if sid not in row.refs:
                choices.append(
                    Choice(sid, "lists it in Continues From only (one-sided link)", f"{REFERENCED_BY}\x00{sid}")
                )
        snap = root.read(session_path(session_id))
        sources = Snapshot(snap).continues_from() if snap is not None else []
        sources += [r.id for r in index.rows if session_id in r.refs and r.id not in sources]
        for sid in sources:
            if sid != session_id:
                choices.append(Choice(sid, f"{session_id} continues from it", f"{CONTINUES_FROM}\x00{sid}"))
        return choices

    def flow_release(self, session_id: str) -> None:
        """Pick a reference of session_id (either direction), preview the release, apply."""
        title = f"Release {session_id}"
        if self.refuse_read_only("release", title):
            return
        try:
            choices = self.planned(title, lambda: self.release_choices(session_id))
        except MemboardError as exc:
            self.refuse("release", title, exc)
            return
        if not choices:
            self.ask(
                MessageScreen(
                    title,
                    f"{session_id} has no reference to release: no session continues from it, "
                    "and it continues from none.",
                    error=False,
                )
            )
            self.finish("release", "nothing to release")
            return
        while True:  # escape in the preview comes back to the picker
            picked = self.choose(
                "release",
                SessionPicker(
                    f"{title}: which reference?",
                    choices,
                    hint=f"Sessions that continue from {session_id}, and those it continues "
                    "from. The link is removed on both sides.",
                ),
            )
            if picked is None:
                return
            direction, other = picked.split("\x00", 1)
            source, follower = (session_id, other) if direction == REFERENCED_BY else (other, session_id)
            outcome = self.preview_and_apply(
                "release",
                f"Release {source} from {follower}",
                partial(plan_release, source_id=source, as_id=follower),
                words=plain_words(release_words),
                back_on_cancel=True,
            )
            if outcome != "cancelled":
                return

    def flow_archive(self, ids: list[str]) -> None:
        """Archive one session, or several in one combined preview applied one by one."""
        when = now()
        if self.refuse_read_only("archive", f"Archive {', '.join(ids[:3])}"):
            return
        if len(ids) == 1:
            sid = ids[0]
            self.preview_and_apply(
                "archive",
                f"Archive {sid}",
                lambda r: plan_archive(r, sid, when),
                words=plain_words(lambda p: [archive_words(p)]),
                clear_marks=True,
                session_id=sid,
            )
            return
        self.archive_many(ids, when)

    def sequence_preview(self, title: str, pending: list[str], when: datetime) -> tuple[Sequence, PreviewScreen]:
        """Plan the marked rows one after another (in the planning thread) and their combined preview."""
        planned: list[Sequence] = []

        def build(root: MemoryRoot) -> Plan:
            """The sequence as one plan (built again while a file it read is caught mid-save)."""
            planned.append(plan_sequence(root, "archive", pending, partial(plan_archive, when=when)))
            return planned[-1].combined()

        def work() -> tuple[Sequence, PreviewScreen]:
            """The sequence and its preview, built off the UI thread from settled files."""
            combined = self.settled(build)
            seq = planned[-1]
            headline, block = archive_sequence(seq.steps, seq.errors)
            return seq, PreviewScreen(title, combined, self.plan_view(combined, lambda p: (headline, block, {})))

        return self.planned(title, work)

    def archive_many(self, ids: list[str], when: datetime) -> None:
        """The marked-rows archive: preview the sequence, apply step by step, stop at a refusal."""
        title = f"Archive {len(ids)} marked sessions"
        pending = list(ids)
        done: list[tuple[str, Plan]] = []
        notes: list[str] = []
        while True:
            seq, screen = self.sequence_preview(title, pending, when)
            if not seq.steps:
                reasons = "\n".join(f"{sid}: {refusal_words(why)}" for sid, why in seq.errors.items())
                self.ask(
                    MessageScreen(
                        f"{title}: refused",
                        reasons,
                        footnote=f"Already {said_done(done)}." if done else "Nothing was written.",
                    )
                )
                self.finish(
                    "archive",
                    f"archive refused: {said_done(done)}",
                    applied=bool(done),
                    severity="warning",
                    details=reasons.splitlines(),
                )
                return
            screen.notes[:0] = notes
            if not self.ask(screen):
                self.finish("archive", f"archive cancelled: {said_done(done)}", applied=bool(done))
                return
            stopped = self.archive_steps(title, seq, done, when)
            if stopped == "stale":
                pending = [sid for sid in pending if sid not in {s for s, _ in done}]
                notes = [STALE_NOTE + (f" Already {said_done(done)}." if done else "")]
                continue
            if stopped == "done":
                skipped = f"; not archived: {', '.join(seq.refused)}" if seq.refused else ""
                self.finish(
                    "archive",
                    said_done(done) + skipped,
                    applied=True,
                    clear_marks=True,
                    severity="warning" if seq.refused else "information",
                    details=[f"{sid}: {refusal_words(why)}" for sid, why in seq.errors.items()],
                )
            return

    def archive_steps(self, title: str, seq: Sequence, done: list[tuple[str, Plan]], when: datetime) -> str:
        """Apply the sequence's steps in order (adding each to done), with one progress bar over all of them;
        "done", "stale" or "stopped" (reported)."""
        total = sum(len(step.changes) for _, step in seq.steps)
        failed: tuple[str, MemboardError] | None = None
        with self.progress(title, total) as tally:
            written = 0
            for sid, step in seq.steps:
                tell = partial(tally.step_from, written) if tally else None
                try:
                    apply_exact(
                        self.host.memory_root, step, partial(plan_archive, session_id=sid, when=when), progress=tell
                    )
                except MemboardError as exc:
                    failed = (sid, exc)
                    break
                done.append((sid, step))
                written += len(step.changes)
        if failed is None:
            return "done"
        sid, error = failed
        if isinstance(error, StalePlan):
            return "stale"
        if isinstance(error, Incomplete):
            self.incomplete("archive", f"{title} ({said_done(done)})", error)
            return "stopped"
        self.ask(
            MessageScreen(f"Archive {sid}: refused", refusal_words(error), footnote=f"Stopped here; {said_done(done)}.")
        )
        self.finish(
            "archive",
            f"archive stopped at {sid}: {said_done(done)}",
            applied=bool(done),
            severity="warning",
            details=[refusal_words(error)],
        )
        return "stopped"

    def flow_update(self, session_id: str) -> None:
        """Edit the fields and snapshot, preview the merged result, apply; a cancelled preview goes back to
        the editor with the draft, a draft can be kept for later."""
        title = f"Update {session_id}"
        if self.refuse_read_only("update", title):
            return
        root = self.host.memory_root
        try:
            row = find_row(load_index(root), session_id)
            snap = root.read(session_path(session_id))
        except MemboardError as exc:
            self.refuse("update", title, exc, session_id)
            return
        start = UpdateForm(  # printable: the editor shows an escape sequence as U+FFFD, not run by the terminal
            session_id,
            printable(row.get("topic")),
            printable(row.get("summary")),
            printable(row.get("keywords")),
            printable(snap.decode("utf-8-sig", "replace")) if snap is not None else "",
        )
        start, form = self.drafts.get(session_id, (start, start))
        while True:
            answer = self.ask(UpdateScreen(form, start=start, has_snapshot=snap is not None))
            if answer is None or answer.action == "discard" or answer.form is None:
                self.drafts.pop(session_id, None)
                self.finish("update", "update cancelled: nothing written")
                return
            form = answer.form
            if answer.action == "keep":
                self.drafts[session_id] = (start, form)
                self.finish("update", "update closed: draft kept (u on the session opens it again)")
                return
            if self.preview_update(title, session_id, start, form):
                self.drafts.pop(session_id, None)
                return

    def preview_update(self, title: str, session_id: str, start: UpdateForm, form: UpdateForm) -> bool:
        """Preview (and on confirm apply) the edited form; False to go back to the editor."""
        changes, when = form.changes_from(start), now()

        def build(r: MemoryRoot) -> Plan:
            """The update plan for the edited form, fixed to this moment."""
            return plan_update(r, session_id, when, **changes)

        try:
            plan = self.planned(title, lambda: self.settled(build))
        except MemboardError as exc:
            self.ask(
                MessageScreen(
                    f"{title}: cannot preview",
                    refusal_words(exc),
                    footnote="Nothing was written. Back to the editor, your draft as you left it.",
                )
            )
            return False
        outcome = self.preview_and_apply(
            "update",
            title,
            build,
            plan=plan,
            words=plain_words(update_words),
            back_on_cancel=True,
            session_id=session_id,
        )
        return outcome not in ("cancelled", "refused")  # back to the editor, the draft as it was

    def flow_organize(self) -> None:
        """Ask stale days, preview the whole organize pass, apply."""
        if self.refuse_read_only("organize", "Organize memory"):
            return
        days = config.stale_days()
        while True:  # escape in the preview comes back to the question, the days as entered
            answer = self.ask(StaleDaysScreen(days))
            if answer is None:
                self.finish("organize", "organize cancelled: nothing written")
                return
            days = answer
            outcome = self.preview_organize(days)
            if outcome != "cancelled":
                return

    def preview_organize(self, days: int) -> str:
        """Preview (and on confirm apply) organize with days; preview_and_apply's outcome."""
        when = now()
        return self.preview_and_apply(
            "organize",
            f"Organize memory (stale after {days} days)",
            lambda r: plan_organize(r, when, days),
            words=lambda p: organize_words(p, when),
            back_on_cancel=True,
        )

    def flow_doctor(self) -> None:
        """Diagnose the root, preview the repairs, apply them; `x` in the preview leaves kinds of finding out of
        the plan (asked in KindsScreen), which is then worked out again and previewed."""
        if self.refuse_read_only("doctor", "Doctor"):
            return
        when = now()
        left_out: frozenset[str] = frozenset()
        shown: list[Plan] = []  # the plan the preview showed last (its findings make the kinds' list)

        def words(plan: Plan) -> tuple[list[str], list[ViewLine], dict[str, str]]:
            """Doctor's words for the plan previewed, kept for the kinds' list."""
            shown[:] = [plan]
            return (*doctor_words(plan), {})

        while True:
            title = "Doctor: findings and repairs" + (f" (left out: {', '.join(sorted(left_out))})" if left_out else "")
            build = partial(doctor_plan, when=when, left_out=left_out)
            outcome = self.preview_and_apply("doctor", title, build, words=words, leave_out=True)
            if outcome != LEAVE_OUT:
                return
            answer = self.ask(KindsScreen(repair_kinds(shown[0] if shown else None), left_out))
            if answer is not None:
                left_out = answer

    def flow_resolve(self, selected: str | None) -> None:
        """List what is open, ask ours or theirs (and every one or the selected session's), preview that plan,
        apply; escape in the preview goes back to the question."""
        title = "Resolve open conflicts"
        if self.refuse_read_only("resolve", title):
            return
        conflicts = self.planned(title, lambda: results.open_conflicts(self.host.memory_root))
        if not conflicts:
            self.ask(
                MessageScreen(
                    title,
                    "Nothing to resolve: no merge of a sync-conflict copy left a cell open, and no file holds the "
                    "git merge driver's conflict blocks.",
                    footnote="",
                    error=False,
                )
            )
            self.finish("resolve", "resolve: nothing to resolve")
            return
        only = False
        while True:
            answer = self.ask(ResolveScreen(conflicts, selected, only=only))
            if answer is None:
                self.finish("resolve", "resolve cancelled: nothing written")
                return
            prefer, limit = answer
            only = limit is not None
            headline = resolve_words(prefer, limit, conflicts)
            try:
                build = results.resolve_builder(prefer, limit)
            except MemboardError as exc:
                self.refuse("resolve", title, exc, limit)
                return
            outcome = self.preview_and_apply(
                "resolve",
                f"{title}: {'keep ours' if prefer == 'ours' else 'take theirs'}",
                build,
                words=partial(headlined, headline),
                back_on_cancel=True,
                session_id=limit,
            )
            if outcome != "cancelled":
                return

    def flow_chain(self, session_id: str) -> None:
        """Read the chain, show it as a tree, jump to the session picked."""
        root = self.host.memory_root
        try:
            data = self.planned(f"Chain of {session_id}", lambda: results.chain(root, session_id))
        except MemboardError as exc:
            self.ask(MessageScreen(f"Chain of {session_id}", str(exc), footnote=""))
            return
        picked = self.ask(ChainScreen(data))
        if picked:
            self.host.post_message(JumpToSession(picked))
