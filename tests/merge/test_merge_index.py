"""merge_index by example: the issue's two tables (rows, and cells per column), row order, text outside the
table, malformed and duplicate rows, id_collision, archived rows held back, prefer/only, the conflict block,
and the three-way rules with git's common ancestor."""

from __future__ import annotations

from memboard.core.formats.index import IndexFile
from memboard.core.merge.index import merge_index
from memboard.core.merge.result import OpenCell
from tests.merge.index_rows import HEADER, SEP, A, B, C, index, row


def rows_of(data: bytes) -> list[str]:
    """The table's lines as written."""
    parsed = IndexFile(data)
    return [parsed.locate(r)[0].rstrip("\r\n") for r in parsed.rows]


# -- rows ------------------------------------------------------------------------------------------------


def test_rows_only_in_the_copy_are_added_at_the_end_in_its_order_byte_for_byte():
    odd = "|  " + C + "  | codex-helper | 多 \\| pipes | S | K | idle | - | 2026-05-31 11:00 | 2026-05-31 11:00 |"
    ours = index(row(A), row(B))
    theirs = index(
        odd, row(A), "| 2026-05-31-1200-x-y | x-y | T | S | K | idle | - | 2026-05-31 12:00 | 2026-05-31 12:00 |"
    )
    merged = merge_index(ours, theirs)
    assert rows_of(merged.data) == [row(A), row(B), odd, theirs.decode().splitlines()[-1]]
    assert merged.data.startswith(ours[:-1])
    assert (merged.added, merged.cells, merged.open, merged.unparsed) == (2, 0, (), False)


def test_identical_rows_are_kept_once_and_equal_files_are_unchanged():
    ours = index(row(A), row(B))
    assert merge_index(ours, ours).data == ours
    spaced = index("|" + row(A)[1:].replace(" | ", " |  "), row(B))  # the same cells, other spacing
    merged = merge_index(ours, spaced)
    assert merged.data == ours and merged.added == 0 and merged.cells == 0


def test_a_row_in_one_version_only_is_kept():
    ours = index(row(A), row(B))
    assert merge_index(ours, index(row(B))).data == ours


def test_an_idle_placeholder_another_machine_deleted_comes_back_without_an_ancestor():
    ours = index(row(A))
    theirs = index(row(A), row(B, status="idle"))
    assert rows_of(merge_index(ours, theirs).data) == [row(A), row(B, status="idle")]


# -- cells -----------------------------------------------------------------------------------------------


def test_referenced_by_is_the_union_of_both_sets_this_files_order_first():
    ours = index(row(A, refs=f"{C}, {B}"))
    theirs = index(row(A, refs=f"{B}, 2026-05-31-1200-x-y"))
    merged = merge_index(ours, theirs)
    assert rows_of(merged.data) == [row(A, refs=f"{C}, {B}, 2026-05-31-1200-x-y")]
    assert merged.cells == 1 and merged.open == ()
    assert rows_of(merge_index(index(row(A)), index(row(A, refs=B))).data) == [row(A, refs=B)]


def test_the_later_updated_at_wins_and_brings_the_later_rows_topic_summary_keywords_and_status():
    ours = index(row(A, topic="old", summary="old", status="stale", updated="2026-05-31 09:00"))
    later = row(A, topic="new", summary="new | too".replace("|", "\\|"), keywords="k2", updated="2026-05-31 10:00")
    merged = merge_index(ours, index(later))
    assert rows_of(merged.data) == [later]
    assert merged.cells == 5 and merged.open == ()
    ours_later = index(row(A, summary="mine", updated="2026-06-01 08:00"))
    assert merge_index(ours_later, index(later)).data == ours_later


def test_status_on_an_equal_updated_at_is_stale_over_active_over_idle():
    for mine, theirs, want in [
        ("idle", "active", "active"),
        ("active", "idle", "active"),
        ("active", "stale", "stale"),
        ("stale", "idle", "stale"),
    ]:
        merged = merge_index(index(row(A, status=mine)), index(row(A, status=theirs)))
        assert rows_of(merged.data) == [row(A, status=want)], (mine, theirs)
        assert merged.open == ()


def test_a_summary_changed_on_both_machines_in_the_same_minute_is_open_and_keeps_ours():
    ours = index(row(A, summary="mine"), row(B))
    theirs = index(row(A, summary="yours"), row(B))
    merged = merge_index(ours, theirs)
    assert merged.data == ours
    assert merged.open == (OpenCell(A, "Summary", "mine", "yours", row(A, summary="mine"), row(A, summary="yours")),)
    assert merged.cells == 0


