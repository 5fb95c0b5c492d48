"""The update editor: Topic, Summary, Keywords and snapshot sections to merge.

Escape with a changed draft asks first: discard it, keep it for later (`u` on the session opens
it again, until the board closes) or go back to editing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static, TextArea

from memboard.styles import FLOWS_TCSS
from memboard.widgets.key_bar import KeyBar

from ...core.formats.snapshot import Snapshot
from ..actions import bindings
from ..loader import without_section
from .confirm import KEEP, Choice, QuestionScreen
from .form import FormScreen

CONTEXT = "Current Context"


def context_items(text: str) -> list[str]:
    """The Current Context items of a snapshot text."""
    return [item.text.strip() for item in Snapshot(text).items(CONTEXT)]


@dataclass(frozen=True)
class UpdateForm:
    """What the editor shows (and returns): the row's fields and the snapshot text."""

    session_id: str
    topic: str
    summary: str
    keywords: str
    snapshot: str

    def changes_from(self, start: UpdateForm) -> dict:
        """Only what the user changed, as plan_update keyword arguments.

        A new Summary goes into the snapshot's Current Context too, as on the command line,
        unless the user rewrote Current Context in the editor: then their text wins. (The
        editor always holds the whole snapshot, so its unchanged Current Context is left out of
        the merge input rather than taken for the user's own.)
        """
        out: dict = {}
        for name in ("topic", "summary", "keywords"):
            value = getattr(self, name).strip()
            if value and value != getattr(start, name).strip():
                out[name] = value
        snapshot = self.snapshot
        if snapshot.strip() and snapshot.strip() != start.snapshot.strip():
            if "summary" in out and context_items(snapshot) == context_items(start.snapshot):
                rest = without_section(snapshot, CONTEXT)
                if Snapshot(rest).sections:  # else only the unchanged Current Context was there: nothing to merge
                    out["snapshot_text"] = rest
            else:
                out["snapshot_text"] = snapshot
        return out


@dataclass(frozen=True)
class EditorResult:
    """How the editor closed: `preview` (with the form), `keep` (the draft, for later) or `discard`."""

    action: str
    form: UpdateForm | None = None


DISCARD = Choice("discard", "Discard the draft", "y")
BACK = Choice("no", "Back to editing", "esc / n")


class UpdateScreen(FormScreen[EditorResult]):
    """Edit a session's Topic, Summary, Keywords and snapshot; returns what to do with the draft."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("update")

    def __init__(self, form: UpdateForm, *, start: UpdateForm | None = None, has_snapshot: bool):
        """Edit form (a kept draft, or the session as it is: start); has_snapshot says whether a snapshot exists."""
        super().__init__()
        self.form = form
        self.start = start or form
        self.has_snapshot = has_snapshot

    def compose(self) -> ComposeResult:
        """Three inputs, the snapshot text area and the buttons."""
        with Vertical(id="update-dialog"):
            kept = " (your draft: not written yet)" if self.form != self.start else ""
            yield Label(Text(f"Update {self.form.session_id}{kept}"), id="update-title")
            with Horizontal(classes="update-field"):
                yield Label("Topic", classes="update-label")
                yield Input(self.form.topic, id="update-topic")
            with Horizontal(classes="update-field"):
                yield Label("Summary", classes="update-label")
                yield Input(self.form.summary, id="update-summary")
            with Horizontal(classes="update-field"):
                yield Label("Keywords", classes="update-label")
                yield Input(self.form.keywords, id="update-keywords")
            hint = (
                "Snapshot: edit or add items by section; it is merged into the current one (no item is lost). "
                "A new Summary also goes into Current Context unless you edit that section here."
                if self.has_snapshot
                else "Snapshot: none yet. Leave empty to create it from the template, or write '## ' sections."
            )
            yield Static(Text(hint), id="update-hint")
            yield TextArea(self.form.snapshot, id="update-snapshot", soft_wrap=True, show_line_numbers=False)
            with Horizontal(id="update-buttons"):
                yield Button("Preview (ctrl+s)", variant="primary", id="preview")
                yield Button("Close (esc)", variant="error", id="cancel")
        yield KeyBar("update")

    def on_mount(self) -> None:
        """Start in the Topic input."""
        self.query_one("#update-topic").focus()

    def current(self) -> UpdateForm:
        """The form as edited so far."""
        return replace(
            self.form,
            topic=self.query_one("#update-topic", Input).value,
            summary=self.query_one("#update-summary", Input).value,
            keywords=self.query_one("#update-keywords", Input).value,
            snapshot=self.query_one("#update-snapshot", TextArea).text,
        )

    def action_preview(self) -> None:
        """Hand the edited form to the flow, which previews the merged result."""
        self.dismiss(EditorResult("preview", self.current()))

    def action_cancel(self) -> None:
        """Close: at once when nothing changed, else after asking what to do with the draft."""
        draft = self.current()
        if not draft.changes_from(self.start):
            self.dismiss(EditorResult("discard"))
            return

        def answered(answer: str | None) -> None:
            """Discard, keep the draft for later, or stay."""
            if answer == DISCARD.value:
                self.dismiss(EditorResult("discard"))
            elif answer == KEEP.value:
                self.dismiss(EditorResult("keep", draft))

        text = (
            f"Your draft of {draft.session_id} has changes that are not written. Discard it, keep it for "
            "later (u on this session opens it again while the board runs), or go back to editing?"
        )
        self.app.push_screen(
            QuestionScreen("Close the editor?", text, (DISCARD, KEEP, BACK), footer="confirm-draft"), answered
        )
