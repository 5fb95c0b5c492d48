"""Whole-process figures of the command line on generated roots, beside `python -c pass`."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from .roots import RootCache
from .timing import bench_env, time_process

PYTHON = sys.executable
PASS = [PYTHON, "-c", "pass"]
IMPORT_CLI = [PYTHON, "-c", "import memboard.cli"]
BIG_ROOT_ROWS = 100_000
BIG_ROOT_RUNS = 5  # a 100k-row command takes seconds; 5 runs keep the full run within minutes
CLAUDE_SESSION_START = {
    "session_id": "9f1c2d3e-bench",
    "transcript_path": "/tmp/bench-transcript.jsonl",
    "cwd": "/tmp",
    "hook_event_name": "SessionStart",
    "source": "startup",
}


def memboard_cmd() -> list[str]:
    """How a hook or a user runs memboard: the console script beside this Python."""
    script = Path(PYTHON).parent / ("memboard.exe" if sys.platform == "win32" else "memboard")
    return [str(script)] if script.exists() else [PYTHON, "-m", "memboard"]


def measure_import(state: Path, runs: int, warmup: bool = True) -> tuple[list[float], list[float]]:
    """Wall times of `python -c "import memboard.cli"`, each after a `python -c pass`."""
    return time_process(IMPORT_CLI, bench_env(state), runs, warmup=warmup, baseline=PASS)


def has_command(name: str, state: Path) -> bool:
    """Whether this memboard build has the sub-command `name`."""
    import subprocess

    proc = subprocess.run(memboard_cmd() + [name, "--help"], capture_output=True, env=bench_env(state))
    return proc.returncode == 0


def measure_commands(
    cache: RootCache, rows: int, runs: int, state: Path, include_hook: bool, warmup: bool = True
) -> dict[str, tuple[list[float], list[float]]]:
    """Wall times of each CLI figure at `rows` rows (and of `python -c pass` run beside each)."""
    mb = memboard_cmd()
    env = bench_env(state)
    manifest = cache.get(rows)
    out: dict[str, tuple[list[float], list[float]]] = {}

    def measure(cmd, **kw):
        """Time cmd with `python -c pass` interleaved as its baseline."""
        return time_process(cmd, env, count, warmup=warmup, baseline=PASS, **kw)

    count = min(runs, BIG_ROOT_RUNS) if rows >= BIG_ROOT_ROWS else runs

    if include_hook:
        root = cache.copy(rows)
        stdin = json.dumps(CLAUDE_SESSION_START).encode("utf-8")
        out["memboard hook claude"] = measure(mb + ["hook", "claude", "--root", str(root)], stdin=stdin)
        shutil.rmtree(root, ignore_errors=True)

    root = cache.copy(rows)
    out["memboard register"] = measure(mb + ["register", "--root", str(root)])
    shutil.rmtree(root, ignore_errors=True)

    root = cache.copy(rows)
    out["memboard list --json"] = measure(mb + ["list", "--json", "--root", str(root)])
    out["memboard organize --dry-run"] = measure(mb + ["organize", "--dry-run", "--root", str(root)])

    def fresh_index(_i: int) -> None:
        """Organize deletes idle rows: each run starts from the pristine index."""
        cache.restore_index(rows, root)

    out["memboard organize"] = measure(mb + ["organize", "--root", str(root)], before_each=fresh_index)
    cache.restore_index(rows, root)

    targets = iter(manifest.archivable)

    def next_target(_i: int) -> list[str]:
        """Each archive run archives a different session that has a snapshot and no references."""
        return mb + ["archive", next(targets), "--root", str(root)]

    out["memboard archive"] = measure(mb + ["archive"], before_each=next_target)
    shutil.rmtree(root, ignore_errors=True)
    return out
