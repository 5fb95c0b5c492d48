"""Applying plans: built from settled reads, one lock per root, re-read under the lock, atomic ordered
writes, verify.

No file a plan touches is used as its base before it is seen settled (see root.py): not when
the plan is built, not when it is re-read under the lock, not when a later step of a
multi-file plan finds the file changed and merges onto it, not when the write is verified.
"""

from __future__ import annotations

import os
import stat
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from . import config
from .errors import Incomplete, MemboardError, StalePlan
from .plan import Change, Plan
from .root import INDEX, SETTLE_WINDOW, Budget, MemoryRoot, NotSettled, Seen, Signature, read_seen, signature

LOCK_TIMEOUT_ENV = "MEMBOARD_LOCK_TIMEOUT"
SETTLE_ENV = "MEMBOARD_SETTLE_SECONDS"
REPLACE_LOG_ENV = "MEMBOARD_REPLACE_LOG"  # bench/tests: append "checked replaced path" times of each guarded rename
SETTLE_WAIT = 5.0  # seconds a command or the board waits at most for files to settle (hooks pass 1)
FAULT_ENV = "MEMBOARD_FAULT_AFTER_STEP"
FAULT_MODE_ENV = "MEMBOARD_FAULT_MODE"
LOCK_QUEUE_ENV = "MEMBOARD_LOCK_QUEUE"  # "0" turns the FIFO queue off (bench/lock.py compares both)
LOCK_STATS_ENV = "MEMBOARD_LOCK_STATS"  # bench/tests: append "wait hold" seconds per lock to this file
DEFAULT_LOCK_TIMEOUT = 20.0
POLL_INTERVAL = 0.002

Builder = Callable[[MemoryRoot], Plan]
Progress = Callable[[int, int], None]  # (file steps written, steps in the plan), called after each step
Pending = dict[str, tuple[bytes | None, bytes | None]]  # file -> (bytes the plan read, bytes it writes)
ANY = object()  # atomic_write: do not compare the file before replacing it
REBUILDS = 8
SETTLE_ROUNDS = 32  # plan builds before the lock that may each find a file mid-save (the wait bound ends them sooner)


class ChangedUnderfoot(MemboardError):
    """A file changed between the plan's read and its rename (a writer that skips the lock)."""


def lock_path(root: MemoryRoot) -> Path:
    """The lock file of a root: in local state, keyed by the root's real path."""
    return config.state_dir() / "locks" / f"{root.state_key()}.lock"


def _seconds(env: str, key: str, default: float) -> float:
    """A number of seconds from the environment variable env, else config key, else default."""
    raw = os.environ.get(env)
    if raw:
        try:
            return max(0.0, float(raw))
        except ValueError:
            pass
    try:
        value = config.load().get(key)
    except MemboardError:
        value = None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return default


def lock_timeout() -> float:
    """Seconds to wait for the lock: MEMBOARD_LOCK_TIMEOUT, config `lock_timeout`, or 20."""
    return _seconds(LOCK_TIMEOUT_ENV, "lock_timeout", DEFAULT_LOCK_TIMEOUT)


def settle_seconds() -> float:
    """The settle window: MEMBOARD_SETTLE_SECONDS, config `settle_seconds`, or 0.5 (at most config.MAX_SETTLE)."""
    return min(_seconds(SETTLE_ENV, "settle_seconds", SETTLE_WINDOW), config.MAX_SETTLE)


