"""Help opens on the key list of the screen in front, prose after it (issue 27 §5): at 80x24 the first screen
of help shows keys, and from the notes view (or a preview) their keys come first."""

from __future__ import annotations

from memboard.board.app import MemboardApp
from memboard.board.screens import PreviewScreen
from memboard.board.screens.help import HelpScreen
from tests.flows.driving import wait_for_screen


async def test_at_80x24_the_first_screen_of_help_is_the_boards_keys(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        screen = await wait_for_screen(pilot, HelpScreen)
        await pilot.pause()
        keys, prose = screen.query_one("#help-keys"), screen.query_one("#help-text")
        box = screen.query_one("#help-box")
        assert keys.region.y <= box.region.y + 1 < keys.region.bottom  # the keys start at the top of the box
        assert prose.region.y >= box.region.bottom  # the prose is below them, out of the first screen
        assert keys.render().plain.splitlines()[0] == "On the board"


async def test_from_the_notes_view_help_lists_the_notes_keys_first(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("question_mark")
        screen = await wait_for_screen(pilot, HelpScreen)
        lines = screen.query_one("#help-keys").render().plain.splitlines()
        assert lines[0].startswith("In the notes view")
        assert "On the board" in lines  # every other place follows


async def test_from_a_preview_help_lists_the_previews_keys_first(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.press("d")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("question_mark")
        screen = await wait_for_screen(pilot, HelpScreen)
        lines = screen.query_one("#help-keys").render().plain.splitlines()
        assert lines[0] == "In a preview or a message"
