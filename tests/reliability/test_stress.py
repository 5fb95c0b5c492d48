"""Concurrency stress: 8 writer processes and a hand editor on one 1,100-row root, bounded in time.

The harness is bench/lock.py (run it directly for longer runs and the lock figures with and
without the FIFO queue). Here it runs for a fixed 15 s and must keep every promise; the
figures are printed (`pytest -s`) and attached to the test report.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.stress

BENCH = Path(__file__).resolve().parents[2] / "bench" / "lock.py"


def load_bench():
    """bench/lock.py as a module."""
    spec = importlib.util.spec_from_file_location("memboard_bench_lock", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_eight_writers_and_a_hand_editor_lose_nothing(tmp_path, record_property):
    bench = load_bench()
    root = tmp_path / "memory"
    seeded = bench.build_root(root, rows=1100)
    result = bench.run_stress(root, seconds=15.0, workers=8, use_editor=True, seed=7)
    figures = bench.figures(result)
    for key, value in figures.items():
        record_property(key, value)
        print(f"{key}: {value}")
    problems = bench.check(root, seeded, result)
    print(f"rows lost to editor saves that overlapped a write: {result['lost_to_editor']}")
    assert problems == [], "\n".join(problems[:20])
    # the run really mixed every operation and really contended for the lock
    ops = {e["argv"][0] for e in result["events"] if e["code"] == 0}
    assert {"register", "update", "continue", "organize", "archive"} <= ops, ops
    assert any(e["argv"][0] == "release" for e in result["events"])
    assert figures["succeeded"] >= 50 and figures["editor_saves"] >= 10
    # nobody starved into the lock timeout
    assert not [e for e in result["events"] if "locked by another writer" in e["err"]]
    # whatever the interrupted commands left, doctor --fix converges in one pass
    from memboard.core.files.execute import execute
    from memboard.core.files.root import MemoryRoot
    from memboard.core.formats import clock
    from memboard.core.ops.doctor import diagnose

    mroot = MemoryRoot(root)
    execute(mroot, lambda r: diagnose(r, clock.now())[1])
    findings, plan = diagnose(mroot, clock.now())
    assert not plan.changes, [f for f in findings if f.fix][:5]