def test_a_cell_is_open_when_updated_at_is_not_a_time():
    ours = index(row(A, summary="mine", updated="soon"))
    merged = merge_index(ours, index(row(A, summary="yours", updated="later")))
    assert {cell.column for cell in merged.open} == {"Summary", "Updated At"}
    assert merged.data == ours


def test_an_extra_column_takes_the_later_rows_value_or_is_open():
    header = HEADER + " Machine |"
    sep = SEP + "---|"

    def extra(value: str, updated: str) -> bytes:
        return f"{header}\n{sep}\n{row(A, updated=updated)} {value} |\n".encode()

    merged = merge_index(extra("laptop", "2026-05-31 09:00"), extra("desktop", "2026-05-31 10:00"))
    assert merged.data == extra("desktop", "2026-05-31 10:00")
    open_cells = merge_index(extra("laptop", "2026-05-31 09:00"), extra("desktop", "2026-05-31 09:00")).open
    assert [(c.column, c.ours, c.theirs) for c in open_cells] == [("Machine", "laptop", "desktop")]


def test_a_different_agent_name_or_started_at_is_an_id_collision_with_both_lines_kept():
    for other in [row(A, agent="cursor-laptop"), row(A, started="2026-05-31 09:01")]:
        ours = index(row(A), row(B))
        merged = merge_index(ours, index(other, row(B)))
        assert rows_of(merged.data) == [row(A), row(B), other]
        assert merged.collisions == (A,) and merged.open == () and merged.added == 1


def test_one_time_written_two_ways_is_the_same_updated_at_and_started_at():
    ours = index(row(A, summary="mine"))
    theirs = index(row(A, summary="yours", started="2026-05-31T09:00", updated="2026-05-31T09:00"))
    merged = merge_index(ours, theirs)
    assert merged.collisions == () and [c.column for c in merged.open] == ["Summary"] and merged.data == ours


def test_another_sessions_line_among_duplicates_of_an_id_is_a_collision_too():
    other = row(A, agent="cursor-laptop", summary="x")
    merged = merge_index(index(row(A)), index(row(A), other))
    assert rows_of(merged.data) == [row(A), other] and merged.collisions == (A,)
    assert merge_index(index(row(A)), index(row(A), row(A, summary="dup"))).collisions == ()


# -- lines never merged ----------------------------------------------------------------------------------


def test_malformed_and_duplicate_rows_keep_every_distinct_line_byte_for_byte():
    broken = f"| {C} | codex-helper | T | S |"
    dup1, dup2 = row(B, summary="one"), row(B, summary="two")
    ours = index(row(A), broken, dup1)
    theirs = index(
        row(A), broken, dup1, dup2, f"| {C} | also broken |", "| not-an-id | x | T | S | K | idle | - | a | b |"
    )
    merged = merge_index(ours, theirs)
    assert rows_of(merged.data) == [row(A), broken, dup1, dup2, f"| {C} | also broken |", rows_of(theirs)[-1]]
    assert merged.added == 3 and merged.open == ()
    assert merge_index(merged.data, theirs).data == merged.data


def test_a_row_of_an_archived_session_only_in_the_copy_is_held_back():
    ours = index(row(A))
    merged = merge_index(ours, index(row(A), row(B)), archived=frozenset({B}))
    assert merged.data == ours
    assert merged.held_back == ((B, row(B)),) and merged.added == 0
    both = merge_index(
        index(row(A), row(B)), index(row(A), row(B, summary="x", updated="2026-06-01 09:00")), archived=frozenset({B})
    )
    assert rows_of(both.data)[1] == row(B, summary="x", updated="2026-06-01 09:00") and both.held_back == ()


def test_a_row_ours_holds_below_the_table_is_not_added_twice():
    ours = index(row(A), post=f"\nnotes\n{row(B)}\n")
    merged = merge_index(ours, index(row(A), row(B), post=f"\nnotes\n{row(B)}\n"))
    assert merged.data == ours and merged.added == 0


# -- the file's bytes ------------------------------------------------------------------------------------


def test_text_outside_the_table_equal_is_kept_different_keeps_ours_and_is_reported():
    ours = index(row(A), pre="# Memory\n\nmine\n\n", post="\nnotes below\n")
    theirs = index(row(A), row(B), pre="# Memory\n\ntheirs\n\n", post="\nnotes below\n")
    merged = merge_index(ours, theirs)
    assert merged.data == index(row(A), row(B), pre="# Memory\n\nmine\n\n", post="\nnotes below\n")
    assert merged.outside == ("theirs",)
    assert merge_index(ours, index(row(A), row(B), pre="# Memory\n\nmine\n\n", post="\nnotes below\n")).outside == ()