class _Ticket:
    """A place in a root's FIFO lock queue: a file in `<lock>.queue/`, held locked while queued.

    filelock alone is not fair: whoever polls first after a release wins, so one waiter can
    lose dozens of rounds in a row. Waiters therefore queue by arrival time; each waits only
    for the live ticket just ahead of it (by taking that ticket's lock, which its owner
    holds until it is done), and only the head of the queue takes the root lock. A crashed
    owner's ticket is unlocked by the OS, so the next waiter takes it at once and removes it.
    """

    def __init__(self, folder: Path):
        """Join the queue in folder (created when missing)."""
        from filelock import FileLock

        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.name = f"{time.time_ns():020d}-{os.getpid():08d}-{os.urandom(3).hex()}.ticket"
        self.lock = FileLock(str(folder / self.name))
        self.lock.acquire(timeout=1.0, poll_interval=POLL_INTERVAL)

    def wait_turn(self, deadline: float) -> None:
        """Return once no live ticket is ahead; raise filelock.Timeout at the deadline."""
        from filelock import FileLock, Timeout

        while True:
            ahead = [n for n in os.listdir(self.folder) if n.endswith(".ticket") and n < self.name]
            if not ahead:
                return
            previous = self.folder / max(ahead)
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise Timeout(str(previous))
            probe = FileLock(str(previous))
            try:
                probe.acquire(timeout=remaining, poll_interval=POLL_INTERVAL)
            except FileNotFoundError:
                continue
            _discard(probe, previous)

    def leave(self) -> None:
        """Leave the queue (after the critical section, or on giving up)."""
        _discard(self.lock, self.folder / self.name)


def _discard(lock, path: Path) -> None:
    """Remove a held ticket file and release its lock (Windows cannot unlink an open file)."""
    if os.name != "nt":
        try:
            os.unlink(path)
        except OSError:
            pass
    lock.release()
    if os.name == "nt":
        try:
            os.unlink(path)
        except OSError:
            pass


@contextmanager
def locked(root: MemoryRoot, timeout: float | None = None) -> Iterator[float]:
    """Hold the root's lock; yields the seconds spent waiting. A bounded, fair (FIFO) wait, then an error."""
    from filelock import FileLock, Timeout

    path = lock_path(root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MemboardError(f"cannot create lock folder {path.parent}: {exc.strerror or exc}") from None
    wait = lock_timeout() if timeout is None else timeout
    lock = FileLock(str(path))
    start = time.perf_counter()
    ticket = None
    try:
        if os.environ.get(LOCK_QUEUE_ENV) != "0":
            ticket = _Ticket(path.with_suffix(".queue"))
            ticket.wait_turn(start + wait)
        lock.acquire(timeout=max(0.0, start + wait - time.perf_counter()), poll_interval=POLL_INTERVAL)
    except Timeout:
        if ticket:
            ticket.leave()
        raise MemboardError(
            f"memory root is locked by another writer (waited {wait:g}s; lock file {path})"
        ) from None
    except OSError as exc:
        if ticket:
            ticket.leave()
        raise MemboardError(f"cannot take lock {path}: {exc.strerror or exc}") from None
    taken = time.perf_counter()
    try:
        yield taken - start
    finally:
        lock.release()
        if ticket:
            ticket.leave()
        _record_stats(taken - start, time.perf_counter() - taken)


def _record_stats(wait: float, hold: float) -> None:
    """Append one lock's wait and hold times to MEMBOARD_LOCK_STATS (for bench/lock.py)."""
    target = os.environ.get(LOCK_STATS_ENV)
    if not target:
        return
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, f"{wait:.6f} {hold:.6f} {os.getpid()}\n".encode())
        finally:
            os.close(fd)
    except OSError:
        pass


def check_writable(root: MemoryRoot) -> None:
    """Refuse, before planning, a root folder that cannot be written (a read-only folder or mount)."""
    if not os.access(root.path, os.W_OK):
        raise MemboardError(f"memory root {root.path} is read-only; nothing written")


def _bases(plan: Plan, reads: dict[str, Seen]) -> dict[str, bytes | None]:
    """The files a plan builds on, with the bytes it read: every file it touches, and index.md whenever it was read."""
    bases = plan.expected_before()
    if INDEX in reads and INDEX not in bases:
        bases[INDEX] = reads[INDEX].data
    return bases


def settled_build(root: MemoryRoot, build: Builder, budget: Budget) -> Plan:
    """Build a plan from files seen settled.

    A plan (or a refusal such as "unknown session") built from a read of a file caught
    mid-save is thrown away: the file is watched until it settles and the plan is built
    again from its settled bytes. NotSettled when the budget runs out first.
    """
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
        for rel, before in _bases(plan, reads).items():
            seen = reads.get(rel) or root.read_seen(rel)
            if seen.data != before or not root.settled(rel, seen):
                pending[rel] = (None, None)
        if not pending:
            return plan
        root.wait_settled(pending, budget)
    raise NotSettled("the files to change kept changing while memboard read them (another program saving them over and over)")


