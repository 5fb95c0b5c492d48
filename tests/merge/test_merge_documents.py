"""Snapshots, archive files and notes merged from two versions (the original and a sync tool's copy):
every item of either version kept, Metadata by its rules, bytes kept (issue 26 §2)."""

from __future__ import annotations

import pytest

from memboard.core.formats.archive import render_archive_index
from memboard.core.formats.note import Note, quick_cells, read_note, render_note
from memboard.core.formats.snapshot import Snapshot, render_template, vanished
from memboard.core.merge.documents import merge_archive_index, merge_note, merge_snapshot
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


def note(title: str = "Pick a store", updated: str = "2026-06-01 10:00", **values: object) -> bytes:
    """A typed note in memboard's form."""
    fields: dict[str, object] = {"type": "decision", "scope": "project", "topic_key": "memory/store"}
    fields.update(values)
    return render_note(Note(title=title, updated=updated, **fields)).encode()  # type: ignore[arg-type]


def test_every_statement_of_either_note_is_kept_section_by_section():
    ours = note(what="Use Postgres.\n\n- Keep CRLF", why="It is there.")
    theirs = note(what="Use Postgres, because of JSONB.\n\n- Keep CRLF\n- Ship it", learned="Backups matter.")
    got = merge_note(ours, theirs)
    merged = read_note(got.data)
    assert merged.what == "Use Postgres.\n\n- Keep CRLF\n\nUse Postgres, because of JSONB.\n\n- Ship it"
    assert (merged.why, merged.learned) == ("It is there.", "Backups matter.")
    assert got.added == 3 and got.open == ()


def test_a_statement_ours_keeps_in_other_words_is_not_added_again():
    ours = note(what="Use Postgres, because of JSONB.")
    assert merge_note(ours, note(updated="2026-06-01 09:00", what="use postgres")).data == ours


def test_a_missing_section_is_added_in_the_notes_order():
    ours = b"# T\n\n## What\n\nA.\n\n## Learned\n\nL.\n"
    theirs = b"# T\n\n## What\n\nA.\n\n## Where\n\nW.\n"
    assert merge_note(ours, theirs).data == b"# T\n\n## What\n\nA.\n\n## Where\n\nW.\n\n## Learned\n\nL.\n"


def test_note_metadata_updated_the_later_links_the_union_and_differing_titles_open():
    ours = note("Pick a store", "2026-06-01 10:00", supersedes=("a/b",), project="p1")
    theirs = note("Pick the store", "2026-06-01 11:00", supersedes=("c/d", "a/b"), project="p2")
    got = merge_note(ours, theirs)
    merged = read_note(got.data)
    assert (merged.updated, merged.supersedes, merged.title, merged.project) == (
        "2026-06-01 11:00",
        ("a/b", "c/d"),
        "Pick a store",
        "p1",
    )
    assert [(c.id, c.column, c.ours, c.theirs) for c in got.open] == [
        ("memory/store", "Title", "Pick a store", "Pick the store"),
        ("memory/store", "Project", "p1", "p2"),
    ]
    chosen = merge_note(ours, theirs, prefer="theirs")
    assert chosen.open == () and chosen.data.startswith(b"# Pick the store\n")
    assert (read_note(chosen.data).title, read_note(chosen.data).project) == ("Pick the store", "p2")


def test_note_markers_put_a_block_per_open_field_before_the_table_and_readers_see_ours():
    ours, theirs = note("Mine", type="decision"), note("Yours", type="fact")
    got = merge_note(ours, theirs, marker_size=7)
    text = got.data.decode()
    assert "## Metadata\n\n<<<<<<< ours\n| Title | Mine |\n=======\n| Title | Yours |\n>>>>>>> theirs\n" in text
    assert "<<<<<<< ours\n| Type | decision |\n=======\n| Type | fact |\n>>>>>>> theirs\n\n| Field | Value |\n" in text
    assert read_note(got.data).title == "Mine" and quick_cells(got.data)["Type"] == "decision"


