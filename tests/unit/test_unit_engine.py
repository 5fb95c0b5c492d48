"""IDs, the clock, plan diffs and the apply engine (lock, re-read, rebuild, exact apply)."""

from __future__ import annotations

import contextlib
import gc
import os
from datetime import datetime
from pathlib import Path

import pytest

from memboard.core.errors import StalePlan, UsageError
from memboard.core.files import execute as apply
from memboard.core.files import fs, lock
from memboard.core.files.root import MemoryRoot
from memboard.core.formats import clock
from memboard.core.formats.ids import check_agent, check_id, is_valid_id, make_id
from memboard.core.formats.index import IndexFile
from memboard.core.ops.register import plan_register
from memboard.core.plan import Change, Plan

WHEN = datetime(2026, 6, 1, 9, 30)


# -- ids ----------------------------------------------------------------------------------


def test_make_id_format_and_suffixes():
    assert make_id(WHEN, "cursor-main-agent") == "2026-06-01-0930-cursor-main-agent"
    taken = {"2026-06-01-0930-a", "2026-06-01-0930-a-2"}
    assert make_id(WHEN, "a", taken) == "2026-06-01-0930-a-3"
    assert make_id(WHEN, "b", taken) == "2026-06-01-0930-b"


def test_valid_ids():
    assert is_valid_id("2026-06-01-0930-cursor-main-agent")
    assert is_valid_id("2026-06-01-0930-cursor-main-agent-2")
    for bad in [
        "2026-06-01-2460-a",
        "2026-02-30-0900-a",
        "2026-06-01-0930-",
        "2026-06-01-0930-A",
        "..",
        "2026-06-01-0930-a/b",
        "2026-06-01-0930-a\\b",
        "C:x",
        "2026-06-01-0930-a\x00",
        "x" * 500,
        "2026-06-01-0930-a\n",
        "2026-06-01-0930-a|b",
        "2026-06-01-0930--a",
    ]:
        assert not is_valid_id(bad), bad
        with pytest.raises(UsageError) as err:
            check_id(bad)
        assert "\n" not in str(err.value)


def test_agent_names():
    assert check_agent("cursor-main-agent") == "cursor-main-agent"
    for bad in ["", "Cursor", "a b", "a_b", "-a", "a-", "x" * 81]:
        with pytest.raises(UsageError):
            check_agent(bad)


# -- clock --------------------------------------------------------------------------------


def test_clock_formats_and_parses(monkeypatch):
    assert clock.format_ts(WHEN) == "2026-06-01 09:30"
    assert clock.parse("2026-06-01 09:30") == WHEN
    assert clock.parse("2026-06-01T09:30:00") == WHEN
    assert clock.parse("2026-06-01T09:30") == WHEN
    assert clock.parse("not a time") is None and clock.parse("") is None
    utc = clock.parse("2026-06-01T09:30:00Z")
    assert utc is not None and utc.tzinfo is None
    monkeypatch.setenv("MEMBOARD_NOW", "2026-01-02 03:04")
    assert clock.now() == datetime(2026, 1, 2, 3, 4)
    monkeypatch.delenv("MEMBOARD_NOW")
    assert clock.now().second == 0


def test_age_label():
    assert clock.age_label(None, WHEN) == "?"
    assert clock.age_label(datetime(2026, 6, 1, 9, 25), WHEN) == "5m"
    assert clock.age_label(datetime(2026, 5, 30, 10, 30), WHEN) == "47h"
    assert clock.age_label(datetime(2026, 5, 30, 9, 30), WHEN) == "2d"
    assert clock.age_label(datetime(2026, 3, 1, 9, 30), WHEN) == "13w"
    assert clock.age_label(datetime(2026, 6, 2, 9, 30), WHEN) == "0m"


# -- plans --------------------------------------------------------------------------------


def test_plan_diff_formats():
    plan = Plan(
        "t",
        None,
        [
            Change("create", "sessions/x.md", None, b"a\n"),
            Change("modify", "index.md", b"a\r\nb\r\n", b"a\r\nc\r\n"),
            Change("move", "sessions/y.md", b"z\n", b"z\n", dest="archive/y/session.md"),
            Change("delete", "old.md", b"q", None),
        ],
    )
    diff = plan.diff()
    assert "--- /dev/null\n+++ b/sessions/x.md\n@@ -0,0 +1 @@\n+a\n" in diff
    assert "--- a/index.md\n+++ b/index.md\n" in diff and "-b\r\n+c\r\n" in diff  # the file's own line ends
    assert (
        "diff --git a/sessions/y.md b/archive/y/session.md\nrename from sessions/y.md\nrename to archive/y/session.md\n"
        in diff
    )
    assert "--- a/old.md\n+++ /dev/null\n" in diff and "\\ No newline at end of file" in diff
    assert plan.paths() == ["sessions/x.md", "index.md", "sessions/y.md", "archive/y/session.md", "old.md"]
    assert plan.expected_before()["archive/y/session.md"] is None


