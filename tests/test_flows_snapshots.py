"""Snapshot tests of the board's flow modals and the chain view (120x40, and 80x24 and 160x45 where the
layout changes; fixed clock and theme, no cursor blink)."""

from __future__ import annotations

import pytest
from textual.widgets import Input, TextArea

from memboard.board.screens import (
    ChainScreen,
    LogScreen,
    MessageScreen,
    PreviewScreen,
    QuestionScreen,
    ResolveScreen,
    SessionPicker,
    StaleDaysScreen,
    UpdateScreen,
)
from tests.flows.driving import make_app, mark, ready, wait_for_flow, wait_for_screen
from tests.flows.sample import FOLLOWER, LONER, OVERDUE, PLACEHOLDER, SOURCE, make_root

SIZE = (120, 40)


@pytest.fixture
def board(root):
    """The board app on the sample root, watcher off."""
    make_root(root)
    return make_app(root)


def open_flow(kind, key: str, select: str | None = None, marks: tuple[str, ...] = (), typed: str = ""):
    """A run_before that selects (and marks) sessions, presses key and waits for the modal."""

    async def run_before(pilot) -> None:
        app = pilot.app
        await ready(pilot)
        for sid in marks:
            mark(app, sid)
        if select:
            app.sessions.select_session(select)
        await pilot.press(key)
        screen = await wait_for_screen(pilot, kind)
        for field in screen.query(Input):
            field.cursor_blink = False
        for area in screen.query(TextArea):
            area.cursor_blink = False
        if typed:
            await pilot.press(*typed)
        await pilot.pause()

    return run_before


class TestPreviewSnapshots:
    """The preview modal of each flow: report, refusals and the coloured diff."""

    def test_archive_preview(self, board, snap_compare):
        assert snap_compare(board, terminal_size=SIZE, run_before=open_flow(PreviewScreen, "a", LONER))

    def test_archive_marked_with_a_refusal(self, board, snap_compare):
        run = open_flow(PreviewScreen, "a", marks=(SOURCE, OVERDUE))
        assert snap_compare(board, terminal_size=SIZE, run_before=run)

    def test_organize_preview(self, board, snap_compare):
        async def run_before(pilot):
            await open_flow(StaleDaysScreen, "o")(pilot)
            await pilot.press("enter")
            await wait_for_screen(pilot, PreviewScreen)

        assert snap_compare(board, terminal_size=SIZE, run_before=run_before)

    def test_doctor_preview(self, board, root, snap_compare):
        (root / "sessions" / f"{PLACEHOLDER}.md").write_text("# Session\n\n## Current Context\n\nx\n", encoding="utf-8")
        assert snap_compare(board, terminal_size=SIZE, run_before=open_flow(PreviewScreen, "d"))

    def test_update_preview(self, board, snap_compare):
        async def run_before(pilot):
            await open_flow(UpdateScreen, "u", LONER)(pilot)
            pilot.app.screen.query_one("#update-topic", Input).value = "Demo root v2"
            await pilot.press("ctrl+s")
            await wait_for_screen(pilot, PreviewScreen)

        assert snap_compare(board, terminal_size=SIZE, run_before=run_before)


class TestInputModalSnapshots:
    """Pickers, the update editor, organize's stale days and a refusal."""

    def test_continue_picker(self, board, snap_compare):
        assert snap_compare(board, terminal_size=SIZE, run_before=open_flow(SessionPicker, "c", LONER))

    def test_continue_picker_filtered(self, board, snap_compare):
        run = open_flow(SessionPicker, "c", LONER, typed="claude")
        assert snap_compare(board, terminal_size=SIZE, run_before=run)

    def test_update_editor(self, board, snap_compare):
        assert snap_compare(board, terminal_size=SIZE, run_before=open_flow(UpdateScreen, "u", FOLLOWER))

    def test_stale_days(self, board, snap_compare):
        assert snap_compare(board, terminal_size=SIZE, run_before=open_flow(StaleDaysScreen, "o"))

    def test_archive_refusal(self, board, snap_compare):
        assert snap_compare(board, terminal_size=SIZE, run_before=open_flow(MessageScreen, "a", SOURCE))


