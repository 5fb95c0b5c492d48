"""Release a reference: the source row stops listing the session, its snapshot stops listing the source."""

from __future__ import annotations

from ..errors import Refused
from ..files.root import MemoryRoot
from ..formats.ids import check_id
from ..formats.index import IndexFile, format_refs
from ..formats.layout import INDEX, session_path
from ..formats.snapshot import Snapshot, listed_id, remove_items
from ..plan import Change, Check, Plan
from ..results import ReleaseResult
from .common import find_row, load_index
from .continue_from import continues_check


def plan_release(root: MemoryRoot, source_id: str, as_id: str) -> Plan[ReleaseResult]:
    """Remove as_id from source_id's Referenced By, then source_id from as_id's Continues From."""
    check_id(source_id, "source session ID")
    check_id(as_id, "session ID")
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    source = find_row(index, source_id, "source session", root)
    rel = session_path(as_id)
    old = root.read(rel)
    snap = Snapshot(old) if old is not None else None
    listed = snap is not None and source_id in snap.continues_from()
    if as_id not in source.refs and not listed:
        raise Refused(f"{as_id} does not reference {source_id}: nothing to release")
    plan = Plan("release", ReleaseResult(as_id, source_id))
    if as_id in source.refs:
        remaining = [r for r in source.refs if r != as_id]
        edit = index.edit().set_fields(source, {"referenced_by": format_refs(remaining)})
        plan.changes.append(Change("modify", INDEX, before, edit.to_bytes()))
    if snap is not None and listed:
        keys = {it.key for it in snap.items("Continues From") if listed_id(it.text) == source_id}
        text = remove_items(snap.text(), "Continues From", keys)
        new = snap.to_bytes(text)
        plan.changes.append(Change("modify", rel, old, new))
    plan.checks.append(
        Check(
            f"{source_id} no longer lists {as_id} under Referenced By",
            lambda r: all(as_id not in row.refs for row in load_index(r).find(source_id)),
        )
    )
    plan.checks.append(continues_check(rel, source_id, False))
    plan.report.append(f"{as_id} no longer references {source_id}")
    return plan
