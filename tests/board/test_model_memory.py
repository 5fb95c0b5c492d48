"""The board at 100k rows fits beside a bare app: rows stream into the model, repeated texts are kept once,
and no poll re-reads a big index while the first read is still under way."""

from __future__ import annotations

import os
from datetime import datetime

from memboard.board.loader import CopyScan
from memboard.board.model import BoardModel, BoardRow
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.index import COLUMNS, IndexFile

NOW = datetime(2026, 6, 1, 9, 30)
HEAD = "| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n"


def test_the_model_holds_the_rows_read_one_by_one_with_repeated_texts_kept_once():
    rows = [
        f"| 2026-05-{day:02d}-1000-a | a | 未設定 | sessionStart 自動註冊 | kw | idle | - | 2026-05-01 10:00 | 2026-05-01 10:00 |\n"
        for day in range(1, 6)
    ] + ["| 2026-05-09-1000-b | b | Topic \\| piped | S | kw | active | 2026-05-01-1000-a | x | y |\n", "| broken |\n"]
    index = IndexFile(("# Index\n\n" + HEAD + "".join(rows)).encode("utf-8"))
    model = BoardModel.from_index(index, {"2026-05-02-1000-a"}, NOW)
    assert model.rows == [BoardRow.from_row(r, r.id == "2026-05-02-1000-a") for r in IndexFile(index.data).rows]
    first, second = model.rows[0], model.rows[1]
    assert first.topic is second.topic and first.summary is second.summary and first.started_at is second.updated_at
    assert model.source is not None and model.source.prelude == HEAD.encode("utf-8")


def test_no_reload_for_sync_copies_before_the_first_scan(tmp_path):
    root = tmp_path / "memory"
    (root / "sessions").mkdir(parents=True)
    scan = CopyScan(MemoryRoot(root))
    assert not scan.stale()  # the board's first read scans; until then a poll starts no reload
    assert scan.current() == [] and not scan.stale()
    (root / "sessions" / "2026-05-01-1000-a.md").write_text("x\n")
    later = os.stat(root / "sessions").st_mtime_ns + 1_000_000_000
    os.utime(root / "sessions", ns=(later, later))
    assert scan.stale()
