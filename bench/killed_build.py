"""Issue 29's "a killed build leaves nothing behind", as a figure of bench/run.py's search section.

A first `memboard search` on a large root with no cache starts the cache's build beside it (a supervisor
and its builder, core/search/beside.py). Here the builder is killed with SIGKILL while it writes its temp
file (`<cache>.<pid>.<hex>.tmp`, the builder's pid in its name; only a process whose command line is that
builder's on this root is killed); then, once the supervisor has had LIMIT seconds to clean up, the figure
is the number of files left in the state folder's search/ that are neither absent nor whole caches: temp
files, and any cache moved into place (a killed build must not leave one). Target: 0.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

from memboard.core.search.beside import BESIDE_BYTES

from .timing import bench_env, sample

LIMIT = 10.0  # seconds for the supervisor to remove what its dead builder left
START_LIMIT = 60.0  # seconds for the builder to start writing its temp file


def builder_pid(tmp: Path, root: Path) -> int | None:
    """The pid in a build's temp file name, if that process is the builder of root's cache."""
    try:
        pid = int(tmp.name.split(".")[-3])
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (ValueError, IndexError, OSError):
        return None
    wanted = [b"memboard.core.search.beside", b"--build", os.fsencode(root)]
    return pid if all(part in cmdline for part in wanted) else None


def wait_for(check, limit: float):
    """check()'s first true value within limit seconds (polled), else its last."""
    until = time.monotonic() + limit
    while True:
        found = check()
        if found or time.monotonic() > until:
            return found
        time.sleep(0.02)


def measure(root: Path, state: Path, mb: list[str], query: str = "obsidian") -> tuple[int | None, str]:
    """(files left after the builder was killed, what happened); None when no builder could be killed."""
    if (root / "index.md").stat().st_size <= BESIDE_BYTES:
        return None, f"index.md under {BESIDE_BYTES >> 20} MiB: its first search builds the cache in process"
    env = bench_env(state)
    folder = state / "search"
    shutil.rmtree(folder, ignore_errors=True)
    sample(mb + ["search", query, "--root", str(root)], env)
    temps = wait_for(lambda: sorted(folder.glob("*.tmp")), START_LIMIT)
    pid = builder_pid(temps[0], root) if temps else None
    if pid is None:
        return None, "no build was seen writing its temp file" if not temps else "its builder was not found"
    os.kill(pid, signal.SIGKILL)
    left = wait_for(lambda: not list(folder.glob("*.tmp")), LIMIT)
    leftovers = sorted(p.name for p in folder.glob("*") if p.suffix in (".tmp", ".sqlite3"))
    how = f"builder {pid} killed (SIGKILL) while writing; " + (
        "its temp file removed at once" if left else f"after {LIMIT:g} s still: {', '.join(leftovers)}"
    )
    shutil.rmtree(folder, ignore_errors=True)
    return len(leftovers), how
