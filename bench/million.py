"""Issue 29's large-root figures for bench/run.py: the commands that read a whole index at 1M rows, and the search
cache's build beside its floor.

At 1,000,000 rows (root b, and root a) a command must stay under 1 GB of memory and grow linearly from 100k
rows: each command here runs as a whole process under bench/child.py (its own wall, CPU and peak resident
memory) right after the floor on the same index, as cli_figures.measure_commands does at the smaller sizes,
but with no warm-up run and few runs (one by default: a 1M-row `doctor` takes half a minute). The search
cache's build (`python -m memboard.core.search.beside --build ROOT`, a whole process) runs beside
bench/search_floor.py on the same root, for the build's 2x target and its growth to 1M rows.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from .cli_figures import Measured, chain_target, floor_cmd, idle, memboard_cmd, run_series
from .roots import RootCache
from .timing import Sample, bench_env, sample

PYTHON = sys.executable
FLOOR_SCRIPT = Path(__file__).resolve().parent / "search_floor.py"
BIG_ROWS = 1_000_000
BUILD_TIMEOUT = 1800.0  # seconds: a 1M-row build took 50 s of CPU on an idle machine, minutes on a busy one
# (name as bench/run.py's command figures are named, so that the growth pairs them; arguments; whether it writes)
COMMANDS = (
    ("memboard list --json", ["list", "--json"], False),
    ("memboard organize --dry-run", ["organize", "--dry-run"], True),
    ("memboard organize", ["organize"], True),
    # --exit-zero: the roots hold findings, on which doctor exits 1 like a checker (see cli_figures); --json only:
    # plain doctor does the same work and peaks alike (2.2 GB at 1M rows of root b both), 20 s more a root
    ("memboard doctor --json", ["doctor", "--json", "--exit-zero"], False),
)
UPDATE = "memboard update ID --summary x"
NAMES = tuple(name for name, _args, _writes in COMMANDS) + (UPDATE,)


def measure_commands(cache: RootCache, rows: int, runs: int, state: Path) -> dict[str, Measured]:
    """COMMANDS and `update` at rows rows: runs of each (no warm-up), each right after the floor. A command that
    writes works on a copy whose index.md is put back before each run."""
    mb, env = memboard_cmd(), bench_env(state)
    manifest = cache.get(rows)
    pristine, work = manifest.path, cache.copy(rows)
    floor = floor_cmd(pristine)

    def fresh(_i: int) -> None:
        """Back to the pristine index, last written a minute ago."""
        cache.restore_index(rows, work)
        idle(work / "index.md")

    out: dict[str, Measured] = {}
    try:
        for name, args, writes in COMMANDS:
            print(f"    {name} @ {rows:,}", file=sys.stderr, flush=True)
            root = work if writes else pristine
            cmd = mb + args + ["--root", str(root)]
            prepare = fresh if writes else None
            out[name] = run_series(lambda i, cmd=cmd: cmd, floor, runs, env, "floor", prepare=prepare, warmup=False)
        print(f"    {UPDATE} @ {rows:,}", file=sys.stderr, flush=True)
        target = chain_target(manifest)
        out[UPDATE] = run_series(
            lambda i: mb + ["update", target, "--summary", f"bench {i}", "--root", str(work)],
            floor,
            runs,
            env,
            "floor",
            prepare=fresh,
            warmup=False,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def build_and_floor(root: Path, state: Path) -> tuple[Sample, Sample]:
    """One whole-process build of root's search cache (from no cache) and one run of its floor, each under
    bench/child.py; the cache is removed afterwards (at 1M rows it is about a gigabyte)."""
    env = bench_env(state)
    folder = state / "search"
    shutil.rmtree(folder, ignore_errors=True)
    try:
        build = sample([PYTHON, "-m", "memboard.core.search.beside", "--build", str(root)], env, timeout=BUILD_TIMEOUT)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="memboard-floor-", dir=state) as tmp:
        floor = sample(
            [PYTHON, str(FLOOR_SCRIPT), str(root), str(Path(tmp) / "floor.sqlite3")], env, timeout=BUILD_TIMEOUT
        )
    return build, floor
