"""Organize's look at the snapshots in a child process while the rows are read (continues.Beside): the same
answers and the same plan as a look made here, the child's reads taken as the pass's own, no child left behind
when the pass is refused, and no child at all where forking is unsafe or unavailable."""

from __future__ import annotations

import os
import threading
from datetime import datetime

import pytest

from memboard.core.errors import Refused
from memboard.core.files import continues
from memboard.core.files.root import MemoryRoot
from memboard.core.ops.organize import plan_organize
from tests.support.roots import idle_line, row_line

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork: the look is always made here")

WHEN = datetime(2026, 6, 1, 9, 30)
LIVE = [f"2026-05-3{d}-0{h}00-claude-agent" for d in range(2) for h in range(1, 5)]
IDLE = [f"2026-05-0{d}-0900-cursor-main-agent" for d in range(1, 9)]


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A look beside from one snapshot on, and the children forked meanwhile."""
    monkeypatch.setattr(continues, "BESIDE_AT", 1)
    children: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            children.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return children


def protected_root(mem) -> None:
    """Idle rows, half of them listed under Continues From by live sessions' snapshots."""
    mem.index(*[row_line(sid, updated="2026-05-31 09:00") for sid in LIVE], *[idle_line(sid) for sid in IDLE])
    for k, sid in enumerate(LIVE):
        mem.snapshot(sid, continues=[IDLE[k]] if k % 2 else [])


def test_a_look_beside_gives_the_plan_a_look_here_gives(root, mem, forks) -> None:
    protected_root(mem)
    memory = MemoryRoot(root)
    with memory.tracking() as here_reads:
        here = plan_organize(memory, WHEN)
    assert not forks
    with memory.tracking() as beside_reads:
        beside = plan_organize(memory, WHEN, beside=True)
    assert len(forks) == 1
    with pytest.raises(ProcessLookupError):
        os.kill(forks[0], 0)  # (the child was waited for)
    assert beside.patch() == here.patch() and beside.patch()
    assert beside.report == here.report
    assert beside.result == here.result
    assert len(beside.result.protected) == len(IDLE) // 2
    # every snapshot read in the child is the pass's own read, as a look here notes them
    assert set(beside_reads) == set(here_reads) >= {f"sessions/{sid}.md" for sid in LIVE}
    assert all(beside_reads[rel].data == here_reads[rel].data for rel in here_reads)
    assert all(premise.holds(memory) for premise in beside.premises)


def test_a_refused_pass_leaves_no_child_behind(root, mem, forks) -> None:
    protected_root(mem)
    (root / "index.md").write_bytes(b"<<<<<<< ours\n" + (root / "index.md").read_bytes() + b">>>>>>> theirs\n")
    with pytest.raises(Refused):
        plan_organize(MemoryRoot(root), WHEN, beside=True)
    assert len(forks) == 1
    with pytest.raises(ProcessLookupError):
        os.kill(forks[0], 0)  # (ended and waited for)


def test_no_child_while_another_thread_runs_or_for_few_snapshots_to_read(root, mem, forks, monkeypatch) -> None:
    protected_root(mem)
    memory = MemoryRoot(root)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        with continues.Beside(memory) as looking:
            assert looking.pid == 0
            assert looking().answers == continues.look(memory).answers
    finally:
        release.set()
        other.join()
    monkeypatch.setattr(continues, "BESIDE_AT", len(LIVE) + 1)
    with continues.Beside(memory) as looking:
        assert looking.pid == 0
    monkeypatch.setattr(continues, "BESIDE_AT", 2)  # a record that answers for all but one snapshot
    monkeypatch.setattr(continues, "recorded", lambda _root: {f"{sid}.md": None for sid in LIVE[1:]})
    with continues.Beside(memory) as looking:
        assert looking.pid == 0
    assert not forks


def test_organize_dry_run_prints_the_patch_a_look_here_makes(cli, root, mem) -> None:
    """The command line looks beside from BESIDE_AT snapshots on: its patch is the in-process plan's."""
    protected_root(mem)
    for k in range(continues.BESIDE_AT):
        mem.snapshot(f"2026-04-01-0900-extra-{k}", continues=[IDLE[0]])
    res = cli("organize", "--dry-run", env={"MEMBOARD_NOW": "2026-06-01 09:30"})
    assert res.code == 0, res.err
    here = plan_organize(MemoryRoot(root), WHEN)
    assert res.out == here.patch().decode()
    assert IDLE[0] in res.err and "protected (referenced): 5" in res.err


def test_a_snapshot_the_child_cannot_read_keeps_every_row_it_may_protect(root, mem, forks, monkeypatch) -> None:
    protected_root(mem)
    real_open = os.open
    target = os.path.join(str(root), "sessions", f"{LIVE[0]}.md")  # (it lists nothing: only its read fails)

    def failing(path, flags, *args, **kw):
        """os.open, failing with EIO for one snapshot (in the child too: it is forked with this patch)."""
        if os.fspath(path) == target:
            raise OSError(5, "Input/output error", path)
        return real_open(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", failing)
    plan = plan_organize(MemoryRoot(root), WHEN, beside=True)
    assert forks, "the look was not made beside"
    assert plan.changes == [] and plan.result.deleted == []
    assert set(IDLE) <= set(plan.result.protected)
    assert plan.result.unreadable == {f"sessions/{LIVE[0]}.md": "Input/output error"}
