"""The first search on a large root whose search cache is not built: the build runs in a process of its own.

Building the cache of a 100k-row root takes seconds (it reads every row, snapshot, archived session
and note into FTS5); a person at the command line or an agent over MCP should not wait for it
(issue 29). So a search that finds no cache on a root holding more than BESIDE_BYTES starts the
build in a detached process (`python -m memboard.core.search.beside ROOT`) and answers at once
from the files (engine.run, scan.scan_until): within a time budget, the whole answer when the scan
ends in time, else the part read in time, said so. The next searches use the cache once it is in
place; until then they answer from the files too (no second build is started while one runs).

The process started is a small supervisor: it runs the build in a child process and waits for it.
A build killed mid-way (SIGKILL, out of memory) leaves its temp file (`<cache>.<pid>.<hex>.tmp`,
gigabytes at 1M rows): the supervisor removes the temp files of dead builders at once, so a killed
build leaves nothing behind; a cache is only ever moved into place whole (cache.py), so no half
cache is trusted. A smaller root keeps the in-process build: it costs less than the process start.
"""

from __future__ import annotations

import os
import subprocess
import sys

from ..files.root import MemoryRoot
from ..formats.layout import INDEX
from . import cache as search_cache
from .docs import listing

BESIDE_BYTES = 4 << 20  # a root holding more than this builds its first cache beside the search (~12k rows)


def wanted(root: MemoryRoot) -> bool:
    """Whether a first search on root should build the cache beside it: no cache file is there and the root is
    large (index.md and the files search reads hold more than BESIDE_BYTES)."""
    try:
        if search_cache.cache_path(root).exists():
            return False
        size = os.stat(os.path.join(root.path, INDEX)).st_size
    except OSError:
        return False
    if size > BESIDE_BYTES:
        return True
    return size + sum(s for s, _ in listing(str(root.path)).values()) > BESIDE_BYTES


def building(root: MemoryRoot) -> bool:
    """Whether some process holds root's build lock now (a build is under way)."""
    from filelock import FileLock, Timeout  # lazy: only a search that finds no cache asks

    try:
        lock = FileLock(str(search_cache.cache_path(root)) + ".lock")
        lock.acquire(timeout=0)
    except Timeout:
        return True
    except OSError:
        return False
    lock.release()
    return False


def start(root: MemoryRoot) -> str:
    """Start building root's cache in a detached process unless a build runs already; says which, in words."""
    if building(root):
        return "the search cache is being built by another process"
    try:
        _spawn(["--supervise", str(root.path)])
    except OSError as exc:
        return f"the search cache could not be built beside this search ({exc.strerror or exc})"
    return "the search cache is being built beside this search"


def _spawn(args: list[str]) -> subprocess.Popen[bytes]:
    """This module run with args in a process of its own: no terminal, its own session, nothing inherited."""
    extra: dict[str, object] = {}
    if os.name == "posix":
        extra["start_new_session"] = True
    else:  # (Windows: no console and a group of its own, so that the caller's Ctrl+C does not reach it)
        extra["creationflags"] = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(
            subprocess, "CREATE_NEW_PROCESS_GROUP", 0
        )
    proc: subprocess.Popen[bytes] = subprocess.Popen(
        [sys.executable, "-m", f"{__package__}.beside", *args],  # (not __name__: __main__ when run with -m)
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        **extra,  # type: ignore[call-overload]
    )
    return proc


def build(root: MemoryRoot) -> int:
    """Build root's cache here (exit status 0 when built or already there, 1 when it could not be)."""
    try:
        with search_cache.SearchCache(root, refresh=False):
            return 0
    except (search_cache.CacheBusy, search_cache.CacheUnavailable):
        return 1


def supervise(root: MemoryRoot) -> int:
    """Run the build in a child process; once it ends, however it ends, remove dead builders' temp files."""
    try:
        code = _spawn(["--build", str(root.path)]).wait()
    finally:
        search_cache.sweep_dead_builds(search_cache.cache_path(root))
    return 0 if code == 0 else 1


def main(argv: list[str]) -> int:
    """`python -m memboard.core.search.beside --supervise|--build ROOT`."""
    if len(argv) != 2 or argv[0] not in ("--supervise", "--build"):
        print("usage: python -m memboard.core.search.beside --supervise|--build ROOT", file=sys.stderr)
        return 2
    root = MemoryRoot(argv[1])
    return supervise(root) if argv[0] == "--supervise" else build(root)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
