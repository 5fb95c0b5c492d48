"""The probe benchmark workers install in their own process: lock figures, rename times, plain filelock.

The driver scripts pass the settings to their worker processes in the environment
(BENCH_LOCK_STATS, BENCH_REPLACE_LOG, BENCH_LOCK_QUEUE); memboard itself reads none of them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memboard.core.files import probe


def _append(target: str, line: str) -> None:
    """Append one line to a figures file (several processes append to it at once)."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, line.encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)
    except OSError:
        pass


class BenchProbe(probe.Probe):
    """Record each lock's wait and hold (BENCH_LOCK_STATS) and each guarded rename's window
    (BENCH_REPLACE_LOG); BENCH_LOCK_QUEUE=0 takes the lock without the FIFO queue."""

    def __init__(self, env: Mapping[str, str]):
        """Settings from env."""
        self.stats = env.get("BENCH_LOCK_STATS")
        self.replace_log = env.get("BENCH_REPLACE_LOG")
        self.fair_lock = env.get("BENCH_LOCK_QUEUE") != "0"

    def lock_released(self, wait: float, hold: float) -> None:
        """One `wait hold pid` line per lock."""
        if self.stats:
            _append(self.stats, f"{wait:.6f} {hold:.6f} {os.getpid()}\n")

    def replaced(self, checked: float, target: Path) -> None:
        """One `checked replaced path` line per guarded rename."""
        if self.replace_log:
            import time

            _append(self.replace_log, f"{checked:.6f} {time.time():.6f} {target}\n")


def install_from_env() -> None:
    """Install the bench probe this process's environment describes."""
    probe.install(BenchProbe(os.environ))
