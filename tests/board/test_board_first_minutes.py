"""The first minutes on a large root (issue 27 §6): opening a root memboard has not seen before records a first
revision of every snapshot (in local state, each write synced: seconds for a thousand snapshots). That is done
beside the live view, never in front of it: a registration right after opening shows as fast as later ones."""

from __future__ import annotations

import threading

from memboard.board.app import MemboardApp
from memboard.core.files import revisions
from tests.board.test_board_app import SIZE
from tests.support.roots import table_line

SNAPSHOTS = 40


async def test_a_registration_right_after_opening_shows_while_the_first_revisions_are_still_recorded(
    write_index, make_row, root, monkeypatch
):
    ids = [f"2026-05-01-{1000 + i:04d}-agent" for i in range(SNAPSHOTS)]
    path = write_index([make_row(sid) for sid in ids])
    (root / "sessions").mkdir()
    for sid in ids:
        (root / "sessions" / f"{sid}.md").write_text(f"# Session: {sid}\n\n## Decisions\n\n- one\n", encoding="utf-8")
    release, recording = threading.Event(), threading.Event()
    real = revisions.record

    def slow(mroot, sid, data):
        recording.set()
        release.wait(10)  # the first recording of a new root: far slower than one poll
        return real(mroot, sid, data)

    monkeypatch.setattr(revisions, "record", slow)
    app = MemboardApp(root, watch=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(200):
                await pilot.pause(0.02)
                if recording.is_set():
                    break
            assert recording.is_set()
            sid = "2026-06-01-0929-newcomer"
            with open(path, "a", encoding="utf-8") as f:
                f.write(table_line(make_row(sid)) + "\n")  # a hook registers a chat
            app.sessions.check_files()
            for _ in range(100):
                await pilot.pause(0.02)
                if sid in app.sessions.model.by_id:
                    break
            assert sid in app.sessions.model.by_id, "the registration waited for the first revisions"
            assert [r.id for r in app.sessions.table.rows][-1] == sid
            release.set()
            for _ in range(250):
                await pilot.pause(0.02)
                if all(revisions.contents(app.memory_root, s) for s in ids):
                    break
            assert all(len(revisions.contents(app.memory_root, s)) == 1 for s in ids)  # every snapshot, once
    finally:
        release.set()
