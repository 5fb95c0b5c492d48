"""memboard's local, per-machine state for one memory root, kept outside the root.

Snapshot revisions, the hooks' conversation map and the hook log live in
`<state_dir>/roots/<key>/` (the key is a hash of the root's real path, like the lock's), never
in the memory root: the root is usually a synced folder, and a revision keeps text that was
later removed from a snapshot (a pasted secret) on every machine the folder syncs to.

An older memboard kept them in `<root>/.memboard/`. They are still read there, and
`memboard doctor --fix` moves them (legacystate.py): a plan first writes the copies here (each read
back), then deletes the originals from the root, so a crash at any point loses nothing; the next
run finds the copies in place and only deletes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .. import config
from ..errors import MemboardError
from ..plan import Plan
from .fs import ANY, Unset, atomic_write, make_folders
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
            make_folders(self.path)
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
                "nothing written in the memory root",
                says_written=True,
            ) from None
        if state.read(ch.path) != ch.after:
            raise MemboardError(
                f"{plan.op}: {state.abs(ch.path)} does not hold what memboard wrote; nothing written in the memory root",
                says_written=True,
            )
