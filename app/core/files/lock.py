"""One lock per memory root, in local state (never in the synced root), taken in arrival order.

filelock alone is not fair: whoever polls first after a release wins, so one waiter can lose
dozens of rounds in a row. Waiters therefore queue by arrival time (`Ticket`); only the head
of the queue takes the root lock. The wait is bounded: past it, one line says who holds what.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .. import config
from ..errors import MemboardError
from . import probe, statepaths
from .root import MemoryRoot
from .trees import MEMORY_ROOT, PlaceKind, Tree, lock_order

if TYPE_CHECKING:
    from filelock import FileLock

LOCK_TIMEOUT_ENV = "MEMBOARD_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT = 20.0
POLL_INTERVAL = 0.002


def lock_path(root: MemoryRoot) -> Path:
    """The lock file of a root: in local state, keyed by the root's real path."""
    return statepaths.lock_file(root.real)


def lock_timeout() -> float:
    """Seconds to wait for the lock: MEMBOARD_LOCK_TIMEOUT, config `lock_timeout`, or 20."""
    return config.seconds_setting(LOCK_TIMEOUT_ENV, "lock_timeout", DEFAULT_LOCK_TIMEOUT)


class Ticket:
    """A place in a root's FIFO lock queue: a file in `<lock>.queue/`, held locked while queued.

    Each waiter waits only for the live ticket just ahead of it (by taking that ticket's lock,
    which its owner holds until it is done). A crashed owner's ticket is unlocked by the OS, so
    the next waiter takes it at once and removes it.
    """

    def __init__(self, folder: Path):
        """Join the queue in folder (created when missing)."""
        from filelock import FileLock  # lazy: as in locked()

        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.name = f"{time.time_ns():020d}-{os.getpid():08d}-{os.urandom(3).hex()}.ticket"
        self.lock = FileLock(str(folder / self.name))
        self.lock.acquire(timeout=1.0, poll_interval=POLL_INTERVAL)

    def wait_turn(self, deadline: float) -> None:
        """Return once no live ticket is ahead; raise filelock.Timeout at the deadline."""
        from filelock import FileLock, Timeout  # lazy: as in locked()

        while True:
            ahead = [n for n in os.listdir(self.folder) if n.endswith(".ticket") and n < self.name]
            if not ahead:
                return
            previous = self.folder / max(ahead)
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise Timeout(str(previous))
            waiting = FileLock(str(previous))
            try:
                waiting.acquire(timeout=remaining, poll_interval=POLL_INTERVAL)
            except FileNotFoundError:
                continue
            _discard(waiting, previous)

    def leave(self) -> None:
        """Leave the queue (after the critical section, or on giving up)."""
        _discard(self.lock, self.folder / self.name)


def _discard(lock: FileLock, path: Path) -> None:
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
def locked(root: MemoryRoot, timeout: float | None = None, also: list[Tree] | None = None) -> Iterator[float]:
    """Hold the locks of the trees a plan on root writes in (see MemoryRoot.trees) and of the trees also names;
    yields the seconds spent waiting. A bounded, fair (FIFO) wait, then an error."""
    with locked_trees([*root.trees(), *(also or [])], timeout) as waited:
        yield waited


@contextmanager
def locked_trees(trees: list[Tree], timeout: float | None = None) -> Iterator[float]:
    """Hold the locks of all these trees, taken in order of real path (see trees.lock_order); yields the
    seconds spent waiting for them. Each is a bounded, fair wait (the timeout bounds the whole)."""
    with ExitStack() as stack:
        start = time.perf_counter()
        wait = lock_timeout() if timeout is None else timeout
        for tree in lock_order(trees):
            left = max(0.0, start + wait - time.perf_counter())
            stack.enter_context(_locked_file(tree.lock_file, left, tree, wait))
        yield time.perf_counter() - start


@contextmanager
def _locked_file(path: Path, wait: float, tree: Tree, told: float) -> Iterator[None]:
    """Hold one lock file for up to wait seconds of waiting (told: the wait the error names)."""
    from filelock import FileLock, Timeout  # lazy: a preview, a listing or a search never locks (10 ms to import)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MemboardError(f"cannot create lock folder {path.parent}: {exc.strerror or exc}") from None
    lock = FileLock(str(path))
    start = time.perf_counter()
    ticket = None
    try:
        if probe.current().fair_lock:
            ticket = Ticket(path.with_suffix(".queue"))
            ticket.wait_turn(start + wait)
        lock.acquire(timeout=max(0.0, start + wait - time.perf_counter()), poll_interval=POLL_INTERVAL)
    except Timeout:
        if ticket:
            ticket.leave()
        if tree.kind is MEMORY_ROOT:
            what = "memory root"
        elif isinstance(tree.kind, PlaceKind):
            what = f"{tree.kind.name} {tree.path}"
        else:
            what = str(tree.path / tree.allow[0])
        raise MemboardError(f"{what} is locked by another writer (waited {told:g}s; lock file {path})") from None
    except OSError as exc:
        if ticket:
            ticket.leave()
        raise MemboardError(f"cannot take lock {path}: {exc.strerror or exc}") from None
    taken = time.perf_counter()
    try:
        yield
    finally:
        lock.release()
        if ticket:
            ticket.leave()
        probe.current().lock_released(taken - start, time.perf_counter() - taken)
