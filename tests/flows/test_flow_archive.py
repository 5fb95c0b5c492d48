"""Archive from the board: preview, confirm, cancel, refusal, stale preview, marked rows."""

from __future__ import annotations

from memboard.board.screens import MessageScreen, PreviewScreen

from .driving import preview_diff, wait_for_flow, wait_for_screen
from .host import HostApp
from .sample import FOLLOWER, LONER, OVERDUE, SOURCE, tree_bytes


async def test_archive_confirm_writes_exactly_the_previewed_plan(sample_root):
    app = HostApp(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        app.select_session(LONER)
        await pilot.press("a")
        screen = await wait_for_screen(pilot, PreviewScreen)
        plan = screen.plan
        assert f"+++ b/archive/{LONER}/index.md" in preview_diff(screen)
        assert f"-| {LONER} |" in preview_diff(screen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
    for ch in plan.changes:
        target = ch.dest or ch.path
        assert (sample_root / target).read_bytes() == (ch.after if ch.after is not None else ch.before)
    assert not (sample_root / "sessions" / f"{LONER}.md").exists()
    assert LONER not in app.ids

