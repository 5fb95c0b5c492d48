"""Continue and release: both sides of the reference, no duplicates, honest failures."""

from __future__ import annotations

import json

import pytest

from tests.support.roots import idle_line, row_line

SRC = "2026-05-30-0800-claude-agent"
CUR = "2026-05-31-0900-cursor-main-agent"
OTHER = "2026-05-31-1000-codex-agent"
NEW = "2026-06-01-0930-cursor-main-agent"
NOW = "2026-06-01 09:30"


def test_continue_as_updates_both_sides(cli, root, mem):
    mem.index(row_line(SRC, topic="Index work", summary="Parser done.", keywords="parser"), idle_line(CUR))
    res = cli("continue", SRC, "--as", CUR)
    assert res.code == 0, res.err
    rows = mem.rows(cli)
    assert rows[SRC]["referenced_by"] == [CUR]
    src = rows[SRC]
    assert (src["topic"], src["summary"], src["keywords"], src["status"], src["updated_at"]) == (
        "Index work",
        "Parser done.",
        "parser",
        "active",
        "2026-05-31 09:00",
    )
    assert rows[CUR]["status"] == "active" and rows[CUR]["updated_at"] == NOW
    snap = mem.snap(CUR)
    assert f"## Continues From\n\n- {SRC}\n" in snap
    assert f"Continuing from {SRC} (Index work)." in snap.split("## Decisions")[0]
    assert len(rows) == 2  # no second row for the current agent


def test_continue_merges_into_existing_snapshot(cli, root, mem):
    mem.index(row_line(SRC), row_line(CUR))
    mem.snapshot(CUR, continues=[OTHER])
    old = mem.snap(CUR)
    assert cli("continue", SRC, "--as", CUR).code == 0
    snap = mem.snap(CUR)
    assert f"## Continues From\n\n- {OTHER}\n- {SRC}\n" in snap
    for line in old.splitlines():
        if line and "Updated At" not in line:
            assert line in snap


def test_continue_appends_with_comma_separation(cli, root, mem):
    mem.index(row_line(SRC, refs=OTHER), row_line(CUR), row_line(OTHER))
    mem.snapshot(OTHER, continues=[SRC])
    assert cli("continue", SRC, "--as", CUR).code == 0
    assert f"| {OTHER}, {CUR} |" in mem.read_index()


def test_continue_twice_adds_no_duplicates(cli, root, mem):
    mem.index(row_line(SRC), row_line(CUR))
    assert cli("continue", SRC, "--as", CUR).code == 0
    first = (root / "index.md").read_bytes(), mem.snap(CUR)
    res = cli("continue", SRC, "--as", CUR)
    assert res.code == 0 and "already" in res.out
    assert ((root / "index.md").read_bytes(), mem.snap(CUR)) == first
    assert mem.snap(CUR).count(f"- {SRC}") == 1 and mem.snap(CUR).count(f"Continuing from {SRC}") == 1


def test_continue_repairs_a_one_sided_link_without_duplicating(cli, root, mem):
    mem.index(row_line(SRC), row_line(CUR))
    mem.snapshot(CUR, continues=[SRC])
    assert cli("continue", SRC, "--as", CUR).code == 0
    assert mem.rows(cli)[SRC]["referenced_by"] == [CUR]
    assert mem.snap(CUR).count(f"- {SRC}") == 1


def test_continue_without_as_registers_manually_first(cli, root, mem):
    mem.index(row_line(SRC, topic="Index work"), row_line(CUR))  # an active row that is NOT assumed to be us
    res = cli("continue", SRC)
    assert res.code == 0, res.err
    assert res.out.strip().splitlines()[-1] == f"Your Memory Session ID is: {NEW}"
    rows = mem.rows(cli)
    assert len(rows) == 3
    new = rows[NEW]
    assert new["status"] == "active" and new["keywords"] == "manual-registration, cursor-agent, session-snapshot"
    assert rows[SRC]["referenced_by"] == [NEW]
    assert rows[CUR]["referenced_by"] == [] and rows[CUR]["updated_at"] == "2026-05-31 09:00"
    assert f"## Continues From\n\n- {SRC}\n" in mem.snap(NEW)


def test_continue_refuses_unknown_source_and_writes_nothing(cli, root, mem, whole_tree):
    mem.index(row_line(CUR))
    before = whole_tree()
    for args in (("continue", SRC, "--as", CUR), ("continue", SRC)):
        res = cli(*args)
        assert res.code == 1 and len(res.err.strip().splitlines()) == 1
    assert whole_tree() == before


