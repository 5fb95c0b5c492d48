"""What operations verify after writing: checks over the files as they are on disk afterwards."""

from __future__ import annotations

from ..files.root import MemoryRoot
from ..formats.layout import INDEX
from ..plan import Check
from .common import load_index


def row_exists(session_id: str, **fields: str) -> Check:
    """A check that the index has exactly one row for session_id with these field values."""

    def holds(root: MemoryRoot) -> bool:
        rows = load_index(root).find(session_id)
        return len(rows) == 1 and all(rows[0].get(k) == v for k, v in fields.items())

    return Check(f"index.md has the row of {session_id}", holds, INDEX)


def row_absent(session_id: str) -> Check:
    """A check that the index no longer has session_id."""
    return Check(f"index.md no longer lists {session_id}", lambda root: not load_index(root).find(session_id), INDEX)


def file_exists(rel: str) -> Check:
    """A check that rel exists."""
    return Check(f"{rel} exists", lambda root: root.read(rel) is not None)


def refs_contain(source_id: str, sid: str) -> Check:
    """A check that source_id's Referenced By lists sid."""
    return Check(
        f"{source_id} lists {sid} under Referenced By",
        lambda root: any(sid in r.refs for r in load_index(root).find(source_id)),
        INDEX,
    )
