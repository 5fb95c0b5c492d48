"""Render the documentation's screenshots (SVG, into docs/screenshots/) of the board on the demo root (with its notes, as `memboard demo` makes it).

Usage: python screenshots/make_screenshots.py [SCENE ...]   (no names: every scene)

Each scene is a name, a title and an async function that drives a Pilot; add scenes with
`scene(...)`. The clock is fixed (MEMBOARD_NOW) and config/state are isolated, so the
pictures only change when the board does.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "docs" / "screenshots"  # inside the MkDocs site, which shows them
SIZE = (120, 40)
FIXED_NOW = "2026-06-01 09:30"


@dataclass
class Scene:
    """One screenshot: file name (without .svg), title, and the steps that set it up."""

    name: str
    title: str
    steps: Callable[[object], Awaitable[None]]


SCENES: list[Scene] = []


def scene(name: str, title: str):
    """Register an async `steps(pilot)` function as a scene."""

    def add(steps):
        """Record the scene and return steps unchanged."""
        SCENES.append(Scene(name, title, steps))
        return steps

    return add


async def settle(pilot) -> None:
    """Wait for the board's workers and a repaint."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def demo_id(name: str) -> str:
    """A demo session's ID at the fixed clock."""
    from memboard.core.formats.clock import now
    from memboard.core.ops.demo import demo_ids

    return demo_ids(now())[name]


@scene("board", "The live table with counts per status and the snapshot pane")
async def board(pilot) -> None:
    """The board as it opens."""
    pilot.app.sessions.select_session(demo_id("hook"))
    await settle(pilot)


@scene("filtered", "A text filter combined with the `active` status filter")
async def filtered(pilot) -> None:
    """Typing a filter and pressing 3."""
    await pilot.press("slash", *"board", "enter", "3")
    await settle(pilot)


@scene("merge-diff", "The pane on a snapshot whose last merge dropped items (policy breaks)")
async def merge_diff(pilot) -> None:
    """Select the lossy merge."""
    pilot.app.sessions.select_session(demo_id("broken"))
    await settle(pilot)


@scene("snapshot", "`enter` opens the snapshot full width, with the merge diff on top")
async def snapshot(pilot) -> None:
    """Expand the pane."""
    pilot.app.sessions.select_session(demo_id("broken"))
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


@scene("help", "Help: every key")
async def help_screen(pilot) -> None:
    """Open the help."""
    await pilot.press("question_mark")
    await settle(pilot)


@scene("organize", "Organize says what it will do and why for every row it leaves; enter applies it")
async def organize(pilot) -> None:
    """Open organize and preview it with the default stale days."""
    await pilot.press("o")
    await wait_for_screen(pilot, "StaleDaysScreen")
    await pilot.press("enter")
    await wait_for_screen(pilot, "PreviewScreen")


@scene("preview", "A preview in words: each file under a header, each index row as the cells that change")
async def continue_preview(pilot) -> None:
    """Continue the hook session from the live-reload one: both rows and a snapshot change."""
    pilot.app.sessions.select_session(demo_id("hook"))
    await settle(pilot)
    await pilot.press("c")
    await wait_for_screen(pilot, "SessionPicker")
    await pilot.press(*demo_id("live"), "enter")
    await wait_for_screen(pilot, "PreviewScreen")


@scene("exact-diff", "`d` in a preview: the exact diff, the bytes `--dry-run` prints")
async def exact_diff(pilot) -> None:
    """The archive of the Windows-rename session, as its exact diff."""
    pilot.app.sessions.select_session(demo_id("rename"))
    await settle(pilot)
    await pilot.press("a")
    await wait_for_screen(pilot, "PreviewScreen")
    await pilot.press("d")
    await pilot.pause()


@scene("log", "`l`: what each change did in this run (toasts say it in one line)")
async def result_log(pilot) -> None:
    """Organize, then an archive refused, then the result log."""
    await pilot.press("o")
    await wait_for_screen(pilot, "StaleDaysScreen")
    await pilot.press("enter")
    await wait_for_screen(pilot, "PreviewScreen")
    await pilot.press("enter")
    await settle(pilot)
    pilot.app.sessions.select_session(demo_id("sync1"))
    await settle(pilot)
    await pilot.press("a")
    await wait_for_screen(pilot, "MessageScreen")
    await pilot.press("enter")
    await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.press("l")
    await wait_for_screen(pilot, "LogScreen")


@scene("chain", "`g`: the reference chain both ways, with one-sided, archived and missing links marked")
async def chain_view(pilot) -> None:
    """Open the chain of a session in the middle of a continuation chain."""
    pilot.app.sessions.select_session(demo_id("sync2"))
    await settle(pilot)
    await pilot.press("g")
    await wait_for_screen(pilot, "ChainScreen")


@scene("notes", "`n`: the notes view, with counts per status and type, and the pane on a note's last change")
async def notes_view(pilot) -> None:
    """Open the notes view on a decision updated since its first save."""
    await pilot.press("n")
    await wait_for_screen(pilot, "NotesScreen")
    await settle(pilot)
    pilot.app.screen.select_note("project/memboard/note-storage")
    await settle(pilot)


async def wait_for_screen(pilot, name: str) -> None:
    """Wait (bounded) until the flow's worker has pushed the named screen."""
    for _ in range(200):
        await pilot.pause(0.02)
        if type(pilot.app.screen).__name__ == name:
            break
    await pilot.pause()


async def shoot(item: Scene, root: Path, out: Path) -> Path:
    """Run one scene on root and save its SVG into out."""
    from memboard.board.app import MemboardApp

    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await item.steps(pilot)
        if not app.screen.is_modal:
            await settle(pilot)
        else:  # a flow's worker waits on the open modal: waiting for workers would never end
            await pilot.pause()
        app.save_screenshot(filename=f"{item.name}.svg", path=str(out))
    return out / f"{item.name}.svg"


def main(argv: list[str] | None = None) -> int:
    """Build a demo root per scene and save the chosen scenes' SVGs into docs/screenshots/."""
    names = list(sys.argv[1:] if argv is None else argv)
    chosen = [s for s in SCENES if not names or s.name in names]
    unknown = set(names) - {s.name for s in SCENES}
    if unknown:
        print(
            f"unknown scene(s): {', '.join(sorted(unknown))}; known: {', '.join(s.name for s in SCENES)}",
            file=sys.stderr,
        )
        return 2
    with tempfile.TemporaryDirectory(prefix="memboard-shots-") as tmp:
        os.environ.setdefault("MEMBOARD_NOW", FIXED_NOW)
        os.environ["MEMBOARD_STATE_DIR"] = str(Path(tmp) / "state")
        os.environ["MEMBOARD_CONFIG"] = str(Path(tmp) / "config.toml")
        from memboard.board.run import make_demo

        for item in chosen:
            root = make_demo(Path(tmp) / item.name / "memory")
            path = asyncio.run(shoot(item, root, OUT))
            print(f"{path.relative_to(HERE.parent)}  {item.title}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
