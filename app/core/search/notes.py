"""Searching typed notes (seed 001's mem_search): the same search as `memboard search`, active notes first.

`search_notes(root, query, filters)` finds notes only (SearchFilters' kind is set to `note`),
filtered by type, scope, project and status. Without a status filter, active notes come first,
best first among them, then the others (superseded notes, or notes whose Status is unreadable).
"""

from __future__ import annotations

from collections.abc import Callable

from ..files.root import MemoryRoot
from .docs import NOTE
from .engine import SearchFilters, SearchHit, search


def search_notes(
    root: MemoryRoot | str,
    query: str,
    filters: SearchFilters | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[SearchHit]:
    """Notes matching query, active ones first (see the module's docstring); UsageError on bad input."""
    filters = (filters or SearchFilters())._replace(kind=NOTE)
    if filters.status is not None:
        return search(root, query, filters, progress)
    active = search(root, query, filters._replace(status="active"), progress)
    if len(active) >= filters.limit:
        return active
    seen = {hit.id for hit in active}
    rest = [hit for hit in search(root, query, filters, progress, check_files=False) if hit.id not in seen]
    return active + rest[: filters.limit - len(active)]
