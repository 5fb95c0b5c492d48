"""Merging two (or, for git, three) versions of index.md by Session ID with a rule per column (issue 26 §2)."""

from __future__ import annotations

from .result import Merged, Prefer


def merge_index(
    ours: bytes,
    theirs: bytes,
    base: bytes | None = None,
    *,
    archived: frozenset[str] = frozenset(),
    prefer: Prefer | None = None,
    only: str | None = None,
    marker_size: int | None = None,
) -> Merged:
    """index.md merged from ours and theirs (and their common ancestor base, for git's driver).

    archived: Session IDs whose `archive/<id>/` exists (their rows only in theirs are held back);
    prefer: decide open cells with ours' or theirs' value (of session `only`, else every one);
    marker_size: leave one conflict block after the table for the open rows (git's driver) instead
    of ours' values alone."""
    raise NotImplementedError("merge_index is not built yet")