def test_crlf_bom_escaped_pipes_and_no_final_newline_survive():
    piped = row(A, summary="a \\| b")
    ours = index(piped, eol="\r\n", bom=True)[:-2]  # no final newline
    merged = merge_index(ours, index(piped, row(B)))
    assert merged.data == index(piped, row(B), eol="\r\n", bom=True)[:-2]
    assert merge_index(merged.data, index(piped, row(B))).data == merged.data
    changed = merge_index(ours, index(row(A, summary="a \\| b", refs=B)))
    assert changed.data == index(row(A, summary="a \\| b", refs=B), eol="\r\n", bom=True)[:-2]


def test_text_after_a_table_without_rows_and_without_a_final_newline():
    ours = f"{HEADER}\n{SEP}".encode()
    merged = merge_index(ours, index(row(A), pre=""))
    assert merged.data == f"{HEADER}\n{SEP}\n{row(A)}".encode()


def test_copies_without_their_original_restore_it_with_every_row():
    theirs = index(row(A), row(B), post="\ntail\n")
    merged = merge_index(b"", theirs)
    assert merged.data == theirs and merged.added == 2
    assert merge_index(theirs, b"").data == theirs


def test_a_version_that_is_no_table_of_the_protocol_is_unparsed_and_ours_stays():
    ours = index(row(A))
    for theirs in [b"just text\n", f"| Session ID | Topic |\n|---|---|\n| {B} | t |\n".encode()]:
        merged = merge_index(ours, theirs)
        assert merged.unparsed and merged.data == ours
    markers = b"<<<<<<< ours\n" + index(row(B)) + b"=======\n>>>>>>> theirs\n"
    assert merge_index(ours, markers).unparsed
    assert merge_index(markers, ours).data == markers


# -- prefer / only ---------------------------------------------------------------------------------------


def test_prefer_decides_open_cells_and_only_limits_it_to_one_session():
    ours = index(row(A, summary="mine"), row(B, topic="mine"))
    theirs = index(row(A, summary="yours"), row(B, topic="yours"))
    assert merge_index(ours, theirs, prefer="ours").data == ours
    assert merge_index(ours, theirs, prefer="ours").open == ()
    everything = merge_index(ours, theirs, prefer="theirs")
    assert everything.data == theirs and everything.open == () and everything.cells == 2
    one = merge_index(ours, theirs, prefer="theirs", only=B)
    assert rows_of(one.data) == [row(A, summary="mine"), row(B, topic="yours")]
    assert [(c.id, c.column) for c in one.open] == [(A, "Summary")]


# -- conflict block (git's driver) -----------------------------------------------------------------------


def test_marker_size_leaves_one_block_after_the_table_which_stays_valid_with_ours_values():
    ours = index(row(A, summary="mine"), row(B, topic="x"), post="\nafter\n")
    theirs = index(row(A, summary="yours"), row(B, topic="y"), row(C), post="\nafter\n")
    merged = merge_index(ours, theirs, marker_size=9)
    lines = merged.data.decode().splitlines()
    table = [row(A, summary="mine"), row(B, topic="x"), row(C)]
    assert lines[4:7] == table
    assert lines[7:14] == [
        "<" * 9 + " ours",
        row(A, summary="mine"),
        row(B, topic="x"),
        "=" * 9,
        row(A, summary="yours"),
        row(B, topic="y"),
        ">" * 9 + " theirs",
    ]
    assert lines[14:] == ["", "after"]
    assert rows_of(merged.data) == table
    assert IndexFile(merge_index(ours, theirs, marker_size=7).data).conflict_lines == [8, 11, 14]  # git's own size
    assert [c.column for c in merged.open] == ["Summary", "Topic"]
    assert merge_index(ours, theirs, marker_size=7, prefer="theirs").data.count(b"<<<<<<<") == 0
    assert b"<<<<<<<" not in merge_index(ours, index(row(A, summary="mine"), row(B, topic="x")), marker_size=7).data


# -- three-way (git's common ancestor) -------------------------------------------------------------------


def test_three_way_a_cell_changed_on_one_side_only_takes_that_side():
    base = index(row(A), row(B))
    ours = index(row(A, updated="2026-06-01 10:00"), row(B))  # later, but its Summary did not change
    theirs = index(row(A, summary="new"), row(B, topic="t2"))
    merged = merge_index(ours, theirs, base)
    assert rows_of(merged.data) == [row(A, summary="new", updated="2026-06-01 10:00"), row(B, topic="t2")]
    assert merged.open == ()
    two_way = merge_index(ours, theirs)  # without the ancestor: the later row keeps its Summary, B's Topic is open
    assert rows_of(two_way.data) == [row(A, updated="2026-06-01 10:00"), row(B)]
    assert [(c.id, c.column) for c in two_way.open] == [(B, "Topic")]


