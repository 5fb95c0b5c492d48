"""Revisions of snapshots and notes, so changes can be diffed later: `revisions/<id>/` in local state.

Revisions live outside the memory root (see localstate.py), one file per revision named by
its write time and a content hash. Those an older memboard kept in the root, under
`.memboard/revisions/<id>/`, are read as well until `doctor --fix` moves them.

A note's revisions are kept in `revisions/notes/<note id>/`. The text a note save replaces is
written there by the save's own plan (`note_revision`), under the lock, before the note
changes, so the previous text is kept even when the write after it fails.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from pathlib import Path
from typing import Any

from ..errors import MemboardError
from ..formats.ids import is_valid_id
from ..formats.layout import STATE, session_path
from ..formats.topic import check_note_id, note_id_of
from ..plan import Change, Plan
from .localstate import LocalState
from .root import MemoryRoot
from .settle import Budget, NotSettled, Seen, whole
from .trees import PlaceKind

FOLDER = "revisions"
LEGACY_FOLDER = f"{STATE}/revisions"
NOTE_FOLDER = f"{FOLDER}/notes"
NAME_RE = re.compile(r"[0-9]{20}-[0-9a-f]{12}\.md")


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


def _revision_of(rel: str, seen: Seen, newest: bytes | None) -> bytes | None:
    """The bytes of a settled read that can be a revision: not empty, and whole next to the newest revision
    (a save caught half-way is no revision, and never the base of a merge diff); else None."""
    data = seen.data
    if not data or not data.strip() or not whole(rel, data, newest):
        return None
    return data


def record_settled(root: MemoryRoot, session_ids: set[str], wait: float | None = None) -> tuple[set[str], set[str]]:
    """Record a revision of each snapshot read settled (the core's settled-read rule: see settle.py) and not
    empty; (IDs recorded, IDs still being saved: look at them again later).

    A snapshot an editor saves the plain way (truncate, pause, write back) is empty or cut off for a moment:
    such a read is never a revision. Reads that are not settled at once are watched together for up to
    `wait` seconds (default: twice the root's settle window); an empty or cut read that stays so is not
    recorded either (the file's next change is looked at again)."""
    recorded: set[str] = set()
    pending: dict[str, tuple[bytes | None, bytes | None]] = {}
    newest: dict[str, bytes | None] = {}
    for sid in sorted(session_ids):
        if not is_valid_id(sid):
            continue
        rel = session_path(sid)
        try:
            seen = root.read_seen(rel)
        except MemboardError:  # unreadable (the pane says why), a folder: nothing to record
            continue
        if seen.data is None:
            continue
        newest[rel] = latest(root, sid)
        if root.settled(rel, seen, newest[rel]):
            data = _revision_of(rel, seen, newest[rel])
            if data is not None and record(root, sid, data):
                recorded.add(sid)
        else:
            pending[rel] = (newest[rel], None)
    if not pending:
        return recorded, set()
    try:
        reads = root.wait_settled(pending, Budget(2 * root.window if wait is None else wait))
    except NotSettled:
        return recorded, {rel[len("sessions/") : -3] for rel in pending}
    for rel, seen in reads.items():
        sid = rel[len("sessions/") : -3]
        data = _revision_of(rel, seen, newest[rel])
        if data is not None and record(root, sid, data):
            recorded.add(sid)
    return recorded, set()


PLACE_FOLDER = f"{FOLDER}/places"  # a place's revisions: revisions/places/<path in the place>/<name>
PLACE_KEEP = 32  # revisions kept per file of a place (a 1 MB history.md saved daily would otherwise pile up)


def place_revisions(place: MemoryRoot, rel: str) -> list[bytes]:
    """The bytes of the revisions memboard kept of a file in a place (a project's current.md, say), oldest first:
    in local state, keyed by the place's real path, never in the place."""
    return _kept(LocalState(place), f"{PLACE_FOLDER}/{rel}")


def record_place(place: MemoryRoot, rel: str, data: bytes) -> bool:
    """Keep data as the newest revision of rel in place unless it already is; True when recorded."""
    if not data:
        return False
    state = LocalState(place)
    folder = f"{PLACE_FOLDER}/{rel}"
    names = [n for n in state.listdir(folder) if NAME_RE.fullmatch(n)]
    if names and state.read(f"{folder}/{names[-1]}") == data:
        return False
    try:
        state.write(f"{folder}/{_name(data)}", data)
    except (OSError, MemboardError):
        return False
    for old in names[: max(0, len(names) + 1 - PLACE_KEEP)]:  # the oldest go once PLACE_KEEP are kept
        try:
            state.abs(f"{folder}/{old}").unlink()
        except OSError:
            pass
    return True


def record_plan(root: MemoryRoot, plan: Plan[Any]) -> None:
    """After a plan is applied, record the snapshots and notes it wrote (and the ones it replaced); in a place,
    every file it wrote (and what it replaced)."""
    if isinstance(root.kind, PlaceKind):  # a place: its files, whatever their names
        for ch in plan.changes:
            if ch.kind in ("create", "modify"):
                for data in (ch.before, ch.after):
                    if data is not None:
                        record_place(root, ch.path, data)
        return
    for ch in plan.changes:
        rel = ch.path
        if ch.kind not in ("create", "modify"):
            continue
        if rel.startswith("sessions/") and rel.endswith(".md"):
            sid = os.path.basename(rel)[:-3]
            if ch.before is not None:
                record(root, sid, ch.before)
            if ch.after is not None:
                record(root, sid, ch.after)
        note_id = note_id_of(rel)
        if note_id is not None:
            for data in (ch.before, ch.after):
                change = note_revision(root, note_id, data) if data is not None else None
                if change is not None:
                    try:
                        LocalState(root).write(change.path, change.after or b"")
                    except OSError:
                        pass


def _note_folder(note_id: str) -> str:
    """The local-state folder of a note's revisions (the ID is validated first)."""
    return f"{NOTE_FOLDER}/{check_note_id(note_id)}"


def note_revisions(root: MemoryRoot, note_id: str) -> list[bytes]:
    """The bytes of a note's revisions, oldest first."""
    return _kept(LocalState(root), _note_folder(note_id))


def _kept(state: LocalState, folder: str) -> list[bytes]:
    """The bytes of the revisions in folder of local state, oldest first (their names sort by time)."""
    out = []
    for name in state.listdir(folder):
        if NAME_RE.fullmatch(name):
            data = state.read(f"{folder}/{name}")
            if data is not None:
                out.append(data)
    return out


def note_revision(root: MemoryRoot, note_id: str, data: bytes) -> Change | None:
    """A local-state change that keeps data as the note's newest revision; None when it already is."""
    state = LocalState(root)
    folder = _note_folder(note_id)
    names = [n for n in state.listdir(folder) if NAME_RE.fullmatch(n)]
    if names and state.read(f"{folder}/{names[-1]}") == data:
        return None
    return Change("create", f"{folder}/{_name(data)}", None, data)
