"""Snapshot tests of the board at 120x40 on the demo root (fixed clock, theme, watcher off)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from memboard.board.app import MemboardApp
from memboard.core.formats.clock import now
from memboard.core.ops.demo import build_demo, demo_ids

SIZE = (120, 40)


@pytest.fixture
def demo_app(tmp_path):
    """A board on a fresh demo root, not watching files."""
    root = build_demo(tmp_path / "memory", now())
    return MemboardApp(root, watch=False)


async def settle(pilot) -> None:
    """Let callbacks run, workers finish and the screen repaint (twice: a worker's result can
    schedule the next worker after a refresh)."""
    app = pilot.app
    for _ in range(2):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()
    for _ in range(100):  # the pane's snapshot loads in a worker started after a refresh
        row = app.sessions.table.current
        if row is None or row.problem or (app.sessions.detail is not None and app.sessions.detail.session_id == row.id):
            break
        await pilot.pause(0.02)
        await app.workers.wait_for_complete()


def settled(*keys: str, select: str | None = None):
    """A run_before that waits for the workers, optionally selects a demo session, presses keys."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        if select:
            pilot.app.sessions.select_session(demo_ids(now())[select])
            await settle(pilot)
        if keys:
            await pilot.press(*keys)
        await settle(pilot)

    return run_before


class TestBoard:
    """The table with its counts, the pane and the footer."""

    def test_board(self, snap_compare, demo_app):
        assert snap_compare(demo_app, terminal_size=SIZE, run_before=settled())

    def test_filtered_board(self, snap_compare, demo_app):
        keys = ("slash", *"board", "enter", "3")
        assert snap_compare(demo_app, terminal_size=SIZE, run_before=settled(*keys))

    def test_sorted_by_updated_at_with_marks(self, snap_compare, demo_app):
        async def sort_and_mark(pilot):
            await settled()(pilot)
            pilot.app.sessions.sort_by("updated_at", reverse=True)
            await pilot.press("space", "space")
            await pilot.pause()

        assert snap_compare(demo_app, terminal_size=SIZE, run_before=sort_and_mark)


class TestSnapshotPane:
    """The pane on a session whose last merge dropped items."""

    def test_merge_diff_with_policy_breaks(self, snap_compare, demo_app):
        assert snap_compare(demo_app, terminal_size=SIZE, run_before=settled(select="broken"))

    def test_expanded_pane(self, snap_compare, demo_app):
        assert snap_compare(demo_app, terminal_size=SIZE, run_before=settled("enter", select="broken"))

    def test_earlier_revision(self, snap_compare, demo_app):
        assert snap_compare(demo_app, terminal_size=SIZE, run_before=settled("left_square_bracket", select="broken"))


class TestBanner:
    """The banner under the status line, on a root a git merge and a sync tool left work in."""

    def test_banner_names_conflict_markers_and_a_sync_conflict_copy(self, snap_compare, tmp_path):
        root = build_demo(tmp_path / "memory", now())
        index = root / "index.md"
        original = index.read_text(encoding="utf-8")
        lines = original.splitlines(keepends=True)
        at = next(i for i, line in enumerate(lines) if demo_ids(now())["hook"] in line)
        theirs = lines[at].replace("Hook latency on large indexes", "Hook latency, measured on the laptop")
        lines[at : at + 1] = ["<<<<<<< HEAD\n", lines[at], "=======\n", theirs, ">>>>>>> laptop\n"]
        index.write_text("".join(lines), encoding="utf-8")
        (root / "index (Laptop's conflicted copy 2026-05-31).md").write_text(original, encoding="utf-8")
        assert snap_compare(MemboardApp(root, watch=False), terminal_size=SIZE, run_before=settled())

    def test_banner_names_copies_to_merge_open_cells_and_too_many_copies(self, snap_compare, tmp_path):
        root = build_demo(tmp_path / "memory", now())
        ids = demo_ids(now())
        text = (root / "index.md").read_text(encoding="utf-8")
        copies = [f"index.sync-conflict-20260531-1015{n:02d}-ABCDEF7.md" for n in range(9)]
        for name in copies[1:]:
            (root / name).write_text(text, encoding="utf-8")
        lines = text.splitlines(keepends=True)
        at = next(i for i, line in enumerate(lines) if ids["hook"] in line)
        lines[at] = lines[at].replace("Hook latency on large indexes", "Hook latency, on the laptop")  # its Topic
        at = next(i for i, line in enumerate(lines) if line.startswith(f"| {ids['broken']} "))
        cells = lines[at].split(" | ")
        cells[3] = "Summary written on the laptop"
        lines[at] = " | ".join(cells)
        (root / copies[0]).write_text("".join(lines), encoding="utf-8")  # its merge leaves two cells open
        assert snap_compare(MemboardApp(root, watch=False), terminal_size=SIZE, run_before=settled())


class TestHelp:
    """The help screen."""

    def test_help_screen(self, snap_compare, demo_app):
        assert snap_compare(demo_app, terminal_size=SIZE, run_before=settled("question_mark"))


class TestPalette:
    """The command palette: the action table's commands by name, each with its key."""

    def test_palette_shows_each_key(self, snap_compare, demo_app):
        async def search_palette(pilot):
            await settled()(pilot)
            await pilot.press("ctrl+p")
            await settle(pilot)
            for box in pilot.app.screen.query(Input):
                box.cursor_blink = False  # a blinking cursor would make the picture flaky
            # a query only board commands match: the empty palette lists its providers' hits in
            # the order they arrive, which varies from run to run
            await pilot.press(*"session")
            await pilot.pause(0.3)
            await settle(pilot)

        assert snap_compare(demo_app, terminal_size=SIZE, run_before=search_palette)


SIZES = pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])


class TestWidths:
    """The board where the layout changes with the width: the pane folds away at 80, Agent shows at 160."""

    @SIZES
    def test_board_at_size(self, snap_compare, demo_app, size):
        assert snap_compare(demo_app, terminal_size=size, run_before=settled())
