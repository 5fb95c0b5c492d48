"""The live view invents and loses nothing: a snapshot an editor saves the plain way (truncate, pause,
write back) is one revision, and its merge diff shows what the save added, not a whole file."""

from __future__ import annotations

import time

from memboard.board import sessions
from memboard.board.app import MemboardApp
from memboard.core.files.revisions import contents
from memboard.core.files.root import MemoryRoot
from memboard.widgets.board_status import BoardBanner, BoardStatus
from tests.board.test_board_app import SIZE, settle

ADDED = "- Keep one revision per save\n"
ANCHOR = "- Append the row without re-parsing the table\n"


async def test_an_editor_save_truncate_pause_write_back_is_one_revision(demo_root, ids):
    root = MemoryRoot(demo_root)
    sid = ids["hook"]
    path = demo_root / "sessions" / f"{sid}.md"
    original = path.read_bytes()
    saved = original.replace(ANCHOR.encode(), (ANCHOR + ADDED).encode())
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.sessions.select_session(sid)
        await settle(app, pilot)
        assert contents(root, sid) == [original]
        path.write_bytes(b"")  # the editor truncates...
        app.sessions.check_files()
        await settle(app, pilot)
        time.sleep(0.3)  # ...pauses...
        path.write_bytes(saved)  # ...and writes the file back with one Decision added
        app.sessions.check_files()
        await settle(app, pilot)
        assert contents(root, sid) == [original, saved]
        assert len(app.sessions.detail.revisions) == 2
        merge = str(app.query_one("#pane-merge").render())
        assert "+" + ADDED.strip() in merge
        assert "policy break" not in merge and "+" + ANCHOR.strip() not in merge


def _status(app) -> str:
    """The status line's text."""
    return str(app.query_one(BoardStatus).render())


def _banner(app) -> str:
    """The banner's lines as one text."""
    return " ".join(text for _, text in app.query_one("#banner", BoardBanner).lines)


async def _marked_filtered_board(app, pilot) -> list[str]:
    """Filter on `work`, mark the second row shown, leave the cursor on the third; the marked IDs."""
    await settle(app, pilot)
    await pilot.press("slash", *"work", "enter", "down", "space")  # (space moves on)
    assert app.current_session_id == CURSOR
    assert "1 marked" in _status(app)
    return app.marked_session_ids


ROWS = [f"2026-05-0{i}-1000-agent{i}" for i in range(1, 6)]
CURSOR = ROWS[2]


async def test_a_slow_save_of_the_index_keeps_marks_cursor_and_filter_and_says_it_is_being_saved(
    write_index, make_row, root, monkeypatch
):
    monkeypatch.setenv("MEMBOARD_SETTLE_SECONDS", "3.0")  # (the board's window: a synced drive's pause fits in it)
    path = write_index([make_row(sid, topic=f"work {i}") for i, sid in enumerate(ROWS)])
    data = path.read_bytes()
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        marked = await _marked_filtered_board(app, pilot)
        path.write_bytes(b"")  # truncate...
        app.sessions.check_files()
        for _ in range(40):  # (the reload looks at the file until the window ends: the banner says why)
            await pilot.pause(0.05)
            if "index.md is being saved…" in _banner(app):
                break
        assert "index.md is being saved…" in _banner(app)
        time.sleep(0.6)  # ...a pause past a poll...
        app.sessions.check_files()
        await pilot.pause(0.1)
        assert "index.md is being saved…" in _banner(app)
        assert app.current_session_id == CURSOR and "1 marked" in _status(app)
        assert [r.id for r in app.sessions.table.rows] == [ROWS[i] for i in range(5)]
        path.write_bytes(data)  # ...and the same bytes written back
        app.sessions.check_files()
        await settle(app, pilot)
        assert "being saved" not in _banner(app)
        assert app.current_session_id == CURSOR
        assert app.marked_session_ids == marked and "1 marked" in _status(app)
        assert app.sessions.filter_text == "work"


