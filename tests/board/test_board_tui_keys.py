"""Keys a TUI user expects on the board (issue 27 §5): escape clears a kept filter, copying the
Session ID and the continue phrase, less/vim moves in the table, and clicks on the footer's keys."""

from __future__ import annotations

from memboard.board.app import MemboardApp
from memboard.board.screens.help import HelpScreen
from memboard.widgets.key_bar import KeyBar
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


async def test_y_copies_the_session_id_and_Y_the_continue_phrase_each_said_whole_in_a_toast(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        sid = app.sessions.current_session_id
        assert sid is not None
        await pilot.press("y")
        assert app.clipboard == sid
        assert app._notifications and sid in str(list(app._notifications)[-1].message)
        await pilot.press("Y")
        assert app.clipboard == f"接續 memory {sid}"
        assert f"接續 memory {sid}" == str(list(app._notifications)[-1].message)


async def test_G_ctrl_d_ctrl_u_ctrl_f_ctrl_b_move_as_in_less_and_vim_and_home_end_still_work(
    write_index, make_row, root
):
    write_index([make_row(f"2026-05-01-{10 + i // 60:02d}{i % 60:02d}-alpha") for i in range(100)])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        table = app.sessions.table
        page = table._page_height()
        assert page > 4 and len(table.rows) == 100
        await pilot.press("G")
        assert table.cursor == 99 and app.current_session_id == shown(app)[99]
        await pilot.press("ctrl+u")
        assert table.cursor == 99 - page // 2
        await pilot.press("ctrl+d")
        assert table.cursor == 99
        await pilot.press("home", "ctrl+f")
        assert table.cursor == page
        await pilot.press("ctrl+d")
        assert table.cursor == page + page // 2
        await pilot.press("ctrl+b")
        assert table.cursor == page // 2
        await pilot.press("end")
        assert table.cursor == 99
        await pilot.press("home")
        assert table.cursor == 0


async def test_a_click_anywhere_on_the_footers_help_opens_help_and_each_key_of_a_group_runs_its_own(demo_root):
    for size in ((80, 24), (120, 40)):
        app = MemboardApp(demo_root, watch=False)
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            bar = app.query_one("#keys", KeyBar)
            at = bar.text.index("? help")
            for column in range(at, at + len("? help")):  # the key and its word alike
                await pilot.click(bar, offset=(column, 0))
                await pilot.pause()
                assert isinstance(app.screen, HelpScreen), (size, column)
                await pilot.press("escape")
                await pilot.pause()
                assert not isinstance(app.screen, HelpScreen)
            at = bar.text.index("1234 status")
            for column, status in zip(range(at, at + 4), ("all", "idle", "active", "stale")):
                await pilot.click(bar, offset=(column, 0))
                await pilot.pause()
                assert app.sessions.status_filter == status, (size, column)


async def test_escape_on_the_table_clears_a_kept_status_filter_and_the_text_filter_with_it(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        total = len(app.sessions.table.rows)
        await pilot.press("3")  # active only: a kept status filter
        active = len(shown(app))
        assert app.sessions.status_filter == "active" and 0 < active < total
        await pilot.press("escape")
        assert app.sessions.status_filter == "all" and len(shown(app)) == total
        await pilot.press("3", "slash", *"同步", "enter")  # both filters kept
        assert app.focused is app.sessions.table and len(shown(app)) < active
        await pilot.press("escape")  # one escape shows every row again
        assert app.sessions.status_filter == "all" and app.sessions.filter_text == ""
        assert len(shown(app)) == total and not app.sessions.query_one("#filter-bar").display
        await pilot.press("3", "enter", "escape")  # in the full-width pane escape only leaves it
        assert not app.sessions.has_class("-expanded") and app.sessions.status_filter == "active"
