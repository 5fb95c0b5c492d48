"""Driving the flows with Pilot: wait for a modal to show, read its diff, finish a flow."""

from __future__ import annotations

from textual.screen import Screen

from memboard.board.screens import PreviewScreen

ROUNDS = 500


async def wait_for_screen(pilot, kind: type[Screen]) -> Screen:
    """Let the app run until a screen of this kind is on top (a flow's worker pushes it)."""
    for _ in range(ROUNDS):
        if isinstance(pilot.app.screen, kind):
            await pilot.pause()
            return pilot.app.screen
        await pilot.pause(0.01)
    raise AssertionError(f"{kind.__name__} never showed; top screen is {pilot.app.screen!r}")


async def wait_for_flow(pilot) -> None:
    """Let the flow's worker finish and the App handle its messages."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def preview_diff(screen: PreviewScreen) -> str:
    """The unified diff a preview shows."""
    return screen.query_one("#preview-diff-text").diff
