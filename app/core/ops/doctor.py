"""Doctor: find inconsistencies in a root and plan repairs that lose no content."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime

from ..clock import format_ts
from ..errors import MemboardError
from ..ids import is_valid_id
from .. import revisions
from ..index import IndexFile, format_refs
from ..plan import Change, Plan
from ..root import (
    INDEX,
    MemoryRoot,
    archive_dir,
    archive_index_path,
    archive_session_path,
    session_path,
)
from ..snapshot import Snapshot, add_items, render_archive_index, render_template
from .common import MANUAL_KEYWORDS
from .organize import _lists_an_id

TEMP_SUFFIX = ".memboard-tmp"
META_UPDATED_RE = re.compile(rb"^\s*\|\s*Updated At\s*\|\s*([^|\r\n]*?)\s*\|", re.M)


@dataclass
class Finding:
    """One inconsistency: its kind, the session it concerns, a message and the planned fix."""

    kind: str
    id: str
    message: str
    fix: str | None = None

    def as_dict(self) -> dict:
        """The finding as JSON."""
        return {"kind": self.kind, "id": self.id, "message": self.message, "fix": self.fix}


def _first_paragraph(snap: Snapshot) -> str:
    """The first real item of Current Context, one line."""
    items = snap.items("Current Context")
    return " ".join(items[0].text.split()) if items else ""


def _row_behind(row, data: bytes | None) -> dict[str, str]:
    """Row fields to catch up with a snapshot whose Metadata `Updated At` is newer than the row's."""
    from ..clock import parse

    stamp = META_UPDATED_RE.search(data or b"")  # cheap look first: most rows are not behind
    row_time = parse(row.get("updated_at"))
    if stamp is None or row_time is None or (parse(stamp.group(1).decode("utf-8", "replace")) or row_time) <= row_time:
        return {}
    meta = Snapshot(data or b"").metadata()
    snap_time = parse(meta.get("Updated At", ""))
    if snap_time is None or snap_time <= row_time:
        return {}
    changes = {"updated_at": meta["Updated At"].strip()}
    if meta.get("Status", "").strip() == "active" and row.status != "active":
        changes["status"] = "active"
    return changes


def _with_source(text: str, src: str) -> str | None:
    """The snapshot text with src added under Continues From, or None when that cannot be
    done so that the snapshot then lists it (a fix that would not hold is not offered)."""
    try:
        fixed = add_items(text, "Continues From", [src])
    except MemboardError:
        return None
    return fixed if src in Snapshot(fixed).continues_from() else None


def stray_temp_files(root: MemoryRoot) -> list[str]:
    """Temp files memboard left behind when a write was killed before its rename (never content)."""
    found = []
    for folder, dirs, files in os.walk(root.path):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for name in files:
            if name.startswith(".") and name.endswith(TEMP_SUFFIX):
                found.append(os.path.relpath(os.path.join(folder, name), root.path).replace(os.sep, "/"))
    return sorted(found)


