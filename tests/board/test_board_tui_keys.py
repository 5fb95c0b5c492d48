"""Keys a TUI user expects on the board (issue 27 §5): escape clears a kept filter, copying the
Session ID and the continue phrase, and less/vim moves in the table."""

from __future__ import annotations

from memboard.board.app import MemboardApp
from tests.board.test_board_app import SIZE, settle, shown


async def test_escape_on_the_table_clears_a_kept_filter(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        total = len(app.sessions.table.rows)
        await pilot.press("slash", *"同步", "enter")  # kept: back on the table
        assert app.focused is app.sessions.table and len(shown(app)) < total
        await pilot.press("escape")
        assert app.sessions.filter_text == "" and len(shown(app)) == total
        assert not app.sessions.query_one("#filter-bar").display
        await pilot.press("enter", "escape")  # in the full-width pane escape still only leaves it
        assert not app.sessions.has_class("-expanded") and len(shown(app)) == total
