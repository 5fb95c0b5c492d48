"""Manual registration: a snapshot from the template first, then an active row; both verified."""

from __future__ import annotations

from datetime import datetime

from ..files.root import MemoryRoot
from ..formats.clock import format_ts
from ..formats.ids import check_agent, make_id
from ..formats.index import IndexFile, format_refs
from ..formats.layout import INDEX, session_path
from ..formats.snapshot import Snapshot, merge, render_template, require_sections, set_metadata
from ..plan import Change, Plan
from ..results import ManualResult
from ..secrets import refuse_secrets
from .checks import file_exists, refs_contain, row_exists
from .common import DEFAULT_TOPIC, MANUAL_FALLBACK_SUMMARY, MANUAL_KEYWORDS, find_row, link_sources, one_line
from .register import taken_ids


def manual_snapshot(
    sid: str,
    agent: str,
    topic: str,
    summary: str,
    ts: str,
    snapshot_text: str | None,
    continues: list[str] | None = None,
) -> bytes:
    """The first snapshot of a manually registered session, from the template."""
    text = render_template(sid, agent, topic, ts, ts, context=summary, continues=continues)
    if snapshot_text:
        require_sections(snapshot_text)
        text = merge(text, snapshot_text).text
        text = set_metadata(
            text,
            {
                "Session ID": sid,
                "Agent Name": agent,
                "Topic": topic,
                "Status": "active",
                "Started At": ts,
                "Updated At": ts,
            },
        )
    return text.encode("utf-8")


def plan_manual(
    root: MemoryRoot,
    when: datetime,
    agent: str,
    topic: str | None = None,
    summary: str | None = None,
    snapshot_text: str | None = None,
    continues_from: str | None = None,
    allow_secrets: bool = False,
) -> Plan[ManualResult]:
    """Manual registration: write the snapshot, then append an active row; verify both."""
    check_agent(agent)
    topic = one_line(topic, "topic") or DEFAULT_TOPIC
    summary = one_line(summary, "summary") or MANUAL_FALLBACK_SUMMARY
    refuse_secrets(
        {"agent name": agent, "topic": topic, "summary": summary, "snapshot": snapshot_text}, allow_secrets
    )  # (the agent name lands in index.md, the snapshot's text and its file name)
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    sid = make_id(when, agent, taken_ids(root, index))
    ts = format_ts(when)
    continues = [continues_from] if continues_from else None
    snap = manual_snapshot(sid, agent, topic, summary, ts, snapshot_text, continues)
    values = {
        "id": sid,
        "agent": agent,
        "topic": topic,
        "summary": summary,
        "keywords": MANUAL_KEYWORDS,
        "status": "active",
        "referenced_by": "-",
        "started_at": ts,
        "updated_at": ts,
    }
    edit = index.edit()
    if continues_from:
        source = find_row(index, continues_from, "source session", root)
        edit.set_fields(source, {"referenced_by": format_refs(source.refs + [sid])})
    extra_sources = [s for s in Snapshot(snap).continues_from() if s != continues_from]
    link_sources(index, edit, sid, extra_sources, root)  # sources named in --snapshot input: both sides
    edit.append(values)
    rel = session_path(sid)
    checks = [file_exists(rel), row_exists(sid, status="active", updated_at=ts)]
    checks += [refs_contain(src, sid) for src in ([continues_from] if continues_from else []) + extra_sources]
    return Plan(
        "continue" if continues_from else "register --manual",
        ManualResult(sid, "active", rel, continues_from or None),
        changes=[Change("create", rel, None, snap), Change.write(INDEX, before, edit.to_bytes())],
        checks=checks,
        success=f"Your Memory Session ID is: {sid}",
    )
