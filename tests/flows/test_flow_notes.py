"""The notes view's flows: edit, a decision conflict settled by a choice, supersede, mark. Each one is
previewed through the store's plan and writes exactly that, or nothing."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select, Static, TextArea

from memboard.board.notes.dialogs import ConflictScreen, NoteEditScreen, NotePicker, sections_of
from memboard.board.screens import MessageScreen, PreviewScreen
from memboard.core.errors import UsageError
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.note import read_note
from memboard.core.ops.notes import show_note
from tests.support.notes import PROSE, STORAGE, SYNC, board, notes_root, open_notes, select, settle_notes, shown_ids
from tests.support.tree import tree

from .driving import preview_diff, wait_for_flow, wait_for_screen


def said(preview) -> str:
    """What a preview says will happen, in words (its headline)."""
    return "\n".join(preview.view.headline)


CRLF = "tool/gotcha/crlf-breaks-the-table-parser"


@pytest.fixture
def notes(tmp_path):
    """The demo root and its notes."""
    return notes_root(tmp_path / "memory")


def note_file(root, note_id: str):
    """The path of a note's file."""
    return root / "notes" / f"{note_id}.md"


def files(root) -> dict:
    """Every file of the root (what must not change when nothing is written)."""
    return tree(root, skip=(".memboard",))


async def edit(pilot, note_id: str, change):
    """Open the editor on a note and change its text with change(text) -> text."""
    await select(pilot, note_id)
    await pilot.press("e")
    editor = await wait_for_screen(pilot, NoteEditScreen)
    area = editor.query_one(TextArea)
    area.text = change(area.text)
    return editor


async def test_edit_previews_the_change_and_applies_exactly_it(notes):
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        editor = await edit(pilot, CRLF, lambda t: t.replace("## Learned", "## Learned\n\n- Tests read CRLF files."))
        editor.query_one("#note-edit-name", Input).value = "CRLF broke the table parser"
        await pilot.press("ctrl+s")
        preview = await wait_for_screen(pilot, PreviewScreen)
        diff = preview_diff(preview)
        report = said(preview)
        assert "will be rewritten in place" in report and "+ new statement: - Tests read CRLF files." in report
        assert "+| Title | CRLF broke the table parser |" in diff and "+- Tests read CRLF files." in diff
        before = note_file(notes, CRLF).read_bytes()
        await pilot.press("enter")
        await wait_for_flow(pilot)
        screen = await settle_notes(pilot)
        assert screen.table.current is not None and screen.table.current.id == CRLF
        assert screen.model.by_id[CRLF].view.title == "CRLF broke the table parser"
        assert "+- Tests read CRLF files." in str(screen.query_one("#note-change", Static).render())
    after = read_note(note_file(notes, CRLF).read_bytes())
    assert after.title == "CRLF broke the table parser" and "- Tests read CRLF files." in after.learned
    assert "Split lines at \\n only and keep each ending." in after.learned
    assert show_note(MemoryRoot(notes), CRLF).previous == before.decode("utf-8")  # the earlier text is kept


async def test_edit_cancelled_in_the_preview_or_the_editor_writes_nothing(notes):
    before = files(notes)
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        await edit(pilot, CRLF, lambda t: t + "\nmore\n")
        await pilot.press("ctrl+s")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("escape")
        await wait_for_flow(pilot)
        await edit(pilot, CRLF, lambda t: t + "\nmore\n")
        await pilot.press("escape")
        await wait_for_flow(pilot)
    assert files(notes) == before


async def test_edit_with_text_outside_the_sections_goes_back_to_the_editor(notes):
    before = files(notes)
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        editor = await edit(pilot, CRLF, lambda t: "stray line\n" + t.replace("## Why", "## Because"))
        await pilot.press("ctrl+s")
        message = await wait_for_screen(pilot, MessageScreen)
        assert "text above the first section" in message.message
        await pilot.press("enter")
        again = await wait_for_screen(pilot, NoteEditScreen, not_this=editor)
        assert again.query_one(TextArea).text.startswith("stray line\n")  # the edit is still there
        await pilot.press("escape")
        await wait_for_flow(pilot)
    assert files(notes) == before


def test_sections_of_refuses_what_it_cannot_place():
    assert sections_of("## What\n\n- a\n\n## learned\n\nb\n") == {"What": "- a", "Why": "", "Where": "", "Learned": "b"}
    for text, words in (
        ("x\n## What\n", "above the first section"),
        ("## What\n## Notes\n", "unknown section"),
        ("## What\na\n## What\nb\n", "written twice"),
    ):
        with pytest.raises(UsageError, match=words):
            sections_of(text)


def drop_the_git_decision(text: str) -> str:
    """The sync decision's text with its one statement changed."""
    return text.replace("- The vault syncs through Git, memory/ included.", "- The vault syncs through Syncthing.")


async def conflict(pilot):
    """Edit the sync decision so that it drops its statement, preview: the conflict shows."""
    await edit(pilot, SYNC, drop_the_git_decision)
    await pilot.press("ctrl+s")
    return await wait_for_screen(pilot, ConflictScreen)


