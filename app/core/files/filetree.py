"""A config file as a tree: the user's config and agents' config files written by the engine that writes the root.

The user's config (`config set`, the board's saved theme: tomledit.py) and an agent's config file
(install-hook, install-mcp and their uninstalls) are each a tree (see trees.py) whose folder is
the file's and whose allow-list is that file, and for an agent's file its backup
(`NAME.bak-memboard`: one per file, replaced by the next write, with the original's permission
bits, so that a backup of `~/.claude.json`, 0600, is as private as it is; an older memboard's
`NAME.bak-YYYYmmdd-HHMMSS` copies are left where they are). A write of one goes through execute.py as a plan does in
the memory root: under the tree's lock, on settled reads of the file (one another program is
saving is waited for), each step verified by reading it back. `file_plan` is the plan of one such
edit; `write_edit` applies an edit planned earlier (a preview's), only if the file still holds the
bytes it was planned from.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import MemboardError, StalePlan
from ..plan import Change, Plan
from .root import SideTree
from .trees import USER_CONFIG, Tree, TreeKind

BACKUP_SUFFIX = "bak-memboard"


class FileTree(SideTree):
    """The folder of one config file, as a tree that may change that file (and its backups) alone."""

    def __init__(self, file: Path, kind: TreeKind):
        """The tree of file (its folder need not exist yet: the first write makes it)."""
        # the real folder of the file itself: a config file linked from a dotfiles folder is locked and recorded
        # where it lives (the write goes through the link, see fs.atomic_write)
        super().__init__(file.parent, Path(os.path.realpath(file)).parent)
        self.file = file
        self.name = file.name
        self.kind = kind

    @property
    def tree(self) -> Tree:
        """This tree: the file, and its backups when its kind keeps them."""
        allow = (self.name, f"{self.name}.bak-*") if self.kind.backup else (self.name,)
        return Tree(self.kind, self.real, allow)

    def abs(self, rel: str) -> Path:
        """The path of rel in the file's folder; refused unless the tree allows it."""
        if "/" in rel or "\\" in rel or not self.tree.allows(rel):
            raise MemboardError(f"refusing path {rel!r}: memboard changes only {self.file} here")
        return self.path / rel

    def shown(self, rel: str) -> str:
        """How a patch names rel: by its absolute path without the leading `/` (`git apply` run in `/`)."""
        return (self.path / rel).as_posix().lstrip("/")

    @property
    def backup_name(self) -> str:
        """The file's backup: `NAME.bak-memboard`, one per file (the next write replaces it)."""
        return f"{self.name}.{BACKUP_SUFFIX}"

    def mode(self) -> int | None:
        """The file's permission bits (None when it is absent or unreadable)."""
        try:
            return stat.S_IMODE(os.stat(self.file).st_mode)
        except OSError:
            return None


def _backup(tree: FileTree, before: bytes) -> Change:
    """The step that keeps before as the file's one backup, replacing the last one, as private as the file."""
    try:
        old = (tree.path / tree.backup_name).read_bytes()
    except FileNotFoundError:
        old = None
    except OSError as exc:
        raise MemboardError(f"cannot read the backup {tree.path / tree.backup_name}: {exc.strerror or exc}") from None
    return Change.write(tree.backup_name, old, before, mode=tree.mode())


def file_plan(
    tree: FileTree, op: str, before: bytes | None, after: bytes, new_mode: int | None = None
) -> Plan[Path | None]:
    """The plan of writing after over the file that holds before (after b"": delete it), preceded by a backup
    of before when the tree's kind keeps them; its result is the backup's path (None when none is made).
    new_mode: the permission bits of the file when this write creates it (None: a plain create's)."""
    changes: list[Change] = []
    saved = None
    if before is not None and before != after and tree.kind.backup:
        changes.append(_backup(tree, before))
        saved = tree.path / tree.backup_name
    if before != after:
        if after == b"" and before is not None:
            changes.append(Change("delete", tree.name, before, None))
        else:
            changes.append(Change.write(tree.name, before, after, mode=new_mode if before is None else None))
    return Plan(op, saved, changes)


def patch_of(file: Path, before: bytes | None, after: bytes) -> str:
    """The edit of file (after b"": its deletion) as a git patch naming it by its absolute path without the
    leading `/` (`git apply` run in `/` replays it; `patch -p1 -d /` too)."""
    from ..diff import file_patch  # lazy: as Plan.diff

    kind = "create" if before is None else ("delete" if after == b"" else "modify")
    return file_patch(kind, FileTree(file, USER_CONFIG).shown(file.name), before, None if kind == "delete" else after)


def write_edit(
    file: Path, kind: TreeKind, before: bytes | None, after: bytes, op: str = "write", new_mode: int | None = None
) -> Path | None:
    """Apply an edit planned from before (after b"": delete the file) through the engine, only if the file still
    holds before (nothing written otherwise); the backup's path, when one was made. new_mode: the permission
    bits of a file this write creates."""
    from .execute import apply_exact  # lazy: execute imports the engine's whole machinery

    tree = FileTree(file, kind)
    plan = file_plan(tree, op, before, after, new_mode)
    try:
        apply_exact(tree, plan, lambda t: plan, rebuild=False)
    except StalePlan:
        raise MemboardError(f"{file} changed while memboard was writing it; nothing was written") from None
    return plan.result
