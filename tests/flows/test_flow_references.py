"""Continue, release and the chain view from the board."""

from __future__ import annotations

from textual.widgets import OptionList, Tree

from memboard.board.screens import ChainScreen, MessageScreen, PreviewScreen, SessionPicker
from memboard.board.screens.chain import node_label
from memboard.core.formats.snapshot import Snapshot
from memboard.core.results import ChainNode
from tests.support.tree import tree

from .driving import cancel_through, make_app, open_on, preview_diff, ready, wait_for_flow, wait_for_screen
from .sample import FOLLOWER, LONER, OVERDUE, SOURCE

NEW_ID = "2026-06-01-0930-cursor-main-agent"


def refs_of(root, sid: str) -> str:
    """The Referenced By cell of sid's row."""
    for line in (root / "index.md").read_text(encoding="utf-8").splitlines():
        if line.startswith(f"| {sid} |"):
            return line.split("|")[7].strip()
    raise AssertionError(f"no row {sid}")


async def test_continue_picks_the_current_session_and_links_both_sides(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        picker = await open_on(pilot, LONER, "c", SessionPicker)
        await pilot.press(*"codex")
        listing = picker.query_one(OptionList)
        ids = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
        assert ids[1:] == [OVERDUE]
        assert listing.highlighted == 1  # the first match, not "new session"
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, PreviewScreen)
        diff = preview_diff(screen)
        assert f"+++ b/sessions/{OVERDUE}.md" in diff and f"+- {LONER}" in diff
        assert f"+| {LONER} |" in diff
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert app.current_session_id == OVERDUE
    assert refs_of(sample_root, LONER) == OVERDUE
    snap = Snapshot((sample_root / "sessions" / f"{OVERDUE}.md").read_bytes())
    assert snap.continues_from() == [LONER]


async def test_continue_as_a_new_session_registers_it(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_on(pilot, LONER, "c", SessionPicker)
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, PreviewScreen)
        assert f"+++ b/sessions/{NEW_ID}.md" in preview_diff(screen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert app.current_session_id == NEW_ID
    assert refs_of(sample_root, LONER) == NEW_ID
    assert Snapshot((sample_root / "sessions" / f"{NEW_ID}.md").read_bytes()).continues_from() == [LONER]


async def test_continue_cancelled_in_the_picker_or_the_preview_writes_nothing(sample_root):
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_on(pilot, LONER, "c", SessionPicker)
        await pilot.press("escape")
        await wait_for_flow(pilot)
        await pilot.press("c")
        await wait_for_screen(pilot, SessionPicker)
        await pilot.press("enter")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("n")
        await wait_for_screen(pilot, SessionPicker)  # back to the picker the preview came from (issue 27)
        await pilot.press("escape")
        await wait_for_flow(pilot)
        assert app.run_log[-1].outcome == "continue cancelled: nothing written"
    assert tree(sample_root, skip=(".memboard",)) == before


async def test_release_removes_the_reference_on_both_sides(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        picker = await open_on(pilot, SOURCE, "r", SessionPicker)
        assert [c.session_id for c in picker.choices] == [FOLLOWER]
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, PreviewScreen)
        assert [ch.path for ch in screen.plan.changes] == ["index.md", f"sessions/{FOLLOWER}.md"]
        assert f"-- {SOURCE}" in preview_diff(screen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert refs_of(sample_root, SOURCE) == "-"
    assert Snapshot((sample_root / "sessions" / f"{FOLLOWER}.md").read_bytes()).continues_from() == []


async def test_release_with_no_reference_explains_and_writes_nothing(sample_root):
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_on(pilot, LONER, "r", MessageScreen)
        assert screen.message == (
            f"{LONER} has no reference to release: no session continues from it, and it continues from none."
        )
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert tree(sample_root, skip=(".memboard",)) == before


async def test_chain_shows_both_directions_and_enter_jumps(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_on(pilot, FOLLOWER, "g", ChainScreen)
        tree = screen.query_one(Tree)
        up = tree.root.children[0]
        assert [n.data.id for n in up.children] == [SOURCE]
        await pilot.press("down", "down", "enter")
        await wait_for_flow(pilot)
        assert not isinstance(app.screen, ChainScreen)
        assert app.current_session_id == SOURCE


async def test_chain_escape_keeps_the_cursor(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_on(pilot, SOURCE, "g", ChainScreen)
        down = screen.query_one(Tree).root.children[1]
        assert [n.data.id for n in down.children] == [FOLLOWER]
        await pilot.press("escape")
        await wait_for_flow(pilot)
        assert app.current_session_id == SOURCE


def test_chain_labels_mark_one_sided_missing_archived_and_cycles():
    assert "one-sided" in node_label(ChainNode(SOURCE, "live", None, "active", one_sided=True)).plain
    assert "missing" in node_label(ChainNode(SOURCE, "missing", None, None)).plain
    assert "archived" in node_label(ChainNode(SOURCE, "archived", None, None)).plain
    assert "cycle" in node_label(ChainNode(SOURCE, "live", None, None, cycle=True)).plain
    plain = node_label(ChainNode(SOURCE, "live", "[b]x[/b]", "active")).plain
    assert "[b]x[/b]" in plain and "one-sided" not in plain and "cycle" not in plain


async def test_escape_in_the_release_preview_goes_back_to_the_picker(sample_root):
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        picker = await open_on(pilot, SOURCE, "r", SessionPicker)
        await pilot.press("enter")
        await wait_for_screen(pilot, PreviewScreen)
        again = await cancel_through(pilot, SessionPicker)
        assert again is not picker and again.choices == picker.choices
        assert app.run_log[-1].outcome == "release cancelled: nothing written"
    assert tree(sample_root, skip=(".memboard",)) == before
