"""The benchmark root generator writes roots memboard reads as intended (not a timed test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.board_figures import spawn
from bench.roots import generate
from memboard.core.formats.index import IndexFile
from memboard.core.formats.snapshot import Snapshot

REPO = Path(__file__).resolve().parents[2]


def has_cjk(text: str) -> bool:
    """Whether text holds CJK ideographs."""
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_generated_root_parses_with_expected_rows_and_content(tmp_path):
    """A 200-row root parses to 200 well-formed rows with CJK text and escaped pipes."""
    manifest = generate(tmp_path / "root", 200)
    index = IndexFile((tmp_path / "root" / "index.md").read_bytes())
    assert len(index.rows) == 200
    assert [r.problem for r in index.rows if r.problem] == []
    assert [r.id for r in index.rows] == manifest.ids
    assert len(set(manifest.ids)) == 200
    written = [r for r in index.rows if r.get("summary") != "sessionStart 自動註冊，尚未整理主題。"]
    cjk_written = [r for r in written if has_cjk(r.get("topic") + r.get("summary"))]
    assert 0.15 <= len(cjk_written) / len(written) <= 0.5
    piped = [r for r in index.rows if "\\|" in r.raw_cells[3]]
    assert piped and all("|" in r.get("summary") and "\\|" not in r.get("summary") for r in piped)
    assert {r.get("status") for r in index.rows} == {"idle", "active", "stale"}
    assert index.lines[-1].startswith("<!--"), "text after the table is kept"


def test_references_and_snapshots_agree(tmp_path):
    """Every Referenced By entry is backed by the referencing snapshot's Continues From."""
    manifest = generate(tmp_path / "root", 200)
    index = IndexFile((tmp_path / "root" / "index.md").read_bytes())
    ids = set(manifest.ids)
    referenced = [r for r in index.rows if r.refs]
    assert referenced, "some rows are referenced"
    for row in referenced:
        for ref in row.refs:
            assert ref in ids
            snap = Snapshot((tmp_path / "root" / "sessions" / f"{ref}.md").read_bytes())
            assert row.id in snap.continues_from()
    assert manifest.snapshots and manifest.archivable
    for sid in manifest.archivable:
        assert (tmp_path / "root" / "sessions" / f"{sid}.md").exists()
        assert index.find(sid)[0].refs == []


def test_generator_is_deterministic(tmp_path):
    """The same seed and size give the same bytes."""
    generate(tmp_path / "a", 200)
    generate(tmp_path / "b", 200)
    assert (tmp_path / "a" / "index.md").read_bytes() == (tmp_path / "b" / "index.md").read_bytes()
    assert sorted(p.name for p in (tmp_path / "a" / "sessions").iterdir()) == sorted(
        p.name for p in (tmp_path / "b" / "sessions").iterdir()
    )


def test_run_py_describes_its_options():
    """`python bench/run.py --help` works without a package install of bench/."""
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "run.py"), "--help"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "--quick" in proc.stdout and "--json" in proc.stdout
    assert "--million-rows" in proc.stdout and "--million-runs" in proc.stdout and "--notes" in proc.stdout
    assert all(section in proc.stdout for section in ("million", "search", "agents"))


def test_table_marks_missing_figures_and_targets():
    """Missing figures say why instead of a number; targets show PASS/FAIL."""
    from bench.run import Figure, render_table

    table = render_table(
        [
            Figure("memboard register", 1000, 0.12, "s", 5, "python -c pass", 0.03, 4.0),
            Figure(
                "board first paint", 1000, None, "", target="≤ 1.5× bare", note="not available (board not built yet)"
            ),
            Figure("rows lost (8 writers)", 1000, 0.0, "rows", 40, target="= 0", passed=True),
            Figure("filter keystroke → repaint", 100000, 80.0, "ms", 6, target="≤ 50 ms", passed=False),
        ]
    )
    lines = table.splitlines()
    assert "120 ms ×5" in lines[2] and "4.00×" in lines[2]
    assert "not available (board not built yet)" in lines[3]
    assert lines[4].rstrip().endswith("PASS") and lines[5].rstrip().endswith("FAIL")


