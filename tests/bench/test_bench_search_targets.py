"""Smoke tests of the search and agents figures bench/run.py reads (bench/search_targets.py, bench/mcp_context.py):
each comes back with its target and a verdict."""

from __future__ import annotations

from bench import mcp_context, search_targets


def test_the_build_growth_figures_come_with_their_targets(tmp_path):
    rows = search_targets.growth_figures(tmp_path, "b", sizes=(200, 2000))
    assert [r["figure"] for r in rows] == [
        "cache build / its floor at 200 rows (root b)",
        "cache build / its floor at 2,000 rows (root b)",
        "cache build growth 200 -> 2,000 rows (root b, CPU)",
    ]
    assert [r["target"] for r in rows] == ["≤ 2×", "≤ 2×", "≤ 12× (linear)"]
    assert all(r["result"] in ("PASS", "FAIL") for r in rows)
    assert not (tmp_path / "state-growth-b").exists()  # (no cache left behind)


def test_the_agents_targets_are_read_from_measure_s_figures():
    calls = {name: {"first": 0.5, "warm": 0.05} for name in mcp_context.TARGETED}
    calls["mem_search 同步"]["warm"] = 0.25
    figures = {"rows": 100_000, "notes": 10_000, "runs": 7, "load": 1.5, "calls": calls}
    rows = mcp_context.targets(figures)
    assert [(r["figure"].split(" over")[0], r["value"], r["result"]) for r in rows] == [
        ("session_context", "50 ms", "PASS"),
        ("mem_context", "50 ms", "PASS"),
        ("mem_search 同步", "250 ms", "FAIL"),
    ]
    assert all(r["target"] == "≤ 100 ms" and r["limit"] == 0.1 for r in rows)
