"""The root lock: a bounded wait ending in one clear line, FIFO order, and no blocker left by a crash."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.tree import tree

HOLD = """
import sys, time
from pathlib import Path
from memboard.core.files.execute import locked
from memboard.core.files.root import MemoryRoot
with locked(MemoryRoot(sys.argv[1])):
    Path(sys.argv[2]).write_text(sys.argv[3])
    time.sleep(float(sys.argv[4]))
"""


def start_holder(root: Path, marker: Path, seconds: float = 60.0, name: str = "holder") -> subprocess.Popen:
    """A process that takes the root's lock, writes marker, and holds the lock for `seconds`."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(root), str(marker), name, str(seconds)])
    deadline = time.monotonic() + 20
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < deadline, "holder never took the lock"
        time.sleep(0.01)
    return proc


def queue_dir() -> Path:
    """The folder of the lock queue tickets in the test's state dir."""
    found = list((Path(os.environ["MEMBOARD_STATE_DIR"]) / "locks").glob("*.queue"))
    assert len(found) == 1
    return found[0]


@pytest.fixture
def held(root, cli, tmp_path):
    """A root with one row whose lock is held by another process for the whole test."""
    assert cli("register", "--agent", "first").code == 0
    proc = start_holder(root, tmp_path / "held")
    yield proc
    proc.kill()
    proc.wait()


def test_locked_root_gives_one_line_after_the_bounded_wait_and_writes_nothing(held, cli, root):
    before = tree(root, links=False)
    started = time.monotonic()
    res = cli("register", env={"MEMBOARD_LOCK_TIMEOUT": "0.5"})
    elapsed = time.monotonic() - started
    assert res.code == 1
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and "locked by another writer" in lines[0] and "0.5s" in lines[0]
    assert "Your Memory Session ID" not in res.out
    assert elapsed < 10
    assert tree(root, links=False) == before
    assert [p.name for p in queue_dir().iterdir()] != []  # only the holder's ticket remains
    assert len(list(queue_dir().iterdir())) == 1


def test_config_lock_timeout_bounds_the_wait(held, cli, root):
    Path(os.environ["MEMBOARD_CONFIG"]).write_text("lock_timeout = 0.3\n")
    before = tree(root, links=False)
    res = cli("update", "2026-06-01-0930-first", "--summary", "x")
    assert res.code == 1 and "waited 0.3s" in res.err and len(res.err.strip().splitlines()) == 1
    assert tree(root, links=False) == before


def test_env_timeout_wins_over_config(held, cli):
    Path(os.environ["MEMBOARD_CONFIG"]).write_text("lock_timeout = 30\n")
    res = cli("organize", env={"MEMBOARD_LOCK_TIMEOUT": "0.2"})
    assert res.code == 1 and "waited 0.2s" in res.err


@pytest.mark.skipif(os.name == "nt", reason="kill -9 is POSIX")
def test_a_killed_holder_blocks_nobody(root, cli, tmp_path):
    cli("register", "--agent", "first")
    proc = start_holder(root, tmp_path / "held")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(list(queue_dir().iterdir())) == 1  # its ticket is left behind, unlocked
    started = time.monotonic()
    res = cli("register", "--agent", "second", env={"MEMBOARD_LOCK_TIMEOUT": "5"})
    assert res.code == 0, res.err
    assert time.monotonic() - started < 5
    assert list(queue_dir().iterdir()) == []  # the dead ticket was cleared


RELEASE_ON_FILE = """
import sys, time
from pathlib import Path
from memboard.core.files.execute import locked
from memboard.core.files.root import MemoryRoot
with locked(MemoryRoot(sys.argv[1])):
    Path(sys.argv[2]).write_text("held")
    deadline = time.monotonic() + 120
    while not Path(sys.argv[3]).exists() and time.monotonic() < deadline:
        time.sleep(0.01)
"""


def test_waiters_get_the_lock_in_arrival_order(root, tmp_path):
    """filelock alone lets any poller win; the ticket queue serves waiters first come, first served. The holder
    keeps the lock until every waiter has queued (a fixed hold let it leave first on a loaded machine)."""
    marker, release = tmp_path / "held", tmp_path / "release"
    holder = subprocess.Popen([sys.executable, "-c", RELEASE_ON_FILE, str(root), str(marker), str(release)])
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert holder.poll() is None and time.monotonic() < deadline, "holder never took the lock"
        time.sleep(0.01)
    order = tmp_path / "order"
    waiters = []
    for n in range(4):
        code = HOLD.replace(
            "Path(sys.argv[2]).write_text(sys.argv[3])", "open(sys.argv[2], 'a').write(sys.argv[3] + '\\n')"
        )
        waiters.append(subprocess.Popen([sys.executable, "-c", code, str(root), str(order), f"w{n}", "0.02"]))
        deadline = time.monotonic() + 60
        while len(list(queue_dir().iterdir())) < n + 2:  # the holder's ticket plus ours so far
            assert time.monotonic() < deadline, "waiter never queued"
            time.sleep(0.005)
    release.write_text("go")
    for p in [holder, *waiters]:
        assert p.wait(timeout=120) == 0
    assert order.read_text().split() == ["w0", "w1", "w2", "w3"]


def test_unusable_lock_folder_is_one_line(cli, root, tmp_path):
    state = tmp_path / "state-file"
    state.write_text("not a folder")
    res = cli("register", env={"MEMBOARD_STATE_DIR": str(state)})
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1 and "lock" in res.err
    assert list(root.iterdir()) == []