def test_continue_refuses_unknown_current_session(cli, root, mem, whole_tree):
    mem.index(row_line(SRC))
    before = whole_tree()
    res = cli("continue", SRC, "--as", CUR)
    assert res.code == 1 and "unknown session" in res.err
    assert whole_tree() == before


def test_continue_from_itself_is_usage_error(cli, root, mem):
    mem.index(row_line(SRC))
    assert cli("continue", SRC, "--as", SRC).code == 2


@pytest.mark.parametrize("name", ["cursor-main-agent", "claude-agent"])
def test_referenced_by_takes_session_ids_not_agent_names(cli, root, mem, name):
    before = mem.index(row_line(SRC))
    res = cli("continue", SRC, "--as", name)
    assert res.code == 2 and (root / "index.md").read_bytes() == before


def test_continue_failing_after_snapshot_is_incomplete(cli, root, mem):
    """Snapshot first, then the source row; a failure between must not claim the reference."""
    before = mem.index(row_line(SRC), row_line(CUR))
    res = cli("continue", SRC, "--as", CUR, env={"FAULT_AFTER_STEP": "1"})
    assert res.code == 1 and "incomplete" in res.err and "continues from" not in res.out
    assert (root / "index.md").read_bytes() == before
    assert SRC in mem.snap(CUR)


def test_continue_does_not_archive_or_close_the_source(cli, root, mem):
    mem.index(row_line(SRC), row_line(CUR))
    mem.snapshot(SRC)
    assert cli("continue", SRC, "--as", CUR).code == 0
    assert mem.rows(cli)[SRC]["status"] == "active" and mem.has_snap(SRC)
    assert not (root / "archive").exists()


# -- release -----------------------------------------------------------------------------


def test_release_updates_both_sides_and_restores_dash_and_none(cli, root, mem):
    mem.index(row_line(SRC), row_line(CUR))
    assert cli("continue", SRC, "--as", CUR).code == 0
    res = cli("release", SRC, "--as", CUR)
    assert res.code == 0, res.err
    assert mem.rows(cli)[SRC]["referenced_by"] == []
    assert f"| {SRC} | claude-agent | Topic | Did real work. | kw | active | - |" in mem.read_index()
    assert "## Continues From\n\n- None\n" in mem.snap(CUR)


def test_release_keeps_other_references(cli, root, mem):
    mem.index(row_line(SRC, refs=f"{OTHER}, {CUR}"), row_line(CUR), row_line(OTHER))
    mem.snapshot(CUR, continues=[SRC, OTHER])
    assert cli("release", SRC, "--as", CUR).code == 0
    assert mem.rows(cli)[SRC]["referenced_by"] == [OTHER]
    assert f"## Continues From\n\n- {OTHER}\n\n" in mem.snap(CUR)


def test_release_removes_only_the_exact_source_id(cli, root, mem):
    """Releasing X must not drop X-2 from Continues From (IDs are compared whole, not as substrings)."""
    a, b = NEW, NEW + "-2"
    mem.index(row_line(a, refs=CUR), row_line(b, refs=CUR), row_line(CUR))
    mem.snapshot(CUR, continues=[a, b])
    assert cli("release", a, "--as", CUR).code == 0
    assert f"## Continues From\n\n- {b}\n" in mem.snap(CUR)
    assert mem.rows(cli)[b]["referenced_by"] == [CUR]


def test_release_of_nonexistent_reference_is_refused(cli, root, mem, whole_tree):
    mem.index(row_line(SRC), row_line(CUR))
    mem.snapshot(CUR)
    before = whole_tree()
    res = cli("release", SRC, "--as", CUR)
    assert res.code == 1 and "nothing to release" in res.err
    assert whole_tree() == before


def test_release_requires_as(cli, root, mem):
    mem.index(row_line(SRC, refs=CUR), row_line(CUR))
    assert cli("release", SRC).code == 2


def test_release_index_first_then_snapshot(cli, root, mem):
    mem.index(row_line(SRC, refs=CUR), row_line(CUR))
    mem.snapshot(CUR, continues=[SRC])
    res = cli("release", SRC, "--as", CUR, env={"FAULT_AFTER_STEP": "1"})
    assert res.code == 1 and "no longer references" not in res.out
    assert mem.rows(cli)[SRC]["referenced_by"] == [] and SRC in mem.snap(CUR)


def test_release_json_result(cli, root, mem):
    mem.index(row_line(SRC, refs=CUR), row_line(CUR))
    res = cli("release", SRC, "--as", CUR, "--json")
    out = json.loads(res.out)
    assert out["session_id"] == CUR and out["released"] == SRC and out["dry_run"] is False
    assert out["changes"] == ["modify index.md"]
