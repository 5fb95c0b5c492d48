"""An index.md holding git's merge-conflict markers is not a table to write on.

Every changing command refuses with one line and writes nothing; `list`/`show` read through
the markers (both sides' rows) and warn on stderr; `doctor` names the marker lines and plans
nothing. Text that merely contains marker characters is not a conflict.
"""

from __future__ import annotations

import json

import pytest

from tests.support.doctor import doctor_findings, needing
from tests.support.roots import HEADER, SEPARATOR, idle_line, row_line, snapshot_text

A = "2026-05-30-0800-claude-agent"  # above the conflict
B = "2026-05-30-0900-cursor-main-agent"  # conflicted: one line per side
C = "2026-05-30-1000-codex-agent"  # below the conflict, idle, no snapshot
D = "2026-05-30-1100-claude-agent"  # below the conflict, active, with a snapshot


def conflicted(base: bool = False) -> str:
    """An index as `git merge` leaves it (with the diff3 base section when base)."""
    middle = [f"||||||| merged common ancestors\n{row_line(B, topic='Base')}\n"] if base else []
    return "".join(
        [
            "# Memory Index\n\n",
            HEADER,
            SEPARATOR,
            row_line(A) + "\n",
            "<<<<<<< HEAD\n",
            row_line(B, topic="Ours") + "\n",
            *middle,
            "=======\n",
            row_line(B, topic="Theirs") + "\n",
            ">>>>>>> laptop\n",
            idle_line(C) + "\n",
            row_line(D) + "\n",
        ]
    )


@pytest.fixture
def conflict(root, mem):
    """Write the conflicted index and D's snapshot; returns the index bytes."""
    (root / "index.md").write_text(conflicted(), encoding="utf-8")
    mem.snapshot(D)
    mem.snapshot(A)
    return (root / "index.md").read_bytes()


CHANGING = [
    ("register",),
    ("register", "--manual", "--topic", "T"),
    ("update", A, "--summary", "above the conflict"),
    ("update", D, "--summary", "below the conflict"),
    ("continue", A, "--as", D),
    ("continue", D),
    ("release", A, "--as", D),
    ("organize",),
    ("archive", A),
    ("archive", C),
    ("doctor", "--fix"),
    ("register", "--dry-run"),
]


@pytest.mark.parametrize("argv", CHANGING, ids=lambda a: " ".join(a))
def test_every_change_is_refused_with_one_line_and_nothing_written(cli, conflict, whole_tree, argv):
    before = whole_tree()
    res = cli(*argv)
    assert res.code == 1, (res.out, res.err)
    last = res.err.strip().splitlines()[-1]
    assert "merge-conflict markers (lines 6, 8, 10)" in last and "nothing written" in last
    assert "Your Memory Session ID" not in res.out
    assert whole_tree() == before


def test_diff3_markers_are_refused_too(cli, root, whole_tree):
    (root / "index.md").write_text(conflicted(base=True), encoding="utf-8")
    before = whole_tree()
    res = cli("register")
    assert res.code == 1 and "(lines 6, 8, 10, 12)" in res.err
    assert whole_tree() == before


def test_list_reads_both_sides_and_the_rows_below_and_warns(cli, conflict):
    res = cli("list", "--json")
    assert res.code == 0
    rows = json.loads(res.out)
    assert [(r["id"], r["topic"], r["line"]) for r in rows] == [
        (A, "Topic", 5),
        (B, "Ours", 7),
        (B, "Theirs", 9),
        (C, "未設定", 11),
        (D, "Topic", 12),
    ]
    assert rows[-1]["has_snapshot"] is True
    assert "warning: index.md holds merge-conflict markers (lines 6, 8, 10)" in res.err
    plain = cli("list")
    assert plain.code == 0 and C in plain.out and "merge-conflict markers" in plain.err


def test_show_finds_a_row_below_the_markers_and_warns(cli, conflict):
    res = cli("show", D, "--json")
    assert res.code == 0, res.err
    info = json.loads(res.out)
    assert info["row"]["line"] == 12 and info["snapshot"] == snapshot_text(D)
    assert "merge-conflict markers" in res.err


def test_doctor_names_the_marker_lines_and_plans_no_repair(cli, conflict, root, mem):
    mem.snapshot("2026-05-30-1200-cursor-main-agent")  # an orphan that doctor would otherwise restore
    findings = doctor_findings(cli("doctor", "--json"))  # exit 1: the markers need a hand
    assert [f["kind"] for f in findings] == ["index_conflict_markers"]
    assert "lines 6, 8, 10" in findings[0]["message"] and "delete the marker lines" in findings[0]["message"]
    assert findings[0]["fix"] is None
    text = cli("doctor")
    assert needing(text) == 1 and "run `memboard doctor --fix`" not in text.out


def test_only_real_marker_lines_count(cli, root, mem, whole_tree):
    """A fenced example of a conflict, a setext heading's `=======`, markers inside cell text and
    eight-character runs are text; only the real block's lines are named."""
    fence = "How a conflict looks:\n\n```\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n```\n\n"
    mem.index(
        row_line(A, summary="kept <<<<<<< and ======= and >>>>>>> in a cell"),
        preamble="Memory Index\n=======\n\n" + fence,
    )
    text = (root / "index.md").read_text(encoding="utf-8")
    (root / "index.md").write_text(
        text + ">>>>>>>> eight is not a marker\n<<<<<<< HEAD\n" + idle_line(C) + "\n=======\n>>>>>>> laptop\n",
        encoding="utf-8",
    )
    before = whole_tree()
    res = cli("register")
    assert res.code == 1 and "(lines 18, 20, 21)" in res.err
    assert whole_tree() == before
    found = json.loads(cli("doctor", "--json").out)
    assert [f["kind"] for f in found] == ["index_conflict_markers"] and "(lines 18, 20, 21)" in found[0]["message"]
