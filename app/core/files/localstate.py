"""memboard's local, per-machine state for one memory root, kept outside the root.

Snapshot revisions, the hooks' conversation map and the hook log live in
`<state_dir>/roots/<key>/` (the key is a hash of the root's real path, like the lock's), never
in the memory root: the root is usually a synced folder, and a revision keeps text that was
later removed from a snapshot (a pasted secret) on every machine the folder syncs to.

An older memboard kept them in `<root>/.memboard/`. They are still read there, and
`memboard doctor --fix` moves them (legacystate.py): a plan first writes the copies here (each read
back), then deletes the originals from the root, so a crash at any point loses nothing; the next
run finds the copies in place and only deletes.

The folder is a tree like any other (`LocalStateTree`, kind LOCAL_STATE in trees.py): a plan's
local-state changes (Plan.local) are confirmed under the root's lock, written before the root's own
steps and verified by the engine (execute.py) as the root's are.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import MemboardError
from ..plan import Change, Plan
from . import statepaths
from .fs import ANY, Unset, atomic_write, make_folders
from .root import MemoryRoot, SideTree, root_key
from .trees import LOCAL_STATE, Tree

ROOTS = statepaths.ROOTS
ROOT_NOTE = "root.txt"  # names the root a state folder belongs to, for people looking around
LOG = "hook.log"
__all__ = [
    "LEGACY_LOGS",
    "LOG",
    "ROOTS",
    "LocalState",
    "LocalStateTree",
    "folder_of",
    "root_key",
]
LEGACY_LOGS = (LOG, f"{LOG}.1")  # the log an older memboard kept in the root, and its rotated part


def folder_of(real: Path) -> Path:
    """The local state folder of the root whose real path is real."""
    return statepaths.root_folder(real)


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


class LocalStateTree(SideTree):
    """A root's local state folder as a tree (see trees.py): the engine confirms, writes and verifies a plan's
    local-state changes (Plan.local) in it as in any tree, under the root's lock."""

    kind = LOCAL_STATE
    counted = False  # its steps go before the plan's and are not numbered with them (see probe.py)

    def __init__(self, root: MemoryRoot):
        """The state folder of root (it need not exist yet: the first write makes it)."""
        path = folder_of(root.real)
        super().__init__(path, Path(os.path.realpath(path)), root.window)
        self.root = root

    @property
    def tree(self) -> Tree:
        """This tree, written under its root's lock."""
        return Tree(LOCAL_STATE, self.real, lock_of=self.root.real)

    def trees(self) -> list[Tree]:
        """The one tree (its lock is the root's)."""
        return [self.tree]

    def abs(self, rel: str) -> Path:
        """Absolute path of rel inside the state folder (see LocalState.abs)."""
        return LocalState(self.root).abs(rel)

    def part(self, plan: Plan[Any]) -> Plan[None]:
        """A plan's local-state changes as a plan of this tree (with the note naming the root, on the first write)."""
        changes = list(plan.local)
        if not self.path.is_dir() and all(ch.path != ROOT_NOTE for ch in changes):
            changes.insert(
                0, Change("create", ROOT_NOTE, None, f"{self.root.real}\n".encode("utf-8", "surrogateescape"))
            )
        return Plan(plan.op, None, changes)