def diagnose(root: MemoryRoot, when: datetime | None = None) -> tuple[list[Finding], Plan]:
    """All findings and one plan that repairs the fixable ones."""
    when = when or datetime.now()
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    findings: list[Finding] = []
    for problem in index.problems:
        findings.append(Finding("index_columns", "", problem + " (add them to the header by hand)"))
    if index.missing_columns():  # no safe repair of rows until the table has the protocol's columns
        return findings, Plan("doctor --fix")
    edit = index.edit()
    index_dirty = False
    file_changes: list[Change] = []
    new_texts: dict[str, tuple[bytes | None, str]] = {}

    def snapshot_text(rel: str) -> str | None:
        if rel in new_texts:
            return new_texts[rel][1]
        data = root.read(rel)
        if data is None:
            return None
        new_texts[rel] = (data, Snapshot(data).text())
        return new_texts[rel][1]


    by_id: dict[str, list] = {}
    for row in index.rows:
        by_id.setdefault(row.id, []).append(row)
    for row in index.rows:
        if row.problem:
            findings.append(Finding("malformed_row", row.id, f"line {row.line + 1}: {row.problem}"))
    for sid, rows in by_id.items():
        if len(rows) > 1:
            same = len({r.raw_cells for r in rows}) == 1
            fix = None
            if same and is_valid_id(sid):
                for extra in rows[1:]:
                    edit.delete(extra)
                index_dirty = True
                fix = f"delete {len(rows) - 1} identical copy line(s)"
            findings.append(Finding("duplicate_id", sid, f"{len(rows)} rows share this Session ID", fix))

    live = {sid: rows[0] for sid, rows in by_id.items() if len(rows) == 1 and not rows[0].problem}
    snaps = root.session_ids_on_disk()
    archived = root.archived_ids()

    for sid, row in live.items():
        has_snap = sid in snaps
        if row.status == "idle" and has_snap:
            edit.set_fields(row, {"status": "active"})
            index_dirty = True
            findings.append(Finding("idle_with_snapshot", sid, "idle row has a snapshot", "set Status to active"))
        if sid in archived:
            meta = root.read(archive_index_path(sid)) if root.exists(archive_index_path(sid)) else None
            moved = root.exists(archive_session_path(sid))
            if row.refs:  # finishing would archive a referenced session, which the protocol forbids
                findings.append(Finding(
                    "half_archived", sid,
                    f"archive was started, but the row is referenced by {', '.join(row.refs)}; release those "
                    f"references, then run doctor --fix again (or remove {archive_dir(sid)}/ to keep the session)",
                ))
                continue
            if meta is not None and (moved or has_snap):
                if has_snap and not moved:
                    data = root.read(session_path(sid))
                    file_changes.append(Change("move", session_path(sid), data, data, dest=archive_session_path(sid)))
                    src_snap = Snapshot(data)
                elif moved and not has_snap:
                    src_snap = Snapshot(root.read(archive_session_path(sid)) or b"")
                else:
                    findings.append(Finding("half_archived", sid, "row, snapshot and archived snapshot all exist"))
                    continue
                for src in src_snap.continues_from():
                    if src in live and sid in live[src].refs:
                        edit.set_fields(live[src], {"referenced_by": format_refs([r for r in live[src].refs if r != sid])})
                edit.delete(row)
                index_dirty = True
                findings.append(
                    Finding("half_archived", sid, "archive was started but the row is still in index.md", "finish the archive")
                )
                continue
            findings.append(Finding("half_archived", sid, "archive folder exists beside a live row"))
        if has_snap and sid not in archived:
            current = root.read(session_path(sid))
            behind = _row_behind(row, current)
            # memboard records every snapshot it finishes writing; a newer snapshot that differs
            # from its last revision was written by a write that did not finish (or by hand).
            # Reported, not fixed: the row's Summary may be behind too; only `update` knows it.
            if behind and revisions.latest(root, sid) not in (None, current):
                findings.append(
                    Finding("row_behind_snapshot", sid, "the snapshot's Updated At is newer than the row's "
                            f"(an interrupted update?); run `memboard update {sid}` to bring the row up to date")
                )
        if row.status in ("active", "stale") and not has_snap and sid not in archived:
            rel = session_path(sid)
            text = render_template(
                sid, row.get("agent"), row.get("topic"), row.get("started_at"), row.get("updated_at"),
                context=row.get("summary"), status=row.status,
                continues=[src for src, other in live.items() if sid in other.refs] or None,
            )
            new_texts[rel] = (None, text)
            findings.append(Finding("missing_snapshot", sid, f"{row.status} row has no snapshot", f"create {rel} from the row"))

    for sid in sorted(snaps - set(by_id)):
        if not is_valid_id(sid):
            findings.append(Finding("stray_file", sid, f"sessions/{sid}.md is not named by a valid Session ID"))
            continue
        data = root.read(session_path(sid))
        snap = Snapshot(data or b"")
        if sid in archived:
            findings.append(Finding("archived_and_live", sid, "snapshot exists both in sessions/ and archive/ without a row"))
            continue
        meta = snap.metadata()
        ts = format_ts(when)
        values = {
            "id": sid,
            "agent": meta.get("Agent Name") or sid[16:],
            "topic": meta.get("Topic") or "未設定",
            "summary": _first_paragraph(snap) or "Restored by memboard doctor from the snapshot.",
            "keywords": MANUAL_KEYWORDS,
            "status": "active",
            "referenced_by": "-",
            "started_at": meta.get("Started At") or ts,
            "updated_at": meta.get("Updated At") or ts,
        }
        edit.append(values)
        index_dirty = True
        findings.append(Finding("orphan_snapshot", sid, "snapshot without an index row", "append an active row from its Metadata"))
        for src in snap.continues_from():
            if src in live and sid not in live[src].refs:
                findings.append(
                    Finding("one_sided_link", sid, f"continues from {src}, but {src} does not list it in Referenced By",
                            f"add {sid} to {src}'s Referenced By")
                )

    for sid in sorted(archived):
        if not is_valid_id(sid) or sid in live:
            continue
        if not root.exists(archive_index_path(sid)):
            data = root.read(archive_session_path(sid)) if root.exists(archive_session_path(sid)) else None
            if data is not None:
                meta = Snapshot(data).metadata()
                values = {
                    "id": sid, "agent": meta.get("Agent Name", ""), "topic": meta.get("Topic", ""),
                    "summary": _first_paragraph(Snapshot(data)), "keywords": "", "status": meta.get("Status", ""),
                    "referenced_by": "-", "started_at": meta.get("Started At", ""), "updated_at": meta.get("Updated At", ""),
                }
                text = render_archive_index(values, format_ts(when)).encode("utf-8")
                file_changes.append(Change("create", archive_index_path(sid), None, text))
                findings.append(Finding("archive_without_index", sid, "archived snapshot without index.md", "create it from the snapshot"))
            else:
                findings.append(Finding("empty_archive", sid, f"{archive_dir(sid)}/ has no index.md and no session.md"))

    # references, both directions
    for sid, row in live.items():
        if sid not in snaps or (session_path(sid) not in new_texts and not _lists_an_id(root.read(session_path(sid)) or b"")):
            continue  # no ID under Continues From: skip the Markdown parse (1,000 snapshots take seconds)
        text = snapshot_text(session_path(sid))
        for src in Snapshot(text or "").continues_from():
            if src in live:
                if sid not in live[src].refs:
                    findings.append(
                        Finding("one_sided_link", sid, f"continues from {src}, but {src} does not list it in Referenced By",
                                f"add {sid} to {src}'s Referenced By")
                    )
            elif src in archived:
                findings.append(Finding("link_to_archived", sid, f"continues from archived session {src}"))
            else:
                findings.append(Finding("link_to_missing", sid, f"continues from {src}, which is neither live nor archived"))
    ref_additions: dict[str, list[str]] = {}
    for f in findings:
        if f.kind == "one_sided_link":
            src = f.message.split("continues from ", 1)[1].split(",", 1)[0]
            ref_additions.setdefault(src, []).append(f.id)
    for src, add in ref_additions.items():
        edit.set_fields(live[src], {"referenced_by": format_refs(live[src].refs + add)})
        index_dirty = True
    for src, row in live.items():
        drop = []
        for ref in row.refs:
            if ref in live:
                rel = session_path(ref)
                text = snapshot_text(rel) if ref in snaps or rel in new_texts else None
                if text is None:
                    findings.append(Finding("one_sided_link", ref, f"{src} lists it in Referenced By, but it has no snapshot"))
                elif src not in Snapshot(text).continues_from():
                    fixed = _with_source(text, src)
                    if fixed is not None:
                        new_texts[rel] = (new_texts[rel][0], fixed)
                    findings.append(
                        Finding("one_sided_link", ref, f"{src} lists it in Referenced By, but its Continues From lacks {src}"
                                + ("" if fixed is not None else " (its Markdown keeps memboard from adding it: edit it by hand)"),
                                f"add {src} to its Continues From" if fixed is not None else None)
                    )
            elif ref in archived or not is_valid_id(ref) or ref not in by_id:
                drop.append(ref)
                state = "archived" if ref in archived else "missing"
                findings.append(Finding("reference_to_" + state, src, f"Referenced By lists {state} session {ref}", f"remove {ref} from it"))
        if drop:
            current = src in ref_additions and live[src].refs + ref_additions[src] or live[src].refs
            edit.set_fields(row, {"referenced_by": format_refs([r for r in current if r not in drop])})
            index_dirty = True

    plan = Plan("doctor --fix")
    for rel, (old, text) in new_texts.items():
        new = text.encode("utf-8", "surrogateescape")
        if old is None:
            plan.changes.append(Change("create", rel, None, new))
        elif Snapshot(old).text() != text:
            snap = Snapshot(old)
            plan.changes.append(Change("modify", rel, old, (("\ufeff" if snap.bom else "") + text).encode("utf-8", "surrogateescape")))
    for rel in stray_temp_files(root):
        findings.append(Finding("stray_temp", rel, f"{rel} is a temp file left by an interrupted write", "delete it"))
        plan.changes.append(Change("delete", rel, root.read(rel), None))
    plan.changes.extend(file_changes)
    if index_dirty:
        after = edit.to_bytes()
        if after != before:
            plan.changes.append(Change("create" if before is None else "modify", INDEX, before, after))
    plan.result = {"findings": [f.as_dict() for f in findings]}
    return findings, plan
