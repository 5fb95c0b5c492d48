"""The snapshot pane renders what the loader prepared off the UI thread; widgets import no loader."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import memboard.board.loader as loader
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
