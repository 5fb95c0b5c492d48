"""Snapshot tests of the Spaces screen (p) and the Hierarchy screen (h) (fixed clock and theme, watcher off, no
blinking cursor), at 80×24 and 120×40. Their files live in a fixed folder per test, so the paths the screens show
are the same on every run."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from textual.widgets import Input

from bench.board_spaces import make_spaces, make_workspace, write_space
from memboard.board.app import MemboardApp
from memboard.board.screens import PreviewScreen
from memboard.board.spaceflows import MigrationScreen
from memboard.core.formats.clock import now
from memboard.core.ops.demo import build_demo

SMALL = (80, 24)
LARGE = (120, 40)


@pytest.fixture
def fixed(request, monkeypatch) -> Path:
    """A folder whose path is the same on every run (one per test), with the global session-memory home in it."""
    folder = Path(tempfile.gettempdir()) / "memboard-snapshots" / request.node.name.replace("[", "-").rstrip("]")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(folder / "home"))
    monkeypatch.setenv("CODEX_HOME", str(folder / "codex"))
    monkeypatch.setenv("CLAUDE_HOME", str(folder / "claude"))
    monkeypatch.setenv("OPENCLAW_WORKSPACE_DIR", str(make_workspace(folder / "workspace")))
    make_spaces(folder / "projects", 4)
    third = folder / "projects" / "project-004"
    (third / ".git").mkdir(parents=True)
    write_space(third / ".session-memory", "project-004", dream=None, entries=3, updated="2026-05-31 18:00")
    from memboard.core.files import statepaths

    record = statepaths.known_spaces()
    record.write_text(record.read_text(encoding="utf-8") + f"{third / '.session-memory'}\tauto\n", encoding="utf-8")
    (folder / "projects" / "project-002" / ".session-memory" / "config.toml").write_text("[spaces\n")
    return folder


@pytest.fixture
def app(fixed) -> MemboardApp:
    """The board on a demo root beside the spaces, not watching files."""
    board = MemboardApp(build_demo(fixed / "memory", now()), watch=False)
    board.theme = "textual-dark"
    return board


async def settle(pilot, workers: bool = True) -> None:
    """Let the workers finish (not while a flow waits for a modal's answer: its worker ends only then) and the
    screen repaint; no cursor blinks."""
    for _ in range(3):
        await pilot.pause()
        if workers:
            await pilot.app.workers.wait_for_complete()
    for widget in pilot.app.screen.query("Input"):
        if isinstance(widget, Input):
            widget.cursor_blink = False
    await pilot.pause()


async def wait_for(pilot, kind) -> None:
    """Until a screen of this kind is in front (and settled)."""
    for _ in range(500):
        if isinstance(pilot.app.screen, kind):
            break
        await pilot.pause(0.01)
    await settle(pilot, workers=False)


def keys(*pressed: str, modal=None, row: int = 0):
    """A run_before: settle, press p or h and the keys (waiting for a modal they open)."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press(pressed[0])
        await settle(pilot)
        for _ in range(row):
            await pilot.press("down")
        await settle(pilot)
        if len(pressed) > 1:
            await pilot.press(*pressed[1:])
        if modal is not None:
            await wait_for(pilot, modal)
            return
        await settle(pilot)

    return run_before


class TestSpaces:
    """The table with a stale row, a due dream and an invalid config; the restore view; a save's preview."""

    @pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
    def test_spaces_screen(self, snap_compare, app, size):
        assert snap_compare(app, terminal_size=size, run_before=keys("p", row=2))

    def test_restore_view_full_width(self, snap_compare, app):
        assert snap_compare(app, terminal_size=LARGE, run_before=keys("p", "enter", row=4))

    def test_save_preview(self, snap_compare, app, fixed, monkeypatch):
        script = fixed / "edit.py"
        script.write_text(
            "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
            "p.write_text(p.read_text(encoding='utf-8').replace('- 继续 project-000\\n', '- 新的下一步\\n'), "
            "encoding='utf-8')\n",
            encoding="utf-8",
        )
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
        assert snap_compare(app, terminal_size=LARGE, run_before=keys("p", "w", modal=PreviewScreen))


class TestHierarchy:
    """Hot, Warm and Cold at both sizes; the migration plan's table."""

    @pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
    def test_hierarchy_screen(self, snap_compare, app, size):
        assert snap_compare(app, terminal_size=size, run_before=keys("h", row=1))

    def test_migration_plan(self, snap_compare, app):
        assert snap_compare(app, terminal_size=LARGE, run_before=keys("h", "m", modal=MigrationScreen))