def _planned(plan: Plan, rel: str) -> bytes | None:
    """The bytes the plan's first change of rel writes (None when it writes none)."""
    return next((ch.after for ch in plan.changes if ch.path == rel), None)


def confirm(root: MemoryRoot, plan: Plan, budget: Budget) -> dict[str, Signature | None] | None:
    """Under the lock: each touched file's signature when all still hold the plan's bytes, settled; None when
    one changed (after it settled), so the plan must be built again."""
    sigs: dict[str, Signature | None] = {}
    for rel, before in plan.expected_before().items():
        seen = root.read_seen(rel)
        if not root.settled(rel, seen, before, _planned(plan, rel)):
            seen = root.wait_settled({rel: (before, _planned(plan, rel))}, budget)[rel]
        if seen.data != before:
            return None
        sigs[rel] = seen.sig
    from . import localstate

    return sigs if localstate.unchanged(root, plan) else None


def execute(
    root: MemoryRoot, build: Builder, dry_run: bool = False, timeout: float | None = None, settle_wait: float = SETTLE_WAIT
) -> Plan:
    """Build a plan from settled files and, unless dry_run, apply it; rebuilt under the lock if files changed.

    timeout bounds the wait for the lock (default: lock_timeout()); settle_wait the time spent
    waiting for files another program is saving (hooks pass short ones).
    """
    root.require_memory_root()
    root.window = settle_seconds()
    budget = Budget(settle_wait)
    if not dry_run:
        check_writable(root)
    plan = settled_build(root, build, budget)
    if dry_run or plan.empty:
        return plan
    with locked(root, timeout):
        for _attempt in range(REBUILDS):
            sigs = confirm(root, plan, budget)
            if sigs is None:
                plan = settled_build(root, build, budget)
                if plan.empty:
                    return plan
                continue
            try:
                write_and_verify(root, plan, sigs, settle_wait)
                return plan
            except ChangedUnderfoot:
                continue
    raise MemboardError(
        f"{plan.op}: index files keep changing under memboard (another tool writing without the lock?); "
        "nothing written, try again"
    )


def apply_exact(root: MemoryRoot, plan: Plan, build: Builder, progress: Progress | None = None) -> Plan:
    """Apply exactly this previewed plan, or raise StalePlan with a fresh one; never blind.

    progress, when given, is told after each file step (the board draws a progress bar)."""
    if plan.empty:
        return plan
    root.require_memory_root()
    root.window = settle_seconds()
    budget = Budget(SETTLE_WAIT)
    check_writable(root)
    with locked(root):
        sigs = confirm(root, plan, budget)
        if sigs is None:
            raise StalePlan("the files changed since this preview; review the new plan", settled_build(root, build, budget))
        try:
            write_and_verify(root, plan, sigs, SETTLE_WAIT, progress)
        except ChangedUnderfoot:
            raise StalePlan(
                "the files changed while writing this preview; review the new plan", settled_build(root, build, budget)
            ) from None
    return plan


_current_step = 0  # the plan step being written (for MEMBOARD_FAULT_MODE=kill-in-write)


def _fault_target() -> int | None:
    """The step number MEMBOARD_FAULT_AFTER_STEP names, if any."""
    target = os.environ.get(FAULT_ENV, "")
    return int(target) if target.isdigit() else None


def _fault(step: int) -> None:
    """Fault injection for crash tests, after the N-th file step.

    MEMBOARD_FAULT_MODE: unset raises an exception (reported as Incomplete); `kill` exits at
    once (os._exit, no cleanup); `signal` creates the file MEMBOARD_FAULT_SIGNAL and sleeps so
    a test can `kill -9` the process at that point; `kill-in-write` is handled in atomic_write.
    """
    if _fault_target() != step:
        return
    mode = os.environ.get(FAULT_MODE_ENV, "")
    if mode == "kill":
        os._exit(137)
    if mode == "signal":
        Path(os.environ["MEMBOARD_FAULT_SIGNAL"]).write_text(str(os.getpid()))
        time.sleep(120)
        os._exit(137)
    if mode == "kill-in-write":
        return
    raise RuntimeError(f"injected fault after step {step}")


