"""Session update: promote idle->active, create a missing snapshot, merge by section, touch
only the matching row, never clear references."""

from __future__ import annotations

import json

from tests.support.roots import idle_line, row_line, snapshot_text

SID = "2026-05-31-0900-cursor-main-agent"
OTHER = "2026-05-30-0800-claude-agent"
REF = "2026-05-31-1000-codex-agent"
NOW = "2026-06-01 09:30"


def test_update_promotes_idle_and_creates_the_missing_snapshot(cli, root, mem):
    mem.index(idle_line(SID))
    res = cli("update", SID, "--topic", "Parser", "--summary", "Wrote the parser.")
    assert res.code == 0, res.err
    row = mem.rows(cli)[SID]
    assert (row["status"], row["topic"], row["summary"], row["updated_at"]) == (
        "active",
        "Parser",
        "Wrote the parser.",
        NOW,
    )
    assert row["started_at"] == "2026-05-31 09:00" and row["agent"] == "cursor-main-agent"
    snap = mem.snap(SID)
    assert snap.startswith(f"# Session: {SID}\n")
    assert "| Status | active |" in snap and f"| Updated At | {NOW} |" in snap
    assert "| Started At | 2026-05-31 09:00 |" in snap and "| Topic | Parser |" in snap
    assert "## Current Context\n\nWrote the parser.\n" in snap


def test_update_never_edits_only_the_index(cli, root, mem):
    """Even with only --keywords, the snapshot is written (created) too."""
    mem.index(idle_line(SID))
    assert cli("update", SID, "--keywords", "a, b").code == 0
    assert mem.has_snap(SID)


def test_update_existing_snapshot_sets_metadata_and_keeps_started_at(cli, root, mem):
    mem.index(row_line(SID))
    mem.snapshot(SID)
    assert cli("update", SID).code == 0
    snap = mem.snap(SID)
    assert f"| Updated At | {NOW} |" in snap and "| Started At | 2026-05-31 09:00 |" in snap
    assert snap.replace(f"| Updated At | {NOW} |", "| Updated At | 2026-05-31 09:00 |") == snapshot_text(SID)


def test_update_merges_by_section_and_keeps_every_old_item(cli, root, mem):
    mem.index(row_line(SID))
    mem.snapshot(SID, decisions=["Use filelock.", "Keep CRLF."])
    new = "## Decisions\n\n- Use difflib.\n\n## Open Questions\n\n- Who reviews?\n"
    res = cli("update", SID, "--snapshot", "-", "--json", input=new)
    assert res.code == 0, res.err
    out = json.loads(res.out)
    assert out["added"] == ["- Use difflib.", "- Who reviews?"]
    assert "- Should X happen?" in out["carried_over"]
    snap = mem.snap(SID)
    assert "## Decisions\n\n- Use filelock.\n- Keep CRLF.\n- Use difflib.\n\n## Files" in snap
    assert "- Should X happen?\n- Who reviews?\n" in snap
    assert "- app/core/index.py" in snap and "Worked on the thing." in snap


def test_update_marked_item_replaces_its_old_line(cli, root, mem):
    mem.index(row_line(SID))
    mem.snapshot(SID, decisions=["Use filelock.", "Keep CRLF."])
    new = "## Decisions\n\n- [superseded] Use filelock.\n"
    assert cli("update", SID, "--snapshot", "-", input=new).code == 0
    snap = mem.snap(SID)
    assert "- [superseded] Use filelock.\n- Keep CRLF.\n" in snap
    assert snap.count("Use filelock.") == 1


def test_update_with_new_snapshot_missing_all_items_still_keeps_them(cli, root, mem):
    """A proposed snapshot that drops everything (a blind overwrite) cannot erase old items."""
    mem.index(row_line(SID))
    mem.snapshot(SID)
    old = mem.snap(SID)
    blind = snapshot_text(SID).split("## Current Context")[0] + "## Current Context\n\nOnly new stuff.\n"
    assert cli("update", SID, "--snapshot", "-", input=blind).code == 0
    snap = mem.snap(SID)
    for item in [
        "Worked on the thing.",
        "- Use plain Markdown.",
        "- app/core/index.py",
        "- Should X happen?",
        "- Write tests.",
    ]:
        assert item in snap and item in old
    assert "Only new stuff." in snap


def test_update_leaves_referenced_by_and_continues_from_alone(cli, root, mem):
    mem.index(row_line(SID, refs=REF), row_line(OTHER), row_line(REF))
    mem.snapshot(SID, continues=[OTHER])
    new = "## Continues From\n\n- None\n\n## Current Context\n\nMore.\n"
    assert cli("update", SID, "--snapshot", "-", input=new).code == 0
    assert mem.rows(cli)[SID]["referenced_by"] == [REF]
    assert f"## Continues From\n\n- {OTHER}\n" in mem.snap(SID)


