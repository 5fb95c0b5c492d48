"""The search cache's bulk build against the way it wrote a cache before its shortcuts: the same tables, the same FTS5
index, on generated roots of both kinds (issue 29's roots a and b, with archived sessions and typed notes)."""

from __future__ import annotations

import sqlite3

import pytest

from bench.notes import write_notes
from bench.roots import generate, generate_b
from bench.search import add_archived
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.text import line_body, split_cells, unescape
from memboard.core.search import build
from memboard.core.search.cache import SearchCache
from memboard.core.search.parse import _plan

TABLES = {
    "sessions": "SELECT * FROM sessions ORDER BY sid",
    "records": "SELECT * FROM records ORDER BY id",
    "docs": "SELECT * FROM docs ORDER BY id",
    "meta": "SELECT name, value FROM meta WHERE name NOT IN ('listing', 'index_stat') ORDER BY name",
    "fts": "SELECT term, doc, col, offset FROM temp.instances ORDER BY term, doc, col, offset",
}


def careful_values(line: bytes, columns: tuple[str, ...]) -> list[str]:
    """row_values as it read every line holding a backslash: the escape-aware split_cells, unescaped."""
    cells = split_cells(line_body(line.decode("utf-8", "replace"))) or []
    return [unescape(cells[pos]).strip() if pos < len(cells) else "" for pos in _plan(columns)]


def as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the build write as it did before: every row through session(), read by the careful split, and each
    batch's texts bound again into FTS5 as the batch is written."""
    flush = build.BulkWriter.flush

    def flush_with_fts(self: build.BulkWriter) -> None:
        self.con.executemany(
            "INSERT INTO fts(rowid, ftext) VALUES (?, ? || char(10, 10))", [(d[0], d[4]) for d in self.docs]
        )
        flush(self)

    monkeypatch.setattr(build.BulkWriter, "lone_row", lambda self, values, fingerprint, source: False)
    monkeypatch.setattr(build, "row_values", careful_values)
    monkeypatch.setattr(build.BulkWriter, "flush", flush_with_fts)
    monkeypatch.setattr(build, "FEED", "SELECT 1")


def cache_dump(root, state, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[tuple[object, ...]]]:
    """Every row of a cache built afresh for root (in state), and FTS5's every term instance."""
    monkeypatch.setenv("MEMBOARD_STATE_DIR", str(state))
    with SearchCache(MemoryRoot(root), refresh=False) as cache:
        path = cache.path
    con = sqlite3.connect(path)
    try:
        con.execute("CREATE VIRTUAL TABLE temp.instances USING fts5vocab(main, fts, 'instance')")
        con.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 1)")  # (raises when the index is not whole)
        return {name: con.execute(sql).fetchall() for name, sql in TABLES.items()}
    finally:
        con.close()


@pytest.mark.parametrize("kind", ["a", "b"])
def test_the_bulk_build_writes_the_cache_it_wrote_before(tmp_path, monkeypatch, kind):
    root = tmp_path / "root"
    (generate if kind == "a" else generate_b)(root, 1500)
    add_archived(root, 40)
    write_notes(root, 60)
    now = cache_dump(root, tmp_path / "now", monkeypatch)
    with monkeypatch.context() as m:
        as_before(m)
        before = cache_dump(root, tmp_path / "before", m)
    assert len(now["docs"]) > 5000 and len(now["fts"]) > 100_000
    assert sum("\\|" in line for line in (root / "index.md").read_text(encoding="utf-8").splitlines()) > 50
    for name in TABLES:
        assert now[name] == before[name], name