def _umask() -> int:
    """The process umask, read without changing it (Linux /proc), else the common 022."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _file_mode(path: Path) -> int:
    """The mode a rewritten file keeps: the old file's, or what a plain create would give."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _fault_in_write() -> None:
    """MEMBOARD_FAULT_MODE=kill-in-write: die with step N's temp file written but not renamed."""
    if os.environ.get(FAULT_MODE_ENV) == "kill-in-write" and _fault_target() == _current_step:
        os._exit(137)


Written = list[tuple[str, Signature]]  # (path, new signature) of each file a step wrote


def _still(path: Path, expect: bytes | None, sig: Signature | None, when: str) -> Seen:
    """path's read, when it still holds expect (None: absent) with signature sig (if given); else ChangedUnderfoot."""
    seen = read_seen(path)
    if seen.data != expect or not seen.steady or (sig is not None and seen.sig != sig):
        raise ChangedUnderfoot(f"{path.name} changed {when}")
    return seen


def _stat_sig(path: Path) -> Signature | None:
    """path's signature right now (None when absent)."""
    try:
        return signature(os.stat(path))
    except FileNotFoundError:
        return None


def _through_link(path: Path) -> Path:
    """Where a write of path lands: a symlink's target (written through, the link kept), else path itself."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def _make_folders(folder: Path) -> list[Path]:
    """Create folder and its missing parents; the ones created, deepest first."""
    made = []
    probe = folder
    while not probe.exists() and probe.parent != probe:
        made.append(probe)
        probe = probe.parent
    folder.mkdir(parents=True, exist_ok=True)
    return made


def _remove_folders(made: list[Path]) -> None:
    """Remove folders _make_folders created, deepest first, while they are empty."""
    for folder in made:
        try:
            folder.rmdir()
        except OSError:
            return


def _log_replace(checked: float, target: Path) -> None:
    """Append the window between the last look at a file and its replacement to MEMBOARD_REPLACE_LOG (bench)."""
    log = os.environ.get(REPLACE_LOG_ENV)
    if not log:
        return
    try:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, f"{checked:.6f} {time.time():.6f} {target}\n".encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)
    except OSError:
        pass


def atomic_write(
    path: Path, data: bytes, expect=ANY, sig: Signature | None = None, note: Callable[[Signature], None] | None = None
) -> Signature:
    """Write data to path via a temp file in the same folder, fsync, then rename over it; the new file's signature.

    A symlink is written through: the temp file goes beside its target, which is replaced.
    With `expect` (the bytes the plan read, None for "absent"), the file is compared once
    more after the temp file is flushed, and its signature (sig when given) looked at
    immediately before the rename; if a writer that skips the lock (a hand edit, a sync tool)
    changed it, ChangedUnderfoot is raised and nothing is replaced. `note` is called with the new
    file's signature right before the rename. On any failure the temp file and the folders
    created for it are removed.
    """
    target = _through_link(path)
    made = _make_folders(target.parent)
    try:
        mode = _file_mode(target)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".memboard-tmp", dir=target.parent)
    except BaseException:
        _remove_folders(made)
        raise
    try:
        if os.name != "nt":
            os.fchmod(fd, mode)  # mkstemp makes 0600 files; keep the file's own permissions
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            written = signature(os.fstat(fh.fileno()))
        checked = time.time()
        if expect is not ANY:
            seen = _still(target, expect, sig, "while memboard was writing it")
            if _stat_sig(target) != seen.sig:  # the last look, right before the rename
                raise ChangedUnderfoot(f"{path.name} changed while memboard was writing it")
        if _current_step:
            _fault_in_write()
        if note:
            note(written)
        _rename(tmp, target)
        _log_replace(checked, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        _remove_folders(made)
        raise
    _fsync_dir(target.parent)
    return written


def _rename(src, dst) -> None:
    """os.replace, retried briefly where the OS refuses (a synced or scanned file on Windows)."""
    delay = 0.01
    for attempt in range(8):
        try:
            os.replace(src, dst)
            return
        except PermissionError:
            if attempt == 7:
                raise
            time.sleep(delay)
            delay *= 2


def _fsync_dir(folder: Path) -> None:
    """Flush a folder's entries where the OS allows it."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _move(root: MemoryRoot, ch: Change, sig: Signature | None) -> Written:
    """Move a file (rewriting it when the plan changes its bytes); nothing is left half-moved on failure."""
    path, dest = root.abs(ch.path), root.abs(ch.dest or "")
    if dest.exists():
        raise MemboardError(f"cannot move to {ch.dest}: it exists")
    made = _make_folders(dest.parent)
    try:
        seen = _still(path, ch.before, sig, "before memboard could move it")
        data = ch.before or b""
        if ch.after is not None and ch.after != ch.before:
            data = ch.after
            written = atomic_write(dest, data, expect=None, note=_noter(root, ch.dest or "", data))
            try:
                path.unlink()
            except OSError:
                dest.unlink()
                raise
        else:
            written = seen.sig or signature(os.stat(path))
            _noter(root, ch.dest or "", data)(written)
            _rename(path, dest)
    except BaseException:
        _remove_folders(made)
        raise
    _fsync_dir(dest.parent)
    _fsync_dir(path.parent)
    return [(ch.dest or "", written)]


