"""Crash fault injection: every multi-file operation is stopped after each single file step.

Three ways to stop: an injected exception (reported as one line, exit 1), a real `kill -9`
of the subprocess parked at that step, and a kill while the step's temp file is written but
not yet renamed. After each crash: every file holds either its old or its new bytes (nothing
torn), no other file changed, the row is still findable, `doctor` names the state when it is
not the finished one, and `doctor --fix` reaches a consistent root without losing content.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import datetime

import pytest

from memboard.core.files.execute import execute
from memboard.core.files.root import MemoryRoot
from memboard.core.formats import clock
from memboard.core.formats.archive import render_archive_index
from memboard.core.ops.archive import plan_archive
from memboard.core.ops.continue_from import plan_continue
from memboard.core.ops.doctor import diagnose
from memboard.core.ops.manual import plan_manual
from memboard.core.ops.organize import plan_organize
from memboard.core.ops.query import show
from memboard.core.ops.register import plan_register
from memboard.core.ops.release import plan_release
from memboard.core.ops.update import plan_update
from tests.support.doctor import needing
from tests.support.faults import Faults, installed, memboard_module
from tests.support.roots import item_lines, temp_files
from tests.support.tree import content_changes, tree

from .rootstate import index_ids, parse_problems

OLD = datetime(2026, 5, 1, 10, 0)
A = "2026-05-01-1000-alpha"
B = "2026-05-01-1000-beta"
C = "2026-05-01-1000-gamma"
IDLE = "2026-05-01-1000-idle"
SNAPSHOT = "## Decisions\n\n- keep the lock fair\n\n## Open Questions\n\n- how big is the index?\n"


def seed(path) -> None:
    """A root with active A, B (continues from A), C (continues from A), an idle row."""
    root = MemoryRoot(path)
    execute(
        root,
        lambda r: plan_manual(r, OLD, "alpha", "Alpha work", "Alpha summary.", "## Decisions\n\n- alpha decision\n"),
    )
    execute(root, lambda r: plan_manual(r, OLD, "beta", "Beta work", "Beta summary."))
    execute(root, lambda r: plan_manual(r, OLD, "gamma", "Gamma work", "Gamma summary."))
    execute(root, lambda r: plan_register(r, OLD, "idle"))
    execute(root, lambda r: plan_continue(r, A, OLD, as_id=B))
    execute(root, lambda r: plan_continue(r, A, OLD, as_id=C))


def seed_damaged(path) -> None:
    """A root doctor must repair in three file steps: a missing snapshot, a half archive, an index fix."""
    seed(path)
    (path / "sessions" / f"{B}.md").unlink()  # active row B without snapshot -> create it
    # gamma half-archived: archive index written, snapshot not yet moved, row still live
    from memboard.core.formats.index import IndexFile

    row = IndexFile((path / "index.md").read_bytes()).find(C)[0]
    values = dict(row.values)
    (path / "archive" / C).mkdir(parents=True)
    (path / "archive" / C / "index.md").write_text(render_archive_index(values, "2026-05-02 10:00"), encoding="utf-8")


def now() -> datetime:
    """The fixed clock the CLI subprocess sees too."""
    return clock.now()


SCENARIOS = {
    # name: (seed, argv, in-process builder, subject ID or None)
    "manual": (
        seed,
        ["register", "--manual", "--agent", "delta", "--topic", "Delta", "--summary", "Delta summary."],
        lambda r: plan_manual(r, now(), "delta", "Delta", "Delta summary."),
        None,
    ),
    "update": (
        seed,
        ["update", A, "--summary", "Alpha moved on.", "--snapshot", "{snap}"],
        lambda r: plan_update(r, A, now(), summary="Alpha moved on.", snapshot_text=SNAPSHOT),
        A,
    ),
    "update-creates-snapshot": (
        seed,
        ["update", IDLE, "--summary", "Now real work."],
        lambda r: plan_update(r, IDLE, now(), summary="Now real work."),
        IDLE,
    ),
    "continue-as": (seed, ["continue", A, "--as", IDLE], lambda r: plan_continue(r, A, now(), as_id=IDLE), IDLE),
    "continue-new": (
        seed,
        ["continue", A, "--agent", "delta"],
        lambda r: plan_continue(r, A, now(), agent="delta"),
        None,
    ),
    "release": (seed, ["release", A, "--as", B], lambda r: plan_release(r, A, B), B),
    "organize": (seed, ["organize"], lambda r: plan_organize(r, now(), 14), A),
    "archive": (seed, ["archive", C], lambda r: plan_archive(r, C, now()), C),
    "doctor": (seed_damaged, ["doctor", "--fix"], lambda r: diagnose(r, now())[1], B),
}
STEPS = {
    "manual": 2,
    "update": 2,
    "update-creates-snapshot": 2,
    "continue-as": 2,
    "continue-new": 2,
    "release": 2,
    "organize": 1,
    "archive": 3,
    "doctor": 3,
}
CASES = [(name, step) for name, n in STEPS.items() for step in range(1, n + 1)]


def run_crashing(root, argv, step: int, mode: str, tmp_path, capsys=None):
    """Run `memboard ARGV` stopping at `step` in `mode`; return (exit code, stdout, stderr).

    The injected exception runs the CLI in this process (fast, same code path); the kills
    need a real subprocess.
    """
    full = [*argv, "--root", str(root)]
    if mode == "raise":
        from memboard.cli import main

        with installed(Faults(step)):
            code = main(full)
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    marker = tmp_path / f"parked-{step}-{mode}"
    env = dict(os.environ, FAULT_AFTER_STEP=str(step), FAULT_MODE=mode, FAULT_SIGNAL=str(marker))
    cmd = [sys.executable, "-m", *memboard_module(env), *full]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if mode == "signal":
        deadline = time.monotonic() + 30
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert marker.exists(), "the process never reached the step"
        os.kill(proc.pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def applied(root, ch) -> bool:
    """Whether a planned change is on disk."""
    path = root / ch.path
    if ch.kind == "move":
        dest = root / ch.dest
        return (
            not path.exists()
            and dest.exists()
            and dest.read_bytes() == (ch.after if ch.after is not None else ch.before)
        )
    if ch.kind == "delete":
        return not path.exists()
    return path.exists() and path.read_bytes() == ch.after


def old_or_new(root, ch) -> bool:
    """Whether the files of a change hold exactly the old or exactly the new bytes (nothing torn)."""
    path = root / ch.path
    current = path.read_bytes() if path.is_file() else None
    if ch.kind == "move":
        dest = root / ch.dest
        moved = dest.read_bytes() if dest.is_file() else None
        want = ch.after if ch.after is not None else ch.before
        return (current, moved) in ((ch.before, None), (None, want))
    return current in (ch.before, ch.after)


MODES = [(name, step, mode) for name, step in CASES for mode in ("raise", "signal")]
MODES += [(name, 1, "kill-in-write") for name in STEPS]  # the first write of each operation, torn before its rename


@pytest.mark.skipif(os.name == "nt", reason="kill -9 is POSIX")
@pytest.mark.parametrize("name,step,mode", MODES)
def test_crash_after_each_step_is_recognised_and_repaired(root, tmp_path, capsys, name, step, mode):
    seeder, argv, build, subject = SCENARIOS[name]
    seeder(root)
    snap_file = tmp_path / "snap.md"
    snap_file.write_text(SNAPSHOT, encoding="utf-8")
    argv = [a.replace("{snap}", str(snap_file)) for a in argv]
    mroot = MemoryRoot(root)
    plan = build(mroot)
    assert len(plan.changes) == STEPS[name], [c.describe() for c in plan.changes]
    before = tree(root, links=False)
    snapshots_before = {k: item_lines(v) for k, v in before.items() if k.startswith("sessions/")}
    for ch in plan.changes:  # what the operation itself means to remove (release drops Continues From)
        if ch.path in snapshots_before and ch.kind == "modify":
            snapshots_before[ch.path] -= item_lines(ch.before) - item_lines(ch.after)
    rows_before = set(index_ids(root))

    code, out, err = run_crashing(root, argv, step, mode, tmp_path, capsys)

    if mode == "raise":
        assert code == 1, (out, err)
        assert len(err.strip().splitlines()) == 1 and "incomplete" in err and "doctor" in err, err
    elif mode == "signal":
        assert code == -signal.SIGKILL
    else:
        assert code in (137, 0), err  # a move step has no temp file, so nothing dies there
    assert "Traceback" not in err
    if code != 0:
        assert "Your Memory Session ID" not in out
    # nothing torn, nothing else touched
    for ch in plan.changes:
        assert old_or_new(root, ch), f"{ch.describe()} is torn"
    after = tree(root, links=False)
    planned = {p for ch in plan.changes for p in (ch.path, ch.dest) if p}
    strays = temp_files(root)
    assert content_changes(before, after) - planned - set(strays) == set()
    if mode == "kill-in-write" and code == 137:
        assert len(strays) == 1
    else:
        assert strays == []
    assert parse_problems(root) == []
    if subject:
        assert show(mroot, subject).id == subject  # live or archived, still findable

    findings, repair = diagnose(mroot, now())
    finished = all(applied(root, ch) for ch in plan.changes) and not strays
    fixable = [f for f in findings if f.fix]
    if finished:
        assert not repair.changes, findings
    else:
        assert findings, f"doctor does not recognise the state after step {step}"
        assert fixable and all(f.fix for f in findings), findings  # every state memboard leaves has a fix

    execute(mroot, lambda r: diagnose(r, now())[1])
    findings, repair = diagnose(mroot, now())
    assert not repair.changes and not [f for f in findings if f.fix], findings
    assert temp_files(root) == [] and parse_problems(root) == []
    # no content lost: snapshot lines live on in sessions/ or archive/, rows in the index or an archive
    for rel, lines in snapshots_before.items():
        sid = rel[len("sessions/") : -3]
        kept = b""
        for candidate in (root / rel, root / "archive" / sid / "session.md"):
            if candidate.is_file():
                kept += candidate.read_bytes()
        assert lines <= item_lines(kept), f"{rel} lost {lines - item_lines(kept)}"
    deleted = set(plan.result.deleted) if name == "organize" else set()
    live = set(index_ids(root))
    for sid in rows_before - deleted:
        assert sid in live or (root / "archive" / sid / "index.md").is_file(), f"row {sid} lost"


def test_kill_mode_exits_without_cleanup_and_doctor_finishes(root, cli):
    seed(root)
    res = cli("archive", C, env={"FAULT_AFTER_STEP": "2", "FAULT_MODE": "kill"})
    assert res.code == 137 and res.out == ""
    assert (root / "archive" / C / "session.md").is_file() and C in index_ids(root)
    res = cli("doctor")
    assert needing(res) == 2 and "half_archived" in res.out and "finish the archive" in res.out  # and a link to it
    res = cli("doctor", "--fix")
    assert needing(res) == 0, res.err
    assert C not in index_ids(root)
    assert "no problems found" in cli("doctor").out


def test_doctor_names_and_removes_a_stray_temp_file(root, cli):
    seed(root)
    stray = root / "sessions" / f".{A}.md.abc123.memboard-tmp"
    stray.write_bytes(b"half a snap")
    res = cli("doctor")
    assert "stray_temp" in res.out and stray.name in res.out
    assert stray.exists()
    assert cli("doctor", "--fix").code == 0
    assert not stray.exists()
    assert (root / "sessions" / f"{A}.md").read_bytes().startswith(b"# Session:")
