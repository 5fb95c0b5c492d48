"""Applying plans: one lock per root, re-read under the lock, atomic ordered writes, verify."""

from __future__ import annotations

import hashlib
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
DEFAULT_LOCK_TIMEOUT = 20.0
POLL_INTERVAL = 0.002

Builder = Callable[[MemoryRoot], Plan]


def lock_path(root: MemoryRoot) -> Path:
    """The lock file of a root: in local state, keyed by the root's real path."""
    key = hashlib.sha256(str(root.real).encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return config.state_dir() / "locks" / f"{key}.lock"


def lock_timeout() -> float:
    """Seconds to wait for the lock: MEMBOARD_LOCK_TIMEOUT, config `lock_timeout`, or 20."""
    raw = os.environ.get(LOCK_TIMEOUT_ENV)
    if raw:
        try:
            return max(0.0, float(raw))
        except ValueError:
            pass
    return DEFAULT_LOCK_TIMEOUT


@contextmanager
def locked(root: MemoryRoot, timeout: float | None = None) -> Iterator[float]:
    """Hold the root's lock; yields the seconds spent waiting. A bounded wait, then an error."""
    from filelock import FileLock, Timeout

    path = lock_path(root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MemboardError(f"cannot create lock folder {path.parent}: {exc.strerror or exc}") from None
    wait = lock_timeout() if timeout is None else timeout
    lock = FileLock(str(path))
    start = time.perf_counter()
    try:
        lock.acquire(timeout=wait, poll_interval=POLL_INTERVAL)
    except Timeout:
        raise MemboardError(
            f"memory root is locked by another writer (waited {wait:g}s; lock file {path})"
        ) from None
    except OSError as exc:
        raise MemboardError(f"cannot take lock {path}: {exc.strerror or exc}") from None
    try:
        yield time.perf_counter() - start
    finally:
        lock.release()


def unchanged(root: MemoryRoot, plan: Plan) -> bool:
    """Whether every file the plan touches still holds the bytes it was built from."""
    for rel, before in plan.expected_before().items():
        if root.read(rel) != before:
            return False
    return True


def execute(root: MemoryRoot, build: Builder, dry_run: bool = False) -> Plan:
    """Build a plan and, unless dry_run, apply it; rebuilt under the lock if files changed."""
    plan = build(root)
    if dry_run or plan.empty:
        return plan
    with locked(root):
        if not unchanged(root, plan):
            plan = build(root)
            if plan.empty:
                return plan
        write_and_verify(root, plan)
    return plan


def apply_exact(root: MemoryRoot, plan: Plan, build: Builder) -> Plan:
    """Apply exactly this previewed plan, or raise StalePlan with a fresh one; never blind."""
    if plan.empty:
        return plan
    with locked(root):
        if not unchanged(root, plan):
            raise StalePlan("the files changed since this preview; review the new plan", build(root))
        write_and_verify(root, plan)
    return plan


def _fault(step: int) -> None:
    """Fault injection for crash tests: stop after the N-th file step when asked to."""
    target = os.environ.get(FAULT_ENV)
    if target and target.isdigit() and int(target) == step:
        if os.environ.get(FAULT_MODE_ENV) == "kill":
            os._exit(137)
        raise Incomplete(f"incomplete: injected fault after step {step}; run `memboard doctor`")


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


def atomic_write(path: Path, data: bytes) -> None:
    """Write data to path via a temp file in the same folder, fsync, then rename over it."""
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
        atomic_write(path, ch.after or b"")
    elif ch.kind == "delete":
        path.unlink()
        _fsync_dir(path.parent)
    elif ch.kind == "move":
        dest = root.abs(ch.dest)
        if dest.exists():
            raise MemboardError(f"cannot move to {ch.dest}: it exists")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if ch.after is not None and ch.after != ch.before:
            atomic_write(dest, ch.after)
            path.unlink()
        else:
            _rename(path, dest)
        _fsync_dir(dest.parent)
        _fsync_dir(path.parent)
    else:  # pragma: no cover - plans are built by memboard itself
        raise MemboardError(f"unknown change kind {ch.kind}")


def _verify_change(root: MemoryRoot, ch: Change) -> str | None:
    """Why a written change does not hold, or None when it does."""
    if ch.kind in ("create", "modify"):
        if root.read(ch.path) != ch.after:
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


def write_and_verify(root: MemoryRoot, plan: Plan) -> None:
    """Write the plan's steps in order (caller holds the lock), then verify every step."""
    done: list[str] = []
    for number, ch in enumerate(plan.changes, start=1):
        try:
            _step(root, ch)
        except Exception as exc:
            detail = getattr(exc, "strerror", None) or str(exc)
            finished = ", ".join(done) if done else "nothing"
            raise Incomplete(
                f"{plan.op} incomplete: failed to {ch.describe()} ({detail}); done before: {finished}; "
                "run `memboard doctor`"
            ) from None
        done.append(ch.describe())
        _fault(number)
    problems = [p for p in (_verify_change(root, ch) for ch in plan.changes) if p]
    problems += [c.description for c in plan.checks if not c.holds(root)]
    if problems:
        raise Incomplete(f"{plan.op} incomplete: verification failed: {'; '.join(problems)}")
    from . import revisions

    revisions.record_plan(root, plan)
