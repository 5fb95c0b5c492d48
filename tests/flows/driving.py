"""Driving the flows with Pilot: open the board, wait for a modal, read its diff, finish a flow."""

from __future__ import annotations

import asyncio
from typing import TypeVar

from textual.screen import Screen

from memboard.board.app import MemboardApp
from memboard.board.screens import PreviewScreen

ROUNDS = 500
PATIENCE = 30.0
S = TypeVar("S", bound=Screen)


def make_app(root):
    """The board on root, its file watcher off."""
    app = MemboardApp(root, watch=False)
    app.theme = "textual-dark"
    return app


async def ready(pilot) -> None:
    """Let the board finish its first read."""
    await pilot.pause()
    await asyncio.wait_for(pilot.app.workers.wait_for_complete(), PATIENCE)
    await pilot.pause()


def mark(app, session_id: str) -> None:
    """Mark a session the way a user does: cursor on it, then space."""
    assert app.sessions.select_session(session_id)
    app.sessions.action_mark()


def live_ids(app) -> set[str]:
    """The Session IDs the board shows after its last refresh."""
    return set(app.sessions.model.by_id)


def count_refreshes(app) -> list[int]:
    """Count the App's refresh_model calls (the flows call it after writing)."""
    calls: list[int] = []
    original = app.sessions.refresh_model

    def counted(*args, **kwargs) -> None:
        calls.append(1)
        original(*args, **kwargs)

    app.sessions.refresh_model = counted
    return calls


async def wait_for_screen(pilot, kind: type[Screen], *, not_this: Screen | None = None) -> Screen:
    """Let the app run until a screen of this kind (other than not_this) is on top."""
    for _ in range(ROUNDS):
        top = pilot.app.screen
        if isinstance(top, kind) and top is not not_this:
            await pilot.pause()
            return top
        await pilot.pause(0.01)
    raise AssertionError(f"{kind.__name__} never showed; top screen is {pilot.app.screen!r}")


async def open_on(pilot, session_id: str, key: str, kind: type[S]) -> S:
    """Put the cursor on a session, press a flow's key, and return the screen of this kind that it opens."""
    pilot.app.sessions.select_session(session_id)
    await pilot.press(key)
    screen = await wait_for_screen(pilot, kind)
    assert isinstance(screen, kind)
    return screen


async def wait_for_flow(pilot) -> None:
    """Let the flow's worker finish and the App handle its messages (a hung flow fails the test)."""
    await asyncio.wait_for(pilot.app.workers.wait_for_complete(), PATIENCE)
    await pilot.pause()


async def cancel_through(pilot, picker: type[S]) -> S:
    """Cancel a preview that came from a picker: escape goes back to that picker (issue 27), escape there ends the
    flow, nothing written. Returns the picker as it showed again."""
    await pilot.press("escape")
    again = await wait_for_screen(pilot, picker)
    await pilot.press("escape")
    await wait_for_flow(pilot)
    assert isinstance(again, picker)
    return again


def preview_diff(screen: PreviewScreen) -> str:
    """The unified diff a preview shows (`d` there draws it; the same text `--dry-run` prints)."""
    return screen.view.diff


def preview_words(screen: PreviewScreen) -> str:
    """What a preview says will happen: its headline, counts and the changes in words, as plain text."""
    view = screen.view
    return "\n".join([*view.headline, *view.counts, *(line.text for line in view.readable)])
