"""doctor: every kind of inconsistency is found; --fix repairs without losing content."""

from __future__ import annotations

import json

from tests.support.doctor import doctor_findings, needing
from tests.support.roots import idle_line, row_line, snapshot_text

A = "2026-05-01-0900-cursor-main-agent"
B = "2026-05-30-0800-claude-agent"
C = "2026-05-31-0900-codex-agent"
GONE = "2026-04-01-0900-cursor-main-agent"


def kinds(cli) -> list[tuple[str, str]]:
    """(kind, id) of every finding."""
    return [(f["kind"], f["id"]) for f in doctor_findings(cli("doctor", "--json"))]


def fix(cli, left: int = 0):
    """doctor --fix, which must succeed, leaving `left` findings that need a hand (its exit 1 when any)."""
    res = cli("doctor", "--fix")
    assert needing(res) == left, res.err
    return res


def test_clean_root_has_no_findings(cli, root, mem):
    mem.index(row_line(A), idle_line(B))
    mem.snapshot(A)
    assert kinds(cli) == []
    assert cli("doctor").out.strip() == "no problems found"


def test_row_without_snapshot_gets_one_from_the_row(cli, root, mem):
    mem.index(row_line(A, topic="T", summary="S."))
    assert kinds(cli) == [("missing_snapshot", A)]
    fix(cli)
    snap = mem.snap(A)
    assert snap.startswith(f"# Session: {A}\n") and "| Topic | T |" in snap and "\nS.\n" in snap
    assert kinds(cli) == []


def test_snapshot_without_row_gets_an_active_row(cli, root, mem):
    mem.index(row_line(B))
    mem.snapshot(B)
    mem.snapshot(A, agent="cursor-main-agent")
    assert kinds(cli) == [("orphan_snapshot", A)]
    fix(cli)
    row = mem.rows(cli)[A]
    assert (
        row["status"] == "active" and row["summary"] == "Worked on the thing." and row["agent"] == "cursor-main-agent"
    )
    assert kinds(cli) == []


def test_idle_row_with_snapshot_is_promoted(cli, root, mem):
    mem.index(idle_line(A))
    mem.snapshot(A)
    assert kinds(cli) == [("idle_with_snapshot", A)]
    fix(cli)
    assert mem.rows(cli)[A]["status"] == "active"


def test_one_sided_links_both_ways_are_completed(cli, root, mem):
    mem.index(row_line(A), row_line(B, refs=C), row_line(C))
    mem.snapshot(A, continues=[B])  # B does not list A
    mem.snapshot(B)
    mem.snapshot(C)  # B lists C, but C's Continues From lacks B
    found = kinds(cli)
    assert ("one_sided_link", A) in found and ("one_sided_link", C) in found
    fix(cli)
    assert mem.rows(cli)[B]["referenced_by"] == [C, A]
    assert f"## Continues From\n\n- {B}\n" in mem.snap(C)
    assert kinds(cli) == []


def test_references_to_missing_or_archived_sessions(cli, root, mem):
    mem.index(row_line(A, refs=f"{GONE}, {C}"), row_line(B))
    mem.snapshot(A)
    mem.snapshot(B, continues=[GONE])
    (root / "archive" / C).mkdir(parents=True)
    (root / "archive" / C / "index.md").write_text("# Archived Session\n", encoding="utf-8")
    (root / "archive" / C / "session.md").write_text(snapshot_text(C), encoding="utf-8")
    found = kinds(cli)
    assert ("reference_to_missing", A) in found and ("reference_to_archived", A) in found
    assert ("link_to_missing", B) in found
    fix(cli)
    assert mem.rows(cli)[A]["referenced_by"] == []
    assert GONE in mem.snap(B)  # Continues From is history: kept, only reported


def test_identical_duplicate_rows_are_collapsed_different_ones_reported(cli, root, mem):
    mem.index(row_line(A), row_line(A), row_line(B), row_line(B, topic="Other"))
    mem.snapshot(A)
    mem.snapshot(B)
    found = kinds(cli)
    assert ("duplicate_id", A) in found and ("duplicate_id", B) in found
    fix(cli, left=1)  # B's rows differ: a hand decides
    text = mem.read_index()
    assert text.count(f"| {A} |") == 1 and text.count(f"| {B} |") == 2


