"""resolve_blocks (issue 26 §5): deciding the conflict blocks the git driver leaves gives what the merge gives
when it is told whom to prefer, for index.md (one block after the table) and for snapshots, archive files and
notes (a block per open Metadata field); git's own line-merge blocks are decided row by row, losing no row."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.core.formats.archive import ARCHIVE_TEMPLATE
from memboard.core.merge.documents import merge_archive_index, merge_note, merge_snapshot
from memboard.core.merge.gitblocks import resolve_blocks
from memboard.core.merge.index import merge_index
from memboard.core.merge.result import conflict_block
from tests.merge.index_rows import A, B, C, index, row
from tests.merge.test_merge_index_properties import lines, versions
from tests.support.sizes import examples

PROPERTY = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
SAME = "2026-05-31 10:00"


@PROPERTY
@given(versions(), st.one_of(st.none(), st.lists(lines(), max_size=5)), st.sampled_from(["ours", "theirs"]))
def test_deciding_the_index_block_is_the_merge_that_prefers_that_side(pair, base_rows, prefer):
    ours, theirs = pair
    base = index(*base_rows) if base_rows is not None else None
    blocked = merge_index(ours, theirs, base, marker_size=7)
    decided, ids = resolve_blocks("index.md", blocked.data, prefer)
    assert decided == merge_index(ours, theirs, base, prefer=prefer).data
    assert sorted(ids) == sorted({cell.id for cell in blocked.open})
    assert resolve_blocks("index.md", decided, prefer) == (decided, [])  # nothing left to decide


def test_only_one_session_s_rows_are_decided_and_the_rest_of_the_block_stays():
    ours = index(row(A, summary="A ours", updated=SAME), row(B, summary="B ours", updated=SAME))
    theirs = index(row(A, summary="A theirs", updated=SAME), row(B, summary="B theirs", updated=SAME))
    blocked = merge_index(ours, theirs, marker_size=7).data
    first, ids = resolve_blocks("index.md", blocked, "theirs", only=B)
    assert ids == [B]
    assert row(B, summary="B theirs", updated=SAME) in first.decode().split("<<<<<<<")[0]
    assert first.count(b"<<<<<<< ours") == 1 and b"B ours" not in first and b"A theirs" in first
    second, ids = resolve_blocks("index.md", first, "ours", only=A)
    assert ids == [A] and b"<<<<<<<" not in second
    assert second == merge_index(ours, theirs, prefer="theirs", only=B).data
    assert resolve_blocks("index.md", blocked, "theirs", only=C) == (blocked, [])  # no block of C's


def test_git_s_line_merge_blocks_in_the_table_are_decided_without_losing_a_row():
    table = index(row(A)).decode()
    ours_rows, theirs_rows = [row(B, summary="ours"), row(C)], [row(B, summary="theirs")]
    data = (table + conflict_block(ours_rows, theirs_rows, size=9)).encode()
    for prefer, b_summary in (("ours", "ours"), ("theirs", "theirs")):
        decided, ids = resolve_blocks("index.md", data, prefer)
        assert decided == index(row(A), row(B, summary=b_summary), row(C)) or decided == index(
            row(A), row(C), row(B, summary=b_summary)
        )
        assert ids == [B, C]


SNAPSHOT = """# Session: {sid}

## Metadata

| Field | Value |
|---|---|
| Session ID | {sid} |
| Agent Name | cursor-main-agent |
| Topic | {topic} |
| Status | active |
| Started At | 2026-05-31 09:00 |
| Updated At | 2026-05-31 10:00 |

## Current Context

- {item}

## Decisions

- None
"""
NOTE = """# Cache

## Metadata

| Field | Value |
|---|---|
| Title | {title} |
| Type | fact |
| Scope | project |
| Topic Key | project/cache |
| Status | active |
| Supersedes | - |
| Superseded By | - |
| Project | - |
| Session | - |
| Created | 2026-05-31 09:00 |
| Updated | 2026-05-31 10:00 |

## What

{item}
"""


ARCHIVE = (
    ARCHIVE_TEMPLATE.replace("{summary}", "{item}")
    .format(
        id=A,
        agent="cursor-main-agent",
        topic="{topic}",
        item="{item}",
        keywords="K",
        status="active",
        referenced_by="-",
        started_at="2026-05-31 09:00",
        updated_at="2026-05-31 10:00",
        archived_at="2026-05-31 11:00",
    )
    .replace("{sid}", A)
)


def test_deciding_the_blocks_of_snapshots_archive_files_and_notes_is_the_merge_that_prefers_that_side():
    for rel, merge, template, field in (
        (f"sessions/{A}.md", merge_snapshot, SNAPSHOT, "topic"),
        (f"archive/{A}/session.md", merge_snapshot, SNAPSHOT, "topic"),
        ("notes/project/cache.md", merge_note, NOTE, "title"),
        (f"archive/{A}/index.md", merge_archive_index, ARCHIVE, "topic"),
    ):
        ours = template.format(sid=A, item="ours' item.", **{field: "Ours"}).encode()
        theirs = template.format(sid=A, item="theirs' item.", **{field: "Theirs"}).encode()
        for base in (None, template.format(sid=A, item="base item.", **{field: "Base"}).encode()):
            blocked = merge(ours, theirs, base, marker_size=7)
            assert blocked.open and blocked.data.count(b"<<<<<<< ours") == len(blocked.open)
            for prefer in ("ours", "theirs"):
                decided, ids = resolve_blocks(rel, blocked.data, prefer)
                assert decided == merge(ours, theirs, base, prefer=prefer).data, rel
                assert ids == [A if rel != "notes/project/cache.md" else "project/cache"]
            assert resolve_blocks(rel, blocked.data, "theirs", only=B) == (blocked.data, [])
