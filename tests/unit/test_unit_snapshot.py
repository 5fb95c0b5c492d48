"""Snapshots: the seed's templates rendered exactly, section parsing, merge without loss."""

from __future__ import annotations

from memboard.core.formats.archive import render_archive_index
from memboard.core.formats.snapshot import (
    Snapshot,
    add_items,
    merge,
    remove_items,
    render_template,
    set_metadata,
    vanished,
)

SID = "2026-06-01-0930-cursor-main-agent"

# The seed's template, with its placeholders filled and `- None` for empty lists.
SEED_TEMPLATE_FILLED = f"""# Session: {SID}

## Metadata

| Field | Value |
|---|---|
| Session ID | {SID} |
| Agent Name | cursor-main-agent |
| Topic | 未設定 |
| Status | active |
| Started At | 2026-06-01 09:30 |
| Updated At | 2026-06-01 09:30 |

## Current Context

Summarize what has happened in this agent session so far.

## Decisions

- None

## Files / Artifacts

- None

## Open Questions

- None

## Next Actions

- None

## Continues From

- None

## Superseded / Resolved

- None
"""

SEED_ARCHIVE_FILLED = f"""# Archived Session: {SID}

## Metadata

| Field | Value |
|---|---|
| Session ID | {SID} |
| Agent Name | cursor-main-agent |
| Topic | T \\| U |
| Summary | S |
| Keywords | k1, k2 |
| Original Status | active |
| Referenced By | - |
| Started At | 2026-06-01 09:00 |
| Updated At | 2026-06-01 09:10 |
| Archived At | 2026-06-01 09:30 |

## Files

- Session: ./session.md
"""


def base() -> str:
    """A filled snapshot."""
    return render_template(
        SID,
        "cursor-main-agent",
        "T",
        "2026-06-01 09:00",
        "2026-06-01 09:00",
        context="Ctx.",
        decisions=["Use A.", "Use B."],
        questions=["Why?"],
        continues=["2026-05-01-0900-x"],
    )


def test_template_is_the_seeds_exactly():
    ts = "2026-06-01 09:30"
    assert render_template(SID, "cursor-main-agent", "未設定", ts, ts) == SEED_TEMPLATE_FILLED


def test_template_headings_follow_the_seed_order():
    names = [s.name for s in Snapshot(base()).sections]
    assert names == [
        "Metadata",
        "Current Context",
        "Decisions",
        "Files / Artifacts",
        "Open Questions",
        "Next Actions",
        "Continues From",
        "Superseded / Resolved",
    ]


def test_archive_template_is_the_seeds_exactly():
    values = dict(
        id=SID,
        agent="cursor-main-agent",
        topic="T | U",
        summary="S",
        keywords="k1, k2",
        status="active",
        referenced_by="-",
        started_at="2026-06-01 09:00",
        updated_at="2026-06-01 09:10",
    )
    assert render_archive_index(values, "2026-06-01 09:30") == SEED_ARCHIVE_FILLED


def test_metadata_and_items_parse():
    snap = Snapshot(base())
    assert snap.metadata()["Session ID"] == SID and snap.metadata()["Topic"] == "T"
    assert [i.text.strip() for i in snap.items("Decisions")] == ["- Use A.", "- Use B."]
    assert snap.items("Next Actions") == []  # `- None` is a placeholder
    assert snap.continues_from() == ["2026-05-01-0900-x"]


def test_continues_from_accepts_backticks_and_notes():
    text = base().replace("- 2026-05-01-0900-x", "- `2026-05-01-0900-x` (the parser)\n- 2026-05-02-0900-y — notes")
    assert Snapshot(text).continues_from() == ["2026-05-01-0900-x", "2026-05-02-0900-y"]


def test_set_metadata_changes_only_that_cell():
    old = base()
    new = set_metadata(old, {"Updated At": "2026-06-02 10:00"})
    assert new == old.replace("| Updated At | 2026-06-01 09:00 |", "| Updated At | 2026-06-02 10:00 |")


def test_add_items_replaces_placeholder_and_skips_duplicates():
    new = add_items(base(), "Next Actions", ["Ship.", "Ship."])
    assert "## Next Actions\n\n- Ship.\n\n## Continues From" in new
    assert add_items(new, "Next Actions", ["ship"]) == new


