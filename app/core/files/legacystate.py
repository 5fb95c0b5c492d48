"""Moving an older memboard's state out of the root: `<root>/.memboard/` into local state (localstate.py).

`memboard doctor --fix` applies the plan: the copies are written into local state first (each
read back), then the originals are deleted from the root. Kept apart from localstate.py, which
every hook loads.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..formats.conversations import HEADER
from ..formats.layout import CONFLICTS, STATE
from ..plan import Change
from .localstate import LEGACY_LOGS, LOG, LocalState
from .root import MemoryRoot


@dataclass
class LegacyMove:
    """What moving `<root>/.memboard/` into local state takes: copies here, then deletions there."""

    files: list[str] = field(default_factory=list)  # every file found under .memboard/ in the root
    local: list[Change] = field(default_factory=list)  # writes into local state (copies and merges)
    deletes: list[Change] = field(default_factory=list)  # root files whose content local state holds after `local`
    kept: list[str] = field(default_factory=list)  # files left in the root (unknown, or clashing with local state)

    def count(self, prefix: str) -> int:
        """How many of the files lie under prefix (such as `.memboard/revisions/`)."""
        return sum(1 for f in self.files if f.startswith(prefix))


def _legacy_files(root: MemoryRoot) -> list[str]:
    """Files under `<root>/.memboard/` (symlinked folders are not followed, nor `.memboard/conflicts/`), relative to
    the root."""
    base = root.path / STATE
    found: list[str] = []
    if base.is_symlink():  # not memboard's: an older memboard made a real folder
        return found
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
        if folder == str(base):  # (the merged sync-conflict copies belong in the root: they are no older state)
            dirs[:] = [d for d in dirs if f"{STATE}/{d}" != CONFLICTS]
        for name in sorted(files):
            if not name.startswith("."):  # a temp file of an interrupted write is doctor's stray_temp
                found.append(os.path.relpath(os.path.join(folder, name), root.path).replace(os.sep, "/"))
    return found


def complete_lines(data: bytes | None) -> list[bytes]:
    """A map shard's complete, non-comment lines (a torn last line is no entry)."""
    if not data:
        return []
    lines = data.splitlines(keepends=True)
    return [line for line in lines if line.endswith(b"\n") and line.strip() and not line.startswith(b"#")]


def merge_shard(local: bytes | None, legacy: bytes) -> bytes | None:
    """A local map shard that also holds the legacy shard's entries, older ones first; None when it already does."""
    have = local or HEADER
    if not have.endswith(b"\n"):
        have += b"\n"
    present = set(complete_lines(have))
    add = [line for line in complete_lines(legacy) if line not in present]
    if not add:
        return None
    lines = have.splitlines(keepends=True)
    head = 0
    while head < len(lines) and lines[head].startswith(b"#"):
        head += 1
    return b"".join(lines[:head] + add + lines[head:])


def _add_write(move: LegacyMove, state: LocalState, rel: str, after: bytes) -> None:
    """Plan writing after to rel in local state (replacing an earlier planned write of the same file)."""
    for i, ch in enumerate(move.local):
        if ch.path == rel:
            move.local[i] = Change(ch.kind, rel, ch.before, after)
            return
    before = state.read(rel)
    move.local.append(Change.write(rel, before, after))


def _pending(move: LegacyMove, state: LocalState, rel: str) -> bytes | None:
    """What rel in local state will hold once the planned writes are done."""
    for ch in move.local:
        if ch.path == rel:
            return ch.after
    return state.read(rel)


def plan_legacy_move(root: MemoryRoot) -> LegacyMove:
    """Plan moving an older memboard's `.memboard/` out of the root (pure: reads only).

    Revisions are copied file by file, map shards merged line by line (older entries first),
    hook logs prepended to the local log; a root file is deleted only when local state will
    hold its content. A file of another content under the same revision name is left alone.
    """
    state = LocalState(root)
    move = LegacyMove(files=_legacy_files(root))
    for rel in move.files:
        inner = rel[len(STATE) + 1 :]
        data = root.read(rel)
        if data is None:
            continue
        top = inner.split("/", 1)[0]
        if top == "revisions" and inner.endswith(".md"):
            have = _pending(move, state, inner)
            if have is None:
                _add_write(move, state, inner, data)
            elif have != data:
                move.kept.append(rel)
                continue
        elif top == "conversations" and inner.endswith(".tsv") and "/" not in inner[len(top) + 1 :]:
            merged = merge_shard(_pending(move, state, inner), data)
            if merged is not None:
                _add_write(move, state, inner, merged)
        elif inner in LEGACY_LOGS:  # hook.log, then the older hook.log.1 (sorted): each goes before what is there
            have = _pending(move, state, LOG) or b""
            if data not in have:
                _add_write(move, state, LOG, data + have)
        else:
            move.kept.append(rel)
            continue
        move.deletes.append(Change("delete", rel, data, None))
    return move
