"""What operations return: one typed result per operation, and the views of rows, sessions and chains.

A plan carries its operation's result (`Plan[R].result`); the read-only views return these
directly. They are plain data for every face: the command line turns them into its stable
JSON (cli/output.py, the only place JSON is built), the board shows them as they are.
They are typed NamedTuples (immutable, with named fields, like frozen dataclasses): this
module is on the hook's path, and as dataclasses these types would cost it about 5 ms.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

ArchiveAction = Literal["deleted", "archived"]
ChainState = Literal["live", "archived", "missing"]
WhoamiState = Literal["unknown", "live", "archived", "gone"]


class RegisterResult(NamedTuple):
    """SessionStart registration: the new idle row's Session ID."""

    session_id: str
    status: str


class SessionStartResult(NamedTuple):
    """A hook's SessionStart: the conversation's Session ID, new or reused."""

    session_id: str
    status: str
    conversation: str | None  # None: the payload named no conversation (not mapped)
    reused: bool  # the conversation's live row was found, nothing was written
    replaces: str | None = None  # the conversation's earlier session, whose row is gone


class ManualResult(NamedTuple):
    """Manual registration (also `continue` without --as): the new active session and its snapshot."""

    session_id: str
    status: str
    snapshot: str
    continues_from: str | None = None


class ContinueResult(NamedTuple):
    """`continue SOURCE --as ID`: which session continues from which."""

    session_id: str
    continues_from: str


class ReleaseResult(NamedTuple):
    """`release SOURCE --as ID`: the reference dropped."""

    session_id: str
    released: str


class UpdateResult(NamedTuple):
    """An update: the merge's additions, markings and carried-over items (item texts), sources linked."""

    session_id: str
    snapshot_created: bool
    added: list[str]
    marked: list[str]
    carried_over: list[str]
    continues_from: list[str] | None = None  # sources the update added under Continues From


class OrganizeResult(NamedTuple):
    """The organize pass: Session IDs by what happened to them, and why where it needs saying."""

    deleted: list[str]
    marked_stale: list[str]
    kept_active: list[str]
    protected: list[str]
    blocked: list[str]
    malformed: list[str]
    stale: list[str]
    reasons: dict[str, str]
    stale_days: int


class ArchiveResult(NamedTuple):
    """An archive: the session archived (or its placeholder row deleted) and the sources released."""

    session_id: str
    action: ArchiveAction
    released: list[str]
    archive: str | None  # the archive folder (None when a placeholder row was deleted)


class Finding(NamedTuple):
    """One inconsistency doctor found: its kind, the session it concerns, what is wrong, the repair.

    fix says what `doctor --fix` does (None: a person has to act); subject is the other session
    or the file the finding is about (a link's other end, a copy's original, a temp file).
    """

    kind: str
    id: str
    message: str
    fix: str | None = None
    subject: str | None = None


class DoctorResult(NamedTuple):
    """Doctor's findings, in the order it checked."""

    findings: list[Finding]


class SequenceResult(NamedTuple):
    """Several plans in a row (the board's archive of marked rows): the order, and who was refused why."""

    steps: list[str]
    refused: dict[str, str]


class RowView(NamedTuple):
    """One row as the views show it (text that was not UTF-8 replaced); an archived row from its metadata."""

    id: str
    agent: str
    topic: str
    summary: str
    keywords: str
    status: str  # an archived row: its original status
    referenced_by: list[str]
    started_at: str
    updated_at: str
    line: int | None  # its line in index.md, from 1 (None: archived)
    problem: str | None  # why the row does not parse
    has_snapshot: bool | None = None
    archived_at: str | None = None  # None: a live row


class SessionView(NamedTuple):
    """One session: its row (live or archived) and its snapshot's text."""

    id: str
    archived: bool
    row: RowView
    duplicates: int  # further rows with this ID
    snapshot_path: str | None
    snapshot: str | None


class ChainNode(NamedTuple):
    """A session in a reference chain, with the sessions one more step away."""

    id: str
    state: ChainState
    topic: str | None
    status: str | None
    one_sided: bool = False  # the link to its parent is written on one side only
    cycle: bool = False  # it already appears above: its children are not repeated
    children: tuple[ChainNode, ...] = ()


class ChainView(NamedTuple):
    """A session's reference chain: its ancestors (Continues From) and descendants (Referenced By)."""

    id: str
    state: ChainState
    status: str | None
    topic: str | None
    continues_from: tuple[ChainNode, ...]
    referenced_by: tuple[ChainNode, ...]


class Whoami(NamedTuple):
    """What the hooks' conversation map knows about a conversation."""

    conversation: str
    session_id: str | None
    state: WhoamiState
    status: str | None = None  # the row's status while it is live
