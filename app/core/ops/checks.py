"""What operations verify after writing: checks over the files as they are on disk afterwards."""

from __future__ import annotations

from ..files.root import MemoryRoot
from ..plan import Check
from .common import load_index


def row_exists(session_id: str, **fields: str):
    """A check that the index has exactly one row for session_id with these field values."""

    def holds(root: MemoryRoot) -> bool:
        rows = load_index(root).find(session_id)
        return len(rows) == 1 and all(rows[0].get(k) == v for k, v in fields.items())

    return Check(f"index.md has the row of {session_id}", holds)


def row_absent(session_id: str):
    """A check that the index no longer has session_id."""
    return Check(f"index.md no longer lists {session_id}", lambda root: not load_index(root).find(session_id))


def file_exists(rel: str):
    """A check that rel exists."""
    return Check(f"{rel} exists", lambda root: root.read(rel) is not None)


def refs_contain(source_id: str, sid: str):
    """A check that source_id's Referenced By lists sid."""
    return Check(
        f"{source_id} lists {sid} under Referenced By",
        lambda root: any(sid in r.refs for r in load_index(root).find(source_id)),
    )


def continues_check(rel: str, source_id: str, present: bool) -> Check:
    """A check that the snapshot at rel does (or does not) list source_id under Continues From."""

    from ..formats.snapshot import Snapshot  # lazy: register's checks are on the hook path, which never loads mistletoe (110 ms)

    def holds(root: MemoryRoot) -> bool:
        data = root.read(rel)
        listed = data is not None and source_id in Snapshot(data).continues_from()
        return listed == present

    word = "lists" if present else "no longer lists"
    return Check(f"{rel} {word} {source_id} under Continues From", holds)