async def test_a_decision_conflict_shows_both_texts_and_supersede_applies_the_choice(notes):
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        screen = await conflict(pilot)
        text = str(screen.query_one("#conflict-text", Static).render())
        assert "drops or changes 1 earlier statement(s) of this decision" in text
        assert "✗ - The vault syncs through Git, memory/ included." in text
        sides = [str(s.render()) for s in screen.query(".conflict-body").results(Static)]
        assert "- The vault syncs through Git" in sides[0] and "Syncthing" not in sides[0]
        assert "- The vault syncs through Syncthing." in sides[1] and "## Metadata" not in sides[1]
        await pilot.press("s")
        preview = await wait_for_screen(pilot, PreviewScreen)
        report = said(preview)
        assert f"moves aside to {SYNC}~1" in report and f"(kept in {SYNC}~1)" in report
        assert f"+++ b/notes/{SYNC}~1.md" in preview_diff(preview)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        view = await settle_notes(pilot)
        assert f"{SYNC}~1" in shown_ids(view) and view.model.by_id[f"{SYNC}~1"].status == "superseded"
    new, old = read_note(note_file(notes, SYNC).read_bytes()), read_note(note_file(notes, f"{SYNC}~1").read_bytes())
    assert new.what == "- The vault syncs through Syncthing." and new.supersedes == (f"{SYNC}~1",)
    assert old.what == "- The vault syncs through Git, memory/ included." and old.superseded_by == (SYNC,)


async def test_a_decision_reversed_in_place_or_made_a_fact_in_the_editor_is_the_same_conflict(notes):
    before = files(notes)
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        await edit(pilot, SYNC, lambda t: t.replace("memory/ included.", "memory/ included; replaced by Syncthing."))
        await pilot.press("ctrl+s")
        screen = await wait_for_screen(pilot, ConflictScreen)
        text = str(screen.query_one("#conflict-text", Static).render())
        assert "drops or changes 1 earlier statement(s) of this decision" in text
        assert "✗ - The vault syncs through Git, memory/ included." in text
        await pilot.press("escape")
        await wait_for_flow(pilot)
        editor = await edit(pilot, SYNC, lambda t: t)
        editor.query_one("#note-edit-type", Select).value = "fact"
        await pilot.press("ctrl+s")
        screen = await wait_for_screen(pilot, ConflictScreen)
        text = str(screen.query_one("#conflict-text", Static).render())
        assert "changes its type from decision to fact" in text and "✗" not in text
        await pilot.press("escape")
        await wait_for_flow(pilot)
    assert files(notes) == before


async def test_keep_both_saves_the_edit_beside_the_decision(notes):
    before = note_file(notes, SYNC).read_bytes()
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        await conflict(pilot)
        await pilot.press("k")
        preview = await wait_for_screen(pilot, PreviewScreen)
        report = said(preview)
        assert f"saved as {SYNC}.project beside {SYNC}" in report and "new statement" not in report
        await pilot.press("y")
        await wait_for_flow(pilot)
        view = await settle_notes(pilot)
        assert view.table.current is not None and view.table.current.id == f"{SYNC}.project"
    assert note_file(notes, SYNC).read_bytes() == before
    assert read_note(note_file(notes, f"{SYNC}.project").read_bytes()).what == "- The vault syncs through Syncthing."


async def test_a_conflict_cancelled_or_sent_back_to_the_editor_writes_nothing(notes):
    before = files(notes)
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        first = await conflict(pilot)
        await pilot.press("e")
        editor = await wait_for_screen(pilot, NoteEditScreen)
        assert "Syncthing" in editor.query_one(TextArea).text  # back to the edit as it was
        await pilot.press("ctrl+s")
        await wait_for_screen(pilot, ConflictScreen, not_this=first)
        await pilot.press("escape")
        await wait_for_flow(pilot)
    assert files(notes) == before


async def test_supersede_picks_the_newer_note_and_links_both(notes):
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        await select(pilot, CRLF)
        await pilot.press("s")
        picker = await wait_for_screen(pilot, NotePicker)
        assert picker.query_one(Input).placeholder == "type to filter by ID, type or title"
        await pilot.press(*"retry")
        await pilot.press("enter")
        preview = await wait_for_screen(pilot, PreviewScreen)
        newer = "tool/bugfix/retry-renames-while-obsidian-holds-the-file"
        assert f"{CRLF} will be marked superseded by {newer}" in said(preview)
        diff = preview_diff(preview)
        assert "+| Status | superseded |" in diff and f"+| Superseded By | {newer} |" in diff
        assert f"+| Supersedes | {CRLF} |" in diff
        await pilot.press("enter")
        await wait_for_flow(pilot)
        view = await settle_notes(pilot)
        assert view.model.by_id[CRLF].status == "superseded"
    assert read_note(note_file(notes, newer).read_bytes()).supersedes == (CRLF,)


