"""Organize's record of what each snapshot lists under Continues From (files/continues.py): used while a
snapshot keeps its stamp, never trusted for a file read too soon after a change, never written by a
preview, and never the reason a row loses its protection (a snapshot changed between plan and apply)."""

from __future__ import annotations

import json
import os
import time
from datetime import datetime

import pytest

from memboard.core.errors import StalePlan
from memboard.core.files import continues
from memboard.core.files.execute import apply_exact, settled_build
from memboard.core.files.root import MemoryRoot
from memboard.core.files.settle import AGED_NS, Budget
from memboard.core.ops.organize import plan_organize
from tests.support.roots import idle_line, row_line

A = "2026-05-01-0900-cursor-main-agent"  # an idle row only C's Continues From protects
X = "2026-05-01-0900-cursor-side-agent"  # an ID of A's length that no row has
C = "2026-05-30-0900-claude-agent"
RECENT = "2026-05-31 09:00"
HOUR_AGO = time.time_ns() - 3600 * 10**9
WHEN = datetime(2026, 6, 1, 9, 30)
RECORDED = pytest.mark.skipif(not continues.STAMPS_TELL, reason="no record where ctime is the creation time")


def organize(cli, *extra):
    """organize --json (and any extra options): its report."""
    res = cli("organize", "--json", *extra)
    assert res.code == 0, res.err
    return json.loads(res.out)


def aged_snapshot(mem, listed: str, wait: bool = True):
    """C's snapshot listing one ID under Continues From, its mtime an hour ago; with wait, two seconds after its
    last change (its ctime: now), when its answer may be recorded."""
    path = mem.snapshot(C, continues=[listed])
    os.utime(path, ns=(HOUR_AGO, HOUR_AGO))
    if wait:
        time.sleep(max(0.0, (path.stat().st_ctime_ns + AGED_NS - time.time_ns()) / 1e9) + 0.05)
    return path


def record(root):
    """The path of root's record in local state."""
    return continues.record_path(MemoryRoot(root))


@RECORDED
def test_a_preview_writes_no_record_an_organize_does_and_the_next_look_reads_no_snapshot(cli, root, mem, monkeypatch):
    mem.index(row_line(C, updated=RECENT))
    aged_snapshot(mem, X)
    assert cli("organize", "--dry-run").code == 0
    assert not record(root).exists()  # a preview writes nothing anywhere
    assert organize(cli)["kept_active"] == [C]  # nothing to change: the record is still kept
    assert record(root).exists()
    reads = []
    monkeypatch.setattr(MemoryRoot, "noted_read", lambda self, rel: reads.append(rel))
    seen = continues.look(MemoryRoot(root))
    assert seen.answers == {f"{C}.md": (C, (X,))} and reads == []


@RECORDED
def test_a_snapshot_rewritten_with_the_same_size_and_mtime_still_protects(cli, root, mem):
    mem.index(row_line(C, updated=RECENT))
    path = aged_snapshot(mem, X)
    organize(cli)  # records C's answer: it lists X
    assert record(root).exists()
    mem.index(idle_line(A), row_line(C, updated=RECENT))
    size = path.stat().st_size
    path.write_bytes(path.read_bytes().replace(X.encode(), A.encode()))  # in place: the same inode and size
    os.utime(path, ns=(HOUR_AGO, HOUR_AGO))  # and the mtime it had (only its ctime tells)
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (size, HOUR_AGO)
    out = organize(cli, "--dry-run")
    assert out["protected"] == [A] and out["deleted"] == []
    assert organize(cli)["protected"] == [A]
    assert A in mem.rows(cli)


def test_an_entry_recorded_too_soon_after_a_change_is_never_trusted(cli, root, mem):
    """As a read in the same clock tick as a write leaves it: the stamp (ctime too) is the file's own, the
    answer an older version's. Only the racy rule (recorded less than 2 s after the change) keeps it out."""
    mem.index(idle_line(A), row_line(C, updated=RECENT))
    path = mem.snapshot(C, continues=[A])
    st = path.stat()
    stamp = "\t".join(map(str, continues.stamp_of(st)))
    read_at = max(st.st_mtime_ns, st.st_ctime_ns) + 10**9  # 1 s after the change
    record(root).parent.mkdir(parents=True, exist_ok=True)
    record(root).write_bytes(continues.HEADER + f"{path.name}\t{stamp}\t{read_at}\t\t{X}\n".encode())  # "lists X"
    assert organize(cli, "--dry-run")["protected"] == [A]
    assert organize(cli)["protected"] == [A]
    assert A in mem.rows(cli)


@pytest.mark.parametrize("change", ["rewrite", "new snapshot"])
def test_a_snapshot_changed_between_preview_and_apply_makes_the_plan_stale(root, mem, change):
    mem.index(idle_line(A), row_line(C, updated=RECENT))
    aged_snapshot(mem, X, wait=False)
    memory = MemoryRoot(root)
    build = lambda r: plan_organize(r, WHEN, 14)  # the builder, as the board passes it
    plan = settled_build(memory, build, Budget(1))
    assert plan.result.deleted == [A]
    if change == "rewrite":
        aged_snapshot(mem, A, wait=False)  # now C continues from A (its stamp changes: ctime)
    else:
        mem.snapshot("2026-05-31-0900-codex-agent", continues=[A])
    with pytest.raises(StalePlan) as err:
        apply_exact(memory, plan, build)
    assert err.value.fresh_plan.result.protected == [A]  # the new plan the board shows instead
    assert A in mem.read_index()


@pytest.mark.parametrize("kind", ["garbage", "folder", "unwritable"])
def test_a_broken_or_unwritable_record_only_costs_the_reads(cli, root, mem, kind):
    mem.index(idle_line(A), row_line(C, updated=RECENT))
    aged_snapshot(mem, A, wait=kind == "unwritable")  # (aged: an answer to record, which cannot be written)
    path = record(root)
    path.parent.parent.mkdir(parents=True, exist_ok=True)
    if kind == "garbage":
        path.parent.mkdir()
        path.write_bytes(continues.HEADER + b"\x00\xff|" + f"{C}.md\t1\t2\tx\n".encode() + b"torn line without end")
    elif kind == "folder":
        path.mkdir(parents=True)
    else:
        path.parent.write_bytes(b"")  # where the record's folder belongs, a file (no one can write there)
    dry = cli("organize", "--dry-run")
    assert dry.code == 0 and f"protected (referenced): 1 — {A}" in dry.err
    assert organize(cli)["protected"] == [A]
    assert organize(cli)["protected"] == [A]  # (with the record it could or could not write)
    assert A in mem.rows(cli)
