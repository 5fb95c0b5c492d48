"""What operations return: one typed result per operation, and the views of rows, sessions and chains.

A plan carries its operation's result (`Plan[R].result`); the read-only views return these
directly. They are plain data for every face: the command line turns them into its stable
JSON (service/output.py, the only place JSON is built), the board shows them as they are.
They are typed NamedTuples (immutable, with named fields, like frozen dataclasses): as dataclasses
these types would cost a short command about 5 ms. The hook's own results live in start_results.py
(this module's twenty other types cost the hook 2 ms to create) and are named here as well.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from .start_results import RegisterResult as RegisterResult
from .start_results import SessionStartResult as SessionStartResult
from .start_results import Whoami as Whoami
from .start_results import WhoamiState as WhoamiState

ArchiveAction = Literal["deleted", "archived"]
ChainState = Literal["live", "archived", "missing"]


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
    updated: dict[str, str] = {}
    """Each row kept active: its Updated At as read (a preview says why it stays; not in `--json`)."""
    unreadable: dict[str, str] = {}
    """Each snapshot organize could not read (`sessions/<name>`) and why: while there is one, no row is deleted or
    marked stale on a guess."""


class ArchiveResult(NamedTuple):
    """An archive: the session archived (or its placeholder row deleted) and the sources released."""

    session_id: str
    action: ArchiveAction
    released: list[str]
    archive: str | None  # the archive folder (None when a placeholder row was deleted)


class Finding(NamedTuple):
    """One inconsistency doctor found: its kind, the session it concerns, what is wrong, the repair.

    fix says what `doctor --fix` does (None: a person has to act); subject is the other session
    or the file the finding is about (a link's other end, a copy's original, a temp file); extra holds
    the further keys `doctor --json` prints for some kinds, in order (a sync-conflict copy's `path`, `of`,
    `tool` and `device`; an open cell's `path` and `column`).
    """

    kind: str
    id: str
    message: str
    fix: str | None = None
    subject: str | None = None
    extra: tuple[tuple[str, str | None], ...] = ()


HISTORY = frozenset({"link_to_archived", "link_to_missing"})
"""Doctor's findings that are history, with nothing to do: a link to a session archived or gone."""


INFORMATION = HISTORY | {"preserved_copies"}
"""Doctor's findings with no fix that need no one: history, and merged copies kept for over 30 days (memboard never
deletes them; a person may)."""


def needing_attention(findings: list[Finding]) -> list[Finding]:
    """The findings someone has to look at: all but information with nothing to do (what makes `doctor` exit 1)."""
    return [f for f in findings if f.fix or f.kind not in INFORMATION]


class DoctorResult(NamedTuple):
    """Doctor's findings, in the order it checked; left_out: the kinds whose repairs the plan leaves out (their
    findings keep the fix they would get)."""

    findings: list[Finding]
    left_out: frozenset[str] = frozenset()


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
    unreadable: str | None = None  # why its snapshot could not be read (what it continues from is then unknown)


class ChainView(NamedTuple):
    """A session's reference chain: its ancestors (Continues From) and descendants (Referenced By)."""

    id: str
    state: ChainState
    status: str | None
    topic: str | None
    continues_from: tuple[ChainNode, ...]
    referenced_by: tuple[ChainNode, ...]


NoteOutcome = Literal["created", "updated", "unchanged", "superseded", "kept_both", "conflict"]


class NoteView(NamedTuple):
    """A note's metadata as the views show it (text that was not UTF-8 replaced).

    id is the note's ID: its topic key while it is the topic's current note, `<key>~<n>` once a
    newer note on the topic moved it aside. problem says what is wrong with its metadata (or, when
    unreadable, why the file could not be read).
    """

    id: str
    path: str
    title: str
    type: str
    scope: str
    topic_key: str
    status: str
    supersedes: list[str]
    superseded_by: list[str]
    project: str
    session: str
    created: str
    updated: str
    problem: str | None = None
    unreadable: str | None = None  # why the file could not be read (only id and path are then known)


class NoteDetail(NamedTuple):
    """One note: its metadata, its four texts, the file's text and its revisions in local state."""

    note: NoteView
    what: str
    why: str
    where: str
    learned: str
    text: str
    revisions: int  # how many earlier versions of this file local state keeps
    previous: str | None  # the newest revision that differs from the file (for a diff), else None


class NoteConflict(NamedTuple):
    """A save refused by the conflict policy: a decision whose new text drops or changes earlier
    statements, or a decision, preference or note of a type memboard does not know whose type the
    save changes. It is written only when saved again with a choice (supersede or keep_both)."""

    note_id: str
    type: str  # the existing note's type
    old_text: str  # the note as it is
    new_text: str  # the note the save would have written
    dropped: list[str]  # the earlier statements the new text drops or changes
    keep_both_id: str  # where keep_both would save the new note
    choices: tuple[str, ...] = ("supersede", "keep_both")
    new_type: str = ""  # the type the save gives it, when that is another one ("" when the type stays)


class NoteSaveResult(NamedTuple):
    """A note saved (or that would be, or refused with a conflict).

    outcome: created, updated (in place; the previous text is kept as a revision), unchanged,
    superseded (the earlier note moved aside to `superseded`, both linked), kept_both (the new
    note saved under note_id beside the existing `kept_beside`), conflict (nothing written).
    """

    outcome: NoteOutcome
    note_id: str
    path: str
    status: str
    added: list[str]  # statements the note did not make before
    dropped: list[str]  # earlier statements the new text leaves out (in the revision or the superseded note)
    superseded: str | None = None  # outcome superseded: the earlier note's ID after it moved aside
    kept_beside: str | None = None  # outcome kept_both: the note kept beside the new one
    revision: bool = False  # the previous text was recorded as a revision in local state
    conflict: NoteConflict | None = None


class NoteLinkResult(NamedTuple):
    """One note marked superseded by another (both files record the link)."""

    note_id: str
    superseded_by: str


class MemoryUpdateResult(NamedTuple):
    """A Memory Update block applied: each note's save, and the session summary's update if it held one."""

    notes: list[NoteSaveResult]
    summary: UpdateResult | None = None


class Decided(NamedTuple):
    """One open cell `resolve` decided: the session or note, the column, the copy the other value is in."""

    id: str
    column: str
    path: str


class ResolveResult(NamedTuple):
    """`resolve`: the side that decided, the open cells decided, the files whose git conflict blocks it decided
    (each with the IDs they named)."""

    prefer: str
    decided: list[Decided]
    blocks: list[tuple[str, list[str]]]
