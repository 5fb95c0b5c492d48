"""Whole-process figures of the command line on generated roots, beside `python -c pass`."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from .roots import RootCache
from .timing import bench_env, median, time_process

PYTHON = sys.executable
PASS = [PYTHON, "-c", "pass"]
IMPORT_CLI = [PYTHON, "-c", "import memboard.cli"]
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


def measure_baselines(state: Path, runs: int) -> dict[str, float]:
    """Median wall time of `python -c pass` and of `python -c "import memboard.cli"`."""
    env = bench_env(state)
    return {
        "python -c pass": median(time_process(PASS, env, runs)),
        "python -c 'import memboard.cli'": median(time_process(IMPORT_CLI, env, runs)),
    }


def has_command(name: str, state: Path) -> bool:
    """Whether this memboard build has the sub-command `name`."""
    import subprocess

    proc = subprocess.run(memboard_cmd() + [name, "--help"], capture_output=True, env=bench_env(state))
    return proc.returncode == 0


def measure_commands(cache: RootCache, rows: int, runs: int, state: Path, include_hook: bool) -> dict[str, list[float]]:
    """Wall times of each CLI figure at `rows` rows, each on its own fresh copy of the root."""
    mb = memboard_cmd()
    env = bench_env(state)
    manifest = cache.get(rows)
    out: dict[str, list[float]] = {}

    if include_hook:
        root = cache.copy(rows)
        stdin = json.dumps(CLAUDE_SESSION_START).encode("utf-8")
        out["memboard hook claude"] = time_process(mb + ["hook", "claude", "--root", str(root)], env, runs, stdin=stdin)
        shutil.rmtree(root, ignore_errors=True)

    root = cache.copy(rows)
    out["memboard register"] = time_process(mb + ["register", "--root", str(root)], env, runs)
    shutil.rmtree(root, ignore_errors=True)

    root = cache.copy(rows)
    out["memboard list --json"] = time_process(mb + ["list", "--json", "--root", str(root)], env, runs)
    out["memboard organize --dry-run"] = time_process(mb + ["organize", "--dry-run", "--root", str(root)], env, runs)

    def fresh_index(_i: int) -> None:
        """Organize deletes idle rows: each run starts from the pristine index."""
        cache.restore_index(rows, root)

    out["memboard organize"] = time_process(mb + ["organize", "--root", str(root)], env, runs, before_each=fresh_index)
    cache.restore_index(rows, root)

    targets = iter(manifest.archivable)

    def next_target(_i: int) -> list[str]:
        """Each archive run archives a different session that has a snapshot and no references."""
        return mb + ["archive", next(targets), "--root", str(root)]

    out["memboard archive"] = time_process(mb + ["archive"], env, runs, before_each=next_target)
    shutil.rmtree(root, ignore_errors=True)
    return out
