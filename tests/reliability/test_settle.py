"""Settled reads: memboard never builds on, merges onto or writes over a file caught mid-save.

An "editor" here saves index.md the plain way: it truncates the file, writes part of its
buffer (cut at a line end, so the torn file even looks whole), pauses for less than the
settle window, then writes the rest and a row of its own. memboard runs while the file is torn:
before its lock, under its lock, and between the steps of a multi-file plan. Each time every
row must survive, the hand row included, and the command must do what it was asked.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from bench.torn import build_root, hand_id, hand_row, seed_id
from memboard.core.errors import Incomplete
from memboard.core.files import fs, probe, settle
from memboard.core.files import root as root_module
from memboard.core.files.execute import execute
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.index import IndexFile
from memboard.core.ops.doctor import diagnose
from memboard.core.ops.manual import plan_manual
from memboard.core.ops.organize import plan_organize
from memboard.core.ops.update import plan_update
from memboard.core.rebase import rebase
from tests.support.faults import AfterStep
from tests.support.roots import Mem, idle_line, row_line

WHEN = datetime(2026, 6, 1, 9, 30)
ROWS = 40


@pytest.fixture
def window(monkeypatch):
    """The real default settle window (the suite runs with a short one)."""
    monkeypatch.setenv("MEMBOARD_SETTLE_SECONDS", "0.5")


@pytest.fixture
def seeded(root) -> set[str]:
    """A root of ROWS rows whose table ends the file; the seeded IDs."""
    return set(build_root(root, ROWS))


class PlainSave:
    """An editor's save in progress: truncated and written up to a line end in the first half."""

    def __init__(self, path: Path, new: bytes):
        """Truncate path and write new up to the last line end before its middle."""
        self.new = new
        self.cut = new.rfind(b"\n", 0, len(new) // 2) + 1
        self.fh = open(path, "r+b")
        self.fh.truncate(0)
        self.fh.write(new[: self.cut])
        self.fh.flush()
        self.thread: threading.Thread | None = None

    def finish_after(self, seconds: float) -> PlainSave:
        """Write the rest after a pause well inside the window (margin for a loaded machine), in a thread."""

        def rest() -> None:
            time.sleep(seconds)
            self.fh.write(self.new[self.cut :])
            self.fh.close()

        self.thread = threading.Thread(target=rest)
        self.thread.start()
        return self

    def join(self) -> None:
        """Wait until the save is done."""
        if self.thread:
            self.thread.join(10)


def ids_in(root: Path) -> set[str]:
    """Session IDs of the rows of root's index."""
    return {r.id for r in IndexFile((root / "index.md").read_bytes()).rows}


def row_of(root: Path, sid: str):
    """The one row of sid."""
    (row,) = IndexFile((root / "index.md").read_bytes()).find(sid)
    return row


def update(sid: str):
    """A builder: update sid's Summary."""
    return lambda r: plan_update(r, sid, WHEN, summary="done after the save")


def after_step(monkeypatch, step: int, action) -> None:
    """Run action right after the plan's file step `step` is written."""
    after = AfterStep(step, action)
    monkeypatch.setattr(probe, "current", lambda: after)


# -- the three moments a torn read can happen ---------------------------------------------------


def test_a_torn_read_before_the_lock_is_waited_for_not_refused(root, window, seeded):
    """Today the half-written index made `update` refuse with "unknown session"."""
    path = root / "index.md"
    target = seed_id(ROWS - 2)  # its row is in the half not yet written
    save = PlainSave(path, path.read_bytes() + hand_row(1)).finish_after(0.15)
    execute(MemoryRoot(root), update(target))
    save.join()
    assert ids_in(root) == seeded | {hand_id(1)}
    assert row_of(root, target).get("summary") == "done after the save"


def test_a_snapshot_caught_mid_save_is_waited_for_before_organize_acts_on_it(root, window):
    """Organize keeps the idle rows a snapshot lists under Continues From. Cut off by an editor's save, the
    snapshot listed nothing, and organize deleted the row it protects; now it waits for the save to end."""
    source, live = "2026-05-01-0900-cursor-main-agent", "2026-05-30-0900-claude-agent"
    mem = Mem(root)
    mem.index(row_line(live, updated="2026-05-31 09:00"), idle_line(source))
    path = mem.snapshot(live, continues=[source])
    an_hour_ago = time.time() - 3600
    for old in (root / "index.md", path):
        os.utime(old, (an_hour_ago, an_hour_ago))
    save = PlainSave(path, path.read_bytes())
    assert source not in path.read_text()  # (the torn snapshot's Continues From is still to come)
    save.finish_after(0.15)
    plan = execute(MemoryRoot(root), lambda r: plan_organize(r, WHEN))
    save.join()
    assert plan.result.protected == [source] and not plan.result.deleted
    assert source in ids_in(root)


def test_a_torn_read_under_the_lock_is_never_a_base(root, window, seeded):
    """The plan was built on the whole file; the save starts before memboard re-reads it under the lock."""
    path = root / "index.md"
    target = seed_id(3)  # in the half already written: building on the torn file would "work"
    saves = []

    def build(r):
        plan = update(target)(r)
        if not saves:
            saves.append(PlainSave(path, path.read_bytes() + hand_row(1)).finish_after(0.15))
        return plan

    execute(MemoryRoot(root), build)
    saves[0].join()
    assert ids_in(root) == seeded | {hand_id(1)}
    assert row_of(root, target).get("summary") == "done after the save"


def test_a_torn_read_between_two_steps_is_never_merged_onto(root, window, seeded, monkeypatch):
    """`update` writes the snapshot, then the index; the save starts between the two."""
    path = root / "index.md"
    target = seed_id(3)
    saves = []
    after_step(
        monkeypatch, 1, lambda: saves.append(PlainSave(path, path.read_bytes() + hand_row(1)).finish_after(0.15))
    )
    plan = execute(MemoryRoot(root), update(target))
    saves[0].join()
    assert [c.path for c in plan.changes] == [f"sessions/{target}.md", "index.md"]
    assert ids_in(root) == seeded | {hand_id(1)}
    assert row_of(root, target).get("summary") == "done after the save"


# -- a file that never settles --------------------------------------------------------------------


class Churn:
    """An editor that saves index.md again and again, faster than the window (each save whole)."""

    def __init__(self, path: Path, every: float = 0.05):
        """Start saving path every `every` seconds in a thread; return once the first save is made (the file is
        being saved from then on, whenever the thread gets to run)."""
        self.path, self.every = path, every
        self.data = path.read_bytes()
        self.running = True
        self.saved = threading.Event()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()
        self.saved.wait(10)

    def run(self) -> None:
        """Rewrite the file in place (truncate, write) until stopped."""
        while self.running:
            with open(self.path, "r+b") as fh:
                fh.truncate(0)
                fh.write(self.data)
            self.saved.set()
            time.sleep(self.every)

    def stop(self) -> None:
        """Stop saving."""
        self.running = False
        self.thread.join(10)


def test_an_index_that_never_settles_stops_commands_with_one_line_and_hooks_fail_open(root, cli, window, seeded):
    churn = Churn(root / "index.md")
    try:
        res = cli("update", seed_id(3), "--summary", "never written")
        hook = cli("hook", "claude", input=json.dumps({"session_id": "conv-1", "hook_event_name": "SessionStart"}))
    finally:
        churn.stop()
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1
    assert "still being saved" in res.err and "nothing written" in res.err and "incomplete" not in res.err
    assert hook.code == 0 and hook.out == ""
    from memboard.core.files.localstate import folder_of

    log = (folder_of(root.resolve()) / "hook.log").read_text(encoding="utf-8")
    assert "failed open" in log and "still being saved" in log
    assert (root / "index.md").read_bytes() == churn.data and not (root / "sessions" / f"{seed_id(3)}.md").read_text(
        encoding="utf-8"
    ).count("never written")
    assert "no problems found" in cli("doctor").out


def test_an_index_that_stops_settling_mid_plan_leaves_what_doctor_finishes(root, window, seeded, monkeypatch):
    """register --manual wrote its snapshot; the index then never settles: incomplete, and doctor finishes it."""
    churns = []
    after_step(monkeypatch, 1, lambda: churns.append(Churn(root / "index.md")))
    mroot = MemoryRoot(root)
    with pytest.raises(Incomplete, match=r"still being saved.*run `memboard doctor`"):
        try:
            execute(mroot, lambda r: plan_manual(r, WHEN, "alpha", "Alpha", "Alpha work."), settle_wait=1.0)
        finally:
            churns[0].stop()
    monkeypatch.setattr(probe, "current", probe.Probe)
    old = time.time() - 60
    os.utime(root / "index.md", (old, old))
    findings, _plan = diagnose(mroot, WHEN)
    assert [f.kind for f in findings] == ["orphan_snapshot"]
    execute(mroot, lambda r: diagnose(r, WHEN)[1])
    assert ids_in(root) == seeded | {"2026-06-01-0930-alpha"}
    assert not diagnose(mroot, WHEN)[1].changes


# -- appends by another writer -----------------------------------------------------------------


def test_rows_appended_by_hand_while_memboard_appends_are_both_kept(root, seeded, monkeypatch):
    """register --manual writes the snapshot, then appends its row; meanwhile a row is appended by hand."""
    path = root / "index.md"

    def append_by_hand():
        with open(path, "ab") as fh:
            fh.write(hand_row(1))

    after_step(monkeypatch, 1, append_by_hand)
    execute(MemoryRoot(root), lambda r: plan_manual(r, WHEN, "alpha", "Alpha", "Alpha work."))
    assert ids_in(root) == seeded | {hand_id(1), "2026-06-01-0930-alpha"}
    lines = path.read_bytes().splitlines()
    assert lines[-2].startswith(b"| " + hand_id(1).encode()) and lines[-1].startswith(b"| 2026-06-01-0930-alpha")


def test_rebase_keeps_rows_both_sides_appended_at_the_table_end():
    base = b"# T\n\n| Session ID | x |\n|---|---|\n| a | 1 |\n"
    ours, theirs = base + b"| ours | 2 |\n", base + b"| hand | 3 |\n"
    assert rebase(base, ours, theirs) == base + b"| hand | 3 |\n| ours | 2 |\n"
    trailer = b"\nText after.\n"
    assert rebase(base + trailer, ours + trailer, theirs + trailer) == base + b"| hand | 3 |\n| ours | 2 |\n" + trailer
    # the same row from both sides is one row; a Session ID on both sides with different rows conflicts
    assert rebase(base, ours, ours) == ours
    assert rebase(base, ours, base + b"| ours | 9 |\n") is None
    # text that is not a row, or rows not at the table's end, still conflict
    assert rebase(base, ours, base + b"note\n") is None
    # an unterminated last row: both sides ended it before appending
    open_base = base[:-1]
    assert rebase(open_base, ours, theirs) == base + b"| hand | 3 |\n| ours | 2 |\n"


# -- writes through a symlink, and refusals that wrote nothing ------------------------------------


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_a_symlinked_index_is_written_through_to_its_target(root, cli, monkeypatch):
    (root / "boards").mkdir()
    target = root / "boards" / "main.md"
    target.write_bytes(b"# Board\n")
    (root / "index.md").symlink_to(Path("boards") / "main.md")
    assert cli("register").code == 0
    assert (root / "index.md").is_symlink() and b"2026-06-01-0930-cursor-main-agent" in target.read_bytes()
    folders = []
    real = fs.tempfile.mkstemp
    monkeypatch.setattr(fs.tempfile, "mkstemp", lambda **kw: folders.append(kw["dir"]) or real(**kw))
    execute(MemoryRoot(root), lambda r: plan_manual(r, WHEN, "beta", "Beta", "Beta work."))
    used = {Path(f).resolve() for f in folders}
    assert target.parent.resolve() in used and root.resolve() not in used  # the temp file sat beside the target
    assert (root / "index.md").is_symlink() and b"2026-06-01-0930-beta" in target.read_bytes()


def _limit_file_size():
    """In the child: files may not grow past 1 KB (a full disk, as far as a write can tell)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


@pytest.mark.skipif(os.name == "nt", reason="RLIMIT_FSIZE")
def test_a_full_disk_before_the_first_step_says_nothing_written(root):
    proc = subprocess.run(
        [sys.executable, "-m", "memboard", "register", "--manual", "--summary", "x" * 2000, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_file_size,
    )
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "nothing written" in proc.stderr and "incomplete" not in proc.stderr and "doctor" not in proc.stderr
    assert sorted(p.name for p in root.iterdir()) == []  # not even an empty sessions/ folder


def _read_only(root: Path, argv: list[str]) -> subprocess.CompletedProcess | None:
    """Run memboard on root while root is read-only (a read-only bind mount as root, else mode 0555)."""
    cmd = [sys.executable, "-m", "memboard", *argv, "--root", str(root)]
    if os.geteuid() != 0:
        root.chmod(0o555)
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        finally:
            root.chmod(0o755)
    if not shutil.which("unshare"):
        return None
    quoted = " ".join(f"'{c}'" for c in cmd)
    script = f"mount --bind '{root}' '{root}' && mount -o remount,ro,bind '{root}' && exec {quoted}"
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=60)
    return None if "mount" in proc.stderr and "memboard" not in proc.stderr else proc


@pytest.mark.skipif(os.name == "nt", reason="POSIX mounts and modes")
def test_a_read_only_root_says_nothing_written(root):
    (root / "index.md").write_bytes(IndexFile(b"").edit().append({"id": seed_id(1), "status": "idle"}).to_bytes())
    before = (root / "index.md").read_bytes()
    for argv in (["register"], ["register", "--manual"], ["organize"]):
        proc = _read_only(root, argv)
        if proc is None:
            pytest.skip("cannot make a read-only folder here")
        assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "read-only" in proc.stderr and "nothing written" in proc.stderr and "incomplete" not in proc.stderr
    assert (root / "index.md").read_bytes() == before


# -- what waiting costs ------------------------------------------------------------------------------


def test_memboard_waits_only_for_files_someone_else_just_saved(root, cli, window, seeded, monkeypatch):
    """No wait on an index older than the window, none right after memboard's own write (even from another
    process), one wait after a hand save."""
    slept = []

    class Clock:
        """root.py's time module, with sleep noted."""

        def __getattr__(self, name):
            return getattr(time, name)

        @staticmethod
        def sleep(seconds):
            slept.append(seconds)
            time.sleep(seconds)

    monkeypatch.setattr(root_module, "time", Clock())
    mroot = MemoryRoot(root)
    execute(mroot, update(seed_id(1)))  # seeded an hour ago
    execute(mroot, update(seed_id(2)))  # right after memboard's own write
    assert cli("update", seed_id(3), "--summary", "by another process").code == 0
    execute(MemoryRoot(root), update(seed_id(4)))  # right after another process's write
    assert slept == []
    path = root / "index.md"
    path.write_bytes(path.read_bytes() + hand_row(1))  # a hand save, a moment ago
    execute(MemoryRoot(root), update(seed_id(5)))
    assert slept and 0.3 < sum(slept) < 1.5
    assert hand_id(1) in ids_in(root)
    slept.clear()
    path.write_bytes(path.read_bytes() + hand_row(2))
    future = time.time() + 3600  # a skewed clock: memboard's own watch settles it, one window, not the whole wait
    os.utime(path, (future, future))
    execute(MemoryRoot(root), update(seed_id(6)))
    assert 0.3 < sum(slept) < 1.5 and hand_id(2) in ids_in(root)


def test_settle_seconds_is_a_validated_config_key(cli, monkeypatch):
    for bad in ("3", "-1", "soon", "nan"):
        res = cli("config", "set", "settle_seconds", bad, use_root=False)
        assert res.code == 2 and "settle_seconds must be" in res.err, (bad, res.err)
    assert cli("config", "set", "settle_seconds", "0.3", use_root=False).code == 0
    monkeypatch.delenv("MEMBOARD_SETTLE_SECONDS")
    assert settle.settle_seconds() == 0.3
