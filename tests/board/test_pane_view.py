"""The snapshot pane renders what the loader prepared off the UI thread; widgets import no loader."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import memboard.board.loader as loader
import memboard.board.sessions as sessions
from memboard.board.app import MemboardApp
from memboard.core.files.revisions import record
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.snapshot import render_template
from memboard.widgets.snapshot_pane import SnapshotPane

WIDGETS = Path(__file__).resolve().parents[2] / "widgets"
# what a widget may import from memboard: the data it draws, which lives beside it (rows, the panes'
# views), the tables' shared base, and the core's formats and result types those are made of
ALLOWED = {
    "memboard.widgets.rows",
    "memboard.widgets.panes",
    "memboard.widgets.row_table",
    "memboard.widgets.status_line",
    "memboard.core.formats.clock",
    "memboard.core.formats.index",
    "memboard.core.results",
}
SID = "2026-05-01-1000-alpha"


def memboard_imports(path: Path) -> set[str]:
    """The memboard modules a source file imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.startswith("memboard")}


def test_widgets_import_no_loader_and_no_core_operation():
    for path in sorted(WIDGETS.glob("*.py")):
        assert memboard_imports(path) <= ALLOWED, path.name


def snapshot_text(n: int) -> str:
    """Revision n of the session's snapshot: one more decision each time."""
    return render_template(
        session_id=SID,
        agent="alpha",
        topic="t",
        started="2026-05-01 10:00",
        updated="2026-05-02 10:00",
        decisions=[f"Decision {i}" for i in range(n + 1)],
    )


async def test_stepping_back_past_the_prepared_revisions_prepares_them_off_the_ui_thread(
    write_index, make_row, root, monkeypatch
):
    write_index([make_row(SID)])
    (root / "sessions").mkdir()
    mroot = MemoryRoot(root)
    total = loader.PANE_WINDOW + 4
    for n in range(total):
        record(mroot, SID, snapshot_text(n).encode())
    (root / "sessions" / f"{SID}.md").write_text(snapshot_text(total - 1), encoding="utf-8")
    prepared_on: list[int] = []
    real = loader.without_metadata

    def recorded(text: str) -> str:
        prepared_on.append(threading.get_ident())
        return real(text)

    monkeypatch.setattr(loader, "without_metadata", recorded)
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        ui_thread = threading.get_ident()
        for _ in range(100):
            await pilot.pause(0.02)
            if app.sessions.detail is not None and app.sessions.detail.session_id == SID:
                break
        assert sorted(app.sessions.detail.pane.views) == list(range(total - loader.PANE_WINDOW, total))
        for _ in range(total - 1):
            await pilot.press("left_square_bracket")
        assert app.sessions.revision_position == 0
        for _ in range(100):
            await pilot.pause(0.02)
            if 0 in app.sessions.detail.pane.views:
                break
        await pilot.pause()
        pane = app.query_one(SnapshotPane)
        assert f"Revision 1/{total} earlier" in str(pane.query_one("#pane-revision").render())
        assert not pane.query_one("#pane-merge").display  # the first revision has no merge
        assert prepared_on and ui_thread not in prepared_on


def long_snapshot(sid: str, word: str) -> str:
    """A snapshot far taller than the pane, its decisions naming word."""
    return render_template(
        session_id=sid,
        agent="alpha",
        topic="t",
        started="2026-05-01 10:00",
        updated="2026-05-02 10:00",
        decisions=[f"{word} decision {i}" for i in range(120)],
    )


SID2 = "2026-05-01-1100-beta"


async def wait_markdown(pilot, pane, word: str) -> None:
    """Wait until the pane's Markdown view shows word (its update is applied after the detail is in)."""
    for _ in range(200):
        found = pane.query("#pane-markdown")
        if found and word in found.first().source:
            return
        await pilot.pause(0.02)
    raise AssertionError(f"the pane never showed {word}")


async def wait_detail(pilot, app, sid: str) -> None:
    """Wait until the pane holds sid's snapshot."""
    for _ in range(200):
        await pilot.pause(0.02)
        if app.sessions.detail is not None and app.sessions.detail.session_id == sid:
            return
    raise AssertionError(f"{sid}'s snapshot never loaded")


async def test_a_newly_selected_row_opens_its_pane_at_the_top(write_index, make_row, root):
    write_index([make_row(SID), make_row(SID2)])
    (root / "sessions").mkdir()
    for sid in (SID, SID2):
        (root / "sessions" / f"{sid}.md").write_text(long_snapshot(sid, sid), encoding="utf-8")
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_detail(pilot, app, SID)
        pane = app.query_one(SnapshotPane)
        await pilot.press("enter", "pagedown", "pagedown", "escape")
        await pilot.pause()
        assert pane.scroll_y > 0  # the reader scrolled the first row's snapshot down
        await pilot.press("down")
        await wait_detail(pilot, app, SID2)
        await pilot.pause()
        assert pane.scroll_y == 0  # the new row's metadata is in view


async def test_while_a_snapshot_loads_the_pane_never_shows_the_previous_rows_text(
    write_index, make_row, root, monkeypatch
):
    write_index([make_row(SID), make_row(SID2)])
    (root / "sessions").mkdir()
    for sid, word in ((SID, "Alphaword"), (SID2, "Betaword")):
        (root / "sessions" / f"{sid}.md").write_text(long_snapshot(sid, word), encoding="utf-8")
    release = threading.Event()
    real = sessions.load_detail

    def slow(mroot, sid):
        if sid == SID2:
            release.wait(60)  # (the test releases it; a loaded machine must not time it out first)
        return real(mroot, sid)

    monkeypatch.setattr(sessions, "load_detail", slow)
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_detail(pilot, app, SID)
        pane = app.query_one(SnapshotPane)
        await wait_markdown(pilot, pane, "Alphaword")
        await pilot.press("down")
        await pilot.pause(0.1)
        assert SID2 in str(pane.query_one("#pane-meta").render())
        assert "loading" in str(pane.query_one("#pane-revision").render())
        assert "Alphaword" not in pane.query_one("#pane-markdown").source
        release.set()
        await wait_detail(pilot, app, SID2)
        await wait_markdown(pilot, pane, "Betaword")