def test_a_note_s_crlf_and_bom_are_kept():
    ours = b"\xef\xbb\xbf" + note(what="A.").replace(b"\n", b"\r\n")
    got = merge_note(ours, note(what="A.\n\nB.")).data
    assert got.startswith(b"\xef\xbb\xbf# Pick a store\r\n") and b"A.\r\n\r\nB.\r\n" in got
    assert b"\n" not in got.replace(b"\r\n", b"")


def archive(
    updated: str = "2026-06-01 10:00", refs: str = "-", summary: str = "S", archived: str = "2026-06-02 09:00"
) -> bytes:
    """An archive index.md in the seed's template."""
    values = {"id": SID, "agent": "a", "topic": "T", "summary": summary, "keywords": "k", "status": "active"}
    values.update({"referenced_by": refs, "started_at": "2026-06-01 09:30", "updated_at": updated})
    return render_archive_index(values, archived).encode()


def test_archive_index_merges_by_field():
    a, b = "2026-06-03-0900-cursor-main-agent", "2026-06-04-0900-cursor-main-agent"
    got = merge_archive_index(archive("2026-06-01 10:00", a), archive("2026-06-01 11:00", f"{b}, {a}"))
    meta = Snapshot(got.data).metadata()
    assert (meta["Updated At"], meta["Referenced By"]) == ("2026-06-01 11:00", f"{a}, {b}")
    assert got.open == () and got.cells == 2
    got = merge_archive_index(archive(summary="One"), archive(summary="Two", archived="2026-06-02 09:05"))
    assert [(c.id, c.column) for c in got.open] == [(SID, "Summary"), (SID, "Archived At")]
    assert got.data == archive(summary="One")
    assert merge_archive_index(archive(summary="One"), archive(summary="Two"), prefer="theirs").data == archive(
        summary="Two"
    )


def test_three_way_an_item_changed_on_one_side_takes_that_side_and_a_removal_stays():
    base = snap(decisions=["Use SQLite", "Keep CRLF"], continues=["2026-05-01-0900-cursor-main-agent"])
    ours = snap(decisions=["Use SQLite", "Keep CRLF", "Ship on Friday"])  # released the source
    theirs = snap(
        "2026-06-01 10:30",
        decisions=["Use SQLite [superseded]", "Keep CRLF"],
        continues=["2026-05-01-0900-cursor-main-agent"],
    )
    got = merge_snapshot(ours, theirs, base)
    assert items(got.data, "Decisions") == ["- Use SQLite [superseded]", "- Keep CRLF", "- Ship on Friday"]
    assert Snapshot(got.data).continues_from() == []
    assert Snapshot(got.data).metadata()["Updated At"] == "2026-06-01 10:30"


def test_three_way_a_reworded_item_replaces_the_unchanged_one():
    base = b"## Decisions\n\n- Use SQLite\n  for the cache\n\n- Other\n"
    ours = b"## Decisions\n\n- Use SQLite\n  for the cache\n\n- Other\n- Mine\n"
    theirs = b"## Decisions\n\n- Use SQLite\n  for the index\n\n- Other\n"
    assert (
        merge_snapshot(ours, theirs, base).data == b"## Decisions\n\n- Use SQLite\n  for the index\n\n- Other\n- Mine\n"
    )


def test_three_way_metadata_changed_on_one_side_takes_it_and_on_both_is_decided_or_open():
    base = snap(topic="Base")
    ours = snap("2026-06-01 12:00", topic="Base", status="idle")
    theirs = snap("2026-06-01 11:00", topic="Theirs")
    meta = Snapshot(merge_snapshot(ours, theirs, base).data).metadata()
    assert (meta["Topic"], meta["Status"], meta["Updated At"]) == ("Theirs", "idle", "2026-06-01 12:00")
    got = merge_snapshot(snap(topic="A"), snap(topic="B"), base)
    assert [c.column for c in got.open] == ["Topic"]
    assert merge_snapshot(base, theirs, base).data == theirs and merge_snapshot(ours, base, base).data == ours


