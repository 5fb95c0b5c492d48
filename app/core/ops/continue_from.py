"""Continue from a source session and release a reference: both sides, verified."""

from __future__ import annotations

from datetime import datetime

from ..formats.clock import format_ts
from ..errors import Refused, UsageError
from ..formats.ids import check_id
from ..formats.index import IndexFile, format_refs
from ..plan import Change, Check, Plan
from ..formats.layout import INDEX, session_path
from ..files.root import MemoryRoot
from ..secrets import refuse_secrets
from ..formats.snapshot import Snapshot, add_items, listed_id, remove_items, render_template, set_metadata
from .common import find_row, load_index
from .register import plan_manual, refs_contain, row_exists


def continues_check(rel: str, source_id: str, present: bool) -> Check:
    """A check that the snapshot at rel does (or does not) list source_id under Continues From."""

    def holds(root: MemoryRoot) -> bool:
        data = root.read(rel)
        listed = data is not None and source_id in Snapshot(data).continues_from()
        return listed == present

    word = "lists" if present else "no longer lists"
    return Check(f"{rel} {word} {source_id} under Continues From", holds)


def plan_continue(
    root: MemoryRoot,
    source_id: str,
    when: datetime,
    as_id: str | None = None,
    agent: str = "cursor-main-agent",
    allow_secrets: bool = False,
) -> Plan:
    """Continue from source_id as as_id (or as a newly registered session when as_id is None)."""
    check_id(source_id, "source session ID")
    if as_id is not None:
        check_id(as_id, "session ID")
        if as_id == source_id:
            raise UsageError("a session cannot continue from itself")
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    source = find_row(index, source_id, "source session")
    if as_id is None:
        return plan_manual(
            root,
            when,
            agent,
            topic=source.get("topic"),
            summary=f"Continues from {source_id}.",
            continues_from=source_id,
            allow_secrets=allow_secrets,
        )
    current = find_row(index, as_id)
    ts = format_ts(when)
    rel = session_path(as_id)
    old = root.read(rel)
    note = f"Continuing from {source_id} ({source.get('topic')})."
    refuse_secrets({f"topic of {source_id}": source.get("topic")}, allow_secrets)
    if old is None:
        text = render_template(
            as_id,
            current.get("agent"),
            current.get("topic"),
            current.get("started_at") or ts,
            ts,
            context=note,
            continues=[source_id],
        )
        new = text.encode("utf-8", "surrogateescape")  # row cells keep bytes that are not UTF-8
    else:
        snap = Snapshot(old)
        text = snap.text()
        if source_id not in snap.continues_from():
            text = add_items(text, "Continues From", [source_id])
            text = add_items(text, "Current Context", [note], bullet=False)
        text = set_metadata(text, {"Status": "active", "Updated At": ts})
        new = (("\ufeff" if snap.bom else "") + text).encode("utf-8", "surrogateescape")
    already = old is not None and source_id in Snapshot(old).continues_from() and as_id in source.refs
    plan = Plan("continue")
    plan.result = {"session_id": as_id, "continues_from": source_id}
    if already:
        plan.report.append(f"{as_id} already continues from {source_id}; nothing to change")
        return plan
    if new != old:
        plan.changes.append(Change("create" if old is None else "modify", rel, old, new))
    edit = index.edit().set_fields(current, {"status": "active", "updated_at": ts})
    if as_id not in source.refs:
        edit.set_fields(source, {"referenced_by": format_refs(source.refs + [as_id])})
    plan.changes.append(Change("modify", INDEX, before, edit.to_bytes()))
    plan.checks += [
        continues_check(rel, source_id, True),
        refs_contain(source_id, as_id),
        row_exists(as_id, status="active"),
    ]
    plan.report.append(f"{as_id} continues from {source_id}")
    return plan


def plan_release(root: MemoryRoot, source_id: str, as_id: str, when: datetime | None = None) -> Plan:
    """Remove as_id from source_id's Referenced By, then source_id from as_id's Continues From."""
    check_id(source_id, "source session ID")
    check_id(as_id, "session ID")
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    source = find_row(index, source_id, "source session")
    rel = session_path(as_id)
    old = root.read(rel)
    listed = old is not None and source_id in Snapshot(old).continues_from()
    if as_id not in source.refs and not listed:
        raise Refused(f"{as_id} does not reference {source_id}: nothing to release")
    plan = Plan("release")
    if as_id in source.refs:
        remaining = [r for r in source.refs if r != as_id]
        edit = index.edit().set_fields(source, {"referenced_by": format_refs(remaining)})
        plan.changes.append(Change("modify", INDEX, before, edit.to_bytes()))
    if listed:
        snap = Snapshot(old)
        keys = {it.key for it in snap.items("Continues From") if listed_id(it.text) == source_id}
        text = remove_items(snap.text(), "Continues From", keys)
        new = (("\ufeff" if snap.bom else "") + text).encode("utf-8", "surrogateescape")
        plan.changes.append(Change("modify", rel, old, new))
    plan.checks.append(
        Check(
            f"{source_id} no longer lists {as_id} under Referenced By",
            lambda r: all(as_id not in row.refs for row in load_index(r).find(source_id)),
        )
    )
    plan.checks.append(continues_check(rel, source_id, False))
    plan.result = {"session_id": as_id, "released": source_id}
    plan.report.append(f"{as_id} no longer references {source_id}")
    return plan
