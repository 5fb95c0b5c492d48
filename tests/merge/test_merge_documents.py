"""Snapshots, archive files and notes merged from two versions (the original and a sync tool's copy):
every item of either version kept, Metadata by its rules, bytes kept (issue 26 §2)."""

from __future__ import annotations

import pytest

from memboard.core.formats.snapshot import Snapshot, render_template, vanished
from memboard.core.merge.documents import merge_snapshot
from memboard.core.merge.result import OpenCell

SID = "2026-06-01-0930-cursor-main-agent"


def snap(updated: str = "2026-06-01 10:00", topic: str = "T", status: str = "active", **lists: list[str]) -> bytes:
    """A snapshot in the seed's template."""
    text = render_template(SID, "cursor-main-agent", topic, "2026-06-01 09:30", updated, status=status, **lists)  # type: ignore[arg-type]
    return text.encode()


def items(data: bytes, section: str) -> list[str]:
    """A section's items as written (placeholders left out)."""
    return [it.text.rstrip("\r\n") for it in Snapshot(data).items(section)]


def test_items_only_in_the_copy_are_added_section_by_section_and_none_of_ours_moves():
    ours = snap(decisions=["Use SQLite", "Keep CRLF"], actions=["Write tests"])
    theirs = snap(decisions=["Use SQLite", "Ship on Friday"], questions=["Which port?"])
    got = merge_snapshot(ours, theirs)
    assert items(got.data, "Decisions") == ["- Use SQLite", "- Keep CRLF", "- Ship on Friday"]
    assert items(got.data, "Open Questions") == ["- Which port?"]
    assert items(got.data, "Next Actions") == ["- Write tests"]
    assert got.added == 2 and got.open == () and not got.unparsed
    text = got.data.decode()
    assert not vanished(ours.decode(), text) and not vanished(theirs.decode(), text)


def test_a_marked_item_replaces_the_unmarked_one_whichever_version_marked_it():
    plain = snap(actions=["Write tests", "Deploy"])
    marked = snap(actions=["[done] Write tests", "Deploy"])
    assert items(merge_snapshot(plain, marked).data, "Next Actions") == ["- [done] Write tests", "- Deploy"]
    assert merge_snapshot(marked, plain).data == marked


def test_an_item_that_keeps_every_line_and_adds_lines_replaces_it_in_either_direction():
    short = b"## Decisions\n\n- Use SQLite\n"
    long = b"## Decisions\n\n- Use SQLite\n  because it is one file\n"
    assert merge_snapshot(short, long).data == long
    assert merge_snapshot(long, short).data == long


def test_an_item_with_the_same_first_line_saying_something_else_is_added_beside_it():
    ours = b"## Decisions\n\n- Use SQLite\n  for the cache\n"
    theirs = b"## Decisions\n\n- Use SQLite\n  for the index too\n"
    got = merge_snapshot(ours, theirs).data.decode()
    assert "for the cache" in got and "for the index too" in got


def test_updated_at_is_the_later_and_status_and_topic_come_from_the_merged_row():
    ours = snap("2026-06-01 10:00", topic="Old", status="idle")
    theirs = snap("2026-06-01 11:00", topic="New", status="active")
    meta = Snapshot(merge_snapshot(ours, theirs).data).metadata()
    assert (meta["Updated At"], meta["Topic"], meta["Status"]) == ("2026-06-01 11:00", "New", "active")
    got = merge_snapshot(ours, theirs, row={"status": "stale", "topic": "From the row"})
    meta = Snapshot(got.data).metadata()
    assert (meta["Updated At"], meta["Topic"], meta["Status"]) == ("2026-06-01 11:00", "From the row", "stale")
    back = Snapshot(merge_snapshot(theirs, ours).data).metadata()
    assert (back["Updated At"], back["Topic"]) == ("2026-06-01 11:00", "New")


def test_a_topic_changed_on_both_sides_in_the_same_minute_is_an_open_cell_keeping_ours():
    ours, theirs = snap(topic="Mine"), snap(topic="Yours")
    got = merge_snapshot(ours, theirs)
    assert got.data == ours
    assert got.open == (OpenCell(SID, "Topic", "Mine", "Yours", "| Topic | Mine |", "| Topic | Yours |"),)
    assert merge_snapshot(ours, theirs, prefer="ours").data == ours
    assert merge_snapshot(ours, theirs, prefer="theirs").data == theirs
    assert merge_snapshot(ours, theirs, prefer="theirs").open == ()


def test_marker_size_leaves_one_conflict_block_per_open_cell_before_the_metadata_table():
    ours = snap(topic="Mine", status="idle")
    theirs = snap(topic="Yours", status="active")
    got = merge_snapshot(ours, theirs, marker_size=7)
    text = got.data.decode()
    assert text == ours.decode().replace(
        "## Metadata\n\n",
        "## Metadata\n\n<<<<<<< ours\n| Topic | Mine |\n=======\n| Topic | Yours |\n>>>>>>> theirs\n"
        "<<<<<<< ours\n| Status | idle |\n=======\n| Status | active |\n>>>>>>> theirs\n\n",
    )
    assert Snapshot(got.data).metadata()["Topic"] == "Mine"
    assert [c.column for c in got.open] == ["Topic", "Status"]
    assert "<<<<<<<<<< ours" in merge_snapshot(ours, theirs, marker_size=10).data.decode()


def test_continues_from_is_the_union_of_both():
    a, b = "2026-05-01-0900-cursor-main-agent", "2026-05-02-0900-cursor-main-agent"
    got = merge_snapshot(snap(continues=[a]), snap(continues=[b]))
    assert Snapshot(got.data).continues_from() == [a, b]
    assert Snapshot(merge_snapshot(snap(), snap(continues=[b])).data).continues_from() == [b]


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_crlf_bom_and_no_final_newline_are_kept(bom):
    ours = bom + b"## Decisions\r\n\r\n- Keep\r\n\r\n## Next Actions\r\n\r\n- Go"
    theirs = b"## Decisions\n\n- Keep\n- New one\n\n## Next Actions\n\n- Go\n"
    got = merge_snapshot(ours, theirs).data
    assert got == bom + b"## Decisions\r\n\r\n- Keep\r\n- New one\r\n\r\n## Next Actions\r\n\r\n- Go"


def test_fenced_code_and_text_that_looks_like_syntax_are_kept_as_written():
    fence = "```sh\n## not a heading\n<<<<<<< ours\n```"
    ours = f"## Files / Artifacts\n\n{fence}\n".encode()
    theirs = b"## Files / Artifacts\n\n- \\## escaped | pipe\n\n```py\nx = 1\n```\n"
    got = merge_snapshot(ours, theirs).data.decode()
    assert got.startswith(f"## Files / Artifacts\n\n{fence}\n")
    assert "- \\## escaped | pipe" in got and "```py\nx = 1\n```" in got
    assert [s.name for s in Snapshot(got).sections] == ["Files / Artifacts"]


def test_merging_a_copy_ours_already_holds_is_a_no_op_and_a_second_merge_changes_nothing():
    ours = snap(decisions=["A", "B"], actions=["[done] C"])
    assert merge_snapshot(ours, snap("2026-06-01 09:45", decisions=["A"], actions=["C"])).data == ours
    theirs = snap("2026-06-01 10:30", decisions=["D"], questions=["Q"])
    once = merge_snapshot(ours, theirs).data
    assert merge_snapshot(once, theirs).data == once


def test_a_version_without_sections_is_not_merged():
    got = merge_snapshot(snap(), b"just text\n")
    assert got.unparsed and got.data == snap()
