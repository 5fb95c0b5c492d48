"""The settle window and the racy rules on the files' own clock: memboard's clock 30 s off, either way.

The files of a network share, a VM's shared folder or a sync client's mount are stamped by another
clock than memboard's. Here memboard runs with its clock shifted by libfaketime (tests/support/skew.py)
while the files keep the times the file system wrote: 30 s ahead of the files, a save in progress
looked 30 s old and settled, and memboard built on half an index (`register` lost 150 of 300 rows and a
hand-written one) or on a snapshot cut before its Continues From (`organize` deleted the row it
protects), and the Continues From record trusted answers read a moment after a change; 30 s behind,
every file looked as if from the future, and nothing was ever recorded. An "editor" saves the plain
way, as in test_settle.py: truncate, write the first half (cut at a line end, so the torn file even
looks whole), pause well inside the settle window, write the rest and a row of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from bench.torn import build_root, hand_id, hand_row
from memboard.core.files import continues
from memboard.core.files.root import MemoryRoot
from memboard.core.files.settle import AGED_NS
from memboard.core.formats.index import IndexFile
from tests.support.roots import Mem, idle_line, row_line
from tests.support.skew import SHIFTS, Skewed, needs_faketime, run_skewed

pytestmark = needs_faketime

ROWS = 300
WINDOW = {"MEMBOARD_SETTLE_SECONDS": "1.5"}  # the settle window of these runs
PAUSE = 0.8  # the editor's pause, half written: well inside the window, long enough for memboard to start and read
ANNOUNCED = "Your Memory Session ID is: "
SOURCE, LIVE = "2026-05-01-0900-cursor-main-agent", "2026-05-30-0900-claude-agent"
OLD, NEW = "2026-05-29-0900-codex-agent", "2026-05-30-1000-codex-agent"
LISTED = "2026-05-01-0900-cursor-side-agent"  # an ID no row has, listed under Continues From
RECENT = "2026-05-31 09:00"


class TornSave:
    """An editor's save in progress: the file truncated and written up to a line end before its middle."""

    def __init__(self, path: Path, new: bytes):
        """Truncate path and write the first half of new (cut at a line end)."""
        self.new = new
        self.cut = new.rfind(b"\n", 0, len(new) // 2) + 1
        self.fh = open(path, "r+b")
        self.fh.truncate(0)
        self.fh.write(new[: self.cut])
        self.fh.flush()

    def finish(self) -> None:
        """Write the rest and close the file."""
        self.fh.write(self.new[self.cut :])
        self.fh.close()


def ids_in(root: Path) -> set[str]:
    """Session IDs of the rows of root's index."""
    return {r.id for r in IndexFile((root / "index.md").read_bytes()).rows}


def announced(out: str) -> set[str]:
    """The Session IDs a command's output announces."""
    return {line.split(ANNOUNCED, 1)[1].strip().strip('"}') for line in out.splitlines() if ANNOUNCED in line}


@pytest.fixture
def elsewhere(tmp_path):
    """A local state folder on another device than the root (/dev/shm): no clock probe lands beside memboard's own
    files there, so a probe has to go beside the file, or (in a preview) cannot be made at all."""
    if not os.path.isdir("/dev/shm") or os.stat("/dev/shm").st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("no folder on another device than the test's temp folder (/dev/shm)")
    state = tempfile.mkdtemp(prefix="memboard-state-", dir="/dev/shm")
    yield {"MEMBOARD_STATE_DIR": state, "MEMBOARD_CONFIG": os.path.join(state, "config.toml")}
    shutil.rmtree(state, ignore_errors=True)


@pytest.mark.parametrize(
    "shift, where",
    [("+30s", "state on the root's device"), ("-30s", "state on the root's device"), ("+30s", "state elsewhere")],
)
def test_register_beside_a_torn_save_keeps_every_row(root, shift, where, request):
    """+30 s: the torn index looked 30 s old, and register appended its row to the first half. (Local state elsewhere:
    the file system's clock is probed beside the index, not in local state.)"""
    env = dict(WINDOW, **(request.getfixturevalue("elsewhere") if where == "state elsewhere" else {}))
    seeded = set(build_root(root, ROWS))
    path = root / "index.md"
    save = TornSave(path, path.read_bytes() + hand_row(1))
    run = Skewed(shift, root, "register", env=env)
    time.sleep(PAUSE)
    save.finish()
    res = run.done()
    assert res.code == 0, res.err
    (sid,) = announced(res.out)
    assert ids_in(root) == seeded | {hand_id(1), sid}
    assert not list(root.rglob("*.memboard-tmp"))  # (a clock probe beside the index is gone again)


@pytest.mark.parametrize("shift", SHIFTS)
def test_the_hook_beside_a_torn_save_keeps_every_row(root, shift):
    """The hook plans under the lock from one read: that read is judged on the files' clock too (a hook that runs out of
    its short settle wait fails open, which is fine: nothing lost)."""
    seeded = set(build_root(root, ROWS))
    path = root / "index.md"
    save = TornSave(path, path.read_bytes() + hand_row(1))
    payload = json.dumps({"session_id": f"conv-{shift}", "hook_event_name": "SessionStart"}).encode()
    run = Skewed(shift, root, "hook", "claude", input=payload, env=WINDOW)
    time.sleep(PAUSE)
    save.finish()
    res = run.done()
    assert res.code == 0, res.err
    assert ids_in(root) == seeded | {hand_id(1)} | announced(res.out)


@pytest.mark.parametrize("shift", SHIFTS)
def test_organize_keeps_the_row_a_snapshot_caught_mid_save_protects(root, shift):
    """+30 s: the snapshot, cut before its Continues From, looked settled and listed nothing; the idle row it protects
    was deleted."""
    mem = Mem(root)
    mem.index(row_line(LIVE, updated=RECENT), idle_line(SOURCE))
    path = mem.snapshot(LIVE, continues=[SOURCE])
    an_hour_ago = time.time() - 3600
    for old in (root / "index.md", path):
        os.utime(old, (an_hour_ago, an_hour_ago))
    save = TornSave(path, path.read_bytes())
    assert SOURCE not in path.read_text(encoding="utf-8")  # (the torn snapshot's Continues From is still to come)
    run = Skewed(shift, root, "organize", "--json", env=WINDOW)
    time.sleep(PAUSE)
    save.finish()
    res = run.done()
    assert res.code == 0, res.err
    report = json.loads(res.out)
    assert report["protected"] == [SOURCE] and report["deleted"] == []
    assert SOURCE in ids_in(root)


@pytest.mark.parametrize("shift", SHIFTS)
def test_the_continues_from_record_is_timed_on_the_files_clock(root, shift):
    """The record keeps a snapshot's answer only when the file had not changed for two seconds when it was read: on the
    files' clock, whatever memboard's says. +30 s: a snapshot written a moment before was recorded as if read 30 s
    later (and a later write in the same clock tick would have kept its stale answer); -30 s: nothing was recorded."""
    mem = Mem(root)
    mem.index(row_line(OLD, updated=RECENT), row_line(NEW, updated=RECENT))
    old = mem.snapshot(OLD, continues=[LISTED])
    changed = max(old.stat().st_mtime_ns, old.stat().st_ctime_ns)
    time.sleep(max(0.0, (changed + AGED_NS - time.time_ns()) / 1e9) + 0.2)
    new = mem.snapshot(NEW, continues=[LISTED])
    res = run_skewed(shift, root, "organize", "--json")
    finished = time.time_ns()
    assert res.code == 0, res.err
    assert json.loads(res.out)["kept_active"] == [OLD, NEW]
    trusted = continues.recorded(MemoryRoot(root))
    assert trusted.get(f"{OLD}.md", (None, 0, None))[2] == (OLD, (LISTED,))  # read long after its last change
    if finished - max(new.stat().st_mtime_ns, new.stat().st_ctime_ns) < AGED_NS:  # (read within 2 s of its writing)
        assert f"{NEW}.md" not in trusted


def test_a_preview_without_the_files_clock_watches_a_torn_save(root, elsewhere, tmp_path):
    """A preview writes nothing in the root, not even a clock probe: with local state on another device it has no
    timestamp of the files' clock, and watches the torn index for a window instead of trusting its age. Its patch
    then appends the row to the whole saved file (`git apply` puts it after the hand row)."""
    build_root(root, ROWS)
    path = root / "index.md"
    save = TornSave(path, path.read_bytes() + hand_row(1))
    run = Skewed("+30s", root, "register", "--dry-run", env=dict(WINDOW, **elsewhere))
    time.sleep(PAUSE)
    save.finish()
    res = run.done()
    assert res.code == 0, res.err
    assert sorted(p.name for p in root.iterdir()) == ["index.md", "sessions"]  # nothing left in the root
    saved = path.read_bytes()
    added = [line[1:] for line in res.out.splitlines() if line.startswith("+|")]
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "index.md").write_bytes(saved)
    subprocess.run(["git", "apply", "-"], cwd=copy, input=res.out.encode(), check=True, capture_output=True)
    assert (copy / "index.md").read_bytes() == saved + "".join(f"{line}\n" for line in added).encode()


@pytest.mark.parametrize("shift", SHIFTS)
def test_search_reads_again_a_file_it_read_right_after_a_change(root, shift):
    """The search cache trusts a file's size and mtime only when the file had not changed for two seconds when its stat
    was taken, on the files' clock: +30 s, a snapshot saved a moment before looked old, and a rewrite of the same size
    in the same clock tick (made here by setting the mtime back) was never read again."""
    mem = Mem(root)
    mem.index(row_line(LIVE, updated=RECENT))
    path = mem.snapshot(LIVE, decisions=["Keep the zulu-one layout."])
    first = run_skewed(shift, root, "search", "zulu-one", "--json")
    assert first.code == 0, first.err
    assert [hit["path"] for hit in json.loads(first.out)] == [f"sessions/{LIVE}.md"]
    st = path.stat()
    path.write_bytes(path.read_bytes().replace(b"zulu-one", b"yank-two"))  # in place: the same inode and size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same mtime, as a second save in one tick leaves it
    again = run_skewed(shift, root, "search", "yank-two", "--json")
    assert again.code == 0, again.err
    assert [hit["path"] for hit in json.loads(again.out)] == [f"sessions/{LIVE}.md"]
