"""The update editor: Topic, Summary, Keywords and snapshot sections to merge."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static, TextArea

from memboard.styles import FLOWS_TCSS

from ..actions import bindings


@dataclass(frozen=True)
class UpdateForm:
    """What the editor shows (and returns): the row's fields and the snapshot text."""

    session_id: str
    topic: str
    summary: str
    keywords: str
    snapshot: str

    def changes_from(self, start: UpdateForm) -> dict:
        """Only what the user changed, as plan_update keyword arguments."""
        out: dict = {}
        for name in ("topic", "summary", "keywords"):
            value = getattr(self, name).strip()
            if value and value != getattr(start, name).strip():
                out[name] = value
        snapshot = self.snapshot
        if snapshot.strip() and snapshot.strip() != start.snapshot.strip():
            out["snapshot_text"] = snapshot
        return out


class UpdateScreen(ModalScreen[UpdateForm | None]):
    """Edit a session's Topic, Summary, Keywords and snapshot; returns the form to preview."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("update")

    def __init__(self, form: UpdateForm, *, has_snapshot: bool):
        """Edit form; has_snapshot says whether the text area holds the current snapshot."""
        super().__init__()
        self.form = form
        self.has_snapshot = has_snapshot

    def compose(self) -> ComposeResult:
        """Three inputs, the snapshot text area and the buttons."""
        with Vertical(id="update-dialog"):
            yield Label(Text(f"Update {self.form.session_id}"), id="update-title")
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
                "Snapshot: edit or add items by section; it is merged into the current one (no item is lost)."
                if self.has_snapshot
                else "Snapshot: none yet. Leave empty to create it from the template, or write '## ' sections."
            )
            yield Static(Text(hint), id="update-hint")
            yield TextArea(self.form.snapshot, id="update-snapshot", soft_wrap=True, show_line_numbers=False)
            with Horizontal(id="update-buttons"):
                yield Button("Preview (ctrl+s)", variant="primary", id="preview")
                yield Button("Cancel (esc)", variant="error", id="cancel")

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

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in an input previews."""
        event.stop()
        self.action_preview()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Preview or cancel from the buttons."""
        event.stop()
        if event.button.id == "preview":
            self.action_preview()
        else:
            self.action_cancel()

    def action_preview(self) -> None:
        """Hand the edited form to the flow, which previews the merged result."""
        self.dismiss(self.current())

    def action_cancel(self) -> None:
        """Update nothing."""
        self.dismiss(None)