def test_three_way_a_cell_changed_on_both_sides_uses_the_rules_then_is_open():
    base = index(row(A))
    later = merge_index(index(row(A, summary="x")), index(row(A, summary="y", updated="2026-05-31 10:00")), base)
    assert rows_of(later.data) == [row(A, summary="y", updated="2026-05-31 10:00")] and later.open == ()
    same = merge_index(index(row(A, summary="x")), index(row(A, summary="y")), base, marker_size=7)
    assert [(c.ours, c.theirs) for c in same.open] == [("x", "y")]
    assert same.data.count(b"<<<<<<< ours") == 1


def test_three_way_a_row_deleted_on_one_side_and_unchanged_on_the_other_stays_deleted():
    base = index(row(A), row(B), row(C))
    assert rows_of(merge_index(index(row(A), row(C)), index(row(A), row(B), row(C)), base).data) == [row(A), row(C)]
    assert rows_of(merge_index(index(row(A), row(B), row(C)), index(row(A), row(C)), base).data) == [row(A), row(C)]


def test_three_way_a_row_deleted_on_one_side_and_changed_on_the_other_is_kept():
    base = index(row(A), row(B))
    changed = row(B, summary="more", updated="2026-05-31 11:00")
    assert rows_of(merge_index(index(row(A)), index(row(A), changed), base).data) == [row(A), changed]
    assert rows_of(merge_index(index(row(A), changed), index(row(A)), base).data) == [row(A), changed]


def test_three_way_referenced_by_keeps_a_release_on_one_side_and_a_continue_on_the_other():
    base = index(row(A, refs=B))
    merged = merge_index(index(row(A, refs="-")), index(row(A, refs=f"{B}, {C}")), base)
    assert rows_of(merged.data) == [row(A, refs=C)]


def test_three_way_rows_added_on_both_sides_are_all_kept_ours_first():
    base = index(row(A))
    merged = merge_index(index(row(A), row(B)), index(row(A), row(C)), base)
    assert rows_of(merged.data) == [row(A), row(B), row(C)] and merged.open == ()


def test_three_way_text_outside_the_table_changed_on_one_side_takes_that_side():
    base = index(row(A), post="\nold\n")
    merged = merge_index(index(row(A), row(B), post="\nold\n"), index(row(A), post="\nnew\n"), base)
    assert merged.data == index(row(A), row(B), post="\nnew\n") and merged.outside == ()
    both = merge_index(index(row(A), post="\nmine\n"), index(row(A), post="\nnew\n"), base)
    assert both.data == index(row(A), post="\nmine\n") and both.outside == ("new",)


def test_an_unreadable_ancestor_is_merged_as_two_versions():
    ours, theirs = index(row(A)), index(row(A), row(B))
    assert merge_index(ours, theirs, b"no table\n").data == merge_index(ours, theirs).data


def test_a_copy_whose_header_lacks_an_extra_column_or_orders_columns_otherwise_merges_by_column_name():
    header, sep = HEADER + " Machine |", SEP + "---|"
    ours = f"{header}\n{sep}\n{row(A)} laptop |\n".encode()
    older = index(row(A, refs=B), row(B), pre="")
    merged = merge_index(ours, older)
    assert merged.data == f"{header}\n{sep}\n{row(A, refs=B)} laptop |\n{row(B)}  |\n".encode()
    columns = HEADER.strip("|").split("|")
    swapped = "|" + "|".join([columns[1], columns[0], *columns[2:]]) + "|"
    cells = row(C).strip("|").split("|")
    other = f"{swapped}\n{SEP}\n|{'|'.join([cells[1], cells[0], *cells[2:]])}|\n".encode()
    assert rows_of(merge_index(index(row(A)), other).data) == [row(A), row(C)]
    assert merge_index(older, ours).unparsed  # the copy's Machine column would be lost


def test_the_conflict_block_takes_the_files_line_endings_and_prefer_still_decides_with_an_ancestor():
    base = index(row(A), eol="\r\n")
    ours, theirs = index(row(A, summary="x"), eol="\r\n"), index(row(A, summary="y"), eol="\r\n")
    marked = merge_index(ours, theirs, base, marker_size=7)
    assert marked.data == index(row(A, summary="x"), eol="\r\n") + (
        f"<<<<<<< ours\r\n{row(A, summary='x')}\r\n=======\r\n{row(A, summary='y')}\r\n>>>>>>> theirs\r\n".encode()
    )
    assert merge_index(ours, theirs, base, marker_size=7, prefer="theirs").data == theirs
    assert merge_index(ours, theirs, base, marker_size=7, prefer="theirs", only=B).data == marked.data
