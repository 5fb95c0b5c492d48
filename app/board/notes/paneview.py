"""What the note pane shows, prepared by the notes loader off the UI thread: plain data that the
pane widget renders as it is (no reading, no parsing, no Textual here)."""

from __future__ import annotations

from dataclasses import dataclass

from ...core.results import NoteView
from ..paneview import SectionDiff


@dataclass(frozen=True)
class FieldChange:
    """One metadata field that differs from the previous revision."""

    name: str
    before: str
    after: str


@dataclass(frozen=True)
class NoteChange:
    """How a note differs from its previous revision: fields, each changed section, statements left out."""

    fields: tuple[FieldChange, ...]
    sections: tuple[SectionDiff, ...]
    left_out: tuple[str, ...]
    """Earlier statements the note no longer makes (they stay in the revision)."""


@dataclass(frozen=True)
class NotePaneView:
    """One note for the pane: its metadata, its four sections as Markdown and its last change."""

    note_id: str
    view: NoteView | None
    """None when the note could not be read (error says why)."""
    body: str
    revisions: int
    change: NoteChange | None
    """None when local state keeps no earlier text that differs."""
    error: str | None = None
