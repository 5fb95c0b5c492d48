"""The board on a snapshot it cannot read: it never blocks on a FIFO, and the pane says why there is nothing to
show instead of calling the session one without a snapshot."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from memboard.board.app import MemboardApp
from memboard.widgets.snapshot_pane import SnapshotPane
from tests.board.test_board_app import SIZE, settle

B = "2026-05-31-0900-claude-agent"
GRACE = 10.0  # seconds before a reader stuck on the FIFO is let go (the test then fails, instead of hanging)


class Release(threading.Thread):
    """After GRACE seconds, open the FIFO for writing now and then: a reader blocked on it returns (and is noted)."""

    def __init__(self, fifo: Path):
        """Watch fifo."""
        super().__init__(daemon=True)
        self.fifo, self.done, self.released = fifo, threading.Event(), False
        self.start()

    def run(self) -> None:
        """Let any blocked reader go, until stopped."""
        if self.done.wait(GRACE):
            return
        while not self.done.wait(0.2):
            try:
                os.close(os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK))  # (ENXIO while nobody reads)
                self.released = True
            except OSError:
                pass

    def stop(self) -> bool:
        """Stop watching; whether a reader had to be let go."""
        self.done.set()
        self.join()
        return self.released


async def test_a_snapshot_that_is_a_fifo_never_blocks_the_board(write_index, make_row, root):
    write_index([make_row(B)])
    (root / "sessions").mkdir()
    fifo = root / "sessions" / f"{B}.md"
    os.mkfifo(fifo)
    release = Release(fifo)
    try:
        app = MemboardApp(root, watch=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert app.current_session_id == B
            text = str(app.query_one(SnapshotPane).query_one("#pane-revision").render())
            assert text == f"cannot read sessions/{B}.md: it is a FIFO, not a regular file."
    finally:
        assert not release.stop(), "the board blocked reading a FIFO"
