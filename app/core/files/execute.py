"""Applying plans: built from settled reads, confirmed under the root's lock, written in order, verified.

No file a plan touches is used as its base before it is seen settled (see settle.py): not when
the plan is built, not when it is re-read under the lock, not when a later step of a
multi-file plan finds the file changed and merges onto it, not when the write is verified.
The path of one change: `execute` builds the plan (`settled_build`), takes the lock
(lock.py), `confirm`s the files still hold the bytes the plan read (and what else it was built on
still stands: its premises, see plan.Premise), writes each step
atomically (fs.py) and verifies the steps and the plan's checks; a plan whose files changed
is built again from the fresh files. `apply_exact` applies a previewed plan or raises
StalePlan with a fresh one.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from ..errors import REMEDY_HERE, Incomplete, MemboardError, StalePlan
from ..formats import collector
from ..formats.layout import INDEX
from ..plan import Change, Plan
from ..rebase import contains_change, rebase
from . import localstate, probe
from .fs import (
    ChangedUnderfoot,
    append_write,
    atomic_write,
    fsync_dir,
    make_folders,
    read_tail,
    remove_folders,
    rename,
    still,
)
from .lock import locked
from .root import MemoryRoot
from .settle import Budget, NotSettled, Seen, Signature, aged_read, settle_seconds, signature
from .trees import MOVE_TO, STEP_OF

SETTLE_WAIT = 5.0  # seconds a command or the board waits at most for files to settle (hooks pass 1)
REBUILDS = 8
SETTLE_ROUNDS = 32  # plan builds before the lock that may each find a file mid-save (the wait bound ends them sooner)

R = TypeVar("R")
Builder = Callable[[MemoryRoot], Plan[R]]
Progress = Callable[[int, int], None]  # (file steps written, steps in the plan), called after each step
LOCAL = "\x00local"  # the name of a plan's local-state tree among the reads confirmed under the lock (Confirmed)
Pending = dict[str, tuple[bytes | None, bytes | None]]  # file -> (bytes the plan read, bytes it writes)


def check_writable(root: MemoryRoot) -> None:
    """Refuse, before planning, a root folder that cannot be written (a read-only folder or mount)."""
    if not os.access(root.writable_folder(), os.W_OK):
        raise MemboardError(f"{root.kind.name} {root.path} is read-only; nothing written", says_written=True)


def _bases(plan: Plan[Any], reads: dict[str, Seen]) -> dict[str, bytes | None]:
    """The files a plan builds on, with the bytes it read: every file it touches, and index.md whenever it was read."""
    bases = plan.expected_before()
    if INDEX in reads and INDEX not in bases:
        bases[INDEX] = reads[INDEX].data
    return bases


LIST_FROM = 64  # a plan creating this many files in one folder lists it once instead of opening each


def settled_build(root: MemoryRoot, build: Builder[R], budget: Budget) -> Plan[R]:
    """Build a plan from files seen settled.

    A plan (or a refusal such as "unknown session") built from a read of a file caught
    mid-save is thrown away: the file is watched until it settles and the plan is built
    again from its settled bytes. NotSettled when the budget runs out first.
    """
    return _settled_build(root, build, budget)[0]


def _settled_build(root: MemoryRoot, build: Builder[R], budget: Budget) -> tuple[Plan[R], dict[str, Seen]]:
    """settled_build, with the settled read of each file the plan builds on (the collector paused meanwhile: a
    plan's objects live until it ends and hold no cycles, and collection passes over them were 0.7 of 1.8 s of CPU
    in doctor's plan at 100k rows on the board; the command line runs with it off already)."""
    with collector.paused():
        return _settled_rounds(root, build, budget)


def _settled_rounds(root: MemoryRoot, build: Builder[R], budget: Budget) -> tuple[Plan[R], dict[str, Seen]]:
    """Build until the plan's files are seen settled (SETTLE_ROUNDS at most), then NotSettled."""
    for _round in range(SETTLE_ROUNDS):
        with root.tracking() as reads:
            try:
                plan = build(root)
            except MemboardError:
                pending: Pending = {rel: (None, None) for rel, seen in reads.items() if not root.settled(rel, seen)}
                if not pending:
                    raise
                root.wait_settled(pending, budget)
                continue
        pending = {}
        bases: dict[str, Seen] = {}
        expected = _bases(plan, reads)
        absent = _listed_absent(root, [rel for rel, before in expected.items() if before is None and rel not in reads])
        with root.steady():  # each folder resolved once: doctor's 58,000 snapshots to create, an lstat each
            for rel, before in expected.items():
                seen = bases[rel] = reads.get(rel) or absent.get(rel) or root.read_seen(rel)
                if seen.data != before or not root.settled(rel, seen):
                    pending[rel] = (None, None)
        for premise in plan.premises:  # (a file the record answered for was not read: it had long been settled)
            for rel in premise.files:
                read = reads.get(rel)
                if read is not None and not root.settled(rel, read):
                    pending[rel] = (None, None)
        if not pending and not _others_unsettled(root, plan, budget):
            return plan, bases
        if pending:
            root.wait_settled(pending, budget)
    raise NotSettled(
        "the files to change kept changing while memboard read them (another program saving them over and over)"
    )


def _listed_absent(root: MemoryRoot, rels: list[str]) -> dict[str, Seen]:
    """Of these files (a plan creates them), those a listing of their folder shows absent, each as the absent read
    reading it would give: one listing per folder instead of an open per file (doctor's 58,000 snapshots to create
    at 100k rows). A folder that cannot be listed, and a name it lists, are left to be read one by one."""
    folders: dict[str, list[str]] = {}
    for rel in rels:
        folder = rel.rpartition("/")[0]
        folders.setdefault(folder, []).append(rel)
    out: dict[str, Seen] = {}
    for folder, inside in folders.items():
        if len(inside) < LIST_FROM:
            continue
        at = time.time_ns()
        try:
            names = set(os.listdir(root.abs(folder) if folder else root.path))
        except (OSError, MemboardError):
            continue
        out.update((rel, Seen(None, None, True, at)) for rel in inside if rel.rpartition("/")[2] not in names)
    return out


def _others_unsettled(root: MemoryRoot, plan: Plan[Any], budget: Budget) -> bool:
    """Whether a file the plan changes in another of its trees (a place beside the first: see places.py) was
    not read settled or changed since; such files are waited for (the plan is then built again). A preview
    is never built on a file caught mid-save, in any tree (a write confirms them under the locks anyway)."""
    if not plan.elsewhere:
        return False
    waited = False
    for _name, tree, part in _elsewhere(plan):
        tree.window = root.window
        pending: Pending = {}
        for rel, before in part.expected_before().items():
            seen = tree.read_seen(rel)
            if seen.data != before or not tree.settled(rel, seen):
                pending[rel] = (None, None)
        if pending:
            tree.wait_settled(pending, budget)
            waited = True
    return waited


def _planned(plan: Plan[Any], rel: str) -> bytes | None:
    """The bytes the plan's first change of rel writes (None when it writes none)."""
    return next((ch.after for ch in plan.changes if ch.path == rel), None)


class Confirmed(dict[str, Seen]):
    """The settled reads, under the locks, of the files a plan touches in its own tree; elsewhere holds those of
    each other tree it writes in, by the tree's name."""

    elsewhere: dict[str, dict[str, Seen]]


def _elsewhere(plan: Plan[Any]) -> list[tuple[str, MemoryRoot, Plan[None]]]:
    """The plan's changes in other trees as one plan per tree, by name, in order of first mention; a change naming
    a tree the plan does not hold is refused (nothing written)."""
    groups: dict[str, list[Change]] = {}
    for ch in plan.elsewhere:
        if ch.tree not in plan.trees:
            raise MemboardError(f"{plan.op}: {ch.describe()} names the tree {ch.tree!r}, which the plan does not hold")
        groups.setdefault(ch.tree, []).append(ch)
    return [(name, plan.trees[name], Plan(plan.op, None, changes)) for name, changes in groups.items()]


def confirm(root: MemoryRoot, plan: Plan[Any], budget: Budget) -> dict[str, Seen] | None:
    """Under the locks: each touched file's settled read when all still hold the plan's bytes (and the plan's
    premises hold), in its own tree and in every other it writes in (Confirmed.elsewhere); None when one
    changed (after it settled), so the plan must be built again."""
    seens = Confirmed()
    seens.elsewhere = {}
    for name, tree, part in _elsewhere(plan):
        tree.window, tree.preview = root.window, False
        tree.require_memory_root()
        check_writable(tree)
        found = confirm(tree, part, budget)
        if found is None:
            return None
        seens.elsewhere[name] = found
    for rel, before in plan.expected_before().items():
        seen = root.read_seen(rel, before)
        if not root.settled(rel, seen, before, _planned(plan, rel)):
            seen = root.wait_settled({rel: (before, _planned(plan, rel))}, budget)[rel]
        if seen.data != before:
            return None
        seens[rel] = seen._replace(data=before)  # the same bytes: the plan's copy, this read's is let go
    if plan.local:  # local state: a tree of its own, under the root's lock (see localstate.LocalStateTree)
        state = localstate.LocalStateTree(root)
        found = confirm(state, state.part(plan), budget)
        if found is None:
            return None
        seens.elsewhere[LOCAL] = found
    for at, ch in enumerate(plan.changes):
        if ch.kind == "rmdir":
            _require_empty(root, plan, ch.path, plan.changes[:at])
    return seens if all(premise.holds(root) for premise in plan.premises) else None


def _require_empty(root: MemoryRoot, plan: Plan[Any], rel: str, earlier: list[Change] | None = None) -> None:
    """Refuse, under the lock and before anything is written, to remove a folder that will not be empty when
    its step runs: one holding anything but what the plan's earlier steps (earlier) delete, move away or
    remove, or into which one of them writes."""
    path = root.abs(rel)
    inside = f"{rel.rstrip('/')}/"
    leaving: set[str] = set()
    for ch in earlier or []:
        if ch.kind in ("delete", "move", "rmdir"):
            leaving.add(ch.path)
        for written in (ch.dest if ch.kind == "move" else ch.path if ch.kind in ("create", "modify") else None,):
            if written is not None and written.startswith(inside):
                raise MemboardError(
                    f"{plan.op}: cannot remove the folder {rel}: the plan writes {written} in it; nothing written"
                )
    try:
        names = os.listdir(path)
    except FileNotFoundError:
        return  # gone already: nothing to remove
    except OSError as exc:
        raise MemboardError(f"{plan.op}: cannot remove the folder {rel} ({why_not(exc)}); nothing written") from None
    staying = sorted(name for name in names if f"{inside}{name}" not in leaving)
    if staying:
        raise MemboardError(
            f"{plan.op}: cannot remove the folder {rel}: it is not empty (it holds {staying[0]!r}); nothing written"
        )


def why_not(exc: OSError) -> str:
    """An OS error in a few words."""
    return exc.strerror or str(exc)


def keep_learned(root: MemoryRoot, plan: Plan[R]) -> Plan[R]:
    """A plan applied (or found to change nothing): let its premises record what its build learned; the plan."""
    for premise in plan.premises:
        if premise.keep is not None:
            premise.keep(root)
    return plan


def execute(
    root: MemoryRoot,
    build: Builder[R],
    dry_run: bool = False,
    timeout: float | None = None,
    settle_wait: float = SETTLE_WAIT,
    quick: bool = False,
    progress: Progress | None = None,
) -> Plan[R]:
    """Build a plan from settled files and, unless dry_run, apply it; rebuilt under the lock if files changed.

    timeout bounds the wait for the lock (default: lock_timeout()); settle_wait the time spent
    waiting for files another program is saving (hooks pass short ones); progress, when given, is
    told after each file step written (done, total: the command line's bar). A quick plan (the
    hook's one-row append) is built under the lock from one read of each file, which is then
    the read the write is checked against; others are built before the lock and the files
    re-read under it.
    """
    root.require_memory_root()
    root.window, root.preview = settle_seconds(), dry_run
    budget = Budget(settle_wait)
    if not dry_run:
        check_writable(root)
    if quick and not dry_run:
        with locked(root, timeout):  # (a quick plan writes in its own tree alone: see _locks)
            for _attempt in range(REBUILDS):
                plan, seens = _settled_build(root, build, budget)
                if plan.empty:
                    return plan
                if plan.elsewhere:
                    raise MemboardError(f"{plan.op}: a quick plan writes in one tree; nothing written")
                try:
                    write_and_verify(root, plan, {rel: seens.get(rel) for rel in plan.expected_before()}, settle_wait)
                    return plan
                except ChangedUnderfoot:
                    continue
        raise _keep_changing(plan)
    plan = settled_build(root, build, budget)
    if dry_run:
        return plan
    if plan.empty:
        return keep_learned(root, plan)
    for _round in range(REBUILDS):
        held = _lock_owners(plan)
        with _locks(root, plan, timeout):
            for _attempt in range(REBUILDS):
                confirmed = confirm(root, plan, budget)
                if confirmed is None:
                    plan = settled_build(root, build, budget)
                    if plan.empty:
                        return keep_learned(root, plan)
                    if _lock_owners(plan) != held:
                        break  # the plan built again writes in other trees: their locks are taken anew
                    continue
                try:
                    write_and_verify(root, plan, confirmed, settle_wait, progress)
                    return plan
                except ChangedUnderfoot:
                    continue
            else:
                raise _keep_changing(plan)
    raise _keep_changing(plan)


def _lock_owners(plan: Plan[Any]) -> frozenset[str]:
    """The real paths of the other trees a plan writes in (whose locks it is applied under)."""
    return frozenset(str(tree.real) for tree in plan.trees.values())


def _locks(root: MemoryRoot, plan: Plan[Any], timeout: float | None = None) -> AbstractContextManager[float]:
    """The locks a plan is applied under: root's, and those of the other trees it writes in (in order of real
    path, see lock.locked_trees)."""
    if not plan.trees:
        return locked(root, timeout)
    return locked(root, timeout, [tree.tree for tree in plan.trees.values()])


def _keep_changing(plan: Plan[Any]) -> MemboardError:
    """The error of a plan whose files kept changing under the lock (another tool writing without it)."""
    return MemboardError(
        f"{plan.op}: the files to change keep changing under memboard (another tool writing without the lock?); "
        "nothing written, try again",
        says_written=True,
    )


def apply_exact(
    root: MemoryRoot, plan: Plan[R], build: Builder[R], progress: Progress | None = None, rebuild: bool = True
) -> Plan[R]:
    """Apply exactly this previewed plan, or raise StalePlan with a fresh one; never blind.

    progress, when given, is told after each file step (the board draws a progress bar). Without
    rebuild, StalePlan carries the stale plan itself (an edit planned from bytes the caller read, which
    no build can make again: see filetree.write_edit)."""
    if plan.empty:
        return plan
    root.require_memory_root()
    root.window, root.preview = settle_seconds(), False
    budget = Budget(SETTLE_WAIT)
    check_writable(root)
    with _locks(root, plan):
        seens = confirm(root, plan, budget)
        if seens is None:
            fresh = settled_build(root, build, budget) if rebuild else plan
            raise StalePlan("the files changed since this preview; review the new plan", fresh)
        try:
            write_and_verify(root, plan, seens, SETTLE_WAIT, progress)
        except ChangedUnderfoot:
            fresh = settled_build(root, build, budget) if rebuild else plan
            raise StalePlan("the files changed while writing this preview; review the new plan", fresh) from None
    return plan


Written = list[tuple[str, Signature]]  # (path, new signature) of each file a step wrote


def _noter(root: MemoryRoot, rel: str, data: bytes, step: int) -> Callable[[Signature], None]:
    """What atomic_write calls before its rename: tell the probe, then record the new version of rel as settled."""

    def note(sig: Signature) -> None:
        if root.counted:
            probe.current().before_rename(step)
        root.known.note(rel, sig, data)

    return note


def _move(root: MemoryRoot, ch: Change, sig: Signature | None, step: int) -> Written:
    """Move a file (rewriting it when the plan changes its bytes); nothing is left half-moved on failure."""
    target = ch.dest or ""
    path, dest = root.abs(ch.path), root.abs(target)
    if dest.exists():
        raise MemboardError(f"cannot move to {target}: it exists")
    made = make_folders(dest.parent)
    try:
        seen = still(path, ch.before, sig, "before memboard could move it")
        data = ch.before or b""
        if ch.after is not None and ch.after != ch.before:
            data = ch.after
            written = _copy_then_delete(root, path, dest, target, data, step)
        else:
            written = seen.sig or signature(os.stat(path))
            root.known.note(target, written, data)
            try:
                rename(path, dest)
            except OSError as exc:
                if exc.errno != errno.EXDEV:
                    raise
                written = _copy_then_delete(root, path, dest, target, data, step)  # another file system
    except BaseException:
        remove_folders(made)
        raise
    fsync_dir(dest.parent)
    fsync_dir(path.parent)
    return [(target, written)]


def _copy_then_delete(root: MemoryRoot, path: Path, dest: Path, target: str, data: bytes, step: int) -> Signature:
    """Move a file by copying it (to another file system, or with new bytes): write the copy (flushed, see
    fs.atomic_write), read it back and compare its bytes, and only then delete the original. A copy that
    does not hold the bytes, or an original that cannot be deleted, leaves the original alone and the copy
    removed. The copy's signature."""
    written = atomic_write(dest, data, expect=None, note=_noter(root, target, data, step))
    try:
        try:
            copied = dest.read_bytes()
        except OSError:
            copied = None
        if copied != data:
            raise MemboardError(f"the copy of {path.name} does not hold its bytes; the original is kept")
        path.unlink()
    except BaseException:
        try:
            dest.unlink()
        except OSError:
            pass
        raise
    return written


def _append(root: MemoryRoot, ch: Change, sig: Signature | None, step: int, aged: bool) -> Written:
    """Append an append change's bytes to its file (O_APPEND: what the file holds is not rewritten), guarded
    by the signature of the plan's read as a rewrite is; recorded as settled right after (its CRC-32 carried on
    from the read's, no copy of the whole file made)."""
    before, added = ch.before or b"", ch.after or b""
    path = root.abs(ch.path)

    def about_to() -> None:
        if root.counted:
            probe.current().before_rename(step)  # (the moment before anything is visible, as before a rename)

    checked = time.time()
    written = append_write(path, before, added, sig, by_signature=aged, about_to=about_to)
    root.known.note_appended(ch.path, written, before, added)
    if root.counted:
        probe.current().replaced(checked, path)
    return [(ch.path, written)]


def _splice(root: MemoryRoot, ch: Change, sig: Signature | None, step: int, aged: bool) -> Written:
    """Write a splice's file whole, as any rewrite (a temp file renamed over it, guarded by the plan's read), from
    its pieces: the read's bytes around the inserted ones are written from the read, not joined into a copy."""
    pieces = ch.pieces()

    def note(written: Signature) -> None:
        if root.counted:
            probe.current().before_rename(step)
        root.known.note_pieces(ch.path, written, pieces)

    path = root.abs(ch.path)
    written = atomic_write(path, pieces, expect=ch.before, sig=sig, note=note, by_signature=aged, mode=ch.mode)
    return [(ch.path, written)]


def _verify_append(root: MemoryRoot, plan: Plan[Any], at: int, sig: Signature | None, settle_wait: float) -> None:
    """Verify a plan whose file step at is an append, reading back the appended bytes, not the whole file.

    Before the write the file was confirmed, on its open descriptor, to be the settled read the plan was
    built on (its signature, and its bytes unless its mtime was old enough for the signature to tell);
    after it the descriptor showed the same inode grown by exactly the appended bytes. When the file still
    has that signature, it is those bytes followed by the appended ones, and reading the appended ones back
    is what is left to prove: the file then holds exactly the planned bytes, and the checks a file's exact
    bytes decide hold as the plan built them. When it changed after the append (a save right after it),
    the plan is verified as the rewrite it amounts to, on a settled read of the whole file."""
    ch = plan.changes[at]
    before, added = ch.before or b"", ch.after or b""
    if sig is not None and read_tail(root.abs(ch.path), len(before), len(added), sig) == added:
        problems = [c.description for c in plan.checks if c.decided_by != ch.path and not c.holds(root)]
        if problems:
            raise Incomplete(f"{plan.op} incomplete: verification failed: {'; '.join(problems)}")
        return
    whole = replace(plan, changes=[c.as_modify() for c in plan.changes])
    _verify(root, whole, settle_wait)


def _verify_splice(root: MemoryRoot, plan: Plan[Any], sig: Signature | None, settle_wait: float) -> None:
    """Verify a one-step plan whose change is a splice (the hook's row above text under the table), reading back
    what follows its offset, not the whole file.

    The step wrote the whole new file to a temp file, flushed it and renamed it over the old one; sig is that
    file's signature (its own inode, size and mtime). When the file at the path still has it, it is the file
    the step wrote, and reading back its bytes from the offset on (the inserted rows and what was under them)
    proves them there: its bytes before the offset are the read the plan was built on, written in the same
    file. When it no longer has that signature (a save right after the rename), the plan is verified on a
    settled read of the whole file, as any other."""
    ch = plan.changes[0]
    at = ch.at or 0
    tail = (ch.after or b"") + (ch.before or b"")[at:]  # (the inserted rows and what was under them: a few lines)
    if sig is not None and read_tail(root.abs(ch.path), at, len(tail), sig) == tail:
        problems = [c.description for c in plan.checks if c.decided_by != ch.path and not c.holds(root)]
        if problems:
            raise Incomplete(f"{plan.op} incomplete: verification failed: {'; '.join(problems)}")
        return
    _verify(root, replace(plan, changes=[ch.as_modify()]), settle_wait)


def _rmdir(root: MemoryRoot, ch: Change) -> Written:
    """Remove an empty folder (OSError, nothing removed, when it holds anything: the OS refuses)."""
    path = root.abs(ch.path)
    try:
        os.rmdir(path)
    except FileNotFoundError:
        return []  # gone already
    fsync_dir(path.parent)
    return []


def _delete(root: MemoryRoot, ch: Change, sig: Signature | None) -> Written:
    """Delete a file (and the archive or old state folder it leaves empty)."""
    path = root.abs(ch.path)
    if still(path, ch.before, sig, "before memboard could delete it").data is None:
        return []  # planned from a read that found it gone already (a temp file renamed meanwhile)
    path.unlink()
    root.kind.after_delete(root.path, ch.path, path)  # (the memory root's: an emptied archive folder goes too)
    fsync_dir(path.parent)
    return []


def _file_in_the_way(root: MemoryRoot, ch: Change) -> str | None:
    """`X is a file, not a folder` when a folder on the way to the change's path (or its move's destination) is
    a file: the OS says only "File exists" or "Not a directory", which names neither."""
    for rel in (ch.path, ch.dest):
        parts = (rel or "").split("/")[:-1]
        for end in range(1, len(parts) + 1):
            folder = "/".join(parts[:end])
            try:
                path = root.abs(folder)
            except MemboardError:
                return None
            if os.path.lexists(path) and not os.path.isdir(path):
                return f"{folder} is a file, not a folder: move it aside"
    return None


def _step(root: MemoryRoot, ch: Change, sig: Signature | None, step: int, aged: bool = False) -> Written:
    """Carry out one file change, guarded by the signature the plan's file had under the lock (aged: that
    signature alone tells whether the file changed since; see settle.aged_read); what it wrote."""
    if ch.kind == "delete":
        return _delete(root, ch, sig)
    if ch.kind == "move":
        return _move(root, ch, sig, step)
    if ch.kind == "rmdir":
        return _rmdir(root, ch)
    if ch.kind == "append":
        return _append(root, ch, sig, step, aged)
    if ch.kind == "splice":
        return _splice(root, ch, sig, step, aged)
    data = ch.after or b""
    note = _noter(root, ch.path, data, step)
    written = atomic_write(
        root.abs(ch.path), data, expect=ch.before, sig=sig, note=note, by_signature=aged, mode=ch.mode
    )
    return [(ch.path, written)]


def _verify_change(root: MemoryRoot, ch: Change, later: set[str] | frozenset[str] = frozenset()) -> str | None:
    """Why a written change does not hold, or None when it does (later: the paths the plan's later steps touch,
    whose bytes those steps answer for: a file a migration moves in and a save then changes)."""
    if ch.path in later:
        return None
    if ch.kind == "move" and ch.dest in later:
        return f"{ch.path} was not moved" if root.exists(ch.path) else None
    if ch.kind in ("create", "modify"):
        data = root.read(ch.path)
        # a hand edit saved just after our rename is fine as long as our lines are all there
        if data != ch.after and (
            data is None or ch.kind != "modify" or not contains_change(ch.before or b"", ch.after or b"", data)
        ):
            return f"{ch.path} does not hold the planned bytes"
    elif ch.kind == "delete":
        if root.exists(ch.path):
            return f"{ch.path} still exists"
    elif ch.kind == "rmdir":
        if root.abs(ch.path).exists():
            return f"the folder {ch.path} still exists"
    elif ch.kind == "move":
        want = ch.after if ch.after is not None else ch.before
        if root.exists(ch.path):
            return f"{ch.path} was not moved"
        if root.read(ch.dest or "") != want:
            return f"{ch.dest} does not hold the moved bytes"
    return None


def _write_rebased(root: MemoryRoot, plan: Plan[Any], at: int, settle_wait: float) -> Written | None:
    """Mid-plan, a file changed under us: apply our line changes onto its settled fresh bytes instead.

    The earlier steps are written, so rebuilding the plan is no longer possible; the fresh
    file is waited for until it is settled (never merged onto a save in progress), then the
    step's own hunks are merged with the other writer's (see rebase.py). What it wrote; None
    on a conflict (the caller reports the operation incomplete). NotSettled when the file
    never settles.
    """
    ch = plan.changes[at]
    if ch.kind != "modify":
        return None
    path = root.abs(ch.path)
    budget = Budget(settle_wait)
    for _ in range(REBUILDS):
        seen = root.read_seen(ch.path)
        if not root.settled(ch.path, seen, ch.before, ch.after):
            seen = root.wait_settled({ch.path: (ch.before, ch.after)}, budget)[ch.path]
        merged = rebase(ch.before or b"", ch.after or b"", seen.data) if seen.data is not None else None
        if merged is None:
            return None
        plan.changes[at] = ch = replace(ch, before=seen.data, after=merged)
        note = _noter(root, ch.path, merged, at + 1)
        try:
            return [(ch.path, atomic_write(path, merged, expect=seen.data, sig=seen.sig, note=note))]
        except ChangedUnderfoot:
            continue
    return None


def _require_allowed(root: MemoryRoot, plan: Plan[Any]) -> None:
    """Refuse, before anything is written, a plan that would change a path its tree does not allow."""
    tree = root.tree
    for ch in plan.changes:
        for step, rel in ((STEP_OF[ch.kind], ch.path), (MOVE_TO, ch.dest)):
            if rel is not None and not tree.permits(step, rel):
                raise MemboardError(
                    f"{plan.op}: {rel} is not a path the {tree.kind.name} {root.path} may change; nothing written",
                    says_written=True,
                )


def _incomplete(plan: Plan[Any], what: str, done: list[str]) -> Incomplete:
    """The error of a plan that stopped after some steps were written."""
    return Incomplete(f"{plan.op} incomplete: {what}; done before: {', '.join(done)}; {REMEDY_HERE}")


def _write_step(
    root: MemoryRoot,
    plan: Plan[Any],
    number: int,
    sigs: dict[str, Signature | None],
    aged: set[str],
    done: list[str],
    settle_wait: float,
) -> str:
    """Write step number (1-based); a short note of what was done. Before anything is written a failure says
    "nothing written"; after that it is Incomplete and names what was done."""
    ch = plan.changes[number - 1]
    note = ch.describe()
    try:
        written = _step(root, ch, sigs.get(ch.path), number, ch.path in aged)
    except ChangedUnderfoot as exc:
        if not done:
            raise
        try:
            rebased = _write_rebased(root, plan, number - 1, settle_wait)
        except NotSettled as late:
            raise _incomplete(plan, late.what, done) from None
        if rebased is None:
            raise _incomplete(plan, str(exc), done) from None
        written, note = rebased, note + " (rebased onto a concurrent edit)"
    except Incomplete:
        raise  # (an append that landed beside another writer's bytes: written, not to be taken back)
    except Exception as exc:
        detail = _file_in_the_way(root, ch) or getattr(exc, "strerror", None) or str(exc)
        if not done:
            raise MemboardError(
                f"{plan.op}: cannot {ch.describe()} ({detail}); nothing written", says_written=True
            ) from None
        raise _incomplete(plan, f"failed to {ch.describe()} ({detail})", done) from None
    sigs.update(written)
    aged.difference_update(path for path, _ in written)
    return note


def _verify(root: MemoryRoot, plan: Plan[Any], settle_wait: float) -> None:
    """Verify every step and check on settled reads of the written files (a save begun right after memboard's
    rename is waited for, not taken for a failed write)."""
    settled: dict[str, bytes | None] = {}
    problems: list[str] = []
    for ch in plan.changes:
        if ch.kind not in ("create", "modify") or ch.path in settled:
            continue
        seen = root.read_seen(ch.path, ch.after)
        if seen.data != ch.after and not root.settled(ch.path, seen, ch.after):
            try:
                seen = root.wait_settled({ch.path: (ch.after, None)}, Budget(settle_wait))[ch.path]
            except NotSettled as exc:
                problems.append(exc.what)
        settled[ch.path] = seen.data
    planned = {ch.path: ch.after for ch in plan.changes if ch.kind in ("create", "modify")}  # each file's last bytes
    exact = {rel for rel, data in settled.items() if data is not None and data == planned.get(rel)}
    # which of each change's own paths its later steps touch (the last step on a path decides): _verify_change asks
    # only of ch.path and ch.dest, so each change gets those two at most, from the last step on every path (a set
    # of every later path per change was n² at 65k created snapshots: 24 GB at 100k rows)
    last: dict[str, int] = {}
    for number, ch in enumerate(plan.changes):
        for path in (ch.path, ch.dest):
            if path:
                last[path] = number
    later = [
        {path for path in (ch.path, ch.dest) if path and last[path] > number} for number, ch in enumerate(plan.changes)
    ]
    with root.pinned(settled):
        found = (
            _verify_change(root, ch, after) if after else _verify_change(root, ch)
            for ch, after in zip(plan.changes, later)
        )
        problems += [p for p in found if p]
        problems += [c.description for c in plan.checks if c.decided_by not in exact and not c.holds(root)]
    if problems:
        raise Incomplete(f"{plan.op} incomplete: verification failed: {'; '.join(problems)}")


def write_and_verify(
    root: MemoryRoot,
    plan: Plan[Any],
    reads: Mapping[str, Seen | None] | None = None,
    settle_wait: float = SETTLE_WAIT,
    progress: Progress | None = None,
    done: list[str] | None = None,
) -> None:
    """Write the plan's steps in order (caller holds the locks), then verify every step.

    reads are the touched files' settled reads under the lock (by `confirm`, or the quick
    build's own): a file that no longer has the signature it had then is not replaced. What
    memboard writes is recorded as settled, so the next command does not wait for it. The
    probe hears of each written step (a crash test stops there: the operation is then incomplete);
    progress, when given, is told after it (done, total). Its steps in other trees (Plan.elsewhere) are
    written first, each tree's verified, after local state; done names the steps written before this call
    (a failure after them is Incomplete).
    """
    reads = reads or {}
    sigs = {rel: seen.sig if seen else None for rel, seen in reads.items()}
    aged = {rel for rel, seen in reads.items() if seen is not None and aged_read(seen, root.fs_time(rel, seen))}
    done = [] if done is None else done
    others = _elsewhere(plan)
    _require_allowed(root, plan)
    for _name, tree, part in others:
        _require_allowed(tree, part)
    elsewhere = getattr(reads, "elsewhere", {})
    if plan.local:  # local state first: a move copies there before the root loses anything
        state = localstate.LocalStateTree(root)
        try:
            write_and_verify(state, state.part(plan), elsewhere.get(LOCAL), settle_wait)
        except (ChangedUnderfoot, NotSettled):
            raise  # (the plan is built again, or the files never settled: as in the root)
        except MemboardError as exc:  # (nothing of the root is written yet)
            what = str(exc).removeprefix(f"{plan.op}: ").removesuffix("; nothing written")
            raise MemboardError(
                f"{plan.op}: memboard's local state {state.path}: {what}; nothing written in the memory root",
                says_written=True,
            ) from None
    for name, tree, part in others:
        start = len(done)
        write_and_verify(tree, part, elsewhere.get(name), settle_wait, done=done)
        done[start:] = [f"{note} in {tree.path}" for note in done[start:]]
    try:
        for number in range(1, len(plan.changes) + 1):
            done.append(_write_step(root, plan, number, sigs, aged, done, settle_wait))
            try:
                if root.counted:
                    probe.current().after_step(number)
            except Exception as exc:
                raise Incomplete(f"{plan.op} incomplete: {exc}; done: {', '.join(done)}; {REMEDY_HERE}") from None
            if progress is not None:
                progress(number, len(plan.changes))
        appends = [at for at, ch in enumerate(plan.changes) if ch.kind == "append"]
        if appends and len(plan.changes) == 1:
            _verify_append(root, plan, appends[0], sigs.get(plan.changes[0].path), settle_wait)
        elif len(plan.changes) == 1 and plan.changes[0].kind == "splice":
            _verify_splice(root, plan, sigs.get(plan.changes[0].path), settle_wait)
        else:
            joined = any(ch.kind in ("append", "splice") for ch in plan.changes)
            _verify(
                root, replace(plan, changes=[ch.as_modify() for ch in plan.changes]) if joined else plan, settle_wait
            )
    finally:
        root.known.save()
    if root.kind.revisions and any(
        ch.path != INDEX for ch in plan.changes
    ):  # revisions are kept of snapshots and notes, never of index.md
        from . import revisions  # lazy: a hook's plan (index.md alone) never loads it (0.5 ms)

        revisions.record_plan(root, plan)
    keep_learned(root, plan)
