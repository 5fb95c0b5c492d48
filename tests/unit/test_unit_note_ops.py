"""The notes API the MCP server calls, in process: session summaries, supersede and mark, updates of earlier notes."""

from __future__ import annotations

from datetime import datetime

import pytest

from memboard.core.errors import Refused, UsageError
from memboard.core.files.execute import execute
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.note import read_note
from memboard.core.ops.notes import (
    NoteDraft,
    NoteFields,
    NoteFilters,
    list_notes,
    plan_memory_update,
    plan_note_mark,
    plan_note_save,
    plan_note_supersede,
    plan_note_update,
    plan_session_summary,
    show_note,
)
from tests.support.roots import Mem, row_line

WHEN = datetime(2026, 6, 1, 9, 30)
SID = "2026-05-30-1000-claude-code"


def saved(root: MemoryRoot, draft: NoteDraft, choice=None):
    """Save a draft through the write path; the result."""
    return execute(root, lambda r: plan_note_save(r, draft, WHEN, choice)).result


def test_session_summary_takes_lists_or_texts_and_keeps_the_snapshot(root):
    Mem(root).index(row_line(SID))
    Mem(root).snapshot(SID)
    memory = MemoryRoot(root)
    plan = execute(
        memory,
        lambda r: plan_session_summary(
            r,
            SID,
            "Ship the notes",
            instructions="- be terse\n- 用中文",
            discoveries=["CRLF"],
            accomplished=["store"],
            next_steps=None,
            relevant="notes/a.md",
            when=WHEN,
        ),
    )
    assert plan.op == "session summary" and plan.result.session_id == SID
    snap = (root / "sessions" / f"{SID}.md").read_text(encoding="utf-8")
    for line in (
        "- Goal: Ship the notes",
        "- Instruction: 用中文",
        "- Discovery: CRLF",
        "- notes/a.md",
        "- Write tests.",
    ):
        assert line in snap
    with pytest.raises(UsageError):
        plan_session_summary(memory, SID, "", when=WHEN)
    with pytest.raises(Refused):
        plan_session_summary(memory, "2026-05-30-1000-nobody", "x", when=WHEN)


def test_supersede_and_mark_link_both_notes(root):
    memory = MemoryRoot(root)
    saved(memory, NoteDraft("Old", "fact", "ops", "Old way.", topic_key="ops/old"))
    saved(memory, NoteDraft("New", "fact", "ops", "New way.", topic_key="ops/new"))
    result = execute(memory, lambda r: plan_note_supersede(r, "ops/old", "ops/new", WHEN)).result
    assert (result.note_id, result.superseded_by) == ("ops/old", "ops/new")
    views = {v.id: v for v in list_notes(memory)}
    assert views["ops/old"].status == "superseded" and views["ops/old"].superseded_by == ["ops/new"]
    assert views["ops/new"].supersedes == ["ops/old"]
    assert [v.id for v in list_notes(memory, NoteFilters(status="active"))] == ["ops/new"]
    assert execute(memory, lambda r: plan_note_supersede(r, "ops/old", "ops/new", WHEN)).changes == []
    with pytest.raises(Refused):
        plan_note_supersede(memory, "ops/new", "ops/old", WHEN)
    execute(memory, lambda r: plan_note_mark(r, "ops/old", "active", WHEN))
    assert read_note((root / "notes" / "ops" / "old.md").read_bytes()).status == "active"


def test_a_topic_note_marked_superseded_gives_way_to_the_next_save(root):
    memory = MemoryRoot(root)
    saved(memory, NoteDraft("Tabs", "preference", "global", "Tabs.", topic_key="style/indent"))
    execute(memory, lambda r: plan_note_mark(r, "style/indent", "superseded", WHEN))
    result = saved(memory, NoteDraft("Spaces", "preference", "global", "Tabs.", topic_key="style/indent"))
    assert (result.outcome, result.superseded) == ("superseded", "style/indent~1")
    with pytest.raises(Refused):
        plan_note_mark(memory, "style/indent~1", "active", WHEN)


def test_an_earlier_note_takes_only_changes_that_keep_its_statements(root):
    memory = MemoryRoot(root)
    saved(memory, NoteDraft("Theme", "preference", "global", "Dark.", topic_key="ui/theme"))
    saved(memory, NoteDraft("Theme", "preference", "global", "Light.", topic_key="ui/theme"))
    result = execute(
        memory, lambda r: plan_note_update(r, "ui/theme~1", NoteFields(learned="It was the default."), WHEN)
    ).result
    assert (result.outcome, result.status) == ("updated", "superseded")
    assert show_note(memory, "ui/theme~1").learned == "It was the default."
    with pytest.raises(Refused):
        plan_note_update(memory, "ui/theme~1", NoteFields(what="Blue."), WHEN)


def test_one_block_may_save_a_topic_twice(root):
    memory = MemoryRoot(root)
    block = (
        "## Memory Update\n- title: Port\n- type: config\n- scope: ops\n- topic_key: ops/port\n- what: 8080\n\n"
        "## Memory Update\n- title: Port\n- type: config\n- scope: ops\n- topic_key: ops/port\n- what: 8080 and 9100\n"
    )
    result = execute(memory, lambda r: plan_memory_update(r, block, WHEN)).result
    assert [r.outcome for r in result.notes] == ["created", "updated"]
    assert show_note(memory, "ops/port").what == "8080 and 9100"
