"""The note file format, topic keys and the Memory Update block, as pure functions (seed 001)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memboard.core.errors import UsageError
from memboard.core.formats.memory_update import SessionSummary, parse_blocks, render_summary, render_update
from memboard.core.formats.note import (
    Note,
    NoteDraft,
    _edited,
    _edited_section_by_section,
    added_statements,
    dropped_statements,
    quick_cells,
    read_note,
    render_note,
    write_note,
)
from memboard.core.formats.snapshot import Snapshot
from memboard.core.formats.topic import (
    SCOPES,
    TYPES,
    check_topic_key,
    is_topic_key,
    note_id_of,
    split_note_id,
    suggest_topic_key,
)

NOTE = Note(
    "Use PostgreSQL | 15",
    "decision",
    "project",
    "project/db",
    what="- Use PostgreSQL 15.\n- One primary.",
    why="Row locks.",
    created="2026-06-01 09:30",
    updated="2026-06-01 09:30",
)

line_text = (
    st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=30)
    .map(lambda s: " ".join(s.split()))
    .filter(bool)
)
body_line = st.one_of(
    line_text,
    line_text.map(lambda s: "- " + s),
    st.sampled_from(
        [
            "",
            "```",
            "~~~",
            "## heading",
            "# top",
            "---",
            "===",
            "    code",
            "> quote",
            "| a | b |",
            "<div>",
            "### Why",
            "1. one",
            "* star",
            "\t tab",
            "## Metadata",
        ]
    ),
)
body = st.lists(body_line, max_size=8).map("\n".join)


def test_a_new_note_renders_and_reads_back_exactly():
    text = render_note(NOTE)
    assert read_note(text.encode()) == NOTE
    assert write_note(None, NOTE) == text.encode()
    assert "| Title | Use PostgreSQL \\| 15 |" in text
    assert quick_cells(text.encode())["Title"] == "Use PostgreSQL | 15"


@given(what=body, why=body, learned=body)
def test_any_text_reads_back_as_written_or_is_refused(what, why, learned):
    note = NOTE.with_changes(what=what.strip("\n"), why=why.strip("\n"), learned=learned.strip("\n"))
    try:
        data = write_note(None, note)
    except UsageError as exc:
        assert "would not read back" in str(exc)
        return
    assert read_note(data) == note


def test_an_edit_keeps_unknown_lines_sections_rows_crlf_and_bom():
    text = (
        render_note(NOTE).replace("| Updated |", "| Reviewer | ana |\n| Updated |") + "\n## Links\n\n- [[other note]]\n"
    )
    text = text.replace("## What\n", "Stray line before What.\n\n## What\n")
    data = ("\ufeff" + text.replace("\n", "\r\n")).encode()
    new = NOTE.with_changes(title="Use PostgreSQL 16", learned="Upgrade in place.", updated="2026-06-02 10:00")
    out = write_note(data, new)
    assert out.startswith(b"\xef\xbb\xbf") and b"\n" not in out.replace(b"\r\n", b"")
    decoded = out.decode("utf-8-sig")
    for kept in (
        "| Reviewer | ana |",
        "Stray line before What.",
        "## Links",
        "- [[other note]]",
        "# Use PostgreSQL 16",
    ):
        assert kept in decoded
    assert read_note(out) == new
    assert write_note(out, new) == out


def test_statements_kept_dropped_and_added():
    old = NOTE
    grown = NOTE.with_changes(what="* use postgresql 15.\n- One primary, one replica.")
    assert dropped_statements(old, grown) == []
    assert added_statements(old, grown) == ["- One primary, one replica."]
    changed = NOTE.with_changes(what="- Use PostgreSQL 16.\n- One primary.")
    assert dropped_statements(old, changed) == ["- Use PostgreSQL 15."]
    short = NOTE.with_changes(what="- C", why="")
    assert dropped_statements(short, NOTE.with_changes(why="Because.")) == ["- C"]


@pytest.mark.parametrize("key", ["a", "project/ekyc/android-sdk", "a.b_c-d/0", "x" * 64, "/".join(["a"] * 10)])
def test_valid_topic_keys(key):
    assert check_topic_key(key) == key and split_note_id(key) == (key, 0) and split_note_id(key + "~3") == (key, 3)
    assert note_id_of(f"notes/{key}~3.md") == f"{key}~3"


@pytest.mark.parametrize(
    "key",
    [
        "",
        "..",
        "a/..",
        ".a",
        "a.",
        "A",
        "a//b",
        "a/",
        "/a",
        "con",
        "lpt1.txt",
        "x" * 65,
        "中文",
        "a~1",
        "a~0",
        "a b",
        "a\x00b",
        5,
        None,
    ],
)
def test_invalid_topic_keys(key):
    assert not is_topic_key(key)
    with pytest.raises(UsageError):
        check_topic_key(key)


@given(scope=st.sampled_from(SCOPES), note_type=st.sampled_from(TYPES), title=st.text(min_size=1, max_size=200))
def test_suggested_keys_are_valid_and_stable(scope, note_type, title):
    if not title.strip():
        with pytest.raises(UsageError):
            suggest_topic_key(scope, note_type, title)
        return
    key = suggest_topic_key(scope, note_type, title)
    assert is_topic_key(key) and key == suggest_topic_key(scope, note_type, title)
    assert key.startswith(f"{scope}/{note_type}/")


def test_titles_without_ascii_letters_get_distinct_hashes():
    a = suggest_topic_key("global", "fact", "選擇筆記")
    b = suggest_topic_key("global", "fact", "放棄筆記")
    assert a != b and len(a.rsplit("/", 1)[1]) == 8


drafts = st.builds(
    NoteDraft,
    title=line_text.filter(lambda s: not s.startswith(("#", "`"))),
    type=st.sampled_from(TYPES),
    scope=st.sampled_from(SCOPES),
    what=st.sampled_from(["", "One line.", "- a\n- b", "```py\n## code\n```", "多行\n\n文字"]),
    why=st.sampled_from(["", "Because 同步."]),
    where=st.sampled_from(["", "app/core/x.py"]),
    learned=st.sampled_from(["", "> quoted"]),
    topic_key=st.sampled_from([None, "project/x", "a.b/c"]),
    project=st.sampled_from([None, "shop"]),
    session=st.sampled_from([None, "2026-06-01-0930-cursor-main-agent"]),
)


@given(draft=drafts, choice=st.sampled_from([None, "supersede", "keep_both"]))
def test_memory_update_blocks_round_trip(draft, choice):
    updates, summaries = parse_blocks("Before.\n\n" + render_update(draft, choice) + "\n# Later\n\ntext\n")
    assert summaries == [] and len(updates) == 1
    assert updates[0].draft == draft and updates[0].choice == choice


def test_session_summary_blocks_round_trip_and_read_the_seeds_plain_form():
    summary = SessionSummary(
        "2026-06-01-0930-cursor-main-agent",
        "Ship notes",
        ("be terse",),
        ("CRLF",),
        ("tests",),
        ("merge",),
        ("notes/x.md",),
    )
    assert parse_blocks(render_summary(summary)) == ([], [summary])
    plain = (
        "## Session Summary\nSession: 2026-06-01-0930-cursor-main-agent\nGoal: 本轮目标\nInstructions: a\n"
        "Discoveries: b\nAccomplished: c\nNext Steps: d\nRelevant Notes/Files: e\n"
    )
    assert parse_blocks(plain)[1][0] == SessionSummary(
        "2026-06-01-0930-cursor-main-agent", "本轮目标", ("a",), ("b",), ("c",), ("d",), ("e",)
    )


@pytest.mark.parametrize(
    "bad",
    [
        "## Memory Update\n- titel: x\n",
        "## Memory Update\n- title: x\n### Notes\n",
        "## Memory Update\n- title: x\n- title: y\n",
        "## Session Summary\n- goal: x\n",
    ],
)
def test_bad_blocks_name_the_line(bad):
    with pytest.raises(UsageError, match="line"):
        parse_blocks(bad)


STATEMENT = "- Use PostgreSQL 15 for the shop database."
STATEMENT_ZH = "- 商店数据库使用 PostgreSQL 15。"


@pytest.mark.parametrize(
    "new",
    [
        "- Do not use PostgreSQL 15 for the shop database; use MySQL 8",
        "- Use PostgreSQL 15 for the shop database; use MySQL 8 instead.",
        "- Use PostgreSQL 15 for the shop database — no longer.",
        "- Use PostgreSQL 15 for the shop database, not MySQL.",
        "- Use PostgreSQL 15 for the shop database (replaced by MySQL 8).",
        "- Use PostgreSQL 15 for the shop database rather than MySQL.",
        "- Use PostgreSQL 15 for the shop database. It isn't reliable.",
        "- Use PostgreSQL 15 for the shop database, but MySQL 8 for the new one.",
        "- We chose: use PostgreSQL 15 for the shop database.",
        "- Use PostgreSQL 15.5 for the shop database.",
        "- Use PostgreSQL 15 for the shop databases.",
        "- Use PostgreSQL 16 for the shop database.",
    ],
)
def test_a_statement_negated_replaced_or_changed_is_not_kept(new):
    assert dropped_statements(NOTE.with_changes(what=STATEMENT), NOTE.with_changes(what=new)) == [STATEMENT]


@pytest.mark.parametrize(
    "new",
    [
        "- 商店数据库使用 PostgreSQL 15，不再使用。",
        "- 商店数据库使用 PostgreSQL 15，改用 MySQL 8。",
        "- 商店数据库使用 PostgreSQL 15（已被 MySQL 8 取代）。",
        "- 商店数据库使用 PostgreSQL 15 而不是 MySQL。",
        "- 商店数据库不使用 PostgreSQL 15。",
    ],
)
def test_a_chinese_statement_negated_or_replaced_is_not_kept(new):
    assert dropped_statements(NOTE.with_changes(what=STATEMENT_ZH), NOTE.with_changes(what=new)) == [STATEMENT_ZH]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (STATEMENT, STATEMENT),
        (STATEMENT, "* use postgresql 15 for the shop database"),
        (STATEMENT, "- Use PostgreSQL 15 for the shop database, for its row locks."),
        (STATEMENT, "- Use PostgreSQL 15 for the shop database (decided with the team on 2026-06-01)."),
        (STATEMENT, "- Use PostgreSQL 15 for the shop database. See ADR 7 for the reasons."),
        (STATEMENT, "- Use PostgreSQL 15 for the shop database: one primary, one replica."),
        (STATEMENT, "1. [x] Use PostgreSQL 15 for the shop database;  for its row locks"),
        (STATEMENT_ZH, "- 商店数据库使用 PostgreSQL 15，因为需要行锁。"),
        (STATEMENT_ZH, "- 商店数据库使用 PostgreSQL 15。主库一台，副本一台。"),
    ],
)
def test_a_statement_unchanged_or_clarified_at_its_end_is_kept(old, new):
    assert dropped_statements(NOTE.with_changes(what=old), NOTE.with_changes(what=f"- Something else.\n{new}")) == []


words = st.sampled_from(
    ["use", "kafka", "15", "shop", "not", "no", "rather", "than", "don", "t", "不", "再", "改", "用"]
)
marks = st.sampled_from([" ", ", ", "; ", ". ", "，", "'", "-", ".", "（", "）", ""])
fragment = st.lists(st.tuples(marks, words), max_size=4).map(lambda parts: "".join(m + w for m, w in parts))


@settings(max_examples=300, deadline=None)
@given(fragment.filter(bool), fragment, fragment)
def test_kept_is_transitive_so_a_chain_of_saves_cannot_drop_a_statement_step_by_step(start, more, most):
    first, second, third = (NOTE.with_changes(what=f"- {text}") for text in (start, start + more, start + more + most))
    if not dropped_statements(first, second) and not dropped_statements(second, third):
        assert dropped_statements(first, third) == []


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_an_edit_made_on_one_parse_writes_what_editing_section_by_section_writes(data):
    was = NOTE.with_changes(
        what=data.draw(body, "what"), why=data.draw(body, "why"), learned=data.draw(body, "learned")
    )
    try:
        old = write_note(None, was)
    except UsageError:
        return
    new = was.with_changes(
        title=data.draw(st.sampled_from([was.title, "Use MySQL 8"])),
        type=data.draw(st.sampled_from(TYPES)),
        what=data.draw(body, "new what"),
        where=data.draw(body, "new where"),
        learned=data.draw(st.sampled_from([was.learned, "- Learned more."])),
    )
    doc = Snapshot(old)
    one, each = _edited(doc, read_note(old), new), _edited_section_by_section(doc, read_note(old), new)
    assert one is not None
    # the same text, or (a fence left open in a section swallowing the next) neither reads back: write_note refuses
    assert one == each or (read_note(one) != new and read_note(each) != new)
