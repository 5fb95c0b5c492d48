"""Snapshot revisions, so merges can be diffed later: `revisions/<id>/` in memboard's local state.

Revisions live outside the memory root (see localstate.py), one file per revision named by
its write time and a content hash. Those an older memboard kept in the root, under
`.memboard/revisions/<id>/`, are read as well until `doctor --fix` moves them.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

from ..formats.ids import is_valid_id
from ..formats.layout import STATE
from ..plan import Plan
from .localstate import LocalState
from .root import MemoryRoot

FOLDER = "revisions"
LEGACY_FOLDER = f"{STATE}/revisions"


def _name(data: bytes) -> str:
    """A sortable revision file name: time in ns and a content hash."""
    return f"{time.time_ns():020d}-{hashlib.sha256(data).hexdigest()[:12]}.md"


def list_revisions(root: MemoryRoot, session_id: str) -> list[Path]:
    """Paths of a session's revisions, oldest first (local state's and any an older memboard left in the root)."""
    if not is_valid_id(session_id):
        return []
    state = LocalState(root)
    by_name = {n: root.abs(f"{LEGACY_FOLDER}/{session_id}/{n}") for n in root.listdir(f"{LEGACY_FOLDER}/{session_id}")}
    by_name.update({n: state.abs(f"{FOLDER}/{session_id}/{n}") for n in state.listdir(f"{FOLDER}/{session_id}")})
    return [by_name[n] for n in sorted(by_name) if n.endswith(".md")]


def _read(path: Path) -> bytes | None:
    """A revision's bytes (None when it vanished or cannot be read)."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def contents(root: MemoryRoot, session_id: str) -> list[bytes]:
    """The bytes of a session's revisions, oldest first."""
    return [data for data in map(_read, list_revisions(root, session_id)) if data is not None]


def latest(root: MemoryRoot, session_id: str) -> bytes | None:
    """The newest recorded revision of a session's snapshot."""
    revs = list_revisions(root, session_id)
    return _read(revs[-1]) if revs else None


def record(root: MemoryRoot, session_id: str, data: bytes) -> bool:
    """Keep data as a new revision unless it equals the newest one; True when recorded."""
    if not is_valid_id(session_id):
        return False
    revs = list_revisions(root, session_id)
    if revs:
        digest = hashlib.sha256(data).hexdigest()[:12]
        if revs[-1].name.endswith(f"-{digest}.md") and _read(revs[-1]) == data:
            return False
    try:
        LocalState(root).write(f"{FOLDER}/{session_id}/{_name(data)}", data)
    except OSError:
        return False
    return True


def record_plan(root: MemoryRoot, plan: Plan[Any]) -> None:
    """After a plan is applied, record the snapshots it wrote (and the ones it replaced)."""
    for ch in plan.changes:
        rel = ch.path
        if ch.kind in ("create", "modify") and rel.startswith("sessions/") and rel.endswith(".md"):
            sid = os.path.basename(rel)[:-3]
            if ch.before is not None:
                record(root, sid, ch.before)
            if ch.after is not None:
                record(root, sid, ch.after)
