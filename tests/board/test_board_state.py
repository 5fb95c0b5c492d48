"""State that survives on the board: torn saves, duplicate IDs, empty states, columns that follow the width."""

from __future__ import annotations

import asyncio

from memboard.board.app import MemboardApp
from memboard.widgets.snapshot_pane import SnapshotPane
from tests.board.conftest import row
from tests.board.test_board_app import settle, shown
from tests.support.roots import index_text, table_line

ALPHA, BETA, GAMMA = "2026-05-01-1000-alpha", "2026-05-02-1000-beta", "2026-05-03-1000-gamma"


def record_models(app) -> list[int]:
    """The row count of every model the board puts on screen, in order."""
    counts: list[int] = []
    original = app.sessions._apply_model

    def recorded(model, fresh):
        counts.append(len(model.rows))
        original(model, fresh)

    app.sessions._apply_model = recorded
    return counts


async def test_a_save_caught_half_way_keeps_the_last_good_rows_cursor_and_marks(root, monkeypatch):
    monkeypatch.setenv("MEMBOARD_SETTLE_SECONDS", "2.0")
    index = root / "index.md"
    index.write_text(index_text([table_line(r) for r in [row(ALPHA), row(BETA), row(GAMMA)]]), encoding="utf-8")
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        app.sessions.select_session(BETA)
        app.sessions.action_mark()
        app.sessions.select_session(BETA)
        shown_models = record_models(app)
        # an editor's plain save: truncate, a pause, then the whole new text
        index.write_bytes(b"")
        app.sessions.refresh_model()
        await asyncio.sleep(0.3)
        assert app.sessions.model.rows and shown(app) == [ALPHA, BETA, GAMMA]
        index.write_text(
            index_text([table_line(r) for r in [row(ALPHA), row(BETA, topic="edited"), row(GAMMA)]]), encoding="utf-8"
        )
        for _ in range(100):
            if app.sessions.model.by_id[BETA].topic == "edited":
                break
            await pilot.pause(0.05)
        await settle(app, pilot)
        assert app.sessions.model.by_id[BETA].topic == "edited"
        assert 0 not in shown_models  # never "all 0 … showing 0"
        assert app.current_session_id == BETA and app.marked_session_ids == [BETA]


async def test_an_index_emptied_on_purpose_shows_empty_once_it_settles(root, monkeypatch):
    monkeypatch.setenv("MEMBOARD_SETTLE_SECONDS", "0.2")
    index = root / "index.md"
    index.write_text(index_text([table_line(r) for r in [row(ALPHA)]]), encoding="utf-8")
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        index.write_text(index_text([]), encoding="utf-8")
        app.sessions.refresh_model()
        await settle(app, pilot)
        assert not app.sessions.model.rows
        assert "holds no session row" in app.sessions.table.empty_text


async def test_rows_sharing_an_id_are_marked_and_marked_one_by_one(write_index, root):
    write_index([row(ALPHA), row(BETA, topic="first"), row(BETA, topic="second")])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        assert app.sessions.model.counts["duplicate"] == 2
        lines = [app.sessions.table.render_line(y).text for y in range(1, 4)]
        assert [line[0] for line in lines] == [" ", "!", "!"]
        await pilot.press("down", "space")  # mark the first of the two
        assert app.sessions.marks == {BETA}
        assert app.marked_session_ids == [BETA]
        assert "│ 1 marked" in str(app.query_one("#status").render())
        marked_lines = [app.sessions.table.render_line(y).text for y in range(1, 4)]
        assert [line[0] for line in marked_lines] == [" ", "●", "!"]  # only the row marked, not its twin
        await pilot.press("space")  # then the second
        assert app.sessions.marks == {BETA, f"{BETA}#2"} and app.marked_session_ids == [BETA]
        assert "! 2 share an ID" in str(app.query_one("#status").render())
        pane = app.query_one(SnapshotPane)
        app.sessions.select_session(BETA)
        await settle(app, pilot)
        assert "duplicate Session ID: row 1 of 2" in str(pane.query_one("#pane-meta").render())


async def test_an_empty_table_says_why(write_index, root):
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        assert app.sessions.table.empty_text.startswith("No index.md in this root yet")
        assert "No index.md in this root yet" in app.sessions.table.render_line(1).text
        assert "No index.md in this root yet" in str(app.query_one("#pane-meta").render())
    write_index([row(ALPHA, "active"), row(BETA, "idle")])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        assert app.sessions.table.empty_text == ""
        await pilot.press("4")
        assert app.sessions.table.empty_text == "No stale rows (of 2): 1 shows all, 2 3 4 the others."
        await pilot.press("1", "slash", *"zzz")
        assert app.sessions.table.empty_text.startswith("No row matches “zzz”: escape in the filter box")
        await pilot.press("enter", "3")
        assert "No row matches “zzz” among the active rows" in app.sessions.table.empty_text


async def test_columns_follow_the_width_and_s_sorts_only_by_columns_on_screen(demo_root):
    widths = {}
    for width in (100, 160, 220):
        app = MemboardApp(demo_root, watch=False)
        async with app.run_test(size=(width, 30)) as pilot:
            await settle(app, pilot)
            layout = {column.key: size for column, size in app.sessions.table._layout()}
            widths[width] = layout
            pane = app.query_one(SnapshotPane)
            assert pane.display == (width >= 110), width  # narrow: the pane folds away
            if width == 100:
                assert not pane.region.width
                await pilot.press("enter")  # ...and enter opens it full width
                assert pane.region.width > 90
                await pilot.press("escape", "slash", *"zzz")  # no row, no scrollbar: the same columns
                await pilot.pause()
                assert not app.sessions.table.rows and "agent" not in app.sessions.table.visible_columns()
                await pilot.press("escape")
            keys = ["line", *app.sessions.table.visible_columns()]
            seen = []
            for _ in range(len(keys)):
                await pilot.press("s")
                seen.append(app.sessions.sort_column)
            assert seen == keys[1:] + ["line"], width  # every column on screen, Age and Refs too, then file order
    assert "agent" not in widths[100] and widths[100]["topic"] >= 30
    assert "agent" in widths[160] and "summary" not in widths[160]
    assert widths[220]["summary"] >= 30 and widths[220]["topic"] >= 30


async def test_sorting_by_age_puts_the_youngest_first(write_index, root):
    old, young = row(ALPHA), row(BETA)
    old[8], young[8] = "2026-04-01 10:00", "2026-05-31 10:00"
    write_index([old, young])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        app.sessions.sort_by("age")
        await pilot.pause()
        assert shown(app) == [BETA, ALPHA]
