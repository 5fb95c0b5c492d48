"""The preview's diff view: changed words of a modified line, and a cap on lines drawn."""

from __future__ import annotations

from memboard.board.screens.preview import MAX_SHOWN_LINES, DiffView, changed_spans, differing_words


def test_changed_words_of_a_modified_row_are_found_on_both_sides():
    old = "-| 2026-04-01-1200-codex | codex | Hook | active | - |"
    new = "+| 2026-04-01-1200-codex | codex | Hook | stale | - |"
    assert [old[a:b] for a, b in differing_words(old, new)] == ["active"]
    spans = changed_spans([" context", old, new], ["diff--context", "diff--removed", "diff--added"])
    assert [new[a:b] for a, b in spans[2]] == ["stale"] and 0 not in spans


def test_unpaired_runs_are_not_emphasised():
    lines = ["-| a |", "-| b |", "+| c |"]
    assert changed_spans(lines, ["diff--removed", "diff--removed", "diff--added"]) == {}


def test_a_huge_diff_is_drawn_up_to_the_cap_and_says_how_much_is_left():
    diff = "".join(f"+line {n}\n" for n in range(MAX_SHOWN_LINES + 25))
    view = DiffView(diff)
    assert len(view.lines) == MAX_SHOWN_LINES and view.hidden == 25
    assert view.diff == diff
