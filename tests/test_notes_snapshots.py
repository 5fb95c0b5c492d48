"""Snapshot tests of the notes view on the demo root and its notes (fixed clock and theme, watcher off,
no blinking cursor), at 80×24 and 160×45."""

from __future__ import annotations

import pytest
from textual.widgets import Input, TextArea

from memboard.board.notes.dialogs import ConflictScreen, NoteChainScreen, NoteEditScreen
from tests.support.notes import EMBEDDINGS, STORAGE, SYNC, board, notes_root, open_notes, select

SMALL = (80, 24)
LARGE = (160, 45)


@pytest.fixture
def notes_app(tmp_path):
    """A board on a fresh demo root with its notes, not watching files."""
    return board(notes_root(tmp_path / "memory"))


async def wait_for(pilot, kind) -> None:
    """Let the app run until a screen of this kind is in front, then stop every cursor from blinking."""
    for _ in range(300):
        if isinstance(pilot.app.screen, kind):
            break
        await pilot.pause(0.01)
    await pilot.pause()
    for widget in pilot.app.screen.query("Input, TextArea"):
        if isinstance(widget, (Input, TextArea)):
            widget.cursor_blink = False
    await pilot.pause()


def on_note(note_id: str, *keys: str, modal=None):
    """A run_before: open the notes view, select a note, press keys (and wait for the modal they open)."""

    async def run_before(pilot) -> None:
        await open_notes(pilot)
        await select(pilot, note_id)
        if keys:
            await pilot.press(*keys)
        if modal is not None:
            await wait_for(pilot, modal)
        else:
            await select(pilot, note_id)

    return run_before


class TestNotesView:
    """The table of notes with its counts and the pane on a note changed since its first save."""

    def test_notes_view_small(self, snap_compare, notes_app):
        assert snap_compare(notes_app, terminal_size=SMALL, run_before=on_note(STORAGE))

    def test_notes_view_large(self, snap_compare, notes_app):
        assert snap_compare(notes_app, terminal_size=LARGE, run_before=on_note(STORAGE))

    def test_superseded_notes_of_one_type_large(self, snap_compare, notes_app):
        assert snap_compare(notes_app, terminal_size=LARGE, run_before=on_note(EMBEDDINGS, "3", "t", "t", "t"))


class TestNoteModals:
    """The supersede chain, the editor and a decision conflict."""

    def test_chain_with_a_link_written_on_one_side_small(self, snap_compare, notes_app):
        assert snap_compare(notes_app, terminal_size=SMALL, run_before=on_note(EMBEDDINGS, "g", modal=NoteChainScreen))

    def test_chain_large(self, snap_compare, notes_app):
        assert snap_compare(notes_app, terminal_size=LARGE, run_before=on_note(STORAGE, "g", modal=NoteChainScreen))

    def test_editor_small(self, snap_compare, notes_app):
        assert snap_compare(notes_app, terminal_size=SMALL, run_before=on_note(STORAGE, "e", modal=NoteEditScreen))

    def test_decision_conflict_large(self, snap_compare, notes_app):
        async def run_before(pilot) -> None:
            await on_note(SYNC, "e", modal=NoteEditScreen)(pilot)
            area = pilot.app.screen.query_one(TextArea)
            area.text = area.text.replace("through Git, memory/ included.", "through Syncthing.")
            await pilot.press("ctrl+s")
            await wait_for(pilot, ConflictScreen)

        assert snap_compare(notes_app, terminal_size=LARGE, run_before=run_before)
