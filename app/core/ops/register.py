"""Registration: SessionStart (an idle index row) and manual registration (snapshot + active row)."""

from __future__ import annotations

from datetime import datetime

from ..formats.clock import format_ts
from ..formats.ids import check_agent, is_valid_id, make_id
from ..formats.index import IndexFile, format_refs
from ..plan import Change, Check, Plan
from ..formats.layout import INDEX, archive_dir, session_path
from ..files.root import MemoryRoot
from ..secrets import refuse_secrets
from .common import (
    DEFAULT_KEYWORDS,
    DEFAULT_SUMMARY,
    DEFAULT_TOPIC,
    MANUAL_FALLBACK_SUMMARY,
    MANUAL_KEYWORDS,
    find_row,
    link_sources,
    load_index,
    one_line,
    require_sections,
)


class TakenIds:
    """IDs that a new session must not reuse (rows, snapshots, archives), asked one candidate at a time.

    make_id only asks `candidate in taken`, so nothing has to list every row, snapshot or
    archive folder: a registration costs the same on a 100k-row index with a big archive.
    """

    def __init__(self, root: MemoryRoot, index: IndexFile):
        """Answer for this root and this parsed index."""
        self.root = root
        self.index = index

    def __contains__(self, candidate: object) -> bool:
        """Whether candidate is a row's ID, has a snapshot, or has an archive entry."""
        if not isinstance(candidate, str):
            return False
        if self.index.find(candidate):
            return True
        if not is_valid_id(candidate):
            return False
        return self.root.exists(session_path(candidate)) or self.root.exists(archive_dir(candidate))


def taken_ids(root: MemoryRoot, index: IndexFile) -> TakenIds:
    """IDs that a new session must not reuse: rows, snapshots and archives."""
    return TakenIds(root, index)


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


def plan_register(root: MemoryRoot, when: datetime, agent: str) -> Plan:
    """SessionStart registration: append one idle row with the seed's defaults, nothing else."""
    check_agent(agent)
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    sid = make_id(when, agent, taken_ids(root, index))
    ts = format_ts(when)
    values = {
        "id": sid,
        "agent": agent,
        "topic": DEFAULT_TOPIC,
        "summary": DEFAULT_SUMMARY,
        "keywords": DEFAULT_KEYWORDS,
        "status": "idle",
        "referenced_by": "-",
        "started_at": ts,
        "updated_at": ts,
    }
    after = index.edit().append(values).to_bytes()
    plan = Plan("register")
    plan.changes.append(Change("create" if before is None else "modify", INDEX, before, after))
    plan.checks.append(row_exists(sid, status="idle"))
    plan.result = {"session_id": sid, "status": "idle"}
    plan.success = f"Your Memory Session ID is: {sid}"
    return plan


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
    from ..formats.snapshot import merge, render_template, set_metadata  # on use: the hook path needs none

    text = render_template(sid, agent, topic, ts, ts, context=summary, continues=continues)
    if snapshot_text:
        require_sections(snapshot_text)
        text = merge(text, snapshot_text).text
        text = set_metadata(text, {"Session ID": sid, "Agent Name": agent, "Topic": topic, "Status": "active", "Started At": ts, "Updated At": ts})
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
) -> Plan:
    """Manual registration: write the snapshot, then append an active row; verify both."""
    check_agent(agent)
    topic = one_line(topic, "topic") or DEFAULT_TOPIC
    summary = one_line(summary, "summary") or MANUAL_FALLBACK_SUMMARY
    refuse_secrets({"topic": topic, "summary": summary, "snapshot": snapshot_text}, allow_secrets)
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
        source = find_row(index, continues_from, "source session")
        edit.set_fields(source, {"referenced_by": format_refs(source.refs + [sid])})
    from ..formats.snapshot import Snapshot  # on use: the hook path never parses snapshots

    extra_sources = [s for s in Snapshot(snap).continues_from() if s != continues_from]
    link_sources(index, edit, sid, extra_sources)  # sources named in --snapshot input: both sides
    edit.append(values)
    plan = Plan("continue" if continues_from else "register --manual")
    plan.changes.append(Change("create", session_path(sid), None, snap))
    plan.checks.append(file_exists(session_path(sid)))
    plan.checks.append(row_exists(sid, status="active", updated_at=ts))
    plan.result = {"session_id": sid, "status": "active", "snapshot": session_path(sid)}
    plan.success = f"Your Memory Session ID is: {sid}"
    plan.changes.append(Change("create" if before is None else "modify", INDEX, before, edit.to_bytes()))
    if continues_from:
        plan.checks.append(refs_contain(continues_from, sid))
        plan.result["continues_from"] = continues_from
    plan.checks += [refs_contain(src, sid) for src in extra_sources]
    return plan


def refs_contain(source_id: str, sid: str):
    """A check that source_id's Referenced By lists sid."""
    return Check(
        f"{source_id} lists {sid} under Referenced By",
        lambda root: any(sid in r.refs for r in load_index(root).find(source_id)),
    )
