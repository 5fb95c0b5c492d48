"""Fixtures of the real-engine tests: a started pair of Syncthing instances, and machines (a memory root each, with
its own local state, config, agent name) on a clock they share. tests/support/engines.py holds the harness."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from tests.support.engines import Clock, Machine, SyncthingPair


@pytest.fixture
def clock() -> Clock:
    """The minutes the machines' commands run at, one per command."""
    return Clock()


@pytest.fixture
def machine(tmp_path: Path, clock: Clock) -> Callable[[str, Path], Machine]:
    """machine(name, root): a machine using root, its local state in tmp, agent name `claude-<name>`."""

    def make(name: str, root: Path) -> Machine:
        one = Machine(name, root, tmp_path / f"local-{name}", f"claude-{name}", clock)
        one.setup()
        return one

    return make


@pytest.fixture
def pair(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[SyncthingPair]:
    """Two Syncthing instances (laptop and desktop) sharing one folder over 127.0.0.1, not started yet (so the
    test can put files in place first); stopped, process groups and all, when the test ends. With ENGINE_TIMINGS
    naming a file, what the pair measured (start, each sync, each reconnect) is appended to it."""
    two = SyncthingPair(tmp_path / "syncthing")
    yield two
    two.stop()
    if os.environ.get("ENGINE_TIMINGS"):  # a file to append what the pair measured to (one JSON line per test)
        with open(os.environ["ENGINE_TIMINGS"], "a", encoding="utf-8") as out:
            print(json.dumps({"test": request.node.nodeid, **asdict(two.timings)}), file=out)


@pytest.fixture
def laptop(pair: SyncthingPair, machine: Callable[[str, Path], Machine]) -> Machine:
    """The machine whose root is the laptop instance's folder."""
    return machine("laptop", pair.a.folder)


@pytest.fixture
def desktop(pair: SyncthingPair, machine: Callable[[str, Path], Machine]) -> Machine:
    """The machine whose root is the desktop instance's folder."""
    return machine("desktop", pair.b.folder)
