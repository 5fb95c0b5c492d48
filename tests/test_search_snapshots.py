"""Snapshot tests of search (`f`), the archive (`A`) and the read-only session view on the demo root, at
80x24 and 160x45 (fixed clock and theme, watcher off, no blinking cursor)."""

from __future__ import annotations

import contextlib

import pytest
from textual.widgets import Input
from textual.worker import WorkerCancelled

from memboard.board.app import MemboardApp
from memboard.board.screens.archive import ArchiveScreen
from memboard.board.screens.search import SearchScreen
from memboard.board.screens.session import SessionScreen
from memboard.core.formats.clock import now
from memboard.core.ops.demo import build_demo
from tests.test_board_snapshots import settle

SIZES = [(80, 24), (160, 45)]


@pytest.fixture
def demo_app(tmp_path):
    """A board on a fresh demo root, not watching files, in the default theme."""
    app = MemboardApp(build_demo(tmp_path / "memory", now()), watch=False)
    app.theme = "textual-dark"
    return app


async def wait_for(pilot, condition) -> None:
    """Let the app run until condition() holds (bounded; the snapshot then shows what is wrong)."""
    for _ in range(500):
        if condition():
            break
        await pilot.pause(0.02)
        with contextlib.suppress(WorkerCancelled):  # (a newer query's search replaced this one: look again)
            await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def no_blink(screen) -> None:
    """Stop the text boxes' cursors from blinking (a blink would make the picture flaky)."""
    for box in screen.query(Input):
        box.cursor_blink = False


def searched(query: str, *keys: str):
    """A run_before that opens search, types query, waits for its answer, then presses keys (which open
    a result read-only)."""

    async def run_before(pilot) -> None:
        app = pilot.app
        await settle(pilot)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))
        screen = app.screen
        no_blink(screen)
        await pilot.press(*query)
        # the whole answer, not the index rows' answer a first search shows while the cache is built (it has no
        # archived result: enter on it opened nothing, and the snapshot caught search still open)
        await wait_for(pilot, lambda: screen.query_text == query and not screen.rows_only)
        if keys:
            await pilot.press(*keys)
            await wait_for(
                pilot,
                lambda: (
                    isinstance(app.screen, SessionScreen) and bool(app.screen.query("#session-snapshot, #session-none"))
                ),
            )
        await pilot.pause()

    return run_before


def archive(*keys: str):
    """A run_before that opens the archive, waits for it to be read, then presses keys."""

    async def run_before(pilot) -> None:
        app = pilot.app
        await settle(pilot)
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, ArchiveScreen) and app.screen.rows is not None)
        no_blink(app.screen)
        if keys:
            await pilot.press(*keys)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_search_results(snap_compare, demo_app, size):
    """A query found in a live row, an archived row and a live snapshot: each with where and its snippet."""
    assert snap_compare(demo_app, terminal_size=size, run_before=searched("sync"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_archive_view(snap_compare, demo_app, size):
    """The archived sessions, last archived first, columns fitted to the width."""
    assert snap_compare(demo_app, terminal_size=size, run_before=archive())


def test_archived_session_read_only(snap_compare, demo_app):
    """An archived result opened from search: its metadata above its snapshot."""
    assert snap_compare(demo_app, terminal_size=(80, 24), run_before=searched("Lock file", "enter"))
