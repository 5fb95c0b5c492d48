"""Shared fixtures: isolated state/config folders, a fixed clock, a CLI runner on temp roots."""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support import runner, sizes
from tests.support.runner import Ran

# CI replays the same examples every run (a red CI then means a real regression); local runs
# keep exploring new examples. A stress run (MEMBOARD_STRESS=1) explores, with the full counts that
# tests/support/sizes.py gives the tests naming theirs, and four times Hypothesis's 100 to the others.
settings.register_profile("ci", derandomize=True, deadline=None, database=None)
settings.register_profile("stress", deadline=None, max_examples=400)
if sizes.STRESS:
    settings.load_profile("stress")
elif os.environ.get("CI"):
    settings.load_profile("ci")

FIXED_NOW = "2026-06-01 09:30"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers per core. Much of the suite waits rather than computes (settle windows, lock
    waits, processes racing for a set time, the board's pauses), so a core holds two workers: on a quiet
    2-core machine the whole suite took 4 min 19 s on 2 workers and 3 min 18 s on 4."""
    return 2 * (os.cpu_count() or 1)


@pytest.hookimpl(tryfirst=True)  # (before pytest-xdist reads the groups)
def pytest_collection_modifyitems(items):
    """The stress runs go first and together on one worker (pytest-xdist's loadgroup): each keeps the machine
    it was sized for (one other worker beside it), and none is left to the end of the run, where it would
    run alone while the other workers wait."""
    items.sort(key=lambda item: item.get_closest_marker("stress") is None)  # (a stable sort)
    for item in items:
        if item.get_closest_marker("stress"):
            item.add_marker(pytest.mark.xdist_group("stress"))


def pytest_pyfunc_call(pyfuncitem):
    """Run `async def` tests (the board's Pilot tests) in a fresh event loop, no plugin needed."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        names = pyfuncitem._fixtureinfo.argnames
        asyncio.run(pyfuncitem.obj(**{n: pyfuncitem.funcargs[n] for n in names}))
        return True
    return None


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory, monkeypatch):
    """Keep every test away from the user's config, state and memory root."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("MEMBOARD_STATE_DIR", str(state))
    monkeypatch.setenv("MEMBOARD_CONFIG", str(state / "config.toml"))
    monkeypatch.setenv("MEMBOARD_NOW", FIXED_NOW)
    # fixtures are files written a moment before the command runs, which memboard rightly waits on
    # for the settle window (0.5 s); the suite uses a short one. Tests of settling set their own.
    monkeypatch.setenv("MEMBOARD_SETTLE_SECONDS", "0.05")
    monkeypatch.delenv("MEMBOARD_ROOT", raising=False)
    yield


def _no_fsync(fd: int) -> None:
    """os.fsync without the wait for the disk: a bad descriptor still fails as fsync fails."""
    os.fstat(fd)


@pytest.fixture(autouse=True)
def fsync_skipped(monkeypatch):
    """os.fsync returns at once in the test's own process. It promises the bytes survive a power cut, which no
    test here can observe, and a run makes thousands of them (every fixture root memboard writes, every
    command) at 2–5 ms each on a shared disk. What memboard syncs is held by
    tests/unit/test_unit_engine.py::test_atomic_write_syncs_the_file_before_the_rename_and_the_folder_after; commands run
    in a process of their own (cli_process, the stress harnesses) still sync."""
    monkeypatch.setattr(os, "fsync", _no_fsync)


@dataclass
class Result:
    """A finished CLI run."""

    code: int
    out: str
    err: str


@pytest.fixture
def home(tmp_path) -> Path:
    """A fake home folder (the install tests pass it as HOME to the commands)."""
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def root(tmp_path) -> Path:
    """An empty memory root folder."""
    path = tmp_path / "memory"
    path.mkdir()
    return path


def _runner(root: Path, run: Callable[..., Ran]) -> Callable[..., Result]:
    """`memboard ARGS --root <root>` through run, its output decoded as UTF-8 (bad bytes replaced)."""

    def cli(*args: str, input: str | bytes | None = None, env: dict | None = None, use_root: bool = True) -> Result:
        argv = [*args, "--root", str(root)] if use_root else list(args)
        data = input.encode("utf-8") if isinstance(input, str) else input
        ran = run(argv, data, env)
        return Result(ran.code, ran.out.decode("utf-8", "replace"), ran.err.decode("utf-8", "replace"))

    return cli


@pytest.fixture
def cli(root):
    """Run `memboard ARGS --root <root>` and return code, stdout, stderr: in this process, through
    `memboard.cli.main(argv)` with its own stdin, stdout, stderr and env overrides (tests/support/runner.py).

    An env naming a fault (FAULT_AFTER_STEP, see tests/support/faults.py) installs it for the call; a fault
    that ends the process (FAULT_MODE kill, signal, kill-in-write) runs the command in a process of its own.
    """
    return _runner(root, runner.run)


@pytest.fixture
def cli_process(root):
    """`cli`, run as `python -m memboard` in a process of its own: for what only a process shows (the entry
    point's exit status and stdout bytes, the hook's and search's fast exits, signals). Keep such tests few."""
    return _runner(root, runner.in_a_process)