def test_plan_is_pure_function_of_files(tmp_path):
    root = MemoryRoot(tmp_path)
    (tmp_path / "index.md").write_text("x\n", encoding="utf-8")
    a, b = plan_register(root, WHEN, "a"), plan_register(root, WHEN, "a")
    assert a.changes == b.changes and a.success == b.success


# -- apply --------------------------------------------------------------------------------


def test_execute_rebuilds_when_files_changed_before_the_lock(tmp_path):
    """Another writer appended between build and lock: the fresh plan appends after it."""
    root = MemoryRoot(tmp_path)
    calls = []

    def build(r):
        plan = plan_register(r, WHEN, "a")
        if not calls:
            (tmp_path / "index.md").write_bytes(plan.changes[0].after)  # a racing writer lands first
        calls.append(plan.result.session_id)
        return plan

    plan = apply.execute(root, build)
    assert calls == ["2026-06-01-0930-a", "2026-06-01-0930-a-2"]
    ids = [r.id for r in IndexFile((tmp_path / "index.md").read_bytes()).rows]
    assert ids == ["2026-06-01-0930-a", "2026-06-01-0930-a-2"] and plan.result.session_id == ids[1]


@pytest.mark.parametrize("refused", [False, True])
def test_a_plan_is_built_with_the_collector_off_and_it_is_on_again_after(tmp_path, refused):
    # (the board builds doctor's 57k-finding plan with the collector on: 0.7 of 1.8 s of CPU were its passes)
    root = MemoryRoot(tmp_path)
    seen = []

    def build(r):
        seen.append(gc.isenabled())
        if refused:
            raise UsageError("unknown session")
        return plan_register(r, WHEN, "a")

    assert gc.isenabled()
    if refused:
        with pytest.raises(UsageError):
            apply.execute(root, build)
    else:
        apply.execute(root, build)
    assert seen and not any(seen) and gc.isenabled()
    gc.disable()  # a caller that runs with it off (the command line) keeps it off
    try:
        with pytest.raises(UsageError) if refused else contextlib.nullcontext():
            apply.settled_build(root, build, apply.Budget(1.0))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_apply_exact_raises_stale_plan_instead_of_writing(tmp_path):
    root = MemoryRoot(tmp_path)
    plan = plan_register(root, WHEN, "a")
    (tmp_path / "index.md").write_text("changed\n", encoding="utf-8")
    with pytest.raises(StalePlan) as err:
        apply.apply_exact(root, plan, lambda r: plan_register(r, WHEN, "a"))
    assert (tmp_path / "index.md").read_text(encoding="utf-8") == "changed\n"
    assert err.value.fresh_plan.changes[0].before == b"changed\n"


def test_apply_exact_reports_progress_after_each_file_step(tmp_path):
    root = MemoryRoot(tmp_path)
    apply.execute(root, lambda r: plan_register(r, WHEN, "a"))
    plan = Plan("test", None, changes=[Change("create", f"notes/n{i}.md", None, b"x\n") for i in range(3)])
    told: list[tuple[int, int]] = []
    apply.apply_exact(root, plan, lambda r: plan, progress=lambda done, total: told.append((done, total)))
    assert told == [(1, 3), (2, 3), (3, 3)]


def test_dry_run_returns_plan_without_writing(tmp_path):
    root = MemoryRoot(tmp_path)
    plan = apply.execute(root, lambda r: plan_register(r, WHEN, "a"), dry_run=True)
    assert plan.changes and list(tmp_path.iterdir()) == []


def test_lock_lives_in_state_dir_not_root(tmp_path, monkeypatch):
    state = tmp_path / "state"
    monkeypatch.setenv("MEMBOARD_STATE_DIR", str(state))
    root_dir = tmp_path / "memory"
    root_dir.mkdir()
    root = MemoryRoot(root_dir)
    assert state in lock.lock_path(root).parents
    with lock.locked(root):
        assert lock.lock_path(root).exists()
    assert list(root_dir.iterdir()) == []


