"""Timing primitives for the benchmarks: whole-process wall time, medians and percentiles."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path


class BenchFailure(RuntimeError):
    """A measured command failed, so its figure cannot be reported."""


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
