"""The first search on a root whose search cache is not built yet, as the board runs it: the index rows answer
at once while the cache is built beside them.

A first search builds the cache of every row, snapshot, note and archived session (seconds on a 20k-row root);
the board shows that build's progress and, meanwhile, the rows of index.md that match, ranked as the search
ranks them (core/search/engine.py), so a person sees results for the rows before the whole build is done.
Once the cache is built, the board asks again and the whole answer replaces the rows'.
"""

from __future__ import annotations

import threading

from ..core.files.root import MemoryRoot
from ..core.search import cache as search_cache
from ..core.search.engine import Matcher, SearchFilters, SearchHit, build_hits, check_query
from ..core.search.scan import scan

_BUILDS: dict[str, threading.Lock] = {}  # one build per root in this process: a second board search waits for it
_GUARD = threading.Lock()
_LISTENERS: dict[str, list[search_cache.Progress]] = {}  # per root: every search waiting for its build's progress
_LAST: dict[str, str] = {}  # per root: the build's last progress line (a search opened again shows it at once)


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
    (another process builds it, or it cannot be written here: the search then reads the files). A search opened
    again while this process builds it gets that build's progress (its last line at once) and waits for it."""
    key = str(root.real)
    with _GUARD:
        build = _BUILDS.setdefault(key, threading.Lock())
        listeners = _LISTENERS.setdefault(key, [])
        if progress is not None:
            listeners.append(progress)
        last = _LAST.get(key)
    if progress is not None and last is not None:
        progress(last)

    def tell(line: str) -> None:
        """Pass a line of the build to every search waiting for it."""
        with _GUARD:
            _LAST[key] = line
            waiting = list(listeners)
        for listener in waiting:
            listener(line)

    try:
        with build:  # a search opened again while the first build runs waits for it, and finds the cache there
            if not cache_missing(root):
                return ""
            try:
                with search_cache.SearchCache(root, tell, refresh=False):
                    return ""
            finally:
                with _GUARD:
                    _LAST.pop(key, None)
    except (search_cache.CacheBusy, search_cache.CacheUnavailable) as exc:
        return str(exc)
    finally:
        with _GUARD:
            if progress is not None and progress in listeners:
                listeners.remove(progress)


def row_hits(root: MemoryRoot, query: str, filters: SearchFilters | None = None) -> list[SearchHit]:
    """The live sessions whose index.md rows match query, best first, as search ranks them (UsageError on a bad
    query; Unreadable when index.md cannot be read). No snapshot, note or archived session is read."""
    query = check_query(query)
    filters = (filters or SearchFilters()).normalized()
    matcher = Matcher(query, filters.syntax)
    ranked, candidates = scan(str(root.path), matcher, filters, {}, files=False)
    return build_hits(ranked, candidates, matcher, filters)
