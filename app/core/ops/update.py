"""Session update: merge the snapshot by section (or create it), promote the row to active."""

from __future__ import annotations

from datetime import datetime

from ..errors import Refused
from ..files.root import MemoryRoot
from ..formats.clock import format_ts
from ..formats.index import IndexFile, Row
from ..formats.layout import INDEX, session_path
from ..formats.snapshot import (
    MergeResult,
    Snapshot,
    add_items,
    merge,
    render_template,
    require_sections,
    set_metadata,
    vanished,
)
from ..formats.text import encode
from ..plan import Change, Check, Plan
from ..results import UpdateResult
from ..secrets import refuse_secrets
from .checks import file_exists, refs_contain, row_exists
from .common import find_row, link_sources, one_line


def updated_snapshot(
    old: bytes | None,
    row: Row,
    ts: str,
    topic: str | None,
    summary: str | None,
    snapshot_text: str | None,
) -> tuple[bytes, MergeResult | None]:
    """The snapshot after an update, merged into the old one or created from the template; and what
    merging snapshot_text did (None when there was none)."""
    if snapshot_text is not None:
        require_sections(snapshot_text)
    snap = Snapshot(old) if old is not None else None
    if snap is None:
        text = render_template(
            row.id,
            row.get("agent"),
            topic or row.get("topic"),
            row.get("started_at") or ts,
            ts,
            context=summary or row.get("summary"),
        )
    else:
        text = snap.text()
    merged = merge(text, snapshot_text) if snapshot_text else None
    if merged is not None:
        text = merged.text
    if snap is not None and summary and not (snapshot_text and Snapshot(snapshot_text).items("Current Context")):
        # keep the index Summary and the snapshot's Current Context aligned (the seed asks for both)
        text = add_items(text, "Current Context", [summary], bullet=False)
    meta = {"Status": "active", "Updated At": ts}
    if topic:
        meta["Topic"] = topic
    text = set_metadata(text, meta)
    if snap is not None:
        lost = vanished(snap.text(), text)
        if lost:  # the merge never drops items; this guards the guarantee
            raise Refused(
                f"update would drop {len(lost)} item(s) of the old snapshot, e.g. {lost[0][1][:60]!r}; nothing written",
                says_written=True,
            )
    return (encode(text) if snap is None else snap.to_bytes(text)), merged


def row_changes(ts: str, topic: str | None, summary: str | None, keywords: str | None) -> dict[str, str]:
    """The row's new cells: active, Updated At now, and the fields given."""
    changes = {"status": "active", "updated_at": ts}
    for name, value in (("topic", topic), ("summary", summary), ("keywords", keywords)):
        if value:
            changes[name] = value
    return changes


def kept_check(old: bytes, rel: str) -> Check:
    """A check that every item of the old snapshot still appears, or is marked."""
    old_text = Snapshot(old).text()
    return Check(
        "earlier snapshot items still appear or are marked",
        lambda r: not vanished(old_text, Snapshot(r.read(rel) or b"").text()),
    )


def plan_update(
    root: MemoryRoot,
    session_id: str,
    when: datetime,
    topic: str | None = None,
    summary: str | None = None,
    keywords: str | None = None,
    snapshot_text: str | None = None,
    allow_secrets: bool = False,
) -> Plan[UpdateResult]:
    """Update a session: snapshot first (merge or create), then only its index row."""
    topic = one_line(topic, "topic")
    summary = one_line(summary, "summary")
    keywords = one_line(keywords, "keywords")
    refuse_secrets({"topic": topic, "summary": summary, "keywords": keywords, "snapshot": snapshot_text}, allow_secrets)
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    row = find_row(index, session_id, root=root)
    ts = format_ts(when)
    rel = session_path(session_id)
    old = root.read(rel)
    new, merged = updated_snapshot(old, row, ts, topic, summary, snapshot_text)
    edit = index.edit().set_fields(row, row_changes(ts, topic, summary, keywords))
    known = Snapshot(old).continues_from() if old is not None else []
    added_sources = [s for s in Snapshot(new).continues_from() if s not in known]
    linked = link_sources(index, edit, session_id, added_sources, root)  # Continues From never one-sided
    carried = [t for _, t in merged.carried] if merged else []
    plan = Plan(
        "update",
        UpdateResult(
            session_id,
            snapshot_created=old is None,
            added=[t for _, t in merged.added] if merged else [],
            marked=[t for _, t in merged.marked] if merged else [],
            carried_over=carried,
            continues_from=added_sources or None,
        ),
    )
    if new != old:
        plan.changes.append(Change.write(rel, old, new))
    plan.changes.append(Change("modify", INDEX, before, edit.to_bytes()))
    plan.checks += [refs_contain(src, session_id) for src in added_sources]
    plan.checks += [file_exists(rel), row_exists(session_id, status="active", updated_at=ts)]
    if old is not None:
        plan.checks.append(kept_check(old, rel))
    if added_sources:
        plan.report.append(
            f"continues from {', '.join(added_sources)} (Referenced By updated: {', '.join(linked) or 'already'})"
        )
    plan.report.append(f"updated {session_id} (active, Updated At {ts})")
    if old is None:
        plan.report.append(f"created {rel}")
    if carried:
        plan.report.append(f"kept {len(carried)} earlier item(s) the new snapshot left out")
    return plan
