"""The board driven through Pilot on temp roots: filters, marks, live updates, sort, revisions."""

from __future__ import annotations

from memboard.board.app import MemboardApp
from memboard.board.screens.help import HelpScreen
from memboard.core.files.revisions import list_revisions
from memboard.core.files.root import MemoryRoot
from memboard.widgets.row_table import fit, header_cell
from memboard.widgets.snapshot_pane import SnapshotPane

SIZE = (120, 40)


async def settle(app, pilot):
    """Let callbacks run, workers finish and the screen catch up (twice: a worker's result
    can schedule the next worker after a refresh)."""
    for _ in range(2):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()
    await detail_shown(app, pilot)


async def detail_shown(app, pilot):
    """Wait (bounded) until the pane holds the cursor row's snapshot: its load is scheduled
    after a refresh, so one round of waiting can miss it on a busy machine."""
    for _ in range(100):
        row = app.sessions.table.current
        if row is None or row.problem or (app.sessions.detail is not None and app.sessions.detail.session_id == row.id):
            return
        await pilot.pause(0.02)
        await app.workers.wait_for_complete()


def shown(app) -> list[str]:
    return [r.id for r in app.sessions.table.rows]


async def test_opens_with_every_row_and_unparseable_rows_marked(write_index, make_row, root):
    write_index(
        [make_row("2026-05-01-1000-alpha", "idle"), make_row("2026-05-02-1000-beta")], extra="| not | a | row |\n"
    )
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert len(app.sessions.table.rows) == 3
        broken = app.sessions.table.rows[2]
        assert broken.problem and "cells" in broken.problem
        assert app.sessions.model.counts["unparseable"] == 1
        assert app.current_session_id == "2026-05-01-1000-alpha"
        await pilot.press("end")
        assert app.current_session_id is None  # the broken row has no valid ID


