"""PlannedRoot and plan_sequence: planning step N over what steps 1..N-1 will leave on disk."""

from __future__ import annotations

import pytest

from memboard.core.errors import Refused
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.clock import now
from memboard.core.ops.archive import plan_archive
from memboard.core.ops.sequence import PlannedRoot, plan_sequence
from memboard.core.plan import Change, Plan
from tests.support.tree import tree

from .sample import FOLLOWER, LONER, OVERDUE, SOURCE


def test_planned_root_reads_through_laid_changes(sample_root):
    base = MemoryRoot(sample_root)
    planned = PlannedRoot(base)
    plan = Plan(
        "x",
        None,
        [
            Change("create", "archive/a/index.md", None, b"meta"),
            Change("move", f"sessions/{LONER}.md", b"s", b"s", dest="archive/a/session.md"),
            Change("modify", "index.md", base.read("index.md"), b"new index"),
        ],
    )
    planned.lay(plan)
    assert planned.read("index.md") == b"new index"
    assert planned.read(f"sessions/{LONER}.md") is None
    assert planned.read("archive/a/session.md") == b"s"
    assert planned.exists("archive/a") and not base.exists("archive/a")
    assert LONER not in planned.session_ids_on_disk() and SOURCE in planned.session_ids_on_disk()
    assert planned.archived_ids() == {"a"}
    assert base.read("index.md") != b"new index"
    with pytest.raises(Exception):
        planned.read("../escape")


def test_sequence_orders_referencing_sessions_first_and_writes_nothing(sample_root):
    before = tree(sample_root, skip=(".memboard",))
    when = now()
    seq = plan_sequence(
        MemoryRoot(sample_root), "archive", [SOURCE, FOLLOWER, OVERDUE], lambda r, sid: plan_archive(r, sid, when)
    )
    assert [sid for sid, _ in seq.steps] == [FOLLOWER, OVERDUE, SOURCE]
    assert seq.refused == {}
    first, second = seq.steps[0][1], seq.steps[1][1]
    assert second.changes[-1].before == first.changes[-1].after
    assert tree(sample_root, skip=(".memboard",)) == before
    combined = seq.combined()
    assert len(combined.changes) == sum(len(p.changes) for _, p in seq.steps)


def test_sequence_keeps_refusals_with_their_reason(sample_root):
    when = now()
    seq = plan_sequence(MemoryRoot(sample_root), "archive", [SOURCE, LONER], lambda r, sid: plan_archive(r, sid, when))
    assert [sid for sid, _ in seq.steps] == [LONER]
    assert "still referenced by" in seq.refused[SOURCE]
    with pytest.raises(Refused):
        plan_archive(MemoryRoot(sample_root), SOURCE, when)