class TestChainSnapshots:
    """The reference-chain tree with its marks."""

    def test_chain_of_a_follower(self, board, snap_compare):
        assert snap_compare(board, terminal_size=SIZE, run_before=open_flow(ChainScreen, "g", FOLLOWER))

    def test_chain_with_one_sided_missing_and_archived_links(self, board, root, snap_compare):
        snap = root / "sessions" / f"{LONER}.md"
        text = snap.read_text(encoding="utf-8").replace(
            "## Continues From\n\n- None",
            f"## Continues From\n\n- {OVERDUE}\n- 2026-01-01-0000-gone-agent\n- 2026-02-02-0200-old-agent",
        )
        snap.write_text(text, encoding="utf-8")
        (root / "archive" / "2026-02-02-0200-old-agent").mkdir(parents=True)
        assert snap_compare(board, terminal_size=SIZE, run_before=open_flow(ChainScreen, "g", LONER))


SIZES = pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])


class TestRoundTwoSnapshots:
    """Previews in words and as the exact diff, a large plan's second question, the quit question and the
    result log, at 80x24 and 160x45."""

    @SIZES
    def test_organize_in_words(self, board, size, snap_compare):
        async def run_before(pilot):
            await open_flow(StaleDaysScreen, "o")(pilot)
            await pilot.press("enter")
            await wait_for_screen(pilot, PreviewScreen)

        assert snap_compare(board, terminal_size=size, run_before=run_before)

    @SIZES
    def test_archive_exact_diff(self, board, size, snap_compare):
        async def run_before(pilot):
            await open_flow(PreviewScreen, "a", LONER)(pilot)
            await pilot.press("d")
            await pilot.pause()

        assert snap_compare(board, terminal_size=size, run_before=run_before)

    @SIZES
    def test_a_large_plan_asks_again(self, board, root, size, snap_compare):
        from tests.flows.test_previews import add_sessions

        ids = add_sessions(root, 70)

        async def run_before(pilot):
            await open_flow(PreviewScreen, "a", marks=tuple(ids))(pilot)
            await pilot.press("y")
            await pilot.pause()

        assert snap_compare(board, terminal_size=size, run_before=run_before)

    @SIZES
    def test_quit_with_a_flow_open(self, board, size, snap_compare):
        async def run_before(pilot):
            await open_flow(PreviewScreen, "a", LONER)(pilot)
            await pilot.press("q")
            await wait_for_screen(pilot, QuestionScreen)

        assert snap_compare(board, terminal_size=size, run_before=run_before)

    @SIZES
    def test_result_log(self, board, size, snap_compare):
        async def run_before(pilot):
            await open_flow(PreviewScreen, "a", marks=(SOURCE, OVERDUE))(pilot)
            await pilot.press("enter")
            await wait_for_flow(pilot)
            await open_flow(PreviewScreen, "a", LONER)(pilot)
            await pilot.press("escape")
            await wait_for_flow(pilot)
            pilot.app.clear_notifications()
            await pilot.press("l")
            await wait_for_screen(pilot, LogScreen)

        assert snap_compare(board, terminal_size=size, run_before=run_before)


@pytest.fixture
def conflicted_board(root):
    """The sample root with a Syncthing copy of index.md whose merge leaves SOURCE's Summary and FOLLOWER's Topic
    open (both changed in the same minute), watcher off."""
    make_root(root)
    data = (root / "index.md").read_bytes()
    theirs = data.replace(b"keeps every byte.", b"keeps every byte, on the laptop.")
    (root / "index.sync-conflict-20260531-101500-ABCDEF7.md").write_bytes(
        theirs.replace(b"| Board flows |", b"| Board flows (laptop) |")
    )
    return make_app(root)


class TestResolveSnapshots:
    """R: the question (ours or theirs, every open conflict or the selected session's) and its preview."""

    @pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
    def test_resolve_question(self, conflicted_board, size, snap_compare):
        assert snap_compare(conflicted_board, terminal_size=size, run_before=open_flow(ResolveScreen, "R", FOLLOWER))

    def test_resolve_preview_of_theirs(self, conflicted_board, snap_compare):
        async def run_before(pilot) -> None:
            await open_flow(ResolveScreen, "R")(pilot)
            await pilot.press("t")
            await wait_for_screen(pilot, PreviewScreen)
            await pilot.pause()

        assert snap_compare(conflicted_board, terminal_size=SIZE, run_before=run_before)
