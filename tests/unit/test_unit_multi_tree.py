"""Plans that write in several trees: each change names its tree, the locks are taken in order of real path,
every tree's files are read again under them (a change in one rebuilds the plan), and every step verified."""

from __future__ import annotations

import functools
import threading
from pathlib import Path

import pytest

from memboard.core.errors import Incomplete, MemboardError, StalePlan
from memboard.core.files import execute, lock
from memboard.core.files.filetree import FileTree
from memboard.core.files.root import MemoryRoot
from memboard.core.files.trees import AGENT_CONFIG, MEMORY_ROOT, Tree, lock_order
from memboard.core.plan import Change, Plan


def _root(path: Path) -> MemoryRoot:
    path.mkdir(parents=True, exist_ok=True)
    if not (path / "index.md").exists():
        (path / "index.md").write_bytes(b"# Index\n")
    return MemoryRoot(path)


def _two_tree_plan(root: MemoryRoot, other: FileTree, note: bytes) -> Plan[None]:
    """index.md in the root, and the other tree's file set to note (built from what each holds now)."""
    plan: Plan[None] = Plan("both", None)
    plan.changes.append(Change.write("index.md", root.read("index.md"), b"# Index\n\nboth\n"))
    plan.trees["agent"] = other
    plan.elsewhere.append(Change.write(other.name, other.read(other.name), note, tree="agent"))
    return plan


def test_a_plan_writes_in_two_trees_and_its_patch_names_both(tmp_path):
    root = _root(tmp_path / "memory")
    other = FileTree(tmp_path / "agent" / "settings.json", AGENT_CONFIG)
    plan = execute.execute(root, lambda r: _two_tree_plan(r, other, b"{}\n"), dry_run=True)
    patch = plan.diff()
    assert (
        "+++ b/index.md" in patch and f"+++ b/{(tmp_path / 'agent' / 'settings.json').as_posix().lstrip('/')}" in patch
    )
    assert not (tmp_path / "agent").exists()  # a dry run writes nothing
    execute.execute(root, lambda r: _two_tree_plan(r, other, b"{}\n"))
    assert (tmp_path / "agent" / "settings.json").read_bytes() == b"{}\n"
    assert (tmp_path / "memory" / "index.md").read_bytes() == b"# Index\n\nboth\n"


def test_a_change_in_the_other_tree_under_the_lock_rebuilds_the_plan(tmp_path, monkeypatch):
    root = _root(tmp_path / "memory")
    path = tmp_path / "agent" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(b"{}\n")
    other = FileTree(path, AGENT_CONFIG)
    builds: list[bytes | None] = []

    def build(r: MemoryRoot) -> Plan[None]:
        builds.append(other.read(other.name))
        return _two_tree_plan(r, other, (other.read(other.name) or b"").replace(b"}", b'"a": 1}'))

    real_locked = lock.locked
    locks: list[int] = []

    def edit_then_lock(*args, **kwargs):
        if not locks:
            path.write_bytes(b'{"user": 2}\n')  # another program saves the file between the build and the lock
        locks.append(len(builds))
        return real_locked(*args, **kwargs)

    monkeypatch.setattr(execute, "locked", edit_then_lock)
    execute.execute(root, build)
    assert builds[locks[0] - 1] == b"{}\n" and builds[-1] == b'{"user": 2}\n'  # built again under the lock
    assert path.read_bytes() == b'{"user": 2"a": 1}\n'


def test_a_stale_previewed_plan_in_another_tree_is_refused_with_nothing_written(tmp_path):
    root = _root(tmp_path / "memory")
    path = tmp_path / "agent" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(b"{}\n")
    other = FileTree(path, AGENT_CONFIG)
    plan = _two_tree_plan(root, other, b"[]\n")
    path.write_bytes(b"{ }\n")
    with pytest.raises(StalePlan):
        execute.apply_exact(root, plan, lambda r: _two_tree_plan(r, other, b"[]\n"))
    assert path.read_bytes() == b"{ }\n" and (tmp_path / "memory" / "index.md").read_bytes() == b"# Index\n"


def test_a_failure_in_the_root_after_the_other_tree_was_written_is_incomplete(tmp_path, monkeypatch):
    root = _root(tmp_path / "memory")
    other = FileTree(tmp_path / "agent" / "settings.json", AGENT_CONFIG)
    plan = _two_tree_plan(root, other, b"{}\n")
    real_step = execute._step

    def failing(r, ch, *args, **kwargs):
        if ch.path == "index.md":
            raise OSError(5, "Input/output error")
        return real_step(r, ch, *args, **kwargs)

    monkeypatch.setattr(execute, "_step", failing)
    with pytest.raises(Incomplete, match=r"settings\.json"):
        execute.apply_exact(root, plan, lambda r: plan)


def test_a_change_naming_a_tree_the_plan_does_not_hold_is_refused(tmp_path):
    root = _root(tmp_path / "memory")
    plan: Plan[None] = Plan("lost", None, elsewhere=[Change.write("x", None, b"x", tree="nowhere")])
    with pytest.raises(MemboardError, match="nowhere"):
        execute.execute(root, lambda r: plan)


def test_locks_are_taken_in_order_of_real_path_whatever_the_plan_lists(tmp_path):
    a, b = Tree(MEMORY_ROOT, tmp_path / "a"), Tree(MEMORY_ROOT, tmp_path / "b")
    assert lock_order([b, a]) == lock_order([a, b]) == [a, b]
    assert lock_order([a, Tree(MEMORY_ROOT, tmp_path / "x", lock_of=tmp_path / "a")]) == [a]  # one lock each


def test_two_plans_over_the_same_two_trees_listed_in_opposite_orders_do_not_deadlock(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMBOARD_LOCK_TIMEOUT", "20")
    roots = [_root(tmp_path / "one"), _root(tmp_path / "two")]
    files = [FileTree(tmp_path / f"agent{i}" / "f.json", AGENT_CONFIG) for i in range(2)]
    errors: list[BaseException] = []

    def run(first: int) -> None:
        try:
            root, other = roots[first], FileTree(roots[1 - first].path / "index.md", AGENT_CONFIG)
            for n in range(8):
                note = b"# Index\n" + str(n).encode() * 3 + b"\n"
                execute.execute(root, functools.partial(_two_tree_plan, other=other, note=note))
        except BaseException as exc:  # handed to the test thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "deadlocked"
    assert not errors, errors
    assert files  # (the agent trees are unused: the two plans cross-write each other's index.md)
