"""A hand edit saved in the middle of a multi-file write is kept, and the write still lands."""

from __future__ import annotations

from datetime import datetime

import pytest

from memboard.core.errors import Incomplete
from memboard.core.files import fs, probe
from memboard.core.files.execute import execute
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.index import IndexFile
from memboard.core.ops.manual import plan_manual
from memboard.core.ops.register import plan_register
from memboard.core.ops.update import plan_update
from memboard.core.rebase import rebase
from tests.support.faults import AfterStep
from tests.support.sizes import examples

WHEN = datetime(2026, 6, 1, 9, 30)


def test_rebase_merges_disjoint_line_changes_and_refuses_overlaps():
    base = b"a\nb\nc\nd\n"
    assert rebase(base, b"a\nB\nc\nd\n", b"a\nb\nc\nD\n") == b"a\nB\nc\nD\n"
    assert rebase(base, b"a\nb\nc\nd\ne\n", b"A\nb\nc\nd\n") == b"A\nb\nc\nd\ne\n"
    assert rebase(base, b"a\nB\nc\nd\n", b"a\nX\nc\nd\n") is None  # same line
    assert rebase(base, b"a\nb\nc\nd\ne\n", b"a\nb\nc\nd\nf\n") is None  # both append at the same point
    assert rebase(b"x\r\ny\n", b"x\r\nY\n", b"X\r\ny\n") == b"X\r\nY\n"


def hand_edit_during_step(monkeypatch, root, after_step: int, edit):
    """Make a 'hand edit' land on index.md right after the plan's step N (as an editor would save)."""

    def save() -> None:
        """Save the hand edit."""
        path = root / "index.md"
        path.write_bytes(edit(path.read_bytes()))

    after = AfterStep(after_step, save)
    monkeypatch.setattr(probe, "current", lambda: after)


def test_update_keeps_a_hand_edit_saved_between_its_two_steps(root, monkeypatch):
    mroot = MemoryRoot(root)
    (root / "index.md").write_text("# Memory\n\nnote: before\n\n")
    execute(mroot, lambda r: plan_register(r, WHEN, "alpha"))
    hand_edit_during_step(monkeypatch, root, 1, lambda b: b.replace(b"note: before", b"note: edited by hand"))
    plan = execute(mroot, lambda r: plan_update(r, "2026-06-01-0930-alpha", WHEN, summary="Real work now."))
    data = (root / "index.md").read_bytes()
    assert b"note: edited by hand" in data
    row = IndexFile(data).find("2026-06-01-0930-alpha")[0]
    assert row.status == "active" and row.get("summary") == "Real work now."
    assert (root / "sessions" / "2026-06-01-0930-alpha.md").exists()
    assert plan.changes[-1].after == data


def test_manual_registration_keeps_a_hand_edited_row(root, monkeypatch):
    mroot = MemoryRoot(root)
    execute(mroot, lambda r: plan_register(r, WHEN, "alpha"))
    hand_edit_during_step(monkeypatch, root, 1, lambda b: b.replace("未設定".encode(), b"named by hand"))
    execute(mroot, lambda r: plan_manual(r, WHEN, "beta", "Beta", "Beta work."))
    index = IndexFile((root / "index.md").read_bytes())
    assert index.find("2026-06-01-0930-alpha")[0].get("topic") == "named by hand"
    assert index.find("2026-06-01-0930-beta")[0].status == "active"


def test_a_conflicting_hand_edit_is_kept_and_the_operation_reported_incomplete(root, monkeypatch):
    mroot = MemoryRoot(root)
    execute(mroot, lambda r: plan_register(r, WHEN, "alpha"))
    # the hand edit changes the very row the update rewrites: memboard must not overwrite it
    hand_edit_during_step(monkeypatch, root, 1, lambda b: b.replace(b"| idle |", b"| stale |"))
    with pytest.raises(Incomplete, match="changed while memboard was writing"):
        execute(mroot, lambda r: plan_update(r, "2026-06-01-0930-alpha", WHEN, summary="x"))
    assert IndexFile((root / "index.md").read_bytes()).find("2026-06-01-0930-alpha")[0].status == "stale"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from([b"| a |", b"| b |", b"text", b"", b"| a |"]), min_size=2, max_size=12), st.data())
def test_rebase_of_two_different_lines_keeps_both_edits(lines, data):
    base = [line + b"\n" for line in lines]
    i, j = data.draw(st.sampled_from([(i, j) for i in range(len(base)) for j in range(len(base)) if i != j]))
    ours, theirs = list(base), list(base)
    ours[i] = b"OURS\n"
    theirs[j] = b"THEIRS\n"
    merged = rebase(b"".join(base), b"".join(ours), b"".join(theirs))
    expected = list(base)
    expected[i], expected[j] = b"OURS\n", b"THEIRS\n"
    if len(set(base)) < len(base) and merged is None:
        return  # repeated lines make the diff ambiguous: refusing is safe (index rows are unique lines)
    assert merged == b"".join(expected)


def test_a_hand_edit_during_the_first_write_makes_memboard_rebuild(root, monkeypatch):
    """The editor saves after memboard re-read index.md under the lock, before its rename."""
    mroot = MemoryRoot(root)
    (root / "index.md").write_text("note: before\n\n")
    execute(mroot, lambda r: plan_register(r, WHEN, "alpha"))
    real = fs.tempfile.mkstemp
    saved = []

    def mkstemp(*args, **kwargs):
        """Save the hand edit while memboard creates its temp file (once)."""
        if not saved:
            saved.append(True)
            path = root / "index.md"
            path.write_bytes(path.read_bytes().replace(b"note: before", b"note: by hand"))
        return real(*args, **kwargs)

    monkeypatch.setattr(fs.tempfile, "mkstemp", mkstemp)
    plan = execute(mroot, lambda r: plan_register(r, WHEN, "beta"))
    data = (root / "index.md").read_bytes()
    assert saved and b"note: by hand" in data and b"2026-06-01-0930-beta" in data
    assert plan.changes[0].before.startswith(b"note: by hand")  # the plan was rebuilt from the edit


def test_an_editor_caught_between_truncate_and_write_does_not_make_memboard_drop_rows(root, monkeypatch):
    """A plain save truncates first; memboard must not build on that empty file (found by the stress test)."""
    import threading
    import time

    monkeypatch.setenv("MEMBOARD_SETTLE_SECONDS", "0.5")

    mroot = MemoryRoot(root)
    for agent in ("alpha", "beta", "gamma"):
        execute(mroot, lambda r, a=agent: plan_register(r, WHEN, a))
    path = root / "index.md"
    full = path.read_bytes()
    fh = open(path, "wb")  # the editor's save has truncated the file ...
    resumed = threading.Event()

    def finish_save():
        """... and is descheduled for 150 ms before writing its buffer."""
        time.sleep(0.15)
        fh.write(full.replace("未設定".encode(), b"saved by hand", 1))
        fh.close()
        resumed.set()

    threading.Thread(target=finish_save).start()
    execute(mroot, lambda r: plan_register(r, WHEN, "delta"))
    resumed.wait(5)
    index = IndexFile(path.read_bytes())
    assert [r.id.rsplit("-", 1)[-1] for r in index.rows] == ["alpha", "beta", "gamma", "delta"]
    assert index.find("2026-06-01-0930-alpha")[0].get("topic") == "saved by hand"