def test_add_items_creates_missing_section_in_template_order():
    text = base().replace("## Open Questions\n\n- Why?\n\n", "")
    new = add_items(text, "Open Questions", ["Who?"])
    names = [s.name for s in Snapshot(new).sections]
    assert names.index("Open Questions") == names.index("Files / Artifacts") + 1


def test_remove_items_leaves_none_when_empty():
    new = remove_items(base(), "Continues From", {"2026-05-01-0900-x"})
    assert "## Continues From\n\n- None\n" in new


def test_merge_keeps_every_old_item_and_adds_new_ones():
    result = merge(base(), "## Decisions\n\n- Use C.\n\n## Next Actions\n\n- Ship.\n")
    snap = Snapshot(result.text)
    assert [i.text.strip() for i in snap.items("Decisions")] == ["- Use A.", "- Use B.", "- Use C."]
    assert [i.text.strip() for i in snap.items("Next Actions")] == ["- Ship."]
    assert ("Open Questions", "- Why?") in result.carried
    assert vanished(base(), result.text) == []


def test_merge_marker_replaces_the_old_line():
    result = merge(base(), "## Decisions\n\n- Use A. [superseded]\n")
    assert "- Use A. [superseded]\n- Use B." in result.text and result.marked == [
        ("Decisions", "- Use A. [superseded]")
    ]


def test_merge_of_identical_text_changes_nothing():
    assert merge(base(), base()).text == base()


def test_merge_keeps_crlf_and_paragraph_context():
    old = base().replace("\n", "\r\n")
    result = merge(old, "## Current Context\n\nMore context.\n")
    assert "\r\n" in result.text and "\n" not in result.text.replace("\r\n", "")
    assert "Ctx.\r\n\r\nMore context.\r\n" in result.text


def test_vanished_flags_unmarked_drops_only():
    old = base()
    dropped = old.replace("- Use B.\n", "")
    assert vanished(old, dropped) == [("Decisions", "- Use B.")]
    marked = old.replace("- Use B.", "- [done] Use B.")
    assert vanished(old, marked) == []
    moved = dropped.replace("## Superseded / Resolved\n\n- None", "## Superseded / Resolved\n\n- Use B. [resolved]")
    assert vanished(old, moved) == []


def test_bom_survives_edits():
    data = ("\ufeff" + base()).encode("utf-8")
    snap = Snapshot(data)
    assert snap.bom and snap.to_bytes() == data


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.support.sizes import examples  # noqa: E402

WORDS = st.text(alphabet="abcdefgh 中文", min_size=1, max_size=12).map(lambda s: s.strip()).filter(bool)
SECTIONS = ["Decisions", "Files / Artifacts", "Open Questions", "Next Actions"]


@given(
    st.dictionaries(st.sampled_from(SECTIONS), st.lists(WORDS, max_size=4), max_size=4),
    st.dictionaries(st.sampled_from(SECTIONS), st.lists(WORDS, max_size=4), max_size=4),
)
@settings(max_examples=examples(60), deadline=None)
def test_merge_never_loses_an_item(old_items, new_items):
    old = render_template(
        SID,
        "a",
        "T",
        "t",
        "t",
        decisions=old_items.get("Decisions"),
        files=old_items.get("Files / Artifacts"),
        questions=old_items.get("Open Questions"),
        actions=old_items.get("Next Actions"),
    )
    proposal = "".join(
        f"## {name}\n\n" + "".join(f"- {i}\n" for i in items) + "\n" for name, items in new_items.items()
    )
    if not proposal:
        return
    merged = merge(old, proposal).text
    assert vanished(old, merged) == []
    keys = Snapshot(merged).all_keys()
    for items in new_items.values():
        for item in items:
            from memboard.core.formats.snapshot import item_key

            assert item_key(item) in keys or not item_key(item) or Snapshot(f"## X\n\n- {item}\n").items("X") == []


def test_merge_of_crlf_input_into_lf_snapshot_leaves_no_stray_cr():
    result = merge(
        base(), "## Current Context\r\n\r\nline one\r\nline two\r\n\r\n## Decisions\r\n\r\n- d1\r\n  more\r\n"
    )
    assert "\r" not in result.text
    assert "Ctx.\n\nline one\nline two\n" in result.text and "- d1\n  more\n" in result.text


