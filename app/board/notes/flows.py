"""The notes view's flows: edit a note, supersede it with another, mark it superseded (or active).

They run like the board's flows (board/flows.py, whose machinery they share): one thread worker
asks the store for a plan (`memboard.core.ops.notes`), shows it in PreviewScreen and, on confirm,
applies exactly that plan with apply_exact; a plan built on files that changed meanwhile is
previewed again. An edit the store refuses as a decision conflict writes nothing: both texts are
shown with the choice (supersede, keep both, back to the editor), and the choice is planned and
previewed in its turn. When a flow ends it tells the notes view (NoteFlowFinished), which re-reads
the notes, moves its cursor and says what happened before the flow's worker ends.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Protocol

from textual.message import Message
from textual.notifications import SeverityLevel

from memboard.widgets.rows import printable

from ...core.errors import MemboardError
from ...core.files.root import MemoryRoot
from ...core.formats.clock import now
from ...core.ops.notes import Choice, NoteFields, plan_note_mark, plan_note_supersede, plan_note_update, show_note
from ...core.plan import Plan
from ...core.results import NoteSaveResult
from ..flowrun import plain_words
from ..flows import BoardFlows, Builder, FlowHost
from ..messages import FlowFinished
from ..screens import Choice as PickerChoice
from ..screens import MessageScreen
from .dialogs import ConflictScreen, NoteEditScreen, NoteForm, NotePicker

BACK_TO_EDITOR = "Nothing was written. Back to the editor."


@dataclass
class NoteFlowFinished(Message):
    """A note flow ended: applied, cancelled or refused. The notes view re-reads the notes when it was
    applied, moves its cursor to select_id, says so, and then completes `shown`, which the flow waits on."""

    op: str
    outcome: str
    applied: bool = False
    severity: SeverityLevel = "information"
    select_id: str | None = None
    shown: Future[None] = field(default_factory=Future)


class NotesListener(Protocol):
    """The notes view as its flows see it: it takes their messages (from any thread)."""

    def post_message(self, message: Message) -> bool:
        """Queue a message for the notes view; False when it is gone."""


def describe_save(plan: Plan[NoteSaveResult]) -> list[str]:
    """What a planned save of an edit will do, in words (the preview's report)."""
    r = plan.result
    lines = {
        "updated": [f"{r.note_id} will be rewritten in place; its text as it is now is kept as a revision"],
        "unchanged": [f"{r.note_id} already says this: nothing will be written"],
        "superseded": [
            f"{r.note_id} will hold the edit; the note as it is moves aside to {r.superseded}, "
            "marked superseded, and both will name each other"
        ],
        "kept_both": [f"the edit will be saved as {r.note_id} beside {r.kept_beside}; both stay active"],
        "created": [f"{r.note_id} will be created"],
    }.get(r.outcome, list(plan.report))
    if r.outcome not in ("updated", "superseded"):
        return lines  # a new file: every statement of it is new
    lines += [f"+ new statement: {printable(s.splitlines()[0])}" for s in r.added]
    kept = f"kept in {r.superseded}" if r.superseded else "kept in the revision"
    lines += [f"- statement left out ({kept}): {printable(s.splitlines()[0])}" for s in r.dropped]
    return lines


class NoteFlows(BoardFlows):
    """Edit, supersede and mark: started on the UI thread, each run in the one flow worker."""

    def __init__(self, host: FlowHost, view: NotesListener) -> None:
        """Flows for host (the board's App) that report to view (the notes view)."""
        super().__init__(host)
        self.view = view

    def tell(self, finished: FlowFinished) -> Future[None] | None:
        """Tell the notes view of a flow's end (the session flows' marks, details and fix flows do not apply to
        notes); it re-reads the notes when the flow wrote, and completes what is returned once it is shown."""
        self.log(finished)
        told = NoteFlowFinished(finished.op, finished.outcome, finished.applied, finished.severity, finished.select_id)
        return told.shown if self.view.post_message(told) else None

    # -- starting a flow (UI thread) --------------------------------------------------------

    def edit(self, note_id: str) -> None:
        """Edit a note; preview the change the store plans for it."""
        if self.may_start():
            self.start("edit", self.flow_edit, note_id)

    def supersede(self, note_id: str, choices: list[PickerChoice]) -> None:
        """Pick the note that supersedes note_id among choices; preview the links; apply."""
        if self.may_start():
            self.start("supersede", self.flow_supersede, note_id, choices)

    def mark(self, note_id: str, status: str) -> None:
        """Mark a note superseded (or active again); preview; apply."""
        if self.may_start():
            self.start("mark", self.flow_mark, note_id, status)

    # -- the flows (each a worker body) -----------------------------------------------------

    def flow_edit(self, note_id: str) -> None:
        """Edit, then preview the store's plan; a decision conflict asks for a choice first."""
        title = f"Edit note {note_id}"
        start = NoteForm.of(show_note(self.host.memory_root, note_id))
        form = start
        while True:
            edited = self.ask(NoteEditScreen(form))
            if edited is None:
                self.finish("edit", "edit cancelled: nothing written")
                return
            form = edited
            try:
                fields = form.changes_from(start)
            except MemboardError as exc:
                self.ask(MessageScreen(f"{title}: cannot preview", str(exc), footnote=BACK_TO_EDITOR))
                continue
            planned = self.plan_edit(title, note_id, fields)
            if planned == "edit":
                continue
            if isinstance(planned, tuple):
                plan, build = planned
                self.preview_and_apply(
                    "edit", title, build, plan=plan, words=plain_words(describe_save), select=lambda p: p.result.note_id
                )
            return

    def plan_edit(
        self, title: str, note_id: str, fields: NoteFields
    ) -> tuple[Plan[NoteSaveResult], Builder] | str | None:
        """The edit's plan and its builder, settling a decision conflict with the person's choice.

        "edit" sends the person back to the editor; None ends the flow (cancelled, already told).
        """
        choice: Choice | None = None
        while True:
            when = now()

            def build(root: MemoryRoot, choice: Choice | None = choice, when: Any = when) -> Plan[NoteSaveResult]:
                """The update the store plans for the edited values, fixed to this moment and this choice."""
                return plan_note_update(root, note_id, fields, when, choice)

            try:
                plan = self.settled(build)
            except MemboardError as exc:
                self.ask(MessageScreen(f"{title}: cannot preview", str(exc), footnote=BACK_TO_EDITOR))
                return "edit"
            conflict = plan.result.conflict
            if conflict is None:
                return plan, build
            picked = self.ask(ConflictScreen(conflict))
            if picked in (None, "edit"):
                if picked is None:
                    self.finish("edit", "edit cancelled: nothing written")
                return picked
            choice = "supersede" if picked == "supersede" else "keep_both"

    def flow_supersede(self, note_id: str, choices: list[PickerChoice]) -> None:
        """Pick the note that replaces note_id, preview both files' links, apply."""
        while True:  # escape in the preview comes back to the picker
            picked = self.choose(
                "supersede",
                NotePicker(
                    f"Supersede {note_id}: which note replaces it?",
                    choices,
                    hint=f"{note_id} will be marked superseded by the note picked, "
                    "and that note will name it under Supersedes.",
                ),
            )
            if picked is None or self.preview_supersede(note_id, picked) != "cancelled":
                return

    def preview_supersede(self, note_id: str, picked: str) -> str:
        """Preview (and on confirm apply) note_id superseded by picked; preview_and_apply's outcome."""
        when = now()
        return self.preview_and_apply(
            "supersede",
            f"Supersede {note_id} with {picked}",
            lambda r: plan_note_supersede(r, note_id, picked, when),
            words=plain_words(
                lambda p: (
                    [f"{note_id} will be marked superseded by {picked}, and {picked} will name it under Supersedes"]
                    if not p.empty
                    else ["both notes already say so: nothing to change"]
                )
            ),
            select=lambda p: note_id,
            back_on_cancel=True,
        )

    def flow_mark(self, note_id: str, status: str) -> None:
        """Preview the note's Status change, apply."""
        when = now()
        self.preview_and_apply(
            "mark",
            f"Mark {note_id} {status}",
            lambda r: plan_note_mark(r, note_id, status, when),
            words=plain_words(lambda p: [f"{note_id} will be marked {status}; its links stay as they are"]),
            select=lambda p: note_id,
        )
