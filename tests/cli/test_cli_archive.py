"""Single-session archive: the seed's 14 steps in order, refusals, placeholder deletion."""

from __future__ import annotations

import json

import pytest

from tests.support.roots import DEFAULT_SUMMARY, idle_line, row_line, snapshot_text

SID = "2026-05-31-0900-cursor-main-agent"
SRC = "2026-05-30-0800-claude-agent"
SRC2 = "2026-05-29-0800-codex-agent"
REF = "2026-05-31-1000-codex-agent"

ARCHIVE_INDEX = f"""# Archived Session: {SID}

## Metadata

| Field | Value |
|---|---|
| Session ID | {SID} |
| Agent Name | cursor-main-agent |
| Topic | Pipes \\| and 中文 |
| Summary | Did real work. |
| Keywords | kw |
| Original Status | stale |
| Referenced By | - |
| Started At | 2026-05-31 09:00 |
| Updated At | 2026-05-31 09:00 |
| Archived At | 2026-06-01 09:30 |

## Files

- Session: ./session.md
"""


def test_archive_moves_snapshot_writes_template_and_removes_row(cli, root, mem):
    mem.index(row_line(SID, status="stale", topic="Pipes \\| and 中文"), row_line(SRC))
    mem.snapshot(SID)
    res = cli("archive", SID)
    assert res.code == 0, res.err
    assert (root / "archive" / SID / "index.md").read_text(encoding="utf-8") == ARCHIVE_INDEX
    assert (root / "archive" / SID / "session.md").read_text(encoding="utf-8") == snapshot_text(SID)
    assert not mem.has_snap(SID)
    assert set(mem.rows(cli)) == {SRC}
    assert sorted(p.name for p in (root / "archive" / SID).iterdir()) == ["index.md", "session.md"]


def test_archive_step_order_archive_index_then_move_then_row(cli, root, mem):
    mem.index(row_line(SID), row_line(SRC))
    mem.snapshot(SID)
    res = cli("archive", SID, "--dry-run", "--json")
    assert json.loads(res.out)["changes"] == [
        f"create archive/{SID}/index.md",
        f"move sessions/{SID}.md -> archive/{SID}/session.md",
        "modify index.md",
    ]


def test_crash_after_archive_index_keeps_row_and_snapshot(cli, root, mem):
    before = mem.index(row_line(SID))
    mem.snapshot(SID)
    res = cli("archive", SID, env={"FAULT_AFTER_STEP": "1", "FAULT_MODE": "kill"})
    assert res.code != 0
    assert (root / "archive" / SID / "index.md").exists() and mem.has_snap(SID)
    assert (root / "index.md").read_bytes() == before


def test_crash_after_move_keeps_row_and_doctor_finishes(cli, root, mem):
    before = mem.index(row_line(SID, refs="-"), row_line(SRC, refs=SID))
    mem.snapshot(SID, continues=[SRC])
    res = cli("archive", SID, env={"FAULT_AFTER_STEP": "2"})
    assert res.code == 1 and "incomplete" in res.err
    assert (root / "archive" / SID / "session.md").exists() and not mem.has_snap(SID)
    assert (root / "index.md").read_bytes() == before
    kinds = [f["kind"] for f in json.loads(cli("doctor", "--json").out)]
    assert "half_archived" in kinds
    assert cli("doctor", "--fix").code == 0
    rows = mem.rows(cli)
    assert set(rows) == {SRC} and rows[SRC]["referenced_by"] == []


def test_archive_refused_while_referenced(cli, root, mem, whole_tree):
    mem.index(row_line(SID, refs=f"{REF}, {SRC}"), row_line(REF), row_line(SRC))
    mem.snapshot(SID)
    before = whole_tree()
    res = cli("archive", SID)
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1
    assert f"{REF}, {SRC}" in res.err
    assert whole_tree() == before


def test_referenced_placeholder_is_refused_not_deleted(cli, root, mem, whole_tree):
    """Referenced By is checked before the placeholder deletion of step 3."""
    mem.index(idle_line(SID, refs=REF), row_line(REF))
    before = whole_tree()
    res = cli("archive", SID)
    assert res.code == 1 and REF in res.err
    assert whole_tree() == before


def test_placeholder_idle_row_is_deleted_not_archived(cli, root, mem):
    mem.index(idle_line(SID), row_line(SRC))
    res = cli("archive", SID)
    assert res.code == 0 and "deleted placeholder" in res.out
    assert set(mem.rows(cli)) == {SRC}
    assert not (root / "archive").exists()


