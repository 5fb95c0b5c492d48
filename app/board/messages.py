"""Messages the board's workers post back to the UI thread (small dataclasses; Message
sets itself up in __post_init__, which the dataclass __init__ calls)."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from .loader import SessionDetail
from .model import BoardModel


@dataclass
class ModelLoaded(Message):
    """A fresh read of the index (partial on a huge file's first paint)."""

    model: BoardModel
    changed_snapshots: set[str] = field(default_factory=set)


@dataclass
class DetailLoaded(Message):
    """A session's snapshot and revisions, read for the pane."""

    detail: SessionDetail
