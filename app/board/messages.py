"""Messages the board's workers post back to the UI thread (small dataclasses; Message
sets itself up in __post_init__, which the dataclass __init__ calls)."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from .loader import Notices, SessionDetail
from .model import BoardModel


@dataclass
class ModelLoaded(Message):
    """A fresh read of the index (partial on a huge file's first paint)."""

    model: BoardModel
    changed_snapshots: set[str] = field(default_factory=set)


@dataclass
class NoticesLoaded(Message):
    """What the banner says about the root (read-only, conflict markers, sync-conflict copies)."""

    notices: Notices


@dataclass
class DetailLoaded(Message):
    """A session's snapshot and revisions, read for the pane."""

    detail: SessionDetail


@dataclass
class FlowFinished(Message):
    """A modal flow ended: applied, cancelled or refused; the App refreshes and says so."""

    op: str
    outcome: str
    applied: bool = False
    severity: str = "information"
    select_id: str | None = None


@dataclass
class JumpToSession(Message):
    """Move the board's cursor to a session (from the chain view)."""

    session_id: str