def test_lock_timeout_is_a_one_line_error(tmp_path, monkeypatch):
    from memboard.core.errors import MemboardError

    root = MemoryRoot(tmp_path)
    monkeypatch.setenv("MEMBOARD_LOCK_TIMEOUT", "0.05")
    from filelock import FileLock

    holder = FileLock(str(lock.lock_path(root)))
    lock.lock_path(root).parent.mkdir(parents=True, exist_ok=True)
    holder.acquire()
    try:
        import threading

        errors = []
        t = threading.Thread(target=lambda: _try_lock(root, errors))
        t.start()
        t.join(5)
        assert errors and isinstance(errors[0], MemboardError) and "locked" in str(errors[0])
    finally:
        holder.release()


def _try_lock(root, errors):
    """Try to take the root's lock from another thread, recording the error."""
    try:
        with lock.locked(root):
            pass
    except Exception as exc:  # the error is what the test inspects
        errors.append(exc)


def test_atomic_write_leaves_no_temp_files(tmp_path):
    target = tmp_path / "sub" / "f.md"
    fs.atomic_write(target, b"data")
    assert target.read_bytes() == b"data"
    assert [p.name for p in target.parent.iterdir()] == ["f.md"]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="names an open descriptor through /proc")
def test_atomic_write_syncs_the_file_before_the_rename_and_the_folder_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    target = tmp_path / "f.md"
    target.write_bytes(b"old")
    synced: list[tuple[str, bytes]] = []

    def fsync(fd: int) -> None:  # what each fsync flushes, and what the target held at that moment
        synced.append((os.path.basename(os.readlink(f"/proc/self/fd/{fd}")), target.read_bytes()))

    monkeypatch.setattr(os, "fsync", fsync)
    fs.atomic_write(target, b"new")
    assert len(synced) == 2
    (temp, before), (folder, after) = synced
    assert temp.startswith(".f.md.") and temp.endswith(".memboard-tmp") and before == b"old"
    assert folder == tmp_path.name and after == b"new"


def test_safe_paths_refuse_escapes(tmp_path):
    root = MemoryRoot(tmp_path)
    for bad in ["../x", "/etc/passwd", "a/../../x", "C:x", "\\x", "a\x00b", ""]:
        with pytest.raises(UsageError):
            root.abs(bad)


def test_atomic_write_keeps_the_file_mode(tmp_path):
    import os
    import stat

    if os.name == "nt":
        return
    target = tmp_path / "index.md"
    target.write_bytes(b"old")
    target.chmod(0o640)
    fs.atomic_write(target, b"new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    fresh = tmp_path / "new.md"
    fs.atomic_write(fresh, b"x")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~fs._umask()


def test_refused_rename_is_retried_briefly(tmp_path, monkeypatch):
    real = fs.os.replace
    attempts = []

    def flaky(src, dst):
        attempts.append(dst)
        if len(attempts) < 3:
            raise PermissionError(13, "sharing violation")
        return real(src, dst)

    monkeypatch.setattr(fs.os, "replace", flaky)
    fs.atomic_write(tmp_path / "f.md", b"ok")
    assert (tmp_path / "f.md").read_bytes() == b"ok" and len(attempts) == 3


def test_rename_refused_for_good_fails_and_cleans_up(tmp_path, monkeypatch):
    def refuse(src, dst):
        raise PermissionError(13, "sharing violation")

    monkeypatch.setattr(fs.os, "replace", refuse)
    monkeypatch.setattr(fs.time, "sleep", lambda s: None)
    with pytest.raises(PermissionError):
        fs.atomic_write(tmp_path / "f.md", b"ok")
    assert list(tmp_path.iterdir()) == []


def test_a_new_root_that_another_memboard_is_writing_into_is_a_memory_root(tmp_path):
    """Concurrent first hooks on an empty root: one process's temp file must not make the others refuse."""
    from memboard.core.files.root import not_a_memory_root

    (tmp_path / ".index.md.x1y2z3.memboard-tmp").write_bytes(b"| Session ID |")
    assert not_a_memory_root(tmp_path) is None
    (tmp_path / "notes.txt").write_text("someone else's")
    assert "notes.txt" in (not_a_memory_root(tmp_path) or "")


def test_a_marker_renamed_into_place_between_the_two_looks_is_seen(tmp_path, monkeypatch):
    """Concurrent first registrations: another process's index.md lands after the marker check and before
    the folder is listed; the listing must count it as the marker it is, not as someone else's file."""
    from pathlib import Path

    from memboard.core.files.root import not_a_memory_root

    (tmp_path / "index.md").write_bytes(b"| Session ID |\n")
    real_exists = Path.exists
    monkeypatch.setattr(Path, "exists", lambda self: False if self.parent == tmp_path else real_exists(self))
    assert not_a_memory_root(tmp_path) is None
