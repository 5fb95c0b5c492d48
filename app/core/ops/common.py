"""Shared reading helpers for operations: the index, rows by ID, snapshots."""

from __future__ import annotations

from ..errors import REMEDY_HERE, Refused, Remedy, UsageError
from ..files.root import MemoryRoot
from ..formats.ids import check_id
from ..formats.index import IndexEdit, IndexFile, Row
from ..formats.layout import INDEX

DEFAULT_TOPIC = "未設定"
DEFAULT_SUMMARY = "sessionStart 自動註冊，尚未整理主題。"
DEFAULT_KEYWORDS = "sessionStart, cursor-agent"  # the protocol's default (its default agent is Cursor's)
MANUAL_KEYWORDS = "manual-registration, cursor-agent, session-snapshot"
MANUAL_FALLBACK_SUMMARY = "手動補註冊，已建立 session snapshot。"


def start_keywords(tool: str) -> str:
    """A hook's SessionStart keywords: the protocol's default with the agent's own name second (`claude-agent`)."""
    return f"sessionStart, {tool}-agent"


def load_index(root: MemoryRoot) -> IndexFile:
    """The parsed index (an empty one when index.md does not exist yet)."""
    data = root.read(INDEX)
    return IndexFile(data if data is not None else b"")


def refuse_unmerged_copies(root: MemoryRoot, op: str, does: str) -> None:
    """Refuse (one line, nothing written) an operation that deletes or moves rows (op; does: what it changes) while a sync
    tool's conflict copy of index.md, a snapshot or an archive file is not merged: the copy may hold the other
    version of a row it would touch, which merging afterwards could no longer tell from a new one."""
    from ..files.copies import find_copies  # lazy: the hook loads this module, and never looks for copies

    copies = find_copies(root)
    if not copies:
        return
    names = ", ".join(c.path for c in copies[:3]) + (", …" if len(copies) > 3 else "")
    count = f"{len(copies)} sync-conflict {'copy is' if len(copies) == 1 else 'copies are'} not merged yet ({names})"
    raise Refused(
        f"{op} refused, nothing written: {count} and may hold another version of {does}: {REMEDY_HERE}",
        remedy=Remedy.DOCTOR_FIX,
        says_written=True,
    )


def copies_holding(root: MemoryRoot, session_id: str) -> list[str]:
    """The sync-conflict copies of index.md holding a row of session_id (looked for only once index.md has none:
    for a moment after a sync, a row the other machine wrote can be only in a copy)."""
    from ..files.copies import index_copies  # lazy: only a refusal looks for copies (the hook loads this module)

    return [c.path for c in index_copies(root) if IndexFile(root.read(c.path) or b"").find(session_id)]


def unknown_session(session_id: str, said: str, root: MemoryRoot | None, what: str = "session") -> Refused:
    """The refusal for a session no row names (said: where it was looked for), naming the unmerged copies of
    index.md that hold its row, and `memboard doctor --fix`, when there are (root: where to look for them)."""
    held = copies_holding(root, session_id) if root is not None else []
    if not held:
        return Refused(f"unknown {what} {session_id}: {said}")
    names = ", ".join(held[:3]) + (", …" if len(held) > 3 else "")
    return Refused(
        f"unknown {what} {session_id}: {said}, but the sync-conflict {'copy' if len(held) == 1 else 'copies'} "
        f"{names}, not merged yet, {'holds' if len(held) == 1 else 'hold'} its row: {REMEDY_HERE}, then run this again",
        remedy=Remedy.DOCTOR_FIX,
        subject=session_id,
    )


def find_row(index: IndexFile, session_id: str, what: str = "session", root: MemoryRoot | None = None) -> Row:
    """The one well-formed row for session_id, or a one-line refusal saying why not (also while
    index.md holds merge-conflict markers: every caller is about to change it). root: where to look for
    sync-conflict copies holding the row when index.md has none (only then: the normal path reads nothing more)."""
    check_id(session_id, f"{what} ID")
    index.refuse_conflicts()  # a row below a conflict block is invisible: say why, not "unknown session"
    rows = index.find(session_id)
    if not rows:
        raise unknown_session(session_id, "no row in index.md", root, what)
    if len(rows) > 1:
        raise Refused(
            f"{session_id} has {len(rows)} rows in index.md (duplicate ID); {REMEDY_HERE}",
            remedy=Remedy.DOCTOR,
            subject=session_id,
        )
    row = rows[0]
    if row.problem:
        raise Refused(
            f"the row of {session_id} is malformed ({row.problem}); fix it by hand or {REMEDY_HERE}",
            remedy=Remedy.DOCTOR,
            subject=session_id,
        )
    return row


def link_sources(
    index: IndexFile, edit: IndexEdit, session_id: str, sources: list[str], root: MemoryRoot | None = None
) -> list[str]:
    """Add session_id to each source row's Referenced By (the index side of Continues From).

    A source without exactly one well-formed live row is refused: the link could only be
    one-sided. Returns the sources whose row changed.
    """
    changed = []
    for src in sources:
        if src == session_id:
            raise UsageError("a session cannot continue from itself")
        row = find_row(index, src, "source session", root)
        if session_id not in row.refs:
            edit.set_fields(row, {"referenced_by": ", ".join(row.refs + [session_id])})
            changed.append(src)
    return changed


def has_meaningful_summary(row: Row) -> bool:
    """Whether the Summary says more than the sessionStart default."""
    summary = row.get("summary").strip()
    return summary not in ("", "-", DEFAULT_SUMMARY)


def one_line(value: str | None, what: str) -> str | None:
    """A single-line cell value (newlines folded), refusing NUL bytes."""
    if value is None:
        return None
    if "\x00" in value:
        raise UsageError(f"{what} contains a NUL byte")
    if not value.isascii() and any("\ud800" <= ch <= "\udfff" for ch in value):
        raise UsageError(f"{what} is not valid UTF-8")
    return " ".join(value.split())
