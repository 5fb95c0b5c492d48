"""Applying plans: one lock per root, re-read under the lock, atomic ordered writes, verify."""

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
from .root import MemoryRoot

LOCK_TIMEOUT_ENV = "MEMBOARD_LOCK_TIMEOUT"
FAULT_ENV = "MEMBOARD_FAULT_AFTER_STEP"
FAULT_MODE_ENV = "MEMBOARD_FAULT_MODE"
LOCK_QUEUE_ENV = "MEMBOARD_LOCK_QUEUE"  # "0" turns the FIFO queue off (bench/lock.py compares both)
LOCK_STATS_ENV = "MEMBOARD_LOCK_STATS"  # bench/tests: append "wait hold" seconds per lock to this file
DEFAULT_LOCK_TIMEOUT = 20.0
POLL_INTERVAL = 0.002

Builder = Callable[[MemoryRoot], Plan]
ANY = object()  # atomic_write: do not compare the file before replacing it
REBUILDS = 8


class ChangedUnderfoot(MemboardError):
    """A file changed between the plan's read and its rename (a writer that skips the lock)."""


def lock_path(root: MemoryRoot) -> Path:
    """The lock file of a root: in local state, keyed by the root's real path."""
    from .localstate import root_key

    return config.state_dir() / "locks" / f"{root_key(root.real)}.lock"


def lock_timeout() -> float:
    """Seconds to wait for the lock: MEMBOARD_LOCK_TIMEOUT, config `lock_timeout`, or 20."""
    raw = os.environ.get(LOCK_TIMEOUT_ENV)
    if raw:
        try:
            return max(0.0, float(raw))
        except ValueError:
            pass
    try:
        value = config.load().get("lock_timeout")
    except MemboardError:
        value = None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return DEFAULT_LOCK_TIMEOUT


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


def unchanged(root: MemoryRoot, plan: Plan) -> bool:
    """Whether every file the plan touches still holds the bytes it was built from."""
    for rel, before in plan.expected_before().items():
        if root.read(rel) != before:
            return False
    from . import localstate

    return localstate.unchanged(root, plan)


SETTLE_SECONDS = 0.5


def _mid_save(path: Path) -> bool:
    """Whether a file looks caught in a plain (truncate, then write) save: empty, or just
    modified and cut off without a final newline."""
    try:
        st = path.stat()
        if st.st_size == 0:
            return True
        if time.time() - st.st_mtime > 2:
            return False
        with open(path, "rb") as fh:
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) != b"\n"
    except OSError:
        return False


def _settle(root: MemoryRoot, plan: Plan) -> None:
    """Wait briefly (SETTLE_SECONDS at most) while a file the plan touches looks mid-save: an
    editor may be between its truncate and its write. Building on that read would drop rows."""
    deadline = time.perf_counter() + SETTLE_SECONDS
    for rel in plan.paths():
        path = root.abs(rel)
        while time.perf_counter() < deadline and _mid_save(path):
            time.sleep(0.01)


def execute(root: MemoryRoot, build: Builder, dry_run: bool = False, timeout: float | None = None) -> Plan:
    """Build a plan and, unless dry_run, apply it; rebuilt under the lock if files changed.

    timeout bounds the wait for the lock (default: lock_timeout()); hooks pass a short one.
    """
    root.require_memory_root()
    plan = build(root)
    if dry_run or plan.empty:
        return plan
    with locked(root, timeout):
        for attempt in range(REBUILDS):
            _settle(root, plan)
            if not unchanged(root, plan):
                plan = build(root)
                if plan.empty:
                    return plan
            try:
                write_and_verify(root, plan)
                return plan
            except ChangedUnderfoot:
                if attempt == REBUILDS - 1:
                    raise MemboardError(
                        f"{plan.op}: index files keep changing under memboard (another tool writing without the lock?); "
                        "nothing written, try again"
                    ) from None
    return plan


def apply_exact(root: MemoryRoot, plan: Plan, build: Builder) -> Plan:
    """Apply exactly this previewed plan, or raise StalePlan with a fresh one; never blind."""
    root.require_memory_root()
    if plan.empty:
        return plan
    with locked(root):
        _settle(root, plan)
        if not unchanged(root, plan):
            raise StalePlan("the files changed since this preview; review the new plan", build(root))
        try:
            write_and_verify(root, plan)
        except ChangedUnderfoot:
            raise StalePlan("the files changed while writing this preview; review the new plan", build(root)) from None
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


