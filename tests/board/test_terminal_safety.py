"""Text from the memory never drives the terminal: an escape sequence a hand edit or an agent left in a
row, a snapshot or an archived session is drawn as U+FFFD on every screen of the session board."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Input

from memboard.board.app import MemboardApp
from memboard.board.screens import PreviewScreen, SessionPicker, UpdateScreen
from memboard.board.screens.archive import ArchiveScreen
from memboard.board.screens.chain import ChainScreen
from memboard.board.screens.search import SearchScreen
from memboard.board.screens.session import SessionScreen
from tests.flows.driving import ready, wait_for_flow, wait_for_screen

SIZE = (160, 45)
CLEAR = "\x1b[2J"  # clears the screen
TITLE = "\x1b]0;pwned\x07"  # sets the window title
BIDI = "\u202e"  # reorders what follows
HOSTILE = (CLEAR, TITLE, BIDI, "\x1b", "\x07", "\x9b")


def poison(root: Path, live: str, archived: str) -> None:
    """Put escape sequences in a live row, its snapshot and an archived session of the demo root."""
    index = root / "index.md"
    text = index.read_text(encoding="utf-8")
    text = text.replace("| Board: virtualised table |", f"| Board: {CLEAR}virtualised zebra table |")
    text = text.replace("scroll smoothly. |", f"scroll {TITLE}smoothly. |")
    index.write_text(text, encoding="utf-8")
    snapshot = root / "sessions" / f"{live}.md"
    text = snapshot.read_text(encoding="utf-8").replace("DataTable took", f"{CLEAR}\x9b31m{BIDI}DataTable took")
    snapshot.write_text(text.replace("- Model in plain Python", f"- Model {TITLE}in plain Python"), encoding="utf-8")
    for name in ("index.md", "session.md"):
        path = root / "archive" / archived / name
        text = path.read_text(encoding="utf-8").replace("First memory hook", f"First {CLEAR}zebra hook")
        path.write_text(text.replace("wrote the index", f"wrote {TITLE}the index"), encoding="utf-8")


def drawn(app: MemboardApp) -> str:
    """What the current screen draws, as the terminal would receive its text."""
    return app.export_screenshot()


def assert_safe(app: MemboardApp, where: str) -> None:
    """No hostile character in what the current screen draws."""
    svg = drawn(app)
    found = [repr(bad) for bad in HOSTILE if bad in svg]
    assert not found, f"{where}: {', '.join(found)} reach the terminal"


async def until(pilot, condition, what: str) -> None:
    """Let the app run until condition() holds (bounded)."""
    for _ in range(1500):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"never happened: {what}")


async def test_escape_sequences_in_rows_and_snapshots_never_reach_the_terminal(demo_root, ids):
    live, archived = ids["table"], ids["archived1"]  # a session two others continue from; an archived one
    poison(demo_root, live, archived)
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await asyncio.wait_for(app.workers.wait_for_complete(), 30)
        app.sessions.table.focus()
        await pilot.press("slash", *"zebra", "enter")
        await until(
            pilot, lambda: app.sessions.detail is not None and app.sessions.detail.session_id == live, "the pane read"
        )
        await pilot.pause(0.3)
        assert "zebra" in drawn(app)  # the row is on screen, and its snapshot in the pane
        assert_safe(app, "the table and the pane")
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, ChainScreen), "the chain")
        await pilot.pause(0.2)
        assert_safe(app, "the chain")
        await pilot.press("escape", "f")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen), "search")
        await pilot.press(*"zebra")
        screen = app.screen
        await until(pilot, lambda: isinstance(screen, SearchScreen) and len(screen.hits) >= 2, "two hits")
        await pilot.pause(0.2)
        assert_safe(app, "the search results")
        await pilot.press("escape", "A")
        await until(pilot, lambda: isinstance(app.screen, ArchiveScreen), "the archive")
        await pilot.pause(0.5)
        assert_safe(app, "the archive view")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ArchiveScreen), "the archive closed")
        app.push_screen(SessionScreen(app.memory_root, archived))
        await until(pilot, lambda: isinstance(app.screen, SessionScreen), "the session view")
        await pilot.pause(0.5)
        assert "zebra" in drawn(app)
        assert_safe(app, "the read-only session view")


async def test_escape_sequences_never_reach_the_terminal_in_the_pickers_editor_and_previews(demo_root, ids):
    """The continue picker lists the row, the editor holds its fields and snapshot, the update preview
    names its topic: each draws U+FFFD where the escape sequence was, and a field left as it is is not
    written."""
    live = ids["table"]
    poison(demo_root, live, ids["archived1"])
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.sessions.select_session(ids["merge"])
        await pilot.press("c")
        await wait_for_screen(pilot, SessionPicker)
        await pilot.pause(0.2)
        assert "zebra" in drawn(app)
        assert_safe(app, "the continue picker")
        await pilot.press("escape")
        await wait_for_flow(pilot)
        app.sessions.select_session(live)
        await pilot.press("u")
        editor = await wait_for_screen(pilot, UpdateScreen)
        await pilot.pause(0.2)
        assert "\ufffd[2J" in editor.query_one("#update-topic", Input).value
        assert_safe(app, "the update editor")
        editor.query_one("#update-keywords", Input).value = "textual, board"
        await pilot.press("ctrl+s")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.pause(0.2)
        assert_safe(app, "the update preview")
        await pilot.press("enter")
        await wait_for_flow(pilot)
    index = (demo_root / "index.md").read_text(encoding="utf-8")
    assert f"| Board: {CLEAR}virtualised zebra table |" in index  # the topic it did not change is kept byte for byte
    assert "| textual, board |" in index
