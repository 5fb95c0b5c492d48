"""Shared fixtures: isolated state/config folders, a fixed clock, a CLI runner on temp roots."""

from __future__ import annotations

import asyncio
import inspect
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support.faults import memboard_module

# CI replays the same examples every run (a red CI then means a real regression); local runs
# keep exploring new examples.
settings.register_profile("ci", derandomize=True, deadline=None, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

FIXED_NOW = "2026-06-01 09:30"


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


@dataclass
class Result:
    """A finished CLI run."""

    code: int
    out: str
    err: str


@pytest.fixture
def root(tmp_path) -> Path:
    """An empty memory root folder."""
    path = tmp_path / "memory"
    path.mkdir()
    return path


@pytest.fixture
def cli(root):
    """Run `memboard ARGS --root <root>` as a subprocess and return code, stdout, stderr.

    An env naming a fault (FAULT_AFTER_STEP, see tests/support/faults.py) runs the command
    through the fault launcher instead, which installs that fault first.
    """

    def run(*args: str, input: str | bytes | None = None, env: dict | None = None, use_root: bool = True) -> Result:
        full_env = dict(os.environ)
        full_env.update(env or {})
        cmd = [sys.executable, "-m", *memboard_module(full_env), *args]
        if use_root:
            cmd += ["--root", str(root)]
        data = input.encode("utf-8") if isinstance(input, str) else input
        proc = subprocess.run(cmd, input=data, capture_output=True, env=full_env, timeout=120)
        return Result(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))

    return run