def _current(path: Path) -> bytes | None:
    """The bytes at path right now (None when absent)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def atomic_write(path: Path, data: bytes, expect=ANY) -> None:
    """Write data to path via a temp file in the same folder, fsync, then rename over it.

    With `expect` (the bytes the plan read, None for "absent"), the file is compared once
    more after the temp file is flushed, immediately before the rename; if a writer that
    skips the lock (a hand edit, a sync tool) changed it, ChangedUnderfoot is raised and
    nothing is replaced.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _file_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".memboard-tmp", dir=path.parent)
    try:
        if os.name != "nt":
            os.fchmod(fd, mode)  # mkstemp makes 0600 files; keep the file's own permissions
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if expect is not ANY and _current(path) != expect:
            raise ChangedUnderfoot(f"{path.name} changed while memboard was writing it")
        if _current_step:
            _fault_in_write()
        _rename(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


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


def _step(root: MemoryRoot, ch: Change) -> None:
    """Carry out one file change."""
    path = root.abs(ch.path)
    if ch.kind in ("create", "modify"):
        atomic_write(path, ch.after or b"", expect=ch.before)
    elif ch.kind == "delete":
        if _current(path) != ch.before:
            raise ChangedUnderfoot(f"{ch.path} changed before memboard could delete it")
        path.unlink()
        if ch.path.startswith("archive/"):
            try:
                path.parent.rmdir()  # an archive folder this delete emptied goes too
            except OSError:
                pass
        elif ch.path.startswith(".memboard/"):
            _prune_empty(path.parent, root.path)
        _fsync_dir(path.parent)
    elif ch.kind == "move":
        dest = root.abs(ch.dest)
        if dest.exists():
            raise MemboardError(f"cannot move to {ch.dest}: it exists")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if _current(path) != ch.before:
            raise ChangedUnderfoot(f"{ch.path} changed before memboard could move it")
        if ch.after is not None and ch.after != ch.before:
            atomic_write(dest, ch.after, expect=None)
            path.unlink()
        else:
            _rename(path, dest)
        _fsync_dir(dest.parent)
        _fsync_dir(path.parent)
    else:  # pragma: no cover - plans are built by memboard itself
        raise MemboardError(f"unknown change kind {ch.kind}")


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
        if root.read(ch.dest) != want:
            return f"{ch.dest} does not hold the moved bytes"
    return None


def _write_rebased(root: MemoryRoot, plan: Plan, at: int) -> bool:
    """Mid-plan, a file changed under us: apply our line changes onto its fresh bytes instead.

    The earlier steps are written, so rebuilding the plan is no longer possible; the step's
    own hunks are merged with the other writer's (see rebase.py). True when written; False
    on a conflict (the caller reports the operation incomplete).
    """
    from dataclasses import replace

    from .rebase import rebase

    ch = plan.changes[at]
    if ch.kind != "modify":
        return False
    path = root.abs(ch.path)
    for _ in range(REBUILDS):
        fresh = _current(path)
        merged = rebase(ch.before or b"", ch.after or b"", fresh) if fresh is not None else None
        if merged is None:
            return False
        plan.changes[at] = replace(ch, before=fresh, after=merged)
        try:
            atomic_write(path, merged, expect=fresh)
            return True
        except ChangedUnderfoot:
            ch = plan.changes[at]
    return False


def write_and_verify(root: MemoryRoot, plan: Plan) -> None:
    """Write the plan's steps in order (caller holds the lock), then verify every step."""
    global _current_step
    from . import localstate

    localstate.write_local(root, plan)  # local state first: a move copies there before the root loses anything
    done: list[str] = []
    for number, ch in enumerate(plan.changes, start=1):
        try:
            _current_step = number
            _step(root, ch)
        except ChangedUnderfoot as exc:
            if not done:
                raise
            if _write_rebased(root, plan, number - 1):
                done.append(plan.changes[number - 1].describe() + " (rebased onto a concurrent edit)")
                continue
            raise Incomplete(
                f"{plan.op} incomplete: {exc}; done before: {', '.join(done)}; run `memboard doctor`"
            ) from None
        except Exception as exc:
            detail = getattr(exc, "strerror", None) or str(exc)
            finished = ", ".join(done) if done else "nothing"
            raise Incomplete(
                f"{plan.op} incomplete: failed to {ch.describe()} ({detail}); done before: {finished}; "
                "run `memboard doctor`"
            ) from None
        finally:
            _current_step = 0
        done.append(ch.describe())
        try:
            _fault(number)
        except RuntimeError as exc:
            raise Incomplete(f"{plan.op} incomplete: {exc}; done: {', '.join(done)}; run `memboard doctor`") from None
    problems = [p for p in (_verify_change(root, ch) for ch in plan.changes) if p]
    problems += [c.description for c in plan.checks if not c.holds(root)]
    if problems:
        raise Incomplete(f"{plan.op} incomplete: verification failed: {'; '.join(problems)}")
    from . import revisions

    revisions.record_plan(root, plan)
