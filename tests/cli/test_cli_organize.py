"""Organize Memory: delete idle rows, protect referenced ones, mark overdue active stale only
when all three conditions hold, report everything."""

from __future__ import annotations

import json

import pytest

from tests.support.roots import DEFAULT_SUMMARY, idle_line, row_line

OLD = "2026-05-01 09:00"  # 31 days before the fixed clock
RECENT = "2026-05-25 09:00"  # 7 days before
A = "2026-05-01-0900-cursor-main-agent"
B = "2026-05-02-0900-claude-agent"
C = "2026-05-03-0900-codex-agent"
D = "2026-05-04-0900-cursor-main-agent"


def organize(cli, *extra):
    """Run organize --json and return the report."""
    res = cli("organize", "--json", *extra)
    assert res.code == 0, res.err
    return json.loads(res.out)


def test_idle_rows_are_deleted_without_archive(cli, root, mem):
    mem.index(idle_line(A), row_line(B, updated=RECENT), idle_line(C))
    out = organize(cli)
    assert out["deleted"] == [A, C]
    assert set(mem.rows(cli)) == {B}
    assert not (root / "archive").exists()


def test_idle_rows_with_referenced_by_are_kept(cli, root, mem):
    mem.index(idle_line(A, refs=B), row_line(B, updated=RECENT))
    out = organize(cli)
    assert out["protected"] == [A] and out["deleted"] == []
    assert A in mem.rows(cli)


def test_idle_row_with_snapshot_is_reported_not_deleted(cli, root, mem, whole_tree):
    mem.index(idle_line(A))
    mem.snapshot(A)
    before = whole_tree()
    res = cli("organize")
    assert res.code == 0
    assert f"blocked (idle with snapshot, not deleted): 1 — {A}" in res.out
    assert whole_tree() == before
    assert organize(cli)["blocked"] == [A]


def test_idle_rows_are_never_marked_stale(cli, root, mem):
    mem.index(idle_line(A, refs=B, updated=OLD), row_line(B, updated=RECENT))
    organize(cli)
    assert mem.rows(cli)[A]["status"] == "idle"


def test_stale_needs_all_three_conditions(cli, root, mem):
    rows = [
        row_line(A, updated=OLD),  # old + meaningful summary + no refs -> stale
        row_line(B, updated=RECENT),  # recent -> kept
        row_line(C, updated=OLD, summary=DEFAULT_SUMMARY),  # old, default summary, no snapshot -> kept
        row_line(D, updated=OLD, refs=B),  # old, meaningful, referenced -> protected
    ]
    mem.index(*rows)
    out = organize(cli)
    assert out["marked_stale"] == [A]
    assert out["kept_active"] == [B, C]
    assert out["protected"] == [D]
    statuses = {k: v["status"] for k, v in mem.rows(cli).items()}
    assert statuses == {A: "stale", B: "active", C: "active", D: "active"}


def test_snapshot_counts_as_retained_content_for_stale(cli, root, mem):
    mem.index(row_line(C, updated=OLD, summary=DEFAULT_SUMMARY))
    mem.snapshot(C)
    assert organize(cli)["marked_stale"] == [C]


def test_stale_marking_keeps_updated_at_and_the_rest_of_the_line(cli, root, mem):
    mem.index(row_line(A, updated=OLD))
    organize(cli)
    assert row_line(A, updated=OLD).replace("| active |", "| stale |") in mem.read_index()
    assert mem.rows(cli)[A]["updated_at"] == OLD


def test_exactly_fourteen_days_is_not_older(cli, root, mem):
    mem.index(row_line(A, updated="2026-05-18 09:30"), row_line(B, updated="2026-05-18 09:29"))
    out = organize(cli)
    assert out["marked_stale"] == [B] and out["kept_active"] == [A]


@pytest.mark.parametrize("days,expected", [(3, [A, B]), (30, [A]), (45, [])])
def test_stale_days_option(cli, root, mem, days, expected):
    mem.index(row_line(A, updated="2026-04-20 09:00"), row_line(B, updated=RECENT))
    out = organize(cli, "--stale-days", str(days))
    assert out["marked_stale"] == expected
    assert out["stale_days"] == days


def test_stale_days_from_config(cli, root, mem):
    import os

    with open(os.environ["MEMBOARD_CONFIG"], "w", encoding="utf-8") as fh:
        fh.write("stale_days = 3\n")
    mem.index(row_line(B, updated=RECENT))
    assert organize(cli)["marked_stale"] == [B]


