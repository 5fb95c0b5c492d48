"""Session update: merge the snapshot by section (or create it), promote the row to active."""

from __future__ import annotations

from datetime import datetime

from ..formats.clock import format_ts
from ..errors import Refused
from ..plan import Change, Check, Plan
from ..formats.layout import INDEX, session_path
from ..files.root import MemoryRoot
from ..secrets import refuse_secrets
from ..formats.snapshot import Snapshot, add_items, merge, render_template, set_metadata, vanished
from .common import find_row, link_sources, one_line, require_sections
from .checks import file_exists, refs_contain, row_exists


def updated_snapshot(
    old: bytes | None,
    row,
    ts: str,
    topic: str | None,
    summary: str | None,
    snapshot_text: str | None,
) -> tuple[bytes, dict]:
    """The snapshot after an update: merged into the old one, or created from the template."""
    info: dict = {"created": old is None, "added": [], "marked": [], "carried": []}
    if snapshot_text is not None:
        require_sections(snapshot_text)
    if old is None:
        text = render_template(
            row.id,
            row.get("agent"),
            topic or row.get("topic"),
            row.get("started_at") or ts,
            ts,
            context=summary or row.get("summary"),
        )
        bom = False
    else:
        snap = Snapshot(old)
        text, bom = snap.text(), snap.bom
    if snapshot_text:
        result = merge(text, snapshot_text)
        text = result.text
        info.update(added=result.added, marked=result.marked, carried=result.carried)
    if old is not None and summary and not (snapshot_text and Snapshot(snapshot_text).items("Current Context")):
        # keep the index Summary and the snapshot's Current Context aligned (the seed asks for both)
        text = add_items(text, "Current Context", [summary], bullet=False)
    meta = {"Status": "active", "Updated At": ts}
    if topic:
        meta["Topic"] = topic
    text = set_metadata(text, meta)
    data = (("\ufeff" if bom else "") + text).encode("utf-8", "surrogateescape")
    if old is not None:
        lost = vanished(Snapshot(old).text(), text)
        if lost:  # the merge never drops items; this guards the guarantee
            raise Refused(f"update would drop {len(lost)} item(s) of the old snapshot, e.g. {lost[0][1][:60]!r}; nothing written")
    return data, info


def plan_update(
    root: MemoryRoot,
    session_id: str,
    when: datetime,
    topic: str | None = None,
    summary: str | None = None,
    keywords: str | None = None,
    snapshot_text: str | None = None,
    allow_secrets: bool = False,
) -> Plan:
    """Update a session: snapshot first (merge or create), then only its index row."""
    topic = one_line(topic, "topic")
    summary = one_line(summary, "summary")
    keywords = one_line(keywords, "keywords")
    refuse_secrets({"topic": topic, "summary": summary, "keywords": keywords, "snapshot": snapshot_text}, allow_secrets)
    before = root.read(INDEX)
    from ..formats.index import IndexFile

    index = IndexFile(before or b"")
    row = find_row(index, session_id)
    ts = format_ts(when)
    rel = session_path(session_id)
    old = root.read(rel)
    new, info = updated_snapshot(old, row, ts, topic, summary, snapshot_text)
    changes = {"status": "active", "updated_at": ts}
    if topic:
        changes["topic"] = topic
    if summary:
        changes["summary"] = summary
    if keywords:
        changes["keywords"] = keywords
    plan = Plan("update")
    if new != old:
        plan.changes.append(Change("create" if old is None else "modify", rel, old, new))
    edit = index.edit().set_fields(row, changes)
    known = Snapshot(old).continues_from() if old is not None else []
    added_sources = [s for s in Snapshot(new).continues_from() if s not in known]
    linked = link_sources(index, edit, session_id, added_sources)  # Continues From never one-sided
    plan.changes.append(Change("modify", INDEX, before, edit.to_bytes()))
    plan.checks += [refs_contain(src, session_id) for src in added_sources]
    plan.checks.append(file_exists(rel))
    plan.checks.append(row_exists(session_id, status="active", updated_at=ts))
    if old is not None:
        old_text = Snapshot(old).text()
        plan.checks.append(
            Check(
                "earlier snapshot items still appear or are marked",
                lambda r: not vanished(old_text, Snapshot(r.read(rel) or b"").text()),
            )
        )
    plan.result = {
        "session_id": session_id,
        "snapshot_created": info["created"],
        "added": [t for _, t in info["added"]],
        "marked": [t for _, t in info["marked"]],
        "carried_over": [t for _, t in info["carried"]],
    }
    if added_sources:
        plan.result["continues_from"] = added_sources
        plan.report.append(f"continues from {', '.join(added_sources)} (Referenced By updated: {', '.join(linked) or 'already'})")
    plan.report.append(f"updated {session_id} (active, Updated At {ts})")
    if info["created"]:
        plan.report.append(f"created {rel}")
    if info["carried"]:
        plan.report.append(f"kept {len(info['carried'])} earlier item(s) the new snapshot left out")
    return plan
