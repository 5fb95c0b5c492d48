"""The notes view in tests: a demo root with its notes, opening the view, waiting until it is read."""

from __future__ import annotations

import asyncio
from pathlib import Path

from memboard.board.app import MemboardApp
from memboard.board.notes.screen import NotesScreen
from memboard.core.formats.clock import now
from memboard.core.ops.demo import build_demo
from memboard.core.ops.notes.demo import build_demo_notes
from memboard.widgets.note_table import NoteTable

ROUNDS = 500
PATIENCE = 30.0
STORAGE = "project/memboard/note-storage"  # a decision updated once since its first save
PROSE = "global/preference/prose-wrap"  # a preference that superseded the note now at prose-wrap~1
EMBEDDINGS = "project/decision/embeddings-for-search"  # marked superseded; a link written on it only
LOCKS = "ops/config/lock-files-live-in-local-state"  # names a note that does not exist
SYNC = "project/vault/sync"  # a decision with a note kept beside it (sync.ops)


def notes_root(folder: Path) -> Path:
    """The demo memory root with its notes, at the fixed test clock."""
    when = now()
    return build_demo_notes(build_demo(folder, when), when)


def board(root: Path, *, watch: bool = False) -> MemboardApp:
    """The board on root at a fixed theme."""
    app = MemboardApp(root, watch=watch)
    app.theme = "textual-dark"
    return app


def notes_screen(app: MemboardApp) -> NotesScreen:
    """The notes view in front (a failed test if it is not)."""
    screen = app.screen
    if not isinstance(screen, NotesScreen):
        raise AssertionError(f"the notes view is not in front: {screen!r}")
    return screen


async def settle_notes(pilot) -> NotesScreen:
    """Let the notes view finish reading its notes and the pane its note; returns the view."""
    screen = notes_screen(pilot.app)
    for _ in range(ROUNDS):
        await pilot.pause()
        row = screen.table.current
        if screen.model.complete and (row is None or (screen.pane is not None and screen.pane.note_id == row.id)):
            break
        await pilot.pause(0.01)
    await asyncio.wait_for(pilot.app.workers.wait_for_complete(), PATIENCE)
    await pilot.pause()
    return screen


async def open_notes(pilot, *keys: str) -> NotesScreen:
    """Let the board read its index, press `n` (or keys), wait for the notes view to be read."""
    await pilot.pause()
    await asyncio.wait_for(pilot.app.workers.wait_for_complete(), PATIENCE)
    await pilot.press(*(keys or ("n",)))
    for _ in range(ROUNDS):
        if isinstance(pilot.app.screen, NotesScreen) and pilot.app.screen.query(NoteTable):
            break
        await pilot.pause(0.01)
    return await settle_notes(pilot)


async def select(pilot, note_id: str) -> NotesScreen:
    """Put the notes view's cursor on a note and wait for its pane."""
    screen = notes_screen(pilot.app)
    if not screen.select_note(note_id):
        raise AssertionError(f"{note_id} is not among the notes")
    return await settle_notes(pilot)


def shown_ids(screen: NotesScreen) -> list[str]:
    """The IDs of the notes the table shows, in order."""
    return [row.id for row in screen.table.rows]
