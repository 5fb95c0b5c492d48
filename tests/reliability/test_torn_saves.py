"""Torn-save stress: every changing command against an editor that saves index.md the plain way.

The harness is bench/torn.py (run it directly for longer runs, the stall scan and the idle
cost). Here it runs with the real settle window for a bounded time and must keep every
promise: no seeded row, hand row or announced Session ID lost, one-line refusals only, and
doctor --fix converging. The long form runs it with another seed for 15 s, and for 100 s under
MEMBOARD_STRESS=1 (tests/support/sizes.py).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.support.sizes import seconds

pytestmark = pytest.mark.stress

BENCH = Path(__file__).resolve().parents[2] / "bench" / "torn.py"


def load_bench():
    """bench/torn.py as a module."""
    spec = importlib.util.spec_from_file_location("memboard_bench_torn", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_and_check(tmp_path, seconds: float, workers: int, seed: int, record_property) -> dict:
    """Run the harness; assert every promise held; its figures."""
    bench = load_bench()
    root = tmp_path / "memory"
    seeded = bench.build_root(root, rows=400)
    # pauses up to 0.7 of the window: the rest is margin for a loaded CI machine waking the editor late
    result = bench.run(root, seconds=seconds, workers=workers, seed=seed, window=bench.WINDOW, pause=0.7)
    problems = bench.check(root, seeded, result) + bench.converge(root)
    figures = bench.figures(result)
    for key, value in figures.items():
        record_property(key, value)
        print(f"{key}: {value}")
    print(f"races: {result['races']}, rows lost to them and excused: {result['excused']}")
    assert problems == [], "\n".join(problems[:20])
    return figures


def test_every_command_beside_a_plain_saving_editor_loses_nothing(tmp_path, monkeypatch, record_property):
    monkeypatch.delenv("MEMBOARD_SETTLE_SECONDS")  # the real window
    figures = run_and_check(tmp_path, seconds=25.0, workers=4, seed=3, record_property=record_property)
    load = load_bench()
    ran = [kind for kind in load.COMMANDS if figures[f"{kind}_ok"]]
    assert ran == list(load.COMMANDS), figures
    assert figures["editor_truncate"] >= 5 and figures["editor_rename"] >= 1 and figures["editor_append"] >= 1
    assert figures["conflicts"] == 0, figures


def test_every_command_beside_a_plain_saving_editor_loses_nothing_long(tmp_path, monkeypatch, record_property):
    monkeypatch.delenv("MEMBOARD_SETTLE_SECONDS")
    figures = run_and_check(tmp_path, seconds=seconds(100.0, 15.0), workers=4, seed=11, record_property=record_property)
    assert figures["conflicts"] == 0, figures
