"""Continue from a source session: its row lists the session, the session's snapshot lists it; verified."""

from __future__ import annotations

from datetime import datetime

from ..errors import UsageError
from ..files.root import MemoryRoot
from ..formats.clock import format_ts
from ..formats.ids import check_id
from ..formats.index import IndexFile, format_refs
from ..formats.layout import INDEX, session_path
from ..formats.snapshot import Snapshot, add_items, render_template, set_metadata
from ..plan import Change, Check, Plan
from ..results import ContinueResult, ManualResult
from ..secrets import refuse_secrets
from .checks import refs_contain, row_exists
from .common import find_row
from .manual import plan_manual


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
) -> Plan[ContinueResult | ManualResult]:
    """Continue from source_id as as_id (or as a newly registered session when as_id is None)."""
    check_id(source_id, "source session ID")
    if as_id is not None:
        check_id(as_id, "session ID")
        if as_id == source_id:
            raise UsageError("a session cannot continue from itself")
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    source = find_row(index, source_id, "source session", root)
    if as_id is None:
        manual = plan_manual(
            root,
            when,
            agent,
            topic=source.get("topic"),
            summary=f"Continues from {source_id}.",
            continues_from=source_id,
            allow_secrets=allow_secrets,
        )
        registered: Plan[ContinueResult | ManualResult] = manual.with_result(manual.result)
        return registered
    current = find_row(index, as_id, root=root)
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
        new = snap.to_bytes(text)
    already = old is not None and source_id in Snapshot(old).continues_from() and as_id in source.refs
    plan: Plan[ContinueResult | ManualResult] = Plan("continue", ContinueResult(as_id, source_id))
    if already:
        plan.report.append(f"{as_id} already continues from {source_id}; nothing to change")
        return plan
    if new != old:
        plan.changes.append(Change.write(rel, old, new))
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
