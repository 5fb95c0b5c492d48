"""What the snapshot pane shows, prepared by the loader off the UI thread: plain data that the
pane widget renders as it is (no parsing, no reading, no Textual here)."""

from __future__ import annotations

from dataclasses import dataclass, field


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
