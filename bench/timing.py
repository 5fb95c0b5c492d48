"""Timing primitives for the benchmarks: whole-process wall time, medians and percentiles."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

CHILD = Path(__file__).resolve().parent / "child.py"


class BenchFailure(RuntimeError):
    """A measured command failed, so its figure cannot be reported."""


@dataclass
class Sample:
    """One run of a command, measured by bench/child.py: its own wall and CPU seconds, its own peak memory."""

    wall: float
    cpu: float
    peak_mb: float


def sample(
    cmd: Sequence[str], env: dict, stdin: bytes | None = None, timeout: float = 600, expect: str | None = None
) -> Sample:
    """Run cmd once under bench/child.py (whose stdout must hold expect, when given); a non-zero exit is a BenchFailure."""
    import json
    import sys

    wrapper = [sys.executable, str(CHILD), *(["--expect", expect] if expect else []), *cmd]
    proc = subprocess.run(wrapper, input=stdin, capture_output=True, env=env, timeout=timeout)
    lines = proc.stdout.decode("utf-8", "replace").strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise BenchFailure(f"bench/child.py failed: {proc.stderr.decode('utf-8', 'replace')[-300:]}")
    rep = json.loads(lines[-1])
    if rep["code"] != 0:
        err = rep["err"].strip().splitlines()
        raise BenchFailure(f"{' '.join(cmd[-4:])} exited {rep['code']}: {err[-1] if err else ''}")
    return Sample(rep["wall"], rep["cpu"], rep["peak_mb"])


def median(values: Sequence[float]) -> float:
    """The median of values (NaN when there are none)."""
    return statistics.median(values) if values else float("nan")


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank, NaN when there are no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]


def bench_env(state: Path, extra: dict | None = None) -> dict:
    """An environment that keeps memboard away from the user's config, state and root."""
    env = dict(os.environ)
    for name in ("MEMBOARD_ROOT",):
        env.pop(name, None)
    state.mkdir(parents=True, exist_ok=True)
    env["MEMBOARD_STATE_DIR"] = str(state)
    env["MEMBOARD_CONFIG"] = str(state / "config.toml")
    env["MEMBOARD_NOW"] = "2026-06-01 09:30"
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users have bytecode caches; so do the figures
    env.update(extra or {})
    return env


def run_once(cmd: Sequence[str], env: dict, stdin: bytes | None = None, timeout: float = 300) -> float:
    """Run cmd to completion and return its wall time in seconds; a non-zero exit is a BenchFailure."""
    start = time.perf_counter()
    proc = subprocess.run(
        list(cmd),
        input=stdin,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        timeout=timeout,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BenchFailure(f"{' '.join(cmd[-4:])} exited {proc.returncode}: {err[-1] if err else ''}")
    return elapsed


def time_process(
    cmd: Sequence[str],
    env: dict,
    runs: int,
    stdin: bytes | None = None,
    before_each: Callable[[int], Sequence[str] | None] | None = None,
    warmup: bool = True,
    baseline: Sequence[str] | None = None,
) -> tuple[list[float], list[float]]:
    """Wall times of `runs` runs of cmd, and of baseline run just before each (same noise).

    before_each(i) may prepare files (untimed) or return the command to run instead;
    i is -1 for the warm-up run.
    """
    times: list[float] = []
    base_times: list[float] = []
    if warmup:
        prepared = before_each(-1) if before_each else None
        run_once(prepared or cmd, env, stdin)
    for i in range(runs):
        prepared = before_each(i) if before_each else None
        if baseline is not None:
            base_times.append(run_once(baseline, env))
        times.append(run_once(prepared or cmd, env, stdin))
    return times, base_times
