"""The live view invents and loses nothing: a snapshot an editor saves the plain way (truncate, pause,
write back) is one revision, and its merge diff shows what the save added, not a whole file."""

from __future__ import annotations

import time

from memboard.board.app import MemboardApp
from memboard.core.files.revisions import contents
from memboard.core.files.root import MemoryRoot
from tests.board.test_board_app import SIZE, settle

ADDED = "- Keep one revision per save\n"
ANCHOR = "- Append the row without re-parsing the table\n"


async def test_an_editor_save_truncate_pause_write_back_is_one_revision(demo_root, ids):
    root = MemoryRoot(demo_root)
    sid = ids["hook"]
    path = demo_root / "sessions" / f"{sid}.md"
    original = path.read_bytes()
    saved = original.replace(ANCHOR.encode(), (ANCHOR + ADDED).encode())
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.sessions.select_session(sid)
        await settle(app, pilot)
        assert contents(root, sid) == [original]
        path.write_bytes(b"")  # the editor truncates...
        app.sessions.check_files()
        await settle(app, pilot)
        time.sleep(0.3)  # ...pauses...
        path.write_bytes(saved)  # ...and writes the file back with one Decision added
        app.sessions.check_files()
        await settle(app, pilot)
        assert contents(root, sid) == [original, saved]
        assert len(app.sessions.detail.revisions) == 2
        merge = str(app.query_one("#pane-merge").render())
        assert "+" + ADDED.strip() in merge
        assert "policy break" not in merge and "+" + ANCHOR.strip() not in merge