def _noter(root: MemoryRoot, rel: str, data: bytes) -> Callable[[Signature], None]:
    """What atomic_write calls before its rename: record the new version of rel as settled."""
    return lambda sig: root.known.note(rel, sig, data)


def _step(root: MemoryRoot, ch: Change, sig: Signature | None) -> Written:
    """Carry out one file change, guarded by the signature the plan's file had under the lock; what it wrote."""
    path = root.abs(ch.path)
    if ch.kind in ("create", "modify"):
        data = ch.after or b""
        return [(ch.path, atomic_write(path, data, expect=ch.before, sig=sig, note=_noter(root, ch.path, data)))]
    if ch.kind == "delete":
        if _still(path, ch.before, sig, "before memboard could delete it").data is None:
            return []  # planned from a read that found it gone already (a temp file renamed meanwhile)
        path.unlink()
        if ch.path.startswith("archive/"):
            try:
                path.parent.rmdir()  # an archive folder this delete emptied goes too
            except OSError:
                pass
        elif ch.path.startswith(".memboard/"):
            _prune_empty(path.parent, root.path)
        _fsync_dir(path.parent)
        return []
    if ch.kind == "move":
        return _move(root, ch, sig)
    raise MemboardError(f"unknown change kind {ch.kind}")  # pragma: no cover - plans are built by memboard itself


def _prune_empty(folder: Path, stop: Path) -> None:
    """Remove folder and its parents up to (not including) stop while they are empty: the folders
    of an older memboard's state in the root, once their files moved to local state."""
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _verify_change(root: MemoryRoot, ch: Change) -> str | None:
    """Why a written change does not hold, or None when it does."""
    if ch.kind in ("create", "modify"):
        data = root.read(ch.path)
        if data != ch.after:
            from .rebase import contains_change

            # a hand edit saved just after our rename: fine as long as our lines are all there
            if data is None or ch.kind != "modify" or not contains_change(ch.before or b"", ch.after or b"", data):
                return f"{ch.path} does not hold the planned bytes"
    elif ch.kind == "delete":
        if root.exists(ch.path):
            return f"{ch.path} still exists"
    elif ch.kind == "move":
        want = ch.after if ch.after is not None else ch.before
        if root.exists(ch.path):
            return f"{ch.path} was not moved"
        if root.read(ch.dest or "") != want:
            return f"{ch.dest} does not hold the moved bytes"
    return None