def test_update_changes_only_the_matching_row(cli, root, mem):
    before = mem.index(row_line(OTHER), row_line(SID), idle_line(REF)).decode().splitlines()
    assert cli("update", SID).code == 0
    after = mem.read_index().splitlines()
    assert [a == b for a, b in zip(before, after)] == [True, True, True, True, True, False, True]


def test_update_writes_snapshot_before_index(cli, root, mem):
    """A failure after the snapshot step leaves the index untouched and reports incomplete."""
    before = mem.index(idle_line(SID))
    res = cli("update", SID, env={"FAULT_AFTER_STEP": "1"})
    assert res.code == 1 and "incomplete" in res.err
    assert mem.has_snap(SID) and (root / "index.md").read_bytes() == before


def test_update_unknown_id_is_refused_and_writes_nothing(cli, root, mem, whole_tree):
    mem.index(row_line(OTHER))
    before = whole_tree()
    res = cli("update", SID)
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1 and "unknown session" in res.err
    assert whole_tree() == before


def test_update_of_a_different_session_needs_its_explicit_id(cli, root, mem):
    """Update takes an ID; there is no 'latest row' default."""
    mem.index(row_line(SID))
    res = cli("update")
    assert res.code == 2


def test_update_records_revisions_of_the_snapshot(cli, root, mem):
    """Revisions are kept in memboard's local state, per root, never in the (synced) root."""
    from memboard.core.files.localstate import folder_of

    mem.index(row_line(SID))
    mem.snapshot(SID)
    assert cli("update", SID, "--snapshot", "-", input="## Decisions\n\n- New.\n").code == 0
    assert not (root / ".memboard").exists()
    revs = sorted((folder_of(root.resolve()) / "revisions" / SID).iterdir())
    assert len(revs) == 2
    assert revs[0].read_text(encoding="utf-8") == snapshot_text(SID)
    assert revs[1].read_bytes() == (root / "sessions" / f"{SID}.md").read_bytes()


def test_update_summary_is_reflected_in_current_context(cli, root, mem):
    """Index Summary and the snapshot's Current Context stay aligned."""
    mem.index(row_line(SID))
    mem.snapshot(SID)
    assert cli("update", SID, "--summary", "Finished the merge.").code == 0
    assert "## Current Context\n\nWorked on the thing.\n\nFinished the merge.\n\n## Decisions" in mem.snap(SID)
    assert cli("update", SID, "--summary", "Finished the merge.").code == 0
    assert mem.snap(SID).count("Finished the merge.") == 1


def test_continues_from_added_by_update_also_updates_the_source_row(cli, root, mem):
    """A snapshot never gains a one-sided link: the source's Referenced By follows."""
    mem.index(row_line(SID), row_line(OTHER, refs=REF), row_line(REF))
    mem.snapshot(SID)
    res = cli("update", SID, "--snapshot", "-", "--json", input=f"## Continues From\n\n- {OTHER}\n")
    assert res.code == 0, res.err
    assert json.loads(res.out)["continues_from"] == [OTHER]
    assert mem.rows(cli)[OTHER]["referenced_by"] == [REF, SID]
    assert not [f for f in json.loads(cli("doctor", "--json").out) if f["kind"] == "one_sided_link" and f["id"] == SID]


def test_update_refuses_continues_from_an_unknown_session(cli, root, mem, whole_tree):
    mem.index(row_line(SID))
    mem.snapshot(SID)
    before = whole_tree()
    res = cli("update", SID, "--snapshot", "-", input="## Continues From\n\n- 2026-01-01-0000-gone\n")
    assert res.code == 1 and "2026-01-01-0000-gone" in res.err and len(res.err.strip().splitlines()) == 1
    assert whole_tree() == before


def test_update_and_show_load_neither_search_nor_the_hook(cli, root, mem):
    # a command's start is part of its time (issue 29: update and show <= 4x the floor at 1k rows): building the
    # parser of one command loads no other command's code, such as search's engine and sqlite3 or the hook's
    # registration plan
    import subprocess
    import sys

    mem.index(idle_line(SID))
    mem.snapshot(SID, snapshot_text(SID))
    code = (
        "import sys; from memboard.cli import main; rc = main(sys.argv[2:] + ['--root', sys.argv[1]]);"
        "print(rc, sorted(m for m in ('sqlite3', 'memboard.cli.search', 'memboard.cli.hook',"
        " 'memboard.core.ops.session_start') if m in sys.modules))"
    )
    for command in (["update", SID, "--summary", "x"], ["show", SID]):
        run = subprocess.run(
            [sys.executable, "-c", code, str(root), *command], capture_output=True, text=True, timeout=60
        )
        assert run.stdout.strip().splitlines()[-1] == "0 []", run.stderr
