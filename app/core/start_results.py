"""What a SessionStart returns (registration, a hook's start, the map's answer): the hook's own results.

They are results.py's kind (typed NamedTuples, named there too), kept apart so that the hook,
which needs only these, does not create every other operation's result type at its start.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

WhoamiState = Literal["unknown", "live", "archived", "gone"]


class RegisterResult(NamedTuple):
    """SessionStart registration: the new idle row's Session ID."""

    session_id: str
    status: str
    unmentioned: bool = False  # no line of the index's table held the new ID's text (no row lists it)


class SessionStartResult(NamedTuple):
    """A hook's SessionStart: the conversation's Session ID, new or reused."""

    session_id: str
    status: str
    conversation: str | None  # None: the payload named no conversation (not mapped)
    reused: bool  # the conversation's live row was found, nothing was written
    replaces: str | None = None  # the conversation's earlier session, whose row is gone
    unmentioned: bool = False  # a new row whose ID no line of the table held (RegisterResult's)


class Whoami(NamedTuple):
    """What the hooks' conversation map knows about a conversation."""

    conversation: str
    session_id: str | None
    state: WhoamiState
    status: str | None = None  # the row's status while it is live