def test_set_metadata_adds_a_metadata_table_when_missing():
    text = "# Session: x\n\n## Decisions\n\n- A.\n"
    new = set_metadata(text, {"Status": "active", "Updated At": "2026-06-01 09:30"})
    assert new == (
        "# Session: x\n\n## Metadata\n\n| Field | Value |\n|---|---|\n| Status | active |\n"
        "| Updated At | 2026-06-01 09:30 |\n\n## Decisions\n\n- A.\n"
    )
    assert Snapshot(new).metadata()["Updated At"] == "2026-06-01 09:30"
    assert set_metadata("just text\n", {"Status": "active"}).endswith(
        "just text\n\n## Metadata\n\n| Field | Value |\n|---|---|\n| Status | active |\n"
    )


def test_add_items_appends_a_missing_last_section_after_a_blank_line():
    assert add_items("# S\n\n## Decisions\n\n- A.\n", "Superseded / Resolved", ["x"]) == (
        "# S\n\n## Decisions\n\n- A.\n\n## Superseded / Resolved\n\n- x\n"
    )
    assert add_items("# S\n\n## Decisions\n\n- A.", "Continues From", ["2026-01-01-0000-a"]) == (
        "# S\n\n## Decisions\n\n- A.\n\n## Continues From\n\n- 2026-01-01-0000-a\n"
    )


def test_merge_takes_an_extended_item_without_losing_lines():
    old = base().replace("Ctx.", "Ctx.\nFirst fact.")
    result = merge(
        old,
        "## Current Context\n\nCtx.\nFirst fact.\nSecond fact.\n\n## Decisions\n\n- Use A.\n  - because it is small\n",
    )
    assert "## Current Context\n\nCtx.\nFirst fact.\nSecond fact.\n\n## Decisions" in result.text
    assert "- Use A.\n  - because it is small\n- Use B." in result.text
    assert vanished(old, result.text) == []
    # a rewrite that drops a line is not an extension: the old text stays, the new one is added
    result = merge(old, "## Current Context\n\nCtx.\nSomething else.\n")
    assert "Ctx.\nFirst fact.\n\nCtx.\nSomething else.\n\n## Decisions" in result.text
    # a shorter copy of an old item adds nothing
    assert merge(old, "## Current Context\n\nCtx.\n").text == old


def test_continues_from_lists_only_session_ids():
    text = base().replace(
        "- 2026-05-01-0900-x", "- 2026-05-01-0900-x, the parser\n- see the notes above\n- **2026-05-02-0900-y**"
    )
    assert Snapshot(text).continues_from() == ["2026-05-01-0900-x", "2026-05-02-0900-y"]


def test_a_mark_replaces_the_item_in_its_own_form():
    """A one-line item marked in the other form (list item / paragraph) keeps the old item's form
    and marker, so a numbered list stays one list."""
    old = base().replace("- Use A.\n- Use B.", "2. Use A.\n3. Use B.")
    result = merge(old, "## Decisions\n\n- Use A. [done]\n\n## Current Context\n\n- Ctx. [superseded]\n")
    assert "## Current Context\n\nCtx. [superseded]\n\n## Decisions\n\n2. Use A. [done]\n3. Use B.\n" in result.text


def test_a_reading_kept_by_its_lines_is_the_same_as_a_new_one() -> None:
    """The same lines read again (kept by their lines) give equal blocks, in a list of the caller's own: changing
    one caller's list or reading other lines in between changes no later reading."""
    import dataclasses

    import pytest

    from memboard.core.formats.snapshot import read_blocks

    lines = ["## Decisions\n", "\n", "- one\n", "- two\n", "\n", "```\n", "open fence\n"]
    first = read_blocks(lines)
    first.clear()
    read_blocks(["# other\n", "text\n"])
    again = read_blocks(list(lines))
    assert [(b.kind, b.start, b.end, b.open) for b in again] == [
        ("heading", 0, 1, False),
        ("list", 2, 4, False),
        ("fence", 5, 7, True),
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        again[0].start = 3  # type: ignore[misc]
    assert Snapshot("".join(lines)).text() == "".join(lines)
