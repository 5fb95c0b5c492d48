"""Messages the board's workers post back to the UI thread (small dataclasses; Message
sets itself up in __post_init__, which the dataclass __init__ calls)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen

from memboard.widgets.panes import PaneRevision

from .loader import Notices, SessionDetail
from .model import BoardModel

if TYPE_CHECKING:
    from .planview import PlanView
    from .written import Written


@dataclass
class ModelLoaded(Message):
    """A fresh read of the index (partial on a huge file's first paint)."""

    model: BoardModel
    changed_snapshots: set[str] = field(default_factory=set)
    reload_pane: bool = False  # after a flow: the pane re-reads its session whatever changed


@dataclass
class NoticesLoaded(Message):
    """What the banner says about the root (read-only, conflict markers, sync-conflict copies)."""

    notices: Notices


@dataclass
class DetailLoaded(Message):
    """A session's snapshot and revisions, read for the pane."""

    detail: SessionDetail


@dataclass
class RevisionsPrepared(Message):
    """Older revisions of the pane's snapshot, prepared for it after the user stepped back to them."""

    detail: SessionDetail
    views: dict[int, PaneRevision]


@dataclass
class ViewCompleted(Message):
    """A large plan's whole preview view (every row, the exact diff), worked out after its outline showed."""

    view: PlanView


class BoardClosed(Exception):
    """The board closed while a flow waited on it: the flow ends without another word or write."""


@dataclass
class ViewFailed(Message):
    """A large plan's whole preview view could not be worked out (the error, in one line)."""

    error: str


@dataclass
class AskScreen(Message):
    """A flow asks the board to show a screen it does not wait on (the progress bar); the board hands
    what it is dismissed with to `answer`."""

    screen: Screen[Any]
    answer: Callable[[Any], None]


@dataclass
class FlowFinished(Message):
    """A modal flow ended: applied, cancelled or refused. The App re-reads what it wrote, moves the
    cursor, says so briefly (the result log keeps the details), and then completes `shown`, which
    the flow waits on. follow_up names a flow to start once this one has ended (action, session)."""

    op: str
    outcome: str
    applied: bool = False
    severity: SeverityLevel = "information"
    select_id: str | None = None
    clear_marks: bool = False
    details: list[str] = field(default_factory=list)
    follow_up: tuple[str, str | None] | None = None
    shown: Future[None] = field(default_factory=Future)
    written: Written | None = None  # what the plan applied wrote, as the result log keeps it (never its bytes)
    session_id: str | None = None  # the session the flow was about (the result log's enter jumps to it)


@dataclass
class FlowsShown(Message):
    """The reload after these flows has been shown (or has failed): finish their reports."""

    finished: tuple[FlowFinished, ...]


@dataclass
class JumpToSession(Message):
    """Move the board's cursor to a session (from the chain view)."""

    session_id: str


@dataclass
class LogEntry:
    """What one flow did in this run: when, which, its one-line outcome and the details."""

    at: datetime
    op: str
    outcome: str
    severity: str = "information"
    details: list[str] = field(default_factory=list)
    applied: bool = False  # it wrote its plan (a cancellation or a refusal changed nothing)
    written: Written | None = None  # what it wrote, as kept (enter on its line shows its files and diff)
    session_id: str | None = None  # the session it was about (enter on a line that wrote nothing goes there)

    @classmethod
    def of(cls, finished: FlowFinished, at: datetime) -> LogEntry:
        """A flow's end as the log lists it, at the time it ended."""
        return cls(
            at,
            finished.op,
            finished.outcome,
            finished.severity,
            list(finished.details),
            finished.applied,
            finished.written,
            finished.session_id,
        )


@dataclass
class Logged(Message):
    """A flow of another view than the session table (notes, spaces, hierarchy) ended: the App adds it to the
    result log, as it does the session flows' ends."""

    entry: LogEntry
