"""memboard's local, per-machine state for one memory root, kept outside the root.

Snapshot revisions, the hooks' conversation map and the hook log live in
`<state_dir>/roots/<key>/` (the key is a hash of the root's real path, like the lock's), never
in the memory root: the root is usually a synced folder, and a revision keeps text that was
later removed from a snapshot (a pasted secret) on every machine the folder syncs to.

An older memboard kept them in `<root>/.memboard/`. They are still read there, and
`memboard doctor --fix` moves them: a plan first writes the copies here (each read back),
then deletes the originals from the root, so a crash at any point loses nothing; the next
run finds the copies in place and only deletes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import config
from ..errors import MemboardError
from ..formats.conversations import HEADER
from ..formats.layout import STATE
from ..plan import Change, Plan
from .fs import ANY, Unset, atomic_write
from .root import MemoryRoot, root_key

ROOTS = "roots"
ROOT_NOTE = "root.txt"  # names the root a state folder belongs to, for people looking around
LOG = "hook.log"
LEGACY_LOGS = (LOG, f"{LOG}.1")  # the log an older memboard kept in the root, and its rotated part


def folder_of(real: Path) -> Path:
    """The local state folder of the root whose real path is real."""
    return config.state_dir() / ROOTS / root_key(real)


class LocalState:
    """The local state folder of one memory root: read, list and write files by relative path."""

    def __init__(self, root: MemoryRoot):
        """The state folder of root (created on the first write)."""
        self.root = root
        self.path = folder_of(root.real)

    def abs(self, rel: str) -> Path:
        """Absolute path of rel inside the state folder (paths come from memboard, never from input)."""
        parts = rel.replace("\\", "/").split("/")
        if not rel or rel.startswith(("/", "\\")) or ".." in parts or "\x00" in rel:
            raise MemboardError(f"refusing local state path {rel!r}")
        return self.path / rel

    def read(self, rel: str) -> bytes | None:
        """File bytes, or None when absent or unreadable."""
        try:
            return self.abs(rel).read_bytes()
        except OSError:
            return None

    def listdir(self, rel: str) -> list[str]:
        """Names in a folder of the state (empty when absent)."""
        try:
            return sorted(os.listdir(self.abs(rel)))
        except OSError:
            return []

    def write(self, rel: str, data: bytes, expect: bytes | Unset | None = ANY) -> None:
        """Write a file atomically (compared with expect, None meaning absent, when given); OSError on failure."""
        if not self.path.is_dir():
            self.path.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path / ROOT_NOTE, f"{self.root.real}\n".encode("utf-8", "surrogateescape"))
        atomic_write(self.abs(rel), data, expect=expect)


def unchanged(root: MemoryRoot, plan: Plan[Any]) -> bool:
    """Whether every local-state file the plan changes still holds the bytes it was built from."""
    if not plan.local:
        return True
    state = LocalState(root)
    return all(state.read(ch.path) == ch.before for ch in plan.local)


def write_local(root: MemoryRoot, plan: Plan[Any]) -> None:
    """Write a plan's local-state changes, each read back, before any file of the root changes."""
    state = LocalState(root)
    for ch in plan.local:
        try:
            state.write(ch.path, ch.after or b"", expect=ch.before)
        except OSError as exc:
            raise MemboardError(
                f"{plan.op}: cannot write memboard's local state {state.abs(ch.path)} ({exc.strerror or exc}); "
                "nothing written in the memory root"
            ) from None
        if state.read(ch.path) != ch.after:
            raise MemboardError(
                f"{plan.op}: {state.abs(ch.path)} does not hold what memboard wrote; nothing written in the memory root"
            )


# -- moving an older memboard's state out of the root ------------------------------------------


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
    """Files under `<root>/.memboard/` (symlinked folders are not followed), relative to the root."""
    base = root.path / STATE
    found: list[str] = []
    if base.is_symlink():  # not memboard's: an older memboard made a real folder
        return found
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
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