@pytest.mark.parametrize("value", ['"soon"', "2.5", "-3", "true"])
def test_a_bad_stale_days_in_the_config_is_one_line_and_writes_nothing(cli, root, mem, whole_tree, value):
    import os

    with open(os.environ["MEMBOARD_CONFIG"], "w", encoding="utf-8") as fh:
        fh.write(f"stale_days = {value}\n")
    mem.index(row_line(A, updated=OLD))
    before = whole_tree()
    res = cli("organize")
    assert res.code == 2 and res.err.count("\n") == 1 and "config stale_days must be a whole number" in res.err, res.err
    assert whole_tree() == before


def test_negative_stale_days_is_usage_error(cli, root, mem, whole_tree):
    mem.index(row_line(A, updated=OLD))
    before = whole_tree()
    assert cli("organize", "--stale-days", "-1").code == 2
    assert whole_tree() == before


def test_existing_stale_rows_are_not_archived_or_touched(cli, root, mem):
    data = mem.index(row_line(A, status="stale", updated=OLD))
    mem.snapshot(A)
    out = organize(cli)
    assert out["stale"] == [A]
    assert (root / "index.md").read_bytes() == data
    assert not (root / "archive").exists()


def test_active_rows_with_snapshot_are_never_deleted_or_archived(cli, root, mem):
    mem.index(row_line(A, updated=OLD), row_line(B, updated=RECENT))
    mem.snapshot(A)
    mem.snapshot(B)
    organize(cli)
    assert set(mem.rows(cli)) == {A, B}
    assert mem.has_snap(A) and mem.has_snap(B) and not (root / "archive").exists()


def test_continues_from_is_a_fallback_protection(cli, root, mem):
    """A source whose Referenced By was not updated is still protected by another snapshot's Continues From."""
    mem.index(idle_line(A), row_line(B, updated=OLD), row_line(C, updated=RECENT))
    mem.snapshot(C, continues=[A, B])
    out = organize(cli)
    assert out["protected"] == [A, B]
    assert out["deleted"] == [] and out["marked_stale"] == []
    assert "Continues From of " + C in out["reasons"][A]


def test_report_lists_deleted_marked_kept_protected(cli, root, mem):
    mem.index(idle_line(A), row_line(B, updated=OLD), row_line(C, updated=RECENT), row_line(D, refs=C))
    res = cli("organize")
    assert res.code == 0
    assert res.out.splitlines()[:4] == [
        f"deleted idle: 1 — {A}",
        f"marked stale: 1 — {B}",
        f"kept active: 1 — {C}",
        f"protected (referenced): 1 — {D}",
    ]


def test_malformed_and_duplicate_rows_are_skipped_and_kept(cli, root, mem):
    mem.index(idle_line(A), idle_line(A), "| junk | row |", row_line(B, status="closed"))
    before = (root / "index.md").read_bytes()
    out = organize(cli)
    assert out["deleted"] == []
    assert out["malformed"] == [A, A, "junk", B]
    assert (root / "index.md").read_bytes() == before


def test_organize_nothing_to_do_writes_nothing(cli, root, mem, whole_tree):
    mem.index(row_line(A, updated=RECENT))
    before = whole_tree()
    res = cli("organize")
    assert res.code == 0 and whole_tree() == before


def test_iso_timestamps_are_read(cli, root, mem):
    mem.index(row_line(A, updated="2026-05-01T09:00:00"), row_line(B, updated="2026-05-31T09:00:00+00:00"))
    out = organize(cli)
    assert out["marked_stale"] == [A] and out["kept_active"] == [B]


def test_organize_and_doctor_load_only_their_own_operations(cli, root, mem):
    # a command's start is part of its time: organize needs none of doctor's checks nor the machinery of typed
    # notes (doctor loads its notes' checks with it: 9 ms, under 10% of a doctor at 10k rows, see
    # docs/how-it-is-built/speed.md)
    import subprocess
    import sys

    mem.index(idle_line(A), row_line(B, updated=RECENT))
    code = (
        "import sys; from memboard.cli import main; rc = main([sys.argv[2], '--dry-run', '--root', sys.argv[1]]);"
        "print(rc, sorted(m for m in ('memboard.core.ops.doctor', 'memboard.core.ops.notes') if m in sys.modules))"
    )
    loads = (
        ("organize", "0 []"),
        ("doctor", "1 ['memboard.core.ops.doctor', 'memboard.core.ops.notes']"),
    )  # 1: B's snapshot
    for command, loaded in loads:
        run = subprocess.run(
            [sys.executable, "-c", code, str(root), command], capture_output=True, text=True, timeout=60
        )
        assert run.stdout.strip().splitlines()[-1] == loaded, run.stderr
