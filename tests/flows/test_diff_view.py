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


def _crlf_to_lf_plan():
    """A plan that drops a BOM and turns CRLF into LF (and has a U+2028 inside a cell)."""
    from memboard.core.plan import Change, Plan

    before = "\ufeff# Index\r\n| a\u2028b | x |\r\n".encode("utf-8")
    after = "# Index\n| a\u2028b | x |\n".encode("utf-8")
    return Plan("organize", None, changes=[Change("modify", "index.md", before, after)])


def test_line_ending_bom_and_separator_changes_are_drawn_visibly():
    plan = _crlf_to_lf_plan()
    view = DiffView(plan.diff())
    removed = [l for l in view.lines if l.startswith("-") and not l.startswith("---")]
    added = [l for l in view.lines if l.startswith("+") and not l.startswith("+++")]
    assert removed == ["-⟨BOM⟩# Index␍", "-| a⟨U+2028⟩b | x |␍"]  # U+2028 stays inside its line
    assert added == ["+# Index", "+| a⟨U+2028⟩b | x |"]
    second = view.lines.index("-| a⟨U+2028⟩b | x |␍")
    assert [view.lines[second][a:b] for a, b in view.emphasis[second]] == ["␍"]  # emphasised like a changed word


def test_a_byte_that_is_not_utf8_is_drawn_as_its_value():
    from memboard.core.plan import Change, Plan

    plan = Plan("update", None, changes=[Change("modify", "index.md", b"caf\xe9\n", b"cafe\n")])
    assert "-caf⟨\\xe9⟩" in DiffView(plan.diff()).lines


async def test_the_preview_says_in_words_that_the_bom_and_line_endings_change():
    from textual.app import App

    from memboard.board.screens import PreviewScreen

    app = App()
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(PreviewScreen("Organize", _crlf_to_lf_plan()))
        await pilot.pause()
        notes = [str(n.render()) for n in app.screen.query(".preview-note")]
        assert "index.md: byte order mark (BOM) removed" in notes
        assert "index.md: line endings CRLF → LF" in notes