def test_malformed_rows_are_reported_never_dropped(cli, root, mem):
    before = mem.index(row_line(A), "| broken | row |", row_line(B, status="closed"))
    mem.snapshot(A)
    found = kinds(cli)
    assert ("malformed_row", "broken") in found and ("malformed_row", B) in found
    fix(cli, left=2)  # both rows are kept for a hand to mend
    assert (root / "index.md").read_bytes() == before


def test_half_finished_archive_is_finished(cli, root, mem):
    mem.index(row_line(A), row_line(B, refs=A))
    mem.snapshot(A, continues=[B])
    assert cli("archive", A, env={"FAULT_AFTER_STEP": "1"}).code == 1
    assert ("half_archived", A) in kinds(cli)
    fix(cli)
    assert (root / "archive" / A / "session.md").exists() and not mem.has_snap(A)
    rows = mem.rows(cli)
    assert A not in rows and rows[B]["referenced_by"] == []
    assert kinds(cli) == []


def test_archive_without_index_gets_one(cli, root, mem):
    mem.index(row_line(B))
    mem.snapshot(B)
    (root / "archive" / A).mkdir(parents=True)
    (root / "archive" / A / "session.md").write_text(snapshot_text(A), encoding="utf-8")
    assert kinds(cli) == [("archive_without_index", A)]
    fix(cli)
    text = (root / "archive" / A / "index.md").read_text(encoding="utf-8")
    assert text.startswith(f"# Archived Session: {A}\n") and "- Session: ./session.md" in text


def test_doctor_without_fix_writes_nothing(cli, root, mem, whole_tree):
    mem.index(idle_line(A), row_line(B))
    mem.snapshot(A)
    before = whole_tree()
    res = cli("doctor")
    assert needing(res) == 2 and "doctor --fix" in res.out
    assert whole_tree() == before


def test_missing_columns_are_reported(cli, root):
    (root / "index.md").write_text("| Session ID | Status |\n|---|---|\n", encoding="utf-8")
    assert kinds(cli)[0][0] == "index_columns"


def test_two_repairs_on_one_row_both_land(cli, root, mem):
    """An idle row with a snapshot that another snapshot continues from: promote AND link it."""
    mem.index(idle_line(A), row_line(B))
    mem.snapshot(A)
    mem.snapshot(B, continues=[A])
    fix(cli)
    row = mem.rows(cli)[A]
    assert row["status"] == "active" and row["referenced_by"] == [B]
    assert kinds(cli) == []


def test_snapshots_without_any_index_get_an_index(cli, root, mem):
    """A crash of the very first manual registration leaves a snapshot and no index.md."""
    mem.snapshot(A, agent="cursor-main-agent")
    assert kinds(cli) == [("orphan_snapshot", A)]
    fix(cli)
    assert mem.rows(cli)[A]["status"] == "active"
    assert kinds(cli) == []


def test_half_finished_archive_of_a_now_referenced_session_is_not_finished(cli, root, mem, whole_tree):
    mem.index(row_line(A, refs=B), row_line(B))
    mem.snapshot(A)
    mem.snapshot(B, continues=[A])
    (root / "archive" / A).mkdir(parents=True)
    (root / "archive" / A / "index.md").write_text("# Archived Session\n", encoding="utf-8")
    before = whole_tree()
    assert ("half_archived", A) in kinds(cli)
    fix(cli, left=1)  # the archive is not finished: a hand decides
    assert whole_tree() == before


def test_fix_json_lists_findings_and_changes(cli, root, mem, whole_tree):
    mem.index(idle_line(A))
    mem.snapshot(A)
    before = whole_tree()
    res = cli("doctor", "--fix", "--json", "--dry-run")
    out = json.loads(res.out)
    assert list(out) == ["findings", "dry_run", "changes"] and out["dry_run"] is True
    assert out["changes"] == ["modify index.md"] and out["findings"][0]["kind"] == "idle_with_snapshot"
    assert whole_tree() == before
    assert json.loads(cli("doctor", "--fix", "--json").out)["dry_run"] is False
    assert mem.rows(cli)[A]["status"] == "active"