@pytest.mark.parametrize("task", ["organize", "doctor"])
def test_the_board_figures_still_find_the_board_s_previews(tmp_path, task):
    """The board's preview figures drive the real board: when its screens change, the measuring child must
    still find the preview (it waited ten minutes for a widget that no longer existed)."""
    root = tmp_path / "root"
    generate(root, 200)
    seconds, report = spawn("board", root, tmp_path / "state", task, runs=1, timeout=120)
    assert seconds > 0 and report["painted_at"] > 0
    assert 0 < report["plan_s"] <= report["preview_s"] <= report["rows_s"]  # made, then on screen, then listed


def test_the_quoted_id_root_quotes_one_row_in_ten_and_keeps_every_row(tmp_path):
    """bench/quoted.py's root: the newest ID in one other row's Summary in ten, every row still well formed."""
    from bench.quoted import quote

    manifest = generate(tmp_path / "root", 200)
    target = manifest.ids[-1]
    assert quote(tmp_path / "root" / "index.md", target) == 19
    index = IndexFile((tmp_path / "root" / "index.md").read_bytes())
    assert [r.id for r in index.rows] == manifest.ids and not [r for r in index.rows if r.problem]
    assert sum(target in r.get("summary") for r in index.rows) == 19
    assert [r.id for r in index.find(target)] == [target]


def test_root_b_holds_what_issue_29_describes(tmp_path):
    """Root b: a third of the Summaries with an escaped pipe, 3% of rows with snapshots, every status, active
    rows continuing earlier ones; its twin without pipes holds the same rows; both are deterministic."""
    manifest = generate(tmp_path / "b", 3000, kind="b")
    plain = generate(tmp_path / "plain", 3000, kind="b-nopipe")
    index = IndexFile((tmp_path / "b" / "index.md").read_bytes())
    assert [r.id for r in index.rows] == manifest.ids == plain.ids
    assert not [r for r in index.rows if r.problem]
    piped = [r for r in index.rows if "\\|" in r.raw_cells[3]]
    assert 0.28 <= len(piped) / 3000 <= 0.38 and manifest.pipe_rows == len(piped) and plain.pipe_rows == 0
    assert len(manifest.snapshots) == 90
    statuses = [r.status for r in index.rows]
    assert all(0.28 <= statuses.count(s) / 3000 <= 0.38 for s in ("idle", "active", "stale"))
    assert 0.02 <= manifest.referenced_rows / statuses.count("active") <= 0.08
    generate(tmp_path / "again", 3000, kind="b")
    assert (tmp_path / "again" / "index.md").read_bytes() == (tmp_path / "b" / "index.md").read_bytes()


def test_the_million_section_holds_each_command_to_1_gb_and_its_growth(tmp_path):
    """`--only million` (issue 29: 1M rows; here 500 for a try): each command at a tenth of the size and at the
    size, beside the floor; at the size each command's peak memory held to 1 GB, its growth held to 12×; the
    search cache's build beside its floor on root b, and its growth."""
    from bench.run import main

    out = tmp_path / "results.json"
    args = ["--only", "million", "--million-rows", "500", "--roots", "b", "--json", str(out)]  # (root a: the same)
    assert main(args) == 0
    figures = {(f["figure"], f["n"]): f for f in json.loads(out.read_text(encoding="utf-8"))["figures"]}
    for name in ("list --json", "organize --dry-run", "organize", "doctor --json", "update ID --summary x"):
        assert figures[(f"memboard {name} · root b", 50)]["ratio"] > 0
        memory = figures[(f"memboard {name} peak memory · root b", 500)]
        assert memory["target"] == "≤ 1 GB (954 MiB)" and memory["passed"] is True and memory["value"] > 0
        growth = figures[(f"growth 0.05k → 0.5k: memboard {name} · root b", None)]
        assert growth["target"] == "≤ 12×" and growth["value"] > 0 and growth["cpu_ratio"] > 0
    assert figures[("search cache build (whole process) / its floor · root b", 500)]["baseline"] > 0
    assert ("growth 0.05k → 0.5k: search cache build · root b", None) in figures


