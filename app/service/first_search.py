"""The first search on a root whose search cache is not built yet, as the board runs it: the index rows answer
at once while the cache is built beside them.

A first search builds the cache of every row, snapshot, note and archived session (seconds on a 20k-row root);
the board shows that build's progress and, meanwhile, the rows of index.md that match, ranked as the search
ranks them (core/search/engine.py), so a person sees results for the rows before the whole build is done.
Once the cache is built, the board asks again and the whole answer replaces the rows'.
"""

from __future__ import annotations

import threading
from typing import Any

from ..core.files.root import MemoryRoot
from ..core.search import cache as search_cache
from ..core.search.docs import Facts, doc_order, facts, fold, resolve
from ..core.search.engine import Candidate, Matcher, Ranked, SearchFilters, SearchHit, build_hits, check_query
from ..core.search.parse import iter_lines, read_index, row_record, table_of

_BUILDS: dict[str, threading.Lock] = {}  # one build per root in this process: a second board search waits for it
_GUARD = threading.Lock()


def cache_missing(root: MemoryRoot) -> bool:
    """Whether a search on root would build its cache first (this SQLite has FTS5 and no cache file is there)."""
    if not search_cache.fts_available():
        return False
    try:
        return not search_cache.cache_path(root).exists()
    except OSError:
        return False


def build_cache(root: MemoryRoot, progress: search_cache.Progress | None = None) -> str:
    """Build root's search cache as a first search does (progress gets its lines); "" when built, else why not
    (another process builds it, or it cannot be written here: the search then reads the files)."""
    with _GUARD:
        build = _BUILDS.setdefault(str(root.real), threading.Lock())
    try:
        with build:  # a search opened again while the first build runs waits for it, and finds the cache there
            if not cache_missing(root):
                return ""
            with search_cache.SearchCache(root, progress, refresh=False):
                return ""
    except (search_cache.CacheBusy, search_cache.CacheUnavailable) as exc:
        return str(exc)


def _maybe_matches(line: bytes, matcher: Matcher) -> bool:
    """A cheap test that never misses a row whose cells match: the line itself, its pipes unescaped (a line with
    escaped backslashes is always parsed)."""
    text = line.decode("utf-8", "replace")
    return "\\\\" in text or matcher.found(text) or matcher.found(text.replace("\\|", "|"))


def _row_key(line: bytes, columns: tuple[str, ...]) -> str | None:
    """The Session ID cell of a line when it reads without parsing the row (the ID first, no escapes), else None."""
    if not columns or columns[0] != "Session ID" or not line.lstrip().startswith(b"|"):
        return None
    parts = line.split(b"|", 2)
    if len(parts) < 3 or b"\\" in parts[1]:
        return None
    return parts[1].decode("utf-8", "replace").strip()


def row_hits(root: MemoryRoot, query: str, filters: SearchFilters | None = None) -> list[SearchHit]:
    """The live sessions whose index.md rows match query, best first, as search ranks them (UsageError on a bad
    query; Unreadable when index.md cannot be read). No snapshot, note or archived session is read."""
    query = check_query(query)
    filters = (filters or SearchFilters()).normalized()
    matcher = Matcher(query, filters.syntax)
    section = fold(filters.section) if filters.section is not None else None
    data = read_index(str(root.path))
    columns, start, end = table_of(data)
    found: dict[tuple[str, str], list[Any]] = {}  # (kind, key) -> best weight, matches, order, doc, path
    known: dict[tuple[str, str], list[Facts]] = {}  # every row of a matching session tells its status
    parsed: set[int] = set()
    for number, line in enumerate(iter_lines(data, start, end)):
        rec = row_record(line, columns) if _maybe_matches(line, matcher) else None
        if rec is None:
            continue
        parsed.add(number)
        known.setdefault((rec.kind, rec.key), []).append(facts(rec))
        for doc in rec.docs:
            if (section is not None and fold(doc.section) != section) or not matcher.found(doc.text):
                continue
            order = doc_order(doc, rec.path)
            entry = found.setdefault((rec.kind, rec.key), [doc.weight, 0, order, doc, rec.path])
            entry[0], entry[1] = max(entry[0], doc.weight), entry[1] + 1
            if order < entry[2]:
                entry[2:] = [order, doc, rec.path]
    wanted = {key for _kind, key in found}
    for number, line in enumerate(iter_lines(data, start, end) if found else ()):
        quick = _row_key(line, columns) if number not in parsed else ""
        rec = row_record(line, columns) if quick is None or quick in wanted else None
        if rec is not None and (rec.kind, rec.key) in found:
            known.setdefault((rec.kind, rec.key), []).append(facts(rec))
    ranked: list[Ranked] = []
    for (kind, key), (best, n, _order, _doc, _path) in found.items():
        info = resolve(kind, key, known.get((kind, key), []))
        if info is not None and filters.passes(info):
            ranked.append((kind, key, best, n, info))
    ranked.sort(key=lambda r: (r[1], r[0]))
    ranked.sort(key=lambda r: r[4].updated_sort, reverse=True)
    ranked.sort(key=lambda r: (r[2], r[3]), reverse=True)
    ranked = ranked[: filters.limit]
    candidates: dict[tuple[str, str], list[Candidate]] = {
        (r[0], r[1]): [(0, found[(r[0], r[1])][3], found[(r[0], r[1])][4])] for r in ranked
    }
    return build_hits(ranked, candidates, matcher, filters)