async def test_a_one_second_pause_in_a_save_of_the_index_is_no_empty_memory_with_the_default_window(
    write_index, make_row, root, monkeypatch
):
    monkeypatch.setenv("MEMBOARD_SETTLE_SECONDS", "0.5")  # the default window, shorter than a synced drive's pause
    path = write_index([make_row(sid, topic=f"work {i}") for i, sid in enumerate(ROWS)])
    data = path.read_bytes()
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        marked = await _marked_filtered_board(app, pilot)
        path.write_bytes(b"")  # truncate...
        end = time.monotonic() + 1.0
        while time.monotonic() < end:  # ...a second's pause, the board polling as its watcher does
            app.sessions.check_files()
            await pilot.pause(0.1)
            assert app.sessions.table.rows, "an empty read mid-save was shown as an empty memory"
            assert "holds no session row" not in app.sessions.table.empty_text
        assert "index.md is being saved…" in _banner(app)
        path.write_bytes(data)  # ...and the same bytes written back
        app.sessions.check_files()
        await settle(app, pilot)
        assert "being saved" not in _banner(app)
        assert app.current_session_id == CURSOR
        assert app.marked_session_ids == marked and "1 marked" in _status(app)


async def test_marks_and_cursor_come_back_with_the_rows_after_the_index_read_empty(
    write_index, make_row, root, monkeypatch
):
    monkeypatch.setattr(sessions, "SAVING_GRACE", 0.3)  # (an index left empty past the grace is shown so)
    path = write_index([make_row(sid, topic=f"work {i}") for i, sid in enumerate(ROWS)])
    data = path.read_bytes()
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        marked = await _marked_filtered_board(app, pilot)
        path.write_bytes(b"")
        for _ in range(20):  # empty for longer than the grace: shown empty
            app.sessions.check_files()
            await settle(app, pilot)
            if not app.sessions.table.rows:
                break
            time.sleep(0.1)
        assert app.sessions.table.rows == []
        path.write_bytes(data)
        app.sessions.check_files()
        await settle(app, pilot)
        assert app.current_session_id == CURSOR
        assert app.marked_session_ids == marked and "1 marked" in _status(app)
        assert app.sessions.filter_text == "work"


async def test_a_row_appended_below_text_under_the_table_is_shown_marked(write_index, make_row, root):
    from tests.support.roots import table_line

    table = [make_row("2026-05-01-1000-alpha"), make_row("2026-05-02-1000-beta")]
    write_index(table, extra="\nRows are appended by hooks.\n")
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert len(app.sessions.table.rows) == 2
        lost = table_line(make_row("2026-05-03-1000-gamma")) + "\n"
        with open(root / "index.md", "a", encoding="utf-8") as f:
            f.write(lost)  # an agent appends "only the new row", below the text
        app.sessions.check_files()
        await settle(app, pilot)
        rows = app.sessions.table.rows
        assert [r.id for r in rows] == ["2026-05-01-1000-alpha", "2026-05-02-1000-beta", "2026-05-03-1000-gamma"]
        assert rows[2].problem and "outside the table" in rows[2].problem
        assert app.sessions.model.counts["unparseable"] == 1


async def test_a_snapshot_read_cut_off_mid_save_is_not_shown_as_a_revision(demo_root, ids):
    root = MemoryRoot(demo_root)
    sid = ids["hook"]
    path = demo_root / "sessions" / f"{sid}.md"
    original = path.read_bytes()
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.sessions.select_session(sid)
        await settle(app, pilot)
        path.write_bytes(original[: original.index(ANCHOR.encode()) + 10])  # a save stopped mid-line
        app.sessions.check_files()
        await settle(app, pilot)
        assert contents(root, sid) == [original]
        assert len(app.sessions.detail.revisions) == 1
        assert "policy break" not in str(app.query_one("#pane-merge").render())


async def test_the_mark_count_shows_at_80_columns_beside_a_problem_count(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("space")
        await pilot.pause()
        line = app.query_one(BoardStatus).render_line(0).text
        assert "! 1 unparseable" in line and "1 marked" in line  # the line's end is cut at 80 columns, not the marks