async def test_supersede_offers_only_other_active_notes(notes):
    before = files(notes)
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await open_notes(pilot)
        await select(pilot, PROSE)
        await pilot.press("s")
        picker = await wait_for_screen(pilot, NotePicker)
        offered = [c.session_id for c in picker.choices]
        active = [r.id for r in view.model.rows if r.status == "active"]
        assert sorted(offered) == sorted(set(active) - {PROSE}) and f"{PROSE}~1" not in offered
        await pilot.press("escape")
        await wait_for_flow(pilot)
    assert files(notes) == before


async def test_mark_superseded_then_active_again(notes):
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        await select(pilot, STORAGE)
        await pilot.press("m")
        preview = await wait_for_screen(pilot, PreviewScreen)
        assert f"{STORAGE} will be marked superseded" in said(preview)
        assert "+| Status | superseded |" in preview_diff(preview)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        view = await settle_notes(pilot)
        assert view.model.by_id[STORAGE].status == "superseded"
        assert "superseded 4" in str(view.query_one("#notes-status", Static).render())
        await pilot.press("m")
        preview = await wait_for_screen(pilot, PreviewScreen)
        assert "+| Status | active |" in preview_diff(preview)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        view = await settle_notes(pilot)
        assert view.model.by_id[STORAGE].status == "active"
    assert read_note(note_file(notes, STORAGE).read_bytes()).status == "active"


async def test_a_note_moved_aside_cannot_be_marked_active_the_refusal_says_why(notes):
    before = files(notes)
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        await select(pilot, f"{PROSE}~1")
        await pilot.press("m")
        message = await wait_for_screen(pilot, MessageScreen)
        assert "moved aside by a newer note on its topic" in message.message
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert files(notes) == before


async def test_a_note_changed_while_its_preview_is_open_is_previewed_again(notes):
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        await select(pilot, CRLF)
        await pilot.press("m")
        first = await wait_for_screen(pilot, PreviewScreen)
        path = note_file(notes, CRLF)
        path.write_bytes(
            path.read_bytes().replace(b"Windows editors save CRLF.", b"Windows editors save CRLF. Always.")
        )
        changed = path.read_bytes()
        await pilot.press("enter")
        again = await wait_for_screen(pilot, PreviewScreen, not_this=first)
        assert "changed since the last preview" in " ".join(again.notes)
        assert path.read_bytes() == changed  # nothing written yet
        await pilot.press("enter")
        await wait_for_flow(pilot)
    after = read_note(note_file(notes, CRLF).read_bytes())
    assert after.status == "superseded" and after.why == "Windows editors save CRLF. Always."


async def test_a_credential_typed_into_a_note_is_refused_and_the_editor_comes_back(notes):
    before = files(notes)
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        editor = await edit(
            pilot, CRLF, lambda t: t.replace("## Where", "## Where\n\npostgres://admin:hunter22@db.internal/prod")
        )
        await pilot.press("ctrl+s")
        message = await wait_for_screen(pilot, MessageScreen)
        assert "cannot preview" in message.title_text and "where" in message.message.lower()
        await pilot.press("enter")
        again = await wait_for_screen(pilot, NoteEditScreen, not_this=editor)
        assert "hunter22" in again.query_one(TextArea).text
        await pilot.press("escape")
        await wait_for_flow(pilot)
    assert files(notes) == before


async def test_escape_in_the_supersede_preview_goes_back_to_the_picker(notes):
    before = files(notes)
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        await select(pilot, CRLF)
        await pilot.press("s")
        picker = await wait_for_screen(pilot, NotePicker)
        await pilot.press(*"retry", "enter")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("escape")
        again = await wait_for_screen(pilot, NotePicker, not_this=picker)
        assert again.choices == picker.choices
        await pilot.press("escape")
        await wait_for_flow(pilot)
        assert not isinstance(app.screen, (NotePicker, PreviewScreen))
    assert files(notes) == before


async def test_the_words_of_a_note_change_name_the_fields_that_change(notes):
    # issue 27 §4: the words said only `will change (+2 −2 lines)` where the exact diff shows a Status change
    app = board(notes)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        await select(pilot, STORAGE)
        await pilot.press("m")
        preview = await wait_for_screen(pilot, PreviewScreen)
        words = [line.text.split() for line in preview.view.readable]
        assert ["Status", "active", "→", "superseded"] in words, words
        await pilot.press("escape")
        await wait_for_flow(pilot)
        editor = await edit(pilot, CRLF, lambda t: t.replace("## Learned", "## Learned\n\n- Tests read CRLF files."))
        editor.query_one("#note-edit-name", Input).value = "CRLF broke the table parser"
        await pilot.press("ctrl+s")
        preview = await wait_for_screen(pilot, PreviewScreen)
        text = "\n".join(line.text for line in preview.view.readable)
        assert "Title" in text and "→ CRLF broke the table parser" in text, text
        assert "## Learned  its text changes" in text and "## What " not in text, text
        await pilot.press("escape")
