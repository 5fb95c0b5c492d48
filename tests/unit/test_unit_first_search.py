"""The board's first search on a root without a search cache (service/first_search.py): the index rows' answer,
ranked as the whole search ranks them, and one build of the cache per root at a time."""

from __future__ import annotations

import shutil
import threading

import pytest

from bench.roots import generate
from memboard.core.files.root import MemoryRoot
from memboard.core.search.engine import SearchFilters, search
from memboard.service.first_search import build_cache, cache_missing, row_hits


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    """A generated root of 400 rows with snapshots (CJK cells, escaped pipes, sessions with several rows), and a
    root holding only its index.md."""
    base = tmp_path_factory.mktemp("first")
    full = base / "full"
    generate(full, 400)
    rows = base / "rows"
    rows.mkdir()
    shutil.copy(full / "index.md", rows / "index.md")
    return full, rows


QUERIES = ["同步", "sync", "hook registration", "a | b", "|", "2026-0", "codex", "no such text at all"]


@pytest.mark.parametrize("query", QUERIES)
def test_the_rows_answer_is_the_whole_search_of_the_rows_alone(roots, query):
    full, rows = roots
    for filters in (SearchFilters(limit=50), SearchFilters(limit=5, status="active"), SearchFilters(section="Topic")):
        assert row_hits(MemoryRoot(full), query, filters) == search(rows, query, filters)


def test_the_rows_answer_reads_no_snapshot(roots):
    full, _ = roots
    hits = row_hits(MemoryRoot(full), "同步", SearchFilters(limit=50))
    assert hits and {h.where for h in hits} == {"row"} and {h.path for h in hits} == {"index.md"}


def test_one_build_per_root_and_a_second_one_finds_the_cache_built(roots, tmp_path, monkeypatch):
    full, _ = roots
    monkeypatch.setenv("MEMBOARD_STATE_DIR", str(tmp_path / "state"))
    root = MemoryRoot(full)
    assert cache_missing(root)
    said: list[list[str]] = [[], [], []]
    answers: list[str] = []
    builders = [
        threading.Thread(target=lambda heard=heard: answers.append(build_cache(root, heard.append))) for heard in said
    ]
    for builder in builders:
        builder.start()
    for builder in builders:
        builder.join(120)
    assert answers == ["", "", ""] and not cache_missing(root)
    # built once, not refused twice: a search waiting hears that one build's lines (after a second build, twice)
    heard_start = [sum(line == "search cache: indexing text…" for line in heard) for heard in said]
    assert max(heard_start) == 1, said