def test_snapshotless_default_row_is_deleted_not_archived(cli, root, mem):
    """Step 10: no snapshot -> direct-delete instead of an empty archive."""
    mem.index(row_line(SID, summary=DEFAULT_SUMMARY))
    res = cli("archive", SID, "--json")
    assert json.loads(res.out)["action"] == "deleted"
    assert not (root / "archive").exists() and mem.rows(cli) == {}


def test_snapshotless_row_with_meaningful_summary_is_refused(cli, root, mem, whole_tree):
    """Never lose a line someone wrote: the Summary would vanish without an archive."""
    mem.index(row_line(SID, summary="Decided to use filelock."))
    before = whole_tree()
    res = cli("archive", SID)
    assert res.code == 1 and "memboard update" in res.err
    assert whole_tree() == before


def test_idle_row_with_snapshot_is_archived(cli, root, mem):
    mem.index(idle_line(SID))
    mem.snapshot(SID)
    assert cli("archive", SID).code == 0
    assert "| Original Status | idle |" in (root / "archive" / SID / "index.md").read_text(encoding="utf-8")


def test_archive_releases_its_own_references_first(cli, root, mem):
    mem.index(row_line(SRC, refs=f"{SID}, {REF}"), row_line(SRC2, refs=SID), row_line(SID), row_line(REF))
    mem.snapshot(SID, continues=[SRC, SRC2])
    res = cli("archive", SID, "--json")
    assert res.code == 0, res.err
    assert json.loads(res.out)["released"] == [SRC, SRC2]
    rows = mem.rows(cli)
    assert rows[SRC]["referenced_by"] == [REF] and rows[SRC2]["referenced_by"] == []
    assert SID not in rows


def test_archive_ignores_continues_from_sources_that_do_not_list_it(cli, root, mem):
    line = row_line(SRC, refs=REF)
    mem.index(line, row_line(SID), row_line(REF))
    mem.snapshot(SID, continues=[SRC])
    assert cli("archive", SID).code == 0
    assert line in mem.read_index()


def test_existing_archive_folder_is_refused(cli, root, mem, whole_tree):
    mem.index(row_line(SID))
    mem.snapshot(SID)
    (root / "archive" / SID).mkdir(parents=True)
    (root / "archive" / SID / "notes.txt").write_text(
        "someone's file\n", encoding="utf-8"
    )  # an empty one blocks nothing
    before = whole_tree()
    assert cli("archive", SID).code == 1
    assert whole_tree() == before


@pytest.mark.parametrize("setup", ["unknown", "duplicate", "malformed"])
def test_archive_refuses_unknown_duplicate_or_malformed_rows(cli, root, mem, whole_tree, setup):
    if setup == "unknown":
        mem.index(row_line(SRC))
    elif setup == "duplicate":
        mem.index(row_line(SID), row_line(SID))
    else:
        mem.index(row_line(SID, status="closed"))
    mem.snapshot(SID)
    before = whole_tree()
    res = cli("archive", SID)
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1
    assert whole_tree() == before


def test_archived_session_is_shown_from_archive(cli, root, mem):
    mem.index(row_line(SID))
    mem.snapshot(SID)
    assert cli("archive", SID).code == 0
    info = json.loads(cli("show", SID, "--json").out)
    assert (
        info["archived"] is True
        and info["row"]["status"] == "active"
        and info["row"]["archived_at"] == "2026-06-01 09:30"
    )
    assert info["snapshot_path"] == f"archive/{SID}/session.md"


def test_no_closed_or_archived_status_is_ever_written(cli, root, mem):
    mem.index(row_line(SID), row_line(SRC, refs=REF), row_line(REF))
    mem.snapshot(SID)
    for args in (("archive", SID), ("organize",), ("register",), ("update", REF)):
        assert cli(*args).code == 0
    statuses = {r["status"] for r in mem.rows(cli).values()}
    assert statuses <= {"idle", "active", "stale"}
    assert "closed" not in mem.read_index() and "archived" not in mem.read_index().lower()


def test_failed_archive_index_creation_leaves_the_row(cli, root, mem):
    """archive/ is a file: step 1 fails, the snapshot stays and the row stays."""
    before = mem.index(row_line(SID))
    mem.snapshot(SID)
    (root / "archive").write_text("not a folder", encoding="utf-8")
    res = cli("archive", SID)
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1
    assert (root / "index.md").read_bytes() == before and mem.has_snap(SID)