def _write_rebased(root: MemoryRoot, plan: Plan, at: int, settle_wait: float) -> Written | None:
    """Mid-plan, a file changed under us: apply our line changes onto its settled fresh bytes instead.

    The earlier steps are written, so rebuilding the plan is no longer possible; the fresh
    file is waited for until it is settled (never merged onto a save in progress), then the
    step's own hunks are merged with the other writer's (see rebase.py). What it wrote; None
    on a conflict (the caller reports the operation incomplete). NotSettled when the file
    never settles.
    """
    from dataclasses import replace

    from .rebase import rebase

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
        try:
            return [(ch.path, atomic_write(path, merged, expect=seen.data, sig=seen.sig, note=_noter(root, ch.path, merged)))]
        except ChangedUnderfoot:
            continue
    return None


def _write_step(root: MemoryRoot, plan: Plan, number: int, sigs: dict, done: list[str], settle_wait: float) -> str:
    """Write step number (1-based); a short note of what was done. Before anything is written a failure says
    "nothing written"; after that it is Incomplete and names what was done."""
    global _current_step
    ch = plan.changes[number - 1]
    note = ch.describe()
    try:
        _current_step = number
        written = _step(root, ch, sigs.get(ch.path))
    except ChangedUnderfoot as exc:
        if not done:
            raise
        try:
            rebased = _write_rebased(root, plan, number - 1, settle_wait)
        except NotSettled as late:
            raise Incomplete(f"{plan.op} incomplete: {late.what}; done before: {', '.join(done)}; run `memboard doctor`") from None
        if rebased is None:
            raise Incomplete(f"{plan.op} incomplete: {exc}; done before: {', '.join(done)}; run `memboard doctor`") from None
        written, note = rebased, note + " (rebased onto a concurrent edit)"
    except Exception as exc:
        detail = getattr(exc, "strerror", None) or str(exc)
        if not done:
            raise MemboardError(f"{plan.op}: cannot {ch.describe()} ({detail}); nothing written") from None
        raise Incomplete(
            f"{plan.op} incomplete: failed to {ch.describe()} ({detail}); done before: {', '.join(done)}; "
            "run `memboard doctor`"
        ) from None
    finally:
        _current_step = 0
    sigs.update(written)
    return note


def _verify(root: MemoryRoot, plan: Plan, settle_wait: float) -> None:
    """Verify every step and check on settled reads of the written files (a save begun right after memboard's
    rename is waited for, not taken for a failed write)."""
    settled: dict[str, bytes | None] = {}
    problems: list[str] = []
    for ch in plan.changes:
        if ch.kind not in ("create", "modify") or ch.path in settled:
            continue
        seen = root.read_seen(ch.path)
        if seen.data != ch.after and not root.settled(ch.path, seen, ch.after):
            try:
                seen = root.wait_settled({ch.path: (ch.after, None)}, Budget(settle_wait))[ch.path]
            except NotSettled as exc:
                problems.append(exc.what)
        settled[ch.path] = seen.data
    with root.pinned(settled):
        problems += [p for p in (_verify_change(root, ch) for ch in plan.changes) if p]
        problems += [c.description for c in plan.checks if not c.holds(root)]
    if problems:
        raise Incomplete(f"{plan.op} incomplete: verification failed: {'; '.join(problems)}")


def write_and_verify(
    root: MemoryRoot,
    plan: Plan,
    sigs: dict[str, Signature | None] | None = None,
    settle_wait: float = SETTLE_WAIT,
    progress: Progress | None = None,
) -> None:
    """Write the plan's steps in order (caller holds the lock), then verify every step.

    sigs are the touched files' signatures as `confirm` saw them settled under the lock: a
    file that no longer has its signature is not replaced. What memboard writes is recorded
    as settled, so the next command does not wait for it.
    """
    sigs = dict(sigs or {})
    done: list[str] = []
    from . import localstate

    localstate.write_local(root, plan)  # local state first: a move copies there before the root loses anything
    try:
        for number in range(1, len(plan.changes) + 1):
            done.append(_write_step(root, plan, number, sigs, done, settle_wait))
            try:
                _fault(number)
            except RuntimeError as exc:
                raise Incomplete(f"{plan.op} incomplete: {exc}; done: {', '.join(done)}; run `memboard doctor`") from None
            if progress is not None:
                progress(number, len(plan.changes))
        _verify(root, plan, settle_wait)
    finally:
        root.known.save()
    from . import revisions

    revisions.record_plan(root, plan)
