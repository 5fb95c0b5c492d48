"""The preview's exact diff: changed words of a modified line, invisible characters drawn, every line kept."""

from __future__ import annotations

from memboard.board.planview import build, changed_spans, diff_lines, differing_words
from memboard.core.plan import Change, Plan


def test_changed_words_of_a_modified_row_are_found_on_both_sides():
    old = "-| 2026-04-01-1200-codex | codex | Hook | active | - |"
    new = "+| 2026-04-01-1200-codex | codex | Hook | stale | - |"
    assert [old[a:b] for a, b in differing_words(old, new)] == ["active"]
    spans = changed_spans([" context", old, new], ["context", "removed", "added"])
    assert [new[a:b] for a, b in spans[2]] == ["stale"] and 0 not in spans


def test_unpaired_runs_are_not_emphasised():
    lines = ["-| a |", "-| b |", "+| c |"]
    assert changed_spans(lines, ["removed", "removed", "added"]) == {}


def test_a_huge_diff_keeps_every_line():
    diff = "".join(f"+line {n}\n" for n in range(5000))
    lines = diff_lines(diff)
    assert len(lines) == 5000 and lines[-1].text == "+line 4999"


def _crlf_to_lf_plan():
    """A plan that drops a BOM and turns CRLF into LF (and has a U+2028 inside a cell)."""
    before = "\ufeff# Index\r\n| a\u2028b | x |\r\n".encode("utf-8")
    after = "# Index\n| a\u2028b | x |\n".encode("utf-8")
    return Plan("organize", None, changes=[Change("modify", "index.md", before, after)])


def test_line_ending_bom_and_separator_changes_are_drawn_visibly():
    lines = diff_lines(_crlf_to_lf_plan().diff())
    texts = [line.text for line in lines]
    removed = [t for t in texts if t.startswith("-") and not t.startswith("---")]
    added = [t for t in texts if t.startswith("+") and not t.startswith("+++")]
    assert removed == ["-⟨BOM⟩# Index␍", "-| a⟨U+2028⟩b | x |␍"]  # U+2028 stays inside its line
    assert added == ["+# Index", "+| a⟨U+2028⟩b | x |"]
    second = lines[texts.index("-| a⟨U+2028⟩b | x |␍")]
    assert [second.text[a:b] for a, b, _ in second.spans] == ["␍"]  # emphasised like a changed word


def test_a_byte_that_is_not_utf8_is_drawn_as_its_value():
    plan = Plan("update", None, changes=[Change("modify", "index.md", b"caf\xe9\n", b"cafe\n")])
    assert "-caf⟨\\xe9⟩" in [line.text for line in diff_lines(plan.diff())]


async def test_the_preview_says_in_words_that_the_bom_and_line_endings_change():
    from textual.app import App

    from memboard.board.screens import PreviewScreen

    plan = _crlf_to_lf_plan()
    app = App()
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(PreviewScreen("Organize", plan, build(plan, ["Will tidy the index."])))
        await pilot.pause()
        notes = [str(n.render()) for n in app.screen.query(".preview-note")]
        assert "index.md: byte order mark (BOM) removed" in notes
        assert "index.md: line endings CRLF → LF" in notes


def test_prose_wraps_at_spaces_with_its_indent_and_the_exact_diff_keeps_every_character():
    from memboard.widgets.line_view import char_pieces, word_pieces

    text = "  1. Will archive 2026-05-01-0000-bulk-agent: its row leaves index.md, its snapshot moves"
    pieces = word_pieces(text, 30)
    rows = [" " * indent + text[start:end] for start, end, indent in pieces]
    assert all(len(r) <= 30 for r in rows) and rows[0] == "  1. Will archive"
    assert all(r.startswith("  ") and not r.startswith("   ") for r in rows[1:])  # the line's own indent
    assert " ".join(r.strip() for r in rows) == text.strip()  # no word lost
    assert "".join(text[start:end] for start, end, _ in char_pieces(text, 30)) == text
    assert all(indent == 0 for _, _, indent in char_pieces(text, 30))
    wide = "同步策略" * 10
    assert "".join(wide[start:end] for start, end, _ in word_pieces(wide, 15)) == wide  # cut by cells
