"""Plans: ordered file changes with exact bytes before and after, what to verify and what to report."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from .formats.text import BOM_BYTES

if TYPE_CHECKING:  # a check reads the root; the root's module builds on plans
    from .files.root import MemoryRoot
    from .formats.index import Rewrite


ChangeKind = Literal["create", "modify", "delete", "move", "rmdir", "append", "splice"]
R = TypeVar("R")
S = TypeVar("S")


@dataclass(frozen=True)
class Change:
    """One file step: create, modify, delete or move, with the exact bytes involved; or rmdir, the removal of
    an empty folder (no bytes: refused, nothing written, when the folder holds anything the plan's earlier steps
    do not delete, move away or remove, or when one of them writes in it).

    A move whose two places lie on different file systems is a copy, flushed and compared byte for byte,
    then the removal of the original (never before the copy is verified).

    An append (the hook's new row at the end of a table that ends the file) holds in `before` the bytes the
    plan read and in `after` only the bytes it adds: it is written with O_APPEND, never by rewriting the
    file (see files/execute.py). A preview shows it as the modify it amounts to (Plan.shown)."""

    kind: ChangeKind
    path: str
    before: bytes | None
    after: bytes | None
    dest: str | None = None
    # how after comes from before line by line, when the writer knows it (the patch is then made from it)
    rewrite: Rewrite | None = field(default=None, compare=False, repr=False)
    # the tree it changes, by the name its plan gives it (Plan.trees); "" is the tree the plan is applied to
    tree: str = ""
    # the permission bits the written file gets (None: the old file's, or a plain create's): a backup of a
    # private file (`~/.claude.json`, 0600) is as private as it is
    mode: int | None = field(default=None, compare=False, repr=False)
    # a splice's offset: where its bytes (after) go into before, which is kept around them
    at: int | None = field(default=None, compare=False, repr=False)

    @classmethod
    def remove_folder(cls, path: str) -> Change:
        """Remove the empty folder at path."""
        return cls("rmdir", path, None, None)

    @classmethod
    def write(
        cls,
        path: str,
        before: bytes | None,
        after: bytes,
        tree: str = "",
        mode: int | None = None,
    ) -> Change:
        """Write after to path (in the tree named tree): a create when the file is absent (before is None), else a
        modify; mode: the file's permission bits after (None: as they were, or a plain create's)."""
        return cls("create" if before is None else "modify", path, before, after, tree=tree, mode=mode)

    @classmethod
    def append(cls, path: str, before: bytes, added: bytes) -> Change:
        """Append added to path, which holds before (the plan's read): the file's new bytes are before + added."""
        return cls("append", path, before, added)

    @classmethod
    def splice(cls, path: str, before: bytes, at: int, inserted: bytes) -> Change:
        """Insert inserted into path at byte offset at of before (the plan's read), keeping everything around it:
        the file's new bytes are before[:at] + inserted + before[at:]."""
        return cls("splice", path, before, inserted, at=at)

    def pieces(self) -> tuple[bytes | memoryview, ...]:
        """The file's new bytes in pieces: a splice's without joining them (a 20 MB index is not copied once more
        to insert one row); any other change's after alone."""
        if self.kind != "splice":
            return (self.after or b"",)
        view, at = memoryview(self.before or b""), self.at or 0
        return (view[:at], self.after or b"", view[at:])

    def as_modify(self) -> Change:
        """The change as a plain modify with the file's whole new bytes (an append's before + added, a splice's
        before with its bytes inserted)."""
        if self.kind == "append":
            return replace(self, kind="modify", after=(self.before or b"") + (self.after or b""))
        if self.kind == "splice":
            return replace(self, kind="modify", after=b"".join(self.pieces()), at=None)
        return self

    def describe(self) -> str:
        """A short line such as `modify index.md`."""
        if self.kind == "move":
            return f"move {self.path} -> {self.dest}"
        if self.kind == "append":
            return f"append to {self.path}"
        if self.kind == "splice":
            return f"modify {self.path}"
        return f"{self.kind} {self.path}"


@dataclass
class Check:
    """Something to verify after writing, as a predicate over the root as it then is.

    decided_by names the one file whose planned bytes settle the check (a fact about the rows
    a plan wrote into index.md, say): when that file verifies as holding exactly the bytes the
    plan wrote, the check holds as the plan built them, and the file is not read and parsed
    again to ask it. When the file holds anything else (another writer's edit merged in after
    memboard's rename), the check is asked of the file as it is.
    """

    description: str
    holds: Callable[[MemoryRoot], bool]
    decided_by: str | None = None


@dataclass
class Premise:
    """What a plan was built on besides the files it changes (the snapshots organize read for Continues From).

    holds asks, under the lock right before the plan is written, whether it still stands: when it
    does not, the plan is built again (a preview's plan is stale), as when a file it changes was
    changed. keep, when given, records what the build learned (derived data in local state) once
    the plan is applied or found to change nothing; a preview never calls it.
    """

    description: str
    holds: Callable[[MemoryRoot], bool]
    keep: Callable[[MemoryRoot], None] | None = None
    # the files it was read from: the plan stands only on settled reads of them, as on the files it changes
    # (a snapshot caught mid-save, cut off by an editor's truncate-then-write, hides the rows it protects)
    files: tuple[str, ...] = ()


@dataclass
class Plan(Generic[R]):
    """An operation's plan: what it changes, what to verify, what to report, and its typed result."""

    op: str
    result: R
    changes: list[Change] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    report: list[str] = field(default_factory=list)
    success: str | None = None
    # changes to memboard's local state for this root (paths relative to it, see localstate.py),
    # written under the same lock before the root's changes
    local: list[Change] = field(default_factory=list)
    premises: list[Premise] = field(default_factory=list)  # asked again under the lock (see Premise)
    # changes in other trees, each naming its tree (Change.tree), written under every tree's lock after local state
    # and before the plan's own tree; trees maps each name to its folder (a MemoryRoot or one of its kinds, such
    # as filetree.FileTree)
    elsewhere: list[Change] = field(default_factory=list)
    trees: dict[str, MemoryRoot] = field(default_factory=dict)

    def with_result(self, result: S) -> Plan[S]:
        """The same plan carrying another result."""
        return Plan(
            self.op,
            result,
            self.changes,
            self.checks,
            self.report,
            self.success,
            self.local,
            self.premises,
            self.elsewhere,
            self.trees,
        )

    @property
    def empty(self) -> bool:
        """Whether the plan changes no file (in the root, in local state or in another tree)."""
        return not self.changes and not self.local and not self.elsewhere

    def shown(self) -> list[Change]:
        """The changes a preview shows: the plan's own tree's, then each other tree's with its paths as that tree
        names them in a patch (see MemoryRoot.shown); a folder's removal is no part of a patch."""
        out = [ch.as_modify() for ch in self.changes if ch.kind != "rmdir"]
        for ch in self.elsewhere:
            tree = self.trees.get(ch.tree)
            if tree is not None and ch.kind != "rmdir":
                out.append(replace(ch, path=tree.shown(ch.path), dest=tree.shown(ch.dest) if ch.dest else None))
        return out

    def paths(self) -> list[str]:
        """Every path the plan reads or writes (or removes, a folder), in order, without repeats."""
        out: list[str] = []
        for ch in self.changes:
            for p in (ch.path, ch.dest):
                if p and p not in out:
                    out.append(p)
        return out

    def expected_before(self) -> dict[str, bytes | None]:
        """The bytes each path held when the plan was built (first mention wins)."""
        seen: dict[str, bytes | None] = {}
        for ch in self.changes:
            if ch.kind == "rmdir":
                continue  # a folder: found empty under the lock (see execute.confirm), no bytes to compare
            if ch.path not in seen:
                seen[ch.path] = ch.before
            if ch.dest and ch.dest not in seen:
                seen[ch.dest] = None
        return seen

    def diff(self) -> str:
        """The plan as a git patch (text; bytes that are not UTF-8 appear as lone surrogates)."""
        return "".join(diff_change(ch) for ch in self.shown())

    def patch(self) -> bytes:
        """The plan as a git patch in bytes: `git apply` of it writes exactly the plan's bytes (the bytes
        of diff(), made without decoding the files: see diff.file_patch_bytes)."""
        return b"".join(self.patch_pieces())

    def patch_pieces(self) -> Iterator[bytes]:
        """patch() in pieces, made as they are asked for: a large preview is written out without being held
        whole (see diff.unified_diff_pieces)."""
        from .diff import file_patch_pieces  # lazy: as diff_change

        for ch in self.shown():
            yield from file_patch_pieces(ch.kind, ch.path, ch.before, ch.after, ch.dest, ch.rewrite)


def encoding_notes(plan: Plan[Any]) -> list[str]:
    """Changes a diff shows poorly, in words: a byte order mark or final newline added or
    removed, line endings switched (a `\\r` or U+FEFF is invisible in most terminals)."""
    out = []
    for ch in plan.changes:
        before, after = ch.before, ch.after
        if ch.kind not in ("modify", "move") or before is None or after is None or before == after:
            continue
        name = ch.dest or ch.path
        if before.startswith(BOM_BYTES) != after.startswith(BOM_BYTES):
            out.append(f"{name}: byte order mark (BOM) {'removed' if before.startswith(BOM_BYTES) else 'added'}")
        from .diff import eol_style  # lazy: as diff_change

        old_style = new_style = ""
        if b"\r" in before or b"\r" in after:  # (with no CR on either side both are LF or end no line: no note)
            old_style, new_style = eol_style(before), eol_style(after)
        if old_style and new_style and old_style != new_style:
            out.append(f"{name}: line endings {old_style} → {new_style}")
        had, has = before.endswith(b"\n"), after.endswith(b"\n")
        if had != has:
            out.append(f"{name}: final newline {'removed' if had else 'added'}")
    return out


def diff_change(ch: Change) -> str:
    """One change as a git patch section (see diff.file_patch)."""
    from .diff import file_patch  # lazy: a plan applied without a preview (the hook's) never makes a patch

    return file_patch(ch.kind, ch.path, ch.before, ch.after, ch.dest)
