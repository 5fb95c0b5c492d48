"""Messages the board's workers post back to the App, as small dataclasses."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


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
