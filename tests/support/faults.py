"""Crashes on purpose: a probe that breaks a plan's write after a chosen file step.

memboard calls its probe after each file step of a plan and between a step's temp file and
its rename (memboard.core.files.probe). `Faults` stops there in one of four ways; install it
in this process with `installed(...)`, or run the CLI in a subprocess through
tests/support/faultrun.py, which reads FAULT_AFTER_STEP, FAULT_MODE and FAULT_SIGNAL.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from memboard.core.files import probe

REPO = Path(__file__).resolve().parents[2]


class Faults(probe.Probe):
    """Stop after file step `step`: raise (mode ""), exit at once ("kill"), park for a `kill -9`
    ("signal": writes the pid to signal_file, then sleeps), or die between the step's temp file
    and its rename ("kill-in-write")."""

    def __init__(self, step: int, mode: str = "", signal_file: Path | None = None):
        """A fault after step (from 1)."""
        self.step, self.mode, self.signal_file = step, mode, signal_file

    def after_step(self, step: int) -> None:
        """Break the write after the chosen step (the product reports an exception as incomplete)."""
        if step != self.step or self.mode == "kill-in-write":
            return
        if self.mode == "kill":
            os._exit(137)
        if self.mode == "signal" and self.signal_file is not None:
            self.signal_file.write_text(str(os.getpid()))
            time.sleep(120)
            os._exit(137)
        raise RuntimeError(f"injected fault after step {step}")

    def before_rename(self, step: int) -> None:
        """kill-in-write: die with the step's temp file written but not renamed."""
        if step == self.step and self.mode == "kill-in-write":
            os._exit(137)

    @classmethod
    def from_env(cls, env: dict[str, str]) -> Faults | None:
        """The fault FAULT_AFTER_STEP (and FAULT_MODE, FAULT_SIGNAL) name in env, if any."""
        step = env.get("FAULT_AFTER_STEP", "")
        if not step.isdigit():
            return None
        signal_file = env.get("FAULT_SIGNAL")
        return cls(int(step), env.get("FAULT_MODE", ""), Path(signal_file) if signal_file else None)


class AfterStep(probe.Probe):
    """Run an action right after a plan's file step (a hand edit landing mid-plan, say)."""

    def __init__(self, step: int, action: Callable[[], None]):
        """Call action after step (from 1)."""
        self.step, self.action = step, action

    def after_step(self, step: int) -> None:
        """Run the action after the chosen step."""
        if step == self.step:
            self.action()


@contextmanager
def installed(fault: probe.Probe) -> Iterator[probe.Probe]:
    """Install fault as this process's probe for the block, then put the previous one back."""
    previous = probe.install(fault)
    try:
        yield fault
    finally:
        probe.install(previous)


def memboard_module(env: dict[str, str]) -> list[str]:
    """The module that runs the command line: memboard, or the fault launcher when env names a fault
    (its folder then goes on the subprocess's PYTHONPATH, so that `tests` imports there too)."""
    if "FAULT_AFTER_STEP" not in env:
        return ["memboard"]
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return ["tests.support.faultrun"]
