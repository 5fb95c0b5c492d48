"""The notes view's model: counts per status and type, filters that narrow while typing, sorting."""

from __future__ import annotations

from datetime import datetime

from hypothesis import given
from hypothesis import strategies as st

from memboard.board.notes.model import NotesModel
from memboard.core.results import NoteView

NOW = datetime(2026, 6, 1, 9, 30)
TYPES = ("decision", "preference", "fact", "weird")


def view(i: int, status: str = "active", note_type: str = "decision", session: str = "") -> NoteView:
    """Note number i."""
    return NoteView(
        f"topic/n{i:03d}",
        f"notes/topic/n{i:03d}.md",
        f"Title {i} vault" if i % 2 else f"Title {i}",
        note_type,
        "project",
        f"topic/n{i:03d}",
        status,
        [],
        [],
        f"p{i % 3}",
        session,
        "2026-05-01 09:00",
        f"2026-05-{1 + i % 28:02d} 09:00",
        None if note_type != "weird" else "bad type",
    )


def model(count: int = 30) -> NotesModel:
    """A model of count notes of every kind."""
    views = {v.id: v for v in (view(i, "superseded" if i % 5 == 0 else "active", TYPES[i % 4]) for i in range(count))}
    return NotesModel.of(views, NOW)


def test_counts_per_status_type_and_problem():
    m = model()
    assert m.counts == {"all": 30, "active": 24, "superseded": 6}
    assert m.type_counts["decision"] == 8 and m.type_counts["other"] == 7 and m.type_counts["bugfix"] == 0
    assert m.problems == 7


def test_filters_combine_text_status_and_type():
    m = model()
    rows = m.view("vault p1", "active", "preference")
    assert [r.id for r in rows] == [
        f"topic/n{i:03d}" for i in range(30) if i % 2 and i % 3 == 1 and i % 5 and i % 4 == 1
    ]


@given(st.lists(st.sampled_from("vault ti1 p0"), max_size=12))
def test_typing_narrows_to_what_a_fresh_filter_finds(keys):
    m, fresh = model(), model()
    typed = ""
    for key in keys:
        typed += key
        assert [r.id for r in m.view(typed)] == [r.id for r in fresh.view(typed)]
        fresh = model()


def test_sorting_by_updated_and_new_ids():
    m = model()
    newest = m.view(column="updated", reverse=True)[0]
    assert newest.view.updated == max(r.view.updated for r in m.rows)
    more = NotesModel.of({**m.views(), "topic/new": view(99)._replace(id="topic/new")}, NOW)
    assert more.new_ids(m) == {"topic/new"} and more.new_ids(NotesModel.empty(NOW)) == set()
