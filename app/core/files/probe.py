"""Where tests and benchmarks look into memboard's writes or break them on purpose.

memboard calls the installed probe at the moments a crash test or a lock figure needs: after
each file step of a plan, between a step's temp file and its rename, after a guarded rename,
when the root's lock is released. The probe memboard runs with does nothing; a test or a
benchmark installs its own (`install`) in its process, or runs memboard through a launcher
that does (tests/support/faultrun.py). Nothing here reads the environment.
"""

from __future__ import annotations

from pathlib import Path


class Probe:
    """Hooks at the moments that matter for crash tests and lock figures; each does nothing here."""

    fair_lock = True  # False: plain filelock without the FIFO ticket queue (bench/lock.py --compare)

    def after_step(self, step: int) -> None:
        """A plan's file step `step` (from 1) is written; raising here leaves the operation incomplete."""

    def before_rename(self, step: int) -> None:
        """Step `step`'s temp file is written and flushed, its rename not yet done."""

    def replaced(self, checked: float, target: Path) -> None:
        """A guarded rename replaced target; checked is the wall-clock time of the last look at the old file."""

    def lock_released(self, wait: float, hold: float) -> None:
        """The root's lock was held for `hold` seconds after a wait of `wait` seconds."""


_installed = Probe()


def current() -> Probe:
    """The probe of this process."""
    return _installed


def install(probe: Probe) -> Probe:
    """Make probe the process's probe; returns the one it replaces (to put back)."""
    global _installed
    previous, _installed = _installed, probe
    return previous