async def test_status_keys_and_text_filter_narrow_the_rows(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        total = len(app.sessions.table.rows)
        await pilot.press("2")
        assert {r.status for r in app.sessions.table.rows} == {"idle"}
        assert len(app.sessions.table.rows) == app.sessions.model.counts["idle"]
        await pilot.press("4")
        assert {r.status for r in app.sessions.table.rows} == {"stale"}
        await pilot.press("1")
        assert len(app.sessions.table.rows) == total
        await pilot.press("slash", *"同步")
        assert ids["sync1"] in shown(app) and ids["sync2"] in shown(app)
        assert all("同步" in (r.topic + r.summary) for r in app.sessions.table.rows)
        await pilot.press("enter")  # keep the filter, back to the table
        assert app.focused is app.sessions.table and app.sessions.filter_text == "同步"
        await pilot.press("slash", "backspace", "backspace", *"git", "enter")
        await pilot.press("3")  # status and text filters combine
        assert shown(app) == [ids["sync3"]]
        await pilot.press("slash", "escape")  # escape clears the text filter
        assert app.sessions.filter_text == "" and len(app.sessions.table.rows) == app.sessions.model.counts["active"]


async def test_space_marks_rows_in_table_order_and_clear_marks(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        first, second, third = shown(app)[:3]
        await pilot.press("space", "down", "space")
        assert app.marked_session_ids == [first, third]
        await pilot.press("up", "up", "up", "space")  # unmark the first
        assert app.marked_session_ids == [third]
        await pilot.press("2")  # marks survive filters
        assert app.marked_session_ids == [third]
        app.sessions.clear_marks()
        assert app.marked_session_ids == []
        assert second not in app.sessions.marks


async def test_live_update_keeps_cursor_marks_and_filters_and_flags_new_rows(write_index, make_row, root):
    rows = [make_row(f"2026-05-0{i}-1000-agent{i}", "active", topic=f"work {i}") for i in range(1, 6)]
    write_index(rows)
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"work", "enter", "down", "down", "space")
        assert app.current_session_id == "2026-05-04-1000-agent4"
        marked = app.marked_session_ids
        assert app.sessions.check_files() is False  # nothing changed yet
        new = make_row("2026-06-01-0900-newcomer", "idle", topic="work new")
        write_index([new] + rows)  # a hook added a row at the top
        assert app.sessions.check_files() is True
        await settle(app, pilot)
        assert shown(app)[0] == "2026-06-01-0900-newcomer"
        assert app.current_session_id == "2026-05-04-1000-agent4"
        assert app.marked_session_ids == marked
        assert app.sessions.filter_text == "work"
        assert app.sessions.table.fresh == {"2026-06-01-0900-newcomer"}
        assert marked == ["2026-05-03-1000-agent3"]
        write_index(rows[:2] + rows[3:])  # the marked row vanishes: its mark goes
        app.sessions.check_files()
        await settle(app, pilot)
        assert app.marked_session_ids == []
        assert app.current_session_id == "2026-05-04-1000-agent4"
        write_index(rows[:2])  # the cursor's row vanishes: the cursor stays in range
        app.sessions.check_files()
        await settle(app, pilot)
        assert app.current_session_id == "2026-05-02-1000-agent2"


async def test_the_watcher_polls_by_itself_when_on(write_index, make_row, root):
    write_index([make_row("2026-05-01-1000-alpha")])
    app = MemboardApp(root, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        write_index([make_row("2026-05-01-1000-alpha"), make_row("2026-05-02-1000-beta")])
        for _ in range(100):  # the poller runs every 0.5 s; allow a slow CI machine 5 s
            await pilot.pause(0.05)
            if len(app.sessions.table.rows) == 2:
                break
        assert shown(app) == ["2026-05-01-1000-alpha", "2026-05-02-1000-beta"]


async def test_sort_key_cycles_columns_and_reverse(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("s")  # file order -> Session ID
        assert app.sessions.sort_column == "id"
        ids_sorted = [r.id for r in app.sessions.table.rows]
        assert ids_sorted == sorted(ids_sorted, key=str.casefold)
        await pilot.press("S")
        assert [r.id for r in app.sessions.table.rows] == ids_sorted[::-1]
        app.sessions.sort_by("refs", reverse=True)
        await pilot.pause()
        assert app.sessions.table.rows[0].ref_count == max(r.ref_count for r in app.sessions.table.rows)


async def test_select_session_clears_filters_that_hide_it(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("2")
        assert ids["hook"] not in shown(app)
        assert app.sessions.select_session(ids["hook"]) is True
        assert app.sessions.status_filter == "all" and app.current_session_id == ids["hook"]
        assert app.sessions.select_session("2099-01-01-0000-nobody") is False


async def test_pane_shows_merge_breaks_and_steps_through_revisions(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.sessions.select_session(ids["broken"])
        await settle(app, pilot)
        pane = app.query_one(SnapshotPane)
        merge = pane.query_one("#pane-merge")
        assert app.sessions.detail.session_id == ids["broken"] and len(app.sessions.detail.revisions) == 2
        assert app.sessions.revision_position == 1 and merge.display
        text = str(merge.render())
        assert "policy break" in text and "How long do we keep revisions" in text
        await pilot.press("left_square_bracket")
        assert app.sessions.revision_position == 0 and not merge.display  # the first revision has no merge
        assert "earlier" in str(pane.query_one("#pane-revision").render())
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert app.sessions.revision_position == 1 and merge.display


async def test_external_snapshot_change_is_recorded_and_diffed(demo_root, ids):
    root = MemoryRoot(demo_root)
    sid = ids["hook"]
    path = demo_root / "sessions" / f"{sid}.md"
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.sessions.select_session(sid)
        await settle(app, pilot)
        assert len(list_revisions(root, sid)) == 1  # the board recorded what it saw at open
        text = path.read_text(encoding="utf-8")
        path.write_text(
            text.replace("- Is 40 ms acceptable on Windows?\n", "- Measure on macOS too\n"), encoding="utf-8"
        )
        app.sessions.check_files()
        await settle(app, pilot)
        assert len(list_revisions(root, sid)) == 2
        merge = str(app.query_one("#pane-merge").render())
        assert "Is 40 ms acceptable on Windows?" in merge and "policy break" in merge
        assert "+- Measure on macOS too" in merge


async def test_refresh_model_rereads_in_the_background_and_keeps_the_cursor(write_index, make_row, root):
    write_index([make_row("2026-05-01-1000-alpha"), make_row("2026-05-02-1000-beta")])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("down")
        write_index([make_row("2026-05-02-1000-beta", "stale"), make_row("2026-05-03-1000-gamma")])
        app.sessions.refresh_model()  # the reload worker reads: the UI thread never parses the index
        await settle(app, pilot)
        assert shown(app) == ["2026-05-02-1000-beta", "2026-05-03-1000-gamma"]
        assert app.current_session_id == "2026-05-02-1000-beta"
        assert app.sessions.table.current.status == "stale"


async def test_enter_expands_the_pane_and_help_opens_and_closes(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.has_class("-expanded")
        assert app.sessions.table.region.width == 0 and app.query_one(SnapshotPane).region.width == SIZE[0]
        await pilot.press("escape")
        assert not app.screen.has_class("-expanded") and app.focused is app.sessions.table
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_command_palette_lists_board_actions(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p", *"stale sessions")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.sessions.status_filter == "stale"


async def test_user_text_is_never_markup(write_index, make_row, root):
    write_index([make_row("2026-05-01-1000-alpha", topic="[b]x[/b] [link=y]")])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        line = app.sessions.table.render_line(1).text
        assert "[b]x[/b] [link=y]" in line
        assert "[b]x[/b] [link=y]" in str(app.query_one("#pane-meta").render())


async def test_a_cut_cell_ends_in_an_ellipsis_and_a_sorted_header_keeps_its_word_whole(write_index, make_row, root):
    topic = "A topic far too long for the Topic column at eighty columns wide, cut somewhere here"
    write_index([make_row("2026-05-01-1000-alpha", topic=topic)])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        line = app.sessions.table.render_line(1).text.rstrip()
        assert line.endswith("…") and topic not in line, line
        assert topic[:20] in line
        app.sessions.sort_column = "status"
        app.sessions.apply_view()
        await pilot.pause()
        header = app.sessions.table.render_line(0).text
        assert "Status▲" in header or "Status ▲" in header, header
        app.sessions.sort_reverse = True
        app.sessions.apply_view()
        await pilot.pause()
        header = app.sessions.table.render_line(0).text
        assert "Status▼" in header or "Status ▼" in header, header


def test_header_cells_keep_the_word_beside_the_mark_and_cut_with_an_ellipsis_only_when_it_cannot():
    assert header_cell("Status", 8, "▲") == "Status ▲"
    assert header_cell("Status", 7, "▲") == "Status▲"
    assert header_cell("Status", 6, "▲") == "Stat…▲"
    assert header_cell("Age", 3) == "Age"
    assert fit("abcdef", 4) == "abc…" and fit("ab", 4) == "ab  " and fit("abc", 0) == ""


async def test_theme_comes_from_config_and_a_bad_one_falls_back(demo_root, tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    monkeypatch.setenv("MEMBOARD_CONFIG", str(config))
    config.write_text('theme = "nord"\nagent_name = "claude-code"\n', encoding="utf-8")
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "nord" and app.agent_name == "claude-code"
        before = app.sessions.table.render_line(1)
        app.theme = "textual-light"
        await pilot.pause()
        assert app.sessions.table.render_line(1) != before  # cached styles follow the theme
    config.write_text('theme = "no-such-theme"\n', encoding="utf-8")
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "textual-dark" and app.agent_name == "cursor-main-agent"


async def test_board_keys_do_nothing_under_a_modal_and_headers_sort_on_click(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark", "2", "space", "s")
        assert isinstance(app.screen, HelpScreen)
        assert app.sessions.status_filter == "all" and not app.sessions.marks and app.sessions.sort_column == "line"
        await pilot.press("escape")
        await pilot.click("#table", offset=(4, 0))  # the Session ID header
        assert app.sessions.sort_column == "id" and not app.sessions.sort_reverse
        await pilot.click("#table", offset=(4, 0))
        assert app.sessions.sort_reverse
        await pilot.click("#table", offset=(4, 3))  # a row
        assert app.sessions.table.cursor == 2


async def test_revision_key_pressed_while_the_snapshot_loads_is_kept(demo_root, ids):
    """`[` pressed before the selected snapshot has loaded still steps back once it arrives."""
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.sessions.select_session(ids["broken"])
        assert app.sessions.detail is None or app.sessions.detail.session_id != ids["broken"]
        await pilot.press("left_square_bracket")
        await settle(app, pilot)
        assert app.sessions.detail.session_id == ids["broken"] and len(app.sessions.detail.revisions) == 2
        assert app.sessions.revision_position == 0
        assert "earlier" in str(app.query_one(SnapshotPane).query_one("#pane-revision").render())


async def test_a_row_whose_id_has_unicode_digits_is_shown_malformed(write_index, make_row, root):
    fullwidth = "２０２６-０５-０１-１０００-alpha"
    write_index([make_row("2026-05-01-1000-beta"), make_row(fullwidth)])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        broken = [r for r in app.sessions.table.rows if r.problem]
        assert len(broken) == 1 and "ASCII" in broken[0].problem
        assert app.sessions.model.counts["unparseable"] == 1


async def test_the_cursor_and_the_marks_colour_the_whole_row_whatever_its_status(write_index, make_row, root):
    """Status, Refs, Age and an idle row's cells keep their text colour but take the cursor's (or the
    mark's) background, so the highlighted row reads as one band across the table."""
    write_index(
        [
            make_row("2026-05-01-1000-alpha", status="idle"),
            make_row("2026-05-01-1100-beta", status="active", refs="2026-05-01-1000-alpha"),
            make_row("2026-05-01-1200-gamma", status="stale"),
        ]
    )
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(app, pilot)
        table = app.sessions.table
        table.focus()
        await pilot.pause()
        cursor = table.get_component_rich_style("session-table--cursor").bgcolor
        marked = table.get_component_rich_style("session-table--marked").bgcolor
        for y in range(1, 4):
            table.cursor = y - 1
            await pilot.pause()
            backgrounds = {seg.style.bgcolor for seg in table.render_line(y) if seg.style}
            assert backgrounds == {cursor}, (y, backgrounds)
        table.cursor = 0
        await pilot.press("space")  # mark the first row; the cursor moves on
        await pilot.pause()
        assert table.cursor != 0
        backgrounds = {seg.style.bgcolor for seg in table.render_line(1) if seg.style}
        assert backgrounds == {marked}, backgrounds


async def test_doctor_s_preview_resolves_the_snapshots_folder_once_not_each_snapshot_it_would_create(
    root, write_index, make_row, monkeypatch
):
    # the preview checked each snapshot its plan creates (58,000 on a 100k-row root) with a realpath and an open
    # of its own after building the plan: 0.3 s at 10k rows, 2-3 s at 100k, half the board's doctor figure
    import os

    from memboard.board.screens import PreviewScreen
    from memboard.core.files import settle
    from tests.flows.driving import make_app, ready, wait_for_screen

    rows = 300
    write_index([make_row(f"2026-05-{1 + n // 60:02d}-10{n % 60:02d}-agent", "active") for n in range(rows)])
    (root / "sessions").mkdir()
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        resolved: list[str] = []
        opened: list[str] = []
        realpath, open_regular = os.path.realpath, settle.open_regular
        monkeypatch.setattr(os.path, "realpath", lambda p, **k: resolved.append(str(p)) or realpath(p, **k))
        monkeypatch.setattr(settle, "open_regular", lambda p: opened.append(str(p)) or open_regular(p))
        await pilot.press("d")
        preview = await wait_for_screen(pilot, PreviewScreen)
        assert len(preview.plan.changes) == rows  # a snapshot for each active row
        assert len([p for p in resolved if "/sessions/" in p]) < 10, len(resolved)
        assert [p for p in opened if "/sessions/" in p] == []  # one listing of sessions/ says they are not there
