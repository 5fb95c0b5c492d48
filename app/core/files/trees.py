"""Trees: the folders memboard may write under, each of a kind whose layout rules live with it.

memboard writes in nothing but trees. A tree is a folder with a kind, its real path, an allow-list
of the relative paths it may change and a key for its local state (statepaths.key of its real path,
which names its lock). The engine (execute.py) knows no layout: it asks the tree's kind whether the
folder may be written (`require`), whether a path is allowed (`allows`) and what a delete leaves to
tidy (`after_delete`). The kinds:

- the memory root (`MEMORY_ROOT`): any path inside it; a folder that holds other people's files is
  refused; deleting the last file of an archive folder or of an older memboard's `.memboard/` state
  removes the folders it empties;
- its local state (`LOCAL_STATE`, see localstate.py): written under the root's lock, before the root;
- the user's config file (`USER_CONFIG`, see tomledit.py) and an agent's config file (`AGENT_CONFIG`,
  written by install-hook and install-mcp, with a backup beside it): a folder whose allow-list is
  that one file and its backups (filetree.py).

A new kind of tree (a project's session-memory space, say) is one more `TreeKind` here: its rules,
and the allow-list its trees are made with.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import UsageError
from ..formats.layout import ARCHIVE, MARKERS, TEMP_SUFFIX
from . import statepaths

OS_LITTER = {".DS_Store", "Thumbs.db", "desktop.ini", ".localized"}  # files an OS drops in any folder
START_HINT = (
    "to start a memory root, pass a new empty folder (for example `mkdir ~/memory` then "
    "`memboard register --root ~/memory`, or `memboard config set root ~/memory`)"
)
ANYWHERE = ("*",)  # an allow-list that lets every path inside the tree change


def is_temp_name(name: str) -> bool:
    """Whether a file name is one of memboard's temp files (`.<name>.<random>.memboard-tmp`): another
    memboard process is writing its first file into a new root right now, or a write was interrupted."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def not_a_memory_root(real: Path) -> str | None:
    """Why the folder real cannot be taken as a memory root for writing, or None when it can.

    A root in use holds one of MARKERS; a new root is an empty folder (or one holding only the temp file
    of memboard's first write there, by another process right now). The filesystem root, the
    home folder and any other folder that already holds files but none of MARKERS are someone
    else's: memboard would scatter index.md, sessions/ and archive/ among them.
    """
    if real == real.parent:
        return "it is the filesystem root"
    try:
        if real == Path.home().resolve():
            return "it is your home folder"
    except (RuntimeError, OSError):
        pass
    if any((real / marker).exists() for marker in MARKERS):
        return None
    try:
        with os.scandir(real) as entries:
            names = [e.name for e in entries if e.name not in OS_LITTER and not is_temp_name(e.name)]
    except OSError:
        return None  # unreadable: the write itself will say why
    if not names or any(name in MARKERS for name in names):
        return None  # a marker renamed into place since the look above: another memboard's first write
    other = names[0]
    return f"it holds other files (such as {other!r}) and none of index.md, sessions/, archive/, notes/, .memboard/"


def prune_empty(folder: Path, stop: Path) -> None:
    """Remove folder and its parents up to (not including) stop while they are empty."""
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


class TreeKind:
    """A kind of tree: its name and its layout rules (this base kind has none)."""

    def __init__(self, name: str, backup: bool = False, revisions: bool = False):
        """A kind named name; backup: a file is saved beside itself before it changes; revisions: the
        snapshots and notes a plan writes are recorded (revisions.py)."""
        self.name = name
        self.backup = backup
        self.revisions = revisions

    def __repr__(self) -> str:
        """The kind's name."""
        return f"TreeKind({self.name!r})"

    def require(self, path: Path, real: Path) -> None:
        """Refuse (nothing written) to write into the folder at path (real: its real path); this kind never does."""

    def after_delete(self, tree: Path, rel: str, path: Path) -> None:
        """Tidy up after rel (at path, in the tree at tree) was deleted; this kind leaves everything."""


class MemoryRootKind(TreeKind):
    """The memory root: only a folder that is one (or a new, empty one); deletes take emptied archive folders."""

    def require(self, path: Path, real: Path) -> None:
        """Refuse (one line, nothing written) to write into a folder that is not a memory root."""
        reason = not_a_memory_root(real)
        if reason:
            raise UsageError(f"{path} is not a memory root: {reason}; nothing written; {START_HINT}", says_written=True)

    def after_delete(self, tree: Path, rel: str, path: Path) -> None:
        """An archive folder a delete emptied goes too; so do the folders of an older memboard's state in the
        root, once their files moved to local state."""
        if rel.startswith(f"{ARCHIVE}/"):
            try:
                path.parent.rmdir()
            except OSError:
                pass
        elif rel.startswith(".memboard/"):
            prune_empty(path.parent, tree)


MEMORY_ROOT = MemoryRootKind("memory root", revisions=True)
LOCAL_STATE = TreeKind("local state")
USER_CONFIG = TreeKind("user config file")
AGENT_CONFIG = TreeKind("agent config file", backup=True)
KINDS = (MEMORY_ROOT, LOCAL_STATE, USER_CONFIG, AGENT_CONFIG)


class Tree:
    """A folder memboard may write under: its kind, real path, allow-list and the key of its local state.

    allow holds patterns of relative paths (fnmatch, `*` crossing folders); lock_of, when given, is
    the real path of the tree whose lock this one is written under (a root's local state is written
    under the root's lock). (A plain class: `memboard search` loads no dataclasses.)
    """

    __slots__ = ("allow", "kind", "lock_of", "path")

    def __init__(self, kind: TreeKind, path: Path, allow: tuple[str, ...] = ANYWHERE, lock_of: Path | None = None):
        """A tree of kind at the real path path."""
        self.kind, self.path, self.allow, self.lock_of = kind, path, allow, lock_of

    def __eq__(self, other: object) -> bool:
        """Trees are equal when kind, path and allow-list are."""
        if not isinstance(other, Tree):
            return NotImplemented
        return (self.kind, self.path, self.allow) == (other.kind, other.path, other.allow)

    def __hash__(self) -> int:
        """As for equality."""
        return hash((self.kind.name, self.path, self.allow))

    def __repr__(self) -> str:
        """The tree's kind and path."""
        return f"Tree({self.kind.name!r}, {str(self.path)!r}, allow={self.allow!r})"

    @property
    def key(self) -> str:
        """The key of this tree's local state (its lock, its record of settled files)."""
        return statepaths.key(self.path)

    @property
    def lock_file(self) -> Path:
        """The lock this tree is written under."""
        return statepaths.lock_file(self.lock_of or self.path)

    def allows(self, rel: str) -> bool:
        """Whether rel is a path this tree may change."""
        if self.allow == ANYWHERE:
            return True
        import fnmatch  # lazy: the memory root allows everything, and the hook needs no patterns

        return any(fnmatch.fnmatchcase(rel, pattern) for pattern in self.allow)


def lock_order(trees: list[Tree]) -> list[Tree]:
    """The trees whose locks a plan takes, one per lock, in order of the lock owner's real path: two plans that
    touch the same trees take their locks in the same order, so neither holds one the other waits for."""
    by_lock: dict[Path, Tree] = {}
    for tree in trees:
        by_lock.setdefault(tree.lock_of or tree.path, tree)
    return [by_lock[owner] for owner in sorted(by_lock, key=str)]
