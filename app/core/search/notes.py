"""Searching typed notes (seed 001's mem_search): the same search as `memboard search`, active notes first.

`search_notes(root, query, filters)` finds notes only (SearchFilters' kind is set to `note`),
filtered by type, scope, project and status. Without a status filter, active notes come first,
best first among them, then the others (superseded notes, or notes whose Status is unreadable).
`find_notes` says too which note files could not be read (they may hold a match).
"""

from __future__ import annotations

from collections.abc import Callable

from ..files.root import MemoryRoot
from .docs import NOTE
from .engine import MAX_LIMIT, SearchFilters, SearchHit, SearchOutcome, answers_beside, run, search


def search_notes(
    root: MemoryRoot | str,
    query: str,
    filters: SearchFilters | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[SearchHit]:
    """Notes matching query, active ones first (see the module's docstring); UsageError on bad input."""
    return find_notes(root, query, filters, progress).hits


def find_notes(
    root: MemoryRoot | str,
    query: str,
    filters: SearchFilters | None = None,
    progress: Callable[[str], None] | None = None,
    beside: bool = False,
) -> SearchOutcome:
    """search_notes, with how the hits were found and the note files that could not be read (beside: as run's)."""
    filters = (filters or SearchFilters())._replace(kind=NOTE)
    if filters.status is not None:
        return run(root, query, filters, progress, beside=beside)
    if beside and answers_beside(root):  # one read of the files within the first answer's time, active notes first
        every = run(root, query, filters._replace(limit=MAX_LIMIT), progress, beside=True)
        return every._replace(hits=sorted(every.hits, key=lambda hit: hit.status != "active")[: filters.limit])
    active = run(root, query, filters._replace(status="active"), progress)
    if len(active.hits) >= filters.limit:
        return active
    seen = {hit.id for hit in active.hits}
    rest = [hit for hit in search(root, query, filters, progress, check_files=False) if hit.id not in seen]
    return active._replace(hits=active.hits + rest[: filters.limit - len(active.hits)])
