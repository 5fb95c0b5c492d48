"""What the panes show, prepared by the loaders off the UI thread: plain data that the snapshot pane and
the note pane render as they are (no parsing, no reading, no Textual here).

It lives beside the widgets that draw it; the board's loaders (board/loader.py, board/notes/loader.py)
fill it in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memboard.core.results import NoteView


@dataclass
class SectionDiff:
    """The changed lines of one snapshot section between two revisions (`+`, `-` or context)."""

    name: str
    lines: list[str]


@dataclass(frozen=True)
class PolicyBreak:
    """An item a merge dropped without a marker: its section and its first line, list mark removed."""

    section: str
    item: str


@dataclass(frozen=True)
class PaneMerge:
    """One merge as the pane shows it: the policy breaks, then each changed section."""

    breaks: tuple[PolicyBreak, ...]
    sections: tuple[SectionDiff, ...]


@dataclass(frozen=True)
class PaneRevision:
    """One revision of a snapshot as the pane shows it."""

    body: str
    """The snapshot's Markdown without its Metadata section (the pane shows the row's fields)."""
    merge: PaneMerge | None
    """The merge that produced this revision (None for the first one)."""


@dataclass
class PaneSnapshot:
    """A session's snapshot for the pane: how many revisions it has and those prepared so far.

    The loader prepares the latest few at once and older ones when the user steps back to
    them; `views` maps a revision's position (0 = oldest) to its view.
    """

    session_id: str
    count: int
    views: dict[int, PaneRevision] = field(default_factory=dict)
    unreadable: str = ""  # the snapshot file could not be read: why, in one line ("" when it could)


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