def test_search_targets_lines_become_figures_judged_as_they_were(capsys):
    """The search section keeps bench/search_targets.py's verdicts: its printed lines (value text, target, result)
    become the table's figures with the same value, unit, target and PASS/FAIL."""
    from bench.run import judged
    from bench.search_targets import line

    first = judged("search: first", 100_000, line("first search", "0.79 s", "≤ 1 s", True, "in place after 9 s"), "x")
    build = judged("search: build", 100_000, line("build / floor", "2.58×", "≤ 2×", False), "x")
    served = judged("search: mem_search", 100_000, line("mem_search", "170 ms", "≤ 100 ms", False), "x")
    odd = judged("search: odd", 100_000, line("odd", "n/a", "(report)", None), "x")
    assert (first.value, first.unit, first.passed, first.target) == (0.79, "s", True, "≤ 1 s")
    assert "in place after 9 s" in first.note
    assert (build.value, build.unit, build.passed) == (2.58, "×", False)
    assert (served.value, served.unit, served.passed) == (170.0, "ms", False)
    assert odd.value is None and odd.passed is None and "'n/a'" in odd.note
    capsys.readouterr()


def test_the_agents_section_holds_the_start_of_work_calls_to_100_ms(monkeypatch):
    """bench/mcp_context.py's measure() figures: session_context and mem_context held to 100 ms (after a change
    too), mem_search for the record only (the search section's is held, on a warm cache)."""
    from bench import mcp_context
    from bench.run import Results, agents_section

    nan = float("nan")
    calls = {
        "session_context": {"first": 1.8, "warm": 0.097},
        "mem_context": {"first": 0.2, "warm": 0.134},
        "mem_search 同步": {"first": 0.5, "warm": 0.5},
        "session_context, a row appended": {"first": nan, "warm": 0.05},
    }
    local = {"session_context": {"wall": 0.09, "cpu": 0.06}}
    figures = {"rows": 100, "notes": 10, "runs": 3, "load": 1.0, "calls": calls, "in_process": local, "kept_mb": 35.0}
    monkeypatch.setattr(mcp_context, "measure", lambda rows, notes, runs: figures)
    results = Results()
    agents_section(results, 100, 10, 3)
    got = {f.figure: f for f in results.figures}
    assert got["agents: session_context over MCP, warm"].passed is True
    assert "first call 1,800 ms" in got["agents: session_context over MCP, warm"].note
    assert got["agents: mem_context over MCP, warm"].passed is False
    assert got["agents: session_context, a row appended over MCP, warm"].target == "≤ 100 ms"
    assert got["agents: mem_search 同步 over MCP, warm"].passed is None
    assert got["agents: what the MCP server keeps"].value == 35.0


def test_the_killed_build_figure_kills_the_builder_and_counts_what_is_left(tmp_path):
    """bench/killed_build.py: on a root above 4 MiB the first search's build beside it is killed while it
    writes; nothing is left (its supervisor removes the temp file); a smaller root has no such build."""
    from bench.cli_figures import memboard_cmd
    from bench.killed_build import measure

    big = generate(tmp_path / "big", 25_000)
    left, how = measure(big.path, tmp_path / "state", memboard_cmd())
    assert left == 0 and "killed (SIGKILL)" in how
    small = generate(tmp_path / "small", 200)
    assert measure(small.path, tmp_path / "state2", memboard_cmd())[0] is None


def test_a_section_that_breaks_is_a_figure_and_the_run_goes_on(tmp_path, monkeypatch, capsys):
    """A full run is twenty minutes: a section whose measuring code raises is reported in the table as not
    available, with why, and the run still prints its table and writes its JSON."""
    from bench import run

    def broken(*_args):
        raise ValueError("the SDK changed")

    monkeypatch.setattr(run, "agents_section", broken)
    out = tmp_path / "results.json"
    assert run.main(["--only", "agents", "--sizes", "100", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "agents section" in table and "it stopped: ValueError: the SDK changed" in table
    assert json.loads(out.read_text(encoding="utf-8"))["meta"]["section_seconds"]["agents"] >= 0