def test_three_way_note_keeps_one_sides_change_and_removal():
    base = note("Pick a store", what="A.\n\nB.")
    ours = note("Pick the store", what="A.")
    theirs = note("Pick a store", "2026-06-01 11:00", what="A.\n\nB.\n\nC.")
    got = merge_note(ours, theirs, base)
    merged = read_note(got.data)
    assert (merged.title, merged.what, merged.updated) == ("Pick the store", "A.\n\nC.", "2026-06-01 11:00")
    assert got.open == ()


def test_a_copy_with_an_html_block_never_closed_is_not_merged_and_ours_stays():
    ours = snap(decisions=["A"])
    theirs = snap(decisions=["A"]).replace(b"## Open Questions\n\n- None", b"## Open Questions\n\n<!-- never closed")
    got = merge_snapshot(ours, theirs)
    assert got.unparsed and got.data == ours


def test_bytes_that_are_not_utf8_survive_and_fields_only_the_copy_has_are_added():
    ours = b"## Metadata\n\n| Field | Value |\n|---|---|\n| Topic | caf\xe9 |\n\n## Decisions\n\n- A \xff\n"
    theirs = b"## Metadata\n\n| Field | Value |\n|---|---|\n| Topic | caf\xe9 |\n| Updated At | 2026-06-01 10:00 |\n\n## Decisions\n\n- B\n"
    assert merge_snapshot(ours, theirs).data == (
        b"## Metadata\n\n| Field | Value |\n|---|---|\n| Topic | caf\xe9 |\n| Updated At | 2026-06-01 10:00 |\n\n"
        b"## Decisions\n\n- A \xff\n- B\n"
    )


def test_the_merged_rows_status_and_topic_are_written_even_when_both_versions_agree():
    got = merge_snapshot(snap(), snap(), row={"status": "stale", "topic": "T"})
    assert Snapshot(got.data).metadata()["Status"] == "stale" and got.cells == 1


def test_leaving_out_an_item_ours_holds_never_changes_how_the_copys_other_items_read():
    """Without `para`, the indented code would join the list item before it: the copy is merged whole."""
    ours = b"## Decisions\n\npara\n"
    theirs = b"## Decisions\n\n- x\n\npara\n\n    code\n"
    assert merge_snapshot(ours, theirs).data == b"## Decisions\n\npara\n\n- x\n\n```\ncode\n```\n"


def test_a_section_a_note_does_not_define_keeps_the_items_of_both():
    ours = note(what="A.") + b"\n## Links\n\n- one\n"
    theirs = note(what="A.") + b"\n## Links\n\n- two\n\n## Extra\n\nMore.\n"
    got = merge_note(ours, theirs).data
    assert got == note(what="A.") + b"\n## Links\n\n- one\n- two\n\n## Extra\n\nMore.\n"


def test_conflict_blocks_take_the_files_line_ending_and_prefer_decides_three_way_open_cells():
    base = snap(topic="Base")
    ours, theirs = snap(topic="A").replace(b"\n", b"\r\n"), snap(topic="B")
    got = merge_snapshot(ours, theirs, base, marker_size=9)
    assert (
        b"<<<<<<<<< ours\r\n| Topic | A |\r\n=========\r\n| Topic | B |\r\n>>>>>>>>> theirs\r\n\r\n| Field |"
        in got.data
    )
    assert b"\n" not in got.data.replace(b"\r\n", b"")
    chosen = merge_snapshot(ours, theirs, base, prefer="theirs", marker_size=9)
    assert chosen.open == () and Snapshot(chosen.data).metadata()["Topic"] == "B" and b"<<<" not in chosen.data


def test_text_above_the_sections_that_only_the_copy_has_is_reported_and_ours_kept():
    ours = b"# Session: x\n\n## Decisions\n\n- A\n"
    theirs = b"# Session: x\n\nA note above.\n\n## Decisions\n\n- A\n"
    got = merge_snapshot(ours, theirs)
    assert got.data == ours and got.outside == ("A note above.",)
    assert merge_note(note("Mine"), note("Yours")).outside == ()
