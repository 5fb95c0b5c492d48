"""Merging two (or, for git, three) versions of a snapshot, an archive file or a typed note (issue 26 §2):
section by section, item by item, as `update --snapshot` and `note save` merge."""

from __future__ import annotations

from .result import Merged, Prefer


def merge_snapshot(
    ours: bytes,
    theirs: bytes,
    base: bytes | None = None,
    *,
    row: dict[str, str] | None = None,
    prefer: Prefer | None = None,
    marker_size: int | None = None,
) -> Merged:
    """A snapshot (`sessions/<id>.md`, `archive/<id>/session.md`) merged from ours and theirs (and base).

    row: the merged index row's values, when known (Status and Topic come from it); prefer and
    marker_size as for merge_index."""
    raise NotImplementedError("merge_snapshot is not built yet")


def merge_archive_index(
    ours: bytes,
    theirs: bytes,
    base: bytes | None = None,
    *,
    prefer: Prefer | None = None,
    marker_size: int | None = None,
) -> Merged:
    """`archive/<id>/index.md` merged by field: Updated At the later, Referenced By the union, others open."""
    raise NotImplementedError("merge_archive_index is not built yet")


def merge_note(
    ours: bytes,
    theirs: bytes,
    base: bytes | None = None,
    *,
    prefer: Prefer | None = None,
    marker_size: int | None = None,
) -> Merged:
    """A typed note merged: every statement of What, Why, Where and Learned; Updated the later; Supersedes
    and Superseded By unions; a differing Title, Type, Scope, Status or Project open."""
    raise NotImplementedError("merge_note is not built yet")
