"""Snapshot revisions under `.memboard/revisions/<id>/`, so merges can be diffed later."""

from __future__ import annotations

import hashlib
import os
import time

from .root import STATE, MemoryRoot

FOLDER = f"{STATE}/revisions"


def _name(data: bytes) -> str:
    """A sortable revision file name: time in ns and a content hash."""
    return f"{time.time_ns():020d}-{hashlib.sha256(data).hexdigest()[:12]}.md"


def list_revisions(root: MemoryRoot, session_id: str) -> list[str]:
    """Relative paths of a session's revisions, oldest first."""
    rel = f"{FOLDER}/{session_id}"
    return [f"{rel}/{n}" for n in root.listdir(rel) if n.endswith(".md")]


def latest(root: MemoryRoot, session_id: str) -> bytes | None:
    """The newest recorded revision of a session's snapshot."""
    revs = list_revisions(root, session_id)
    return root.read(revs[-1]) if revs else None


def record(root: MemoryRoot, session_id: str, data: bytes) -> bool:
    """Keep data as a new revision unless it equals the newest one; True when recorded."""
    from .apply import atomic_write
    from .ids import is_valid_id

    if not is_valid_id(session_id):
        return False
    revs = list_revisions(root, session_id)
    if revs:
        digest = hashlib.sha256(data).hexdigest()[:12]
        if revs[-1].endswith(f"-{digest}.md") and root.read(revs[-1]) == data:
            return False
    path = root.abs(f"{FOLDER}/{session_id}/{_name(data)}")
    try:
        atomic_write(path, data)
    except OSError:
        return False
    return True


def record_plan(root: MemoryRoot, plan) -> None:
    """After a plan is applied, record the snapshots it wrote (and the ones it replaced)."""
    for ch in plan.changes:
        rel = ch.path
        if ch.kind in ("create", "modify") and rel.startswith("sessions/") and rel.endswith(".md"):
            sid = os.path.basename(rel)[:-3]
            if ch.before is not None:
                record(root, sid, ch.before)
            if ch.after is not None:
                record(root, sid, ch.after)
