"""Organize Memory: delete idle rows, mark overdue active rows stale, report the rest."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from ..formats.clock import parse
from ..files.copies import copied_session
from ..formats.index import IndexFile
from ..plan import Change, Check, Plan
from ..formats.layout import INDEX, SESSIONS
from ..files.root import MemoryRoot
from ..formats.snapshot import Snapshot
from .common import has_meaningful_summary, load_index

DEFAULT_STALE_DAYS = 14


CONTINUES_RE = re.compile(rb"continues from", re.I)
ID_BYTES_RE = re.compile(rb"\d{4}-\d{2}-\d{2}-\d{4}-[a-z0-9]")


def _lists_an_id(data: bytes) -> bool:
    """Cheap pre-check: whether anything ID-like follows the first mention of Continues From
    (skips parsing snapshots whose Continues From is `- None`). It may say yes wrongly, never no
    wrongly: a `#` line inside a code block does not end the section here."""
    first = CONTINUES_RE.search(data)
    return first is not None and ID_BYTES_RE.search(data, first.end()) is not None


def continued_sources(root: MemoryRoot, ids: set[str]) -> dict[str, list[str]]:
    """Fallback protection: source ID → live sessions whose snapshot lists it in Continues From."""
    out: dict[str, list[str]] = {}
    for name in root.listdir(SESSIONS):
        if not name.endswith(".md"):
            continue
        sid = name[:-3]
        try:
            data = root.read(f"{SESSIONS}/{name}")
        except Exception:
            continue
        if data is None or not _lists_an_id(data):
            continue
        sid = copied_session(sid, data) or sid  # a sync-conflict copy speaks for its original, not as a session
        for src in Snapshot(data).continues_from():
            if src in ids and sid not in out.get(src, []):
                out.setdefault(src, []).append(sid)
    return out


def plan_organize(root: MemoryRoot, when: datetime, stale_days: int = DEFAULT_STALE_DAYS) -> Plan:
    """The whole default organize pass as one index write, with the seed's report."""
    if stale_days < 0:
        from ..errors import UsageError

        raise UsageError("--stale-days must be 0 or more")
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    snapshots = root.session_ids_on_disk()
    fallback = continued_sources(root, index.ids())
    cutoff = when - timedelta(days=stale_days)
    edit = index.edit()
    report = {"deleted": [], "marked_stale": [], "kept_active": [], "protected": [], "blocked": [], "malformed": [], "stale": []}
    reasons: dict[str, str] = {}
    counts: dict[str, int] = {}
    for row in index.rows:
        counts[row.id] = counts.get(row.id, 0) + 1
    for row in index.rows:
        sid = row.id
        if row.problem or counts[sid] > 1:
            report["malformed"].append(sid or f"line {row.line + 1}")
            reasons[sid] = row.problem or "duplicate Session ID"
            continue
        referenced = bool(row.refs)
        if row.status == "idle":
            if referenced:
                report["protected"].append(sid)
                reasons[sid] = "Referenced By " + ", ".join(row.refs)
            elif sid in fallback:
                report["protected"].append(sid)
                reasons[sid] = "listed in Continues From of " + ", ".join(fallback[sid])
            elif sid in snapshots:
                report["blocked"].append(sid)
                reasons[sid] = "idle row has a snapshot; resolve (update or archive) before organize deletes it"
            else:
                report["deleted"].append(sid)
                edit.delete(row)
        elif row.status == "active":
            if referenced or sid in fallback:
                report["protected"].append(sid)
                reasons[sid] = (
                    "Referenced By " + ", ".join(row.refs) if referenced else "listed in Continues From of " + ", ".join(fallback[sid])
                )
                continue
            updated = parse(row.get("updated_at"))
            meaningful = sid in snapshots or has_meaningful_summary(row)
            if updated is not None and updated < cutoff and meaningful:
                report["marked_stale"].append(sid)
                edit.set_fields(row, {"status": "stale"})
            else:
                report["kept_active"].append(sid)
                if updated is None:
                    reasons[sid] = "Updated At is not a time"
        else:
            if referenced:
                report["protected"].append(sid)
                reasons[sid] = "Referenced By " + ", ".join(row.refs)
            else:
                report["stale"].append(sid)
    plan = Plan("organize")
    after = edit.to_bytes()
    if before is not None and after != before:
        plan.changes.append(Change("modify", INDEX, before, after))
        deleted = set(report["deleted"])
        marked = set(report["marked_stale"])

        def holds(r: MemoryRoot) -> bool:
            fresh = load_index(r)
            ids = fresh.ids()
            return not (deleted & ids) and all(row.status == "stale" for row in fresh.rows if row.id in marked)

        plan.checks.append(Check("deleted rows are gone and marked rows are stale", holds))
    plan.result = {**report, "reasons": reasons, "stale_days": stale_days}
    labels = [
        ("deleted", "deleted idle"),
        ("marked_stale", "marked stale"),
        ("kept_active", "kept active"),
        ("protected", "protected (referenced)"),
        ("blocked", "blocked (idle with snapshot, not deleted)"),
        ("malformed", "skipped (malformed or duplicate row)"),
    ]
    for key, label in labels:
        ids = report[key]
        plan.report.append(f"{label}: {len(ids)}" + (" — " + ", ".join(ids) if ids else ""))
    return plan
