"""Doctor's checks of sessions: rows beside their snapshots and archive folders, snapshots without rows."""

from __future__ import annotations

import re

from ...errors import Remedy, said
from ...files import revisions
from ...formats.archive import render_archive_index
from ...formats.clock import format_ts, parse
from ...formats.ids import is_valid_id
from ...formats.index import CAUGHT_UP_KEYWORD, COLUMN_OF_FIELD, RESTORED_KEYWORDS, Row, format_refs, with_keyword
from ...formats.layout import SESSIONS, archive_dir, archive_index_path, archive_session_path, session_path
from ...formats.snapshot import Snapshot
from ...formats.sources import continues_from
from ...formats.text import encode
from ...plan import Change
from ..archive import archived_row, holds_nothing
from ..common import DEFAULT_TOPIC
from . import archived
from .checkup import Checkup

META_UPDATED_RE = re.compile(rb"^\s*\|\s*Updated At\s*\|\s*([^|\r\n]*?)\s*\|", re.M)


def first_paragraph(snap: Snapshot) -> str:
    """The first real item of Current Context, one line."""
    items = snap.items("Current Context")
    return " ".join(items[0].text.split()) if items else ""


def row_behind(row: Row, data: bytes | None) -> dict[str, str]:
    """Row fields to catch up with a snapshot whose Metadata `Updated At` is newer than the row's."""
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
    topic = " ".join(meta.get("Topic", "").split())
    if topic and topic != row.get("topic"):
        changes["topic"] = topic
    # (says the row is partly a guess: a real row of that Updated At, synced in from another machine, wins a tie)
    changes["keywords"] = with_keyword(row.get("keywords"), CAUGHT_UP_KEYWORD)
    return changes


def idle_with_snapshot(c: Checkup, sid: str, row: Row) -> None:
    """idle_with_snapshot: an idle row whose session has a snapshot becomes active."""
    if row.status == "idle" and sid in c.snaps:
        if c.repairs("idle_with_snapshot"):
            c.change_row(row, {"status": "active"})
        c.add("idle_with_snapshot", sid, "idle row has a snapshot", "set Status to active", session_path(sid))


def finish_archive(c: Checkup, sid: str, row: Row, has_snap: bool) -> None:
    """Plan the rest of an archive that stopped half-way: its metadata file, the move, the row's removal."""
    meta_rel, moved_rel = archive_index_path(sid), archive_session_path(sid)
    has_meta, moved = c.root.exists(meta_rel), c.root.exists(moved_rel)
    if has_meta:  # (a row updated on another machine after the archive here: its later values are kept)
        archived.row_into_archive(c, sid, row)
        if sid in c.archive_open:  # (in the same minute: the row stays until resolve decides, archived.report_open)
            return
    steps = []
    if not has_meta:  # the archive stopped before its first file (a full disk leaves just the folder)
        c.file_changes.append(Change("create", meta_rel, None, archived_row(row, c.when)))
        steps.append(f"write {meta_rel} from the row")
    if has_snap:
        data = c.root.read(session_path(sid))
        c.file_changes.append(Change("move", session_path(sid), data, data, dest=moved_rel))
        steps.append(f"move the snapshot to {moved_rel}")
    for src in continues_from(c.root.read(moved_rel if moved else session_path(sid)) or b""):
        if src in c.live and sid in c.live[src].refs:
            c.change_row(c.live[src], {"referenced_by": format_refs([r for r in c.live[src].refs if r != sid])})
    c.index_edit().delete(row)
    c.finishing.add(sid)
    what = (
        "archive was started but the row is still in index.md"
        if has_meta
        else f"archive stopped before writing {meta_rel}"
    )
    c.add(
        "half_archived",
        sid,
        what,
        "finish the archive (" + ", ".join(steps + ["remove the row"]) + ")",
        archive_dir(sid),
    )


def half_archived(c: Checkup, sid: str, row: Row, has_snap: bool) -> None:
    """half_archived: a live row beside `archive/<id>/`; the archive is finished when that is what was under way."""
    folder, moved_rel = archive_dir(sid), archive_session_path(sid)
    moved = c.root.exists(moved_rel)
    if row.refs:  # finishing would archive a referenced session, which the protocol forbids
        c.add(
            "half_archived",
            sid,
            f"archive was started, but the row is referenced by {', '.join(row.refs)}; release "
            f"those references, then run doctor --fix again (or remove {folder}/ to keep the session)",
            subject=folder,
        )
    elif has_snap and moved and archived.updated_after_archive(c, sid, row):
        return  # archived on one machine, updated on the other: folded into the archive
    elif has_snap and moved:
        c.add(
            "half_archived",
            sid,
            f"the row, {session_path(sid)} and {moved_rel} all exist (a snapshot written after "
            f"the archive moved the old one?): keep what you need in {moved_rel}, remove {session_path(sid)}, "
            "then run doctor --fix again",
            subject=folder,
        )
    elif not has_snap and not moved and holds_nothing(c.root, folder):
        c.add(
            "half_archived",
            sid,
            said(
                f"{folder}/ is an empty folder beside the live row; it blocks nothing (remove it if you like; ",
                (Remedy.ARCHIVE, "memboard archive works", sid),
                " either way)",
            ),
            subject=folder,
        )
    elif not has_snap and not moved:
        c.add(
            "half_archived",
            sid,
            f"{folder}/ exists but the session has no snapshot to archive: remove "
            f"{folder}/ to keep it live, or delete its row by hand if it was archived",
            subject=folder,
        )
    else:
        finish_archive(c, sid, row, has_snap)


def row_behind_snapshot(c: Checkup, sid: str, row: Row) -> None:
    """row_behind_snapshot: a snapshot newer than its row (an update stopped between its snapshot and its index write)."""
    current = c.root.read(session_path(sid))
    behind = row_behind(row, current)
    # memboard records every snapshot it finishes writing; a newer snapshot that differs from its
    # last revision was written by a write that did not finish (a snapshot edited by hand has none)
    if behind and revisions.latest(c.root, sid) not in (None, current):
        if c.repairs("row_behind_snapshot"):
            c.change_row(row, behind)
        names = ", ".join(COLUMN_OF_FIELD[name] for name in behind if name != "keywords")
        c.add(
            "row_behind_snapshot",
            sid,
            "the snapshot's Updated At is newer than the row's (an update stopped before its index write?)",
            said(
                f"set the row's {names} from the snapshot's Metadata (Summary stays, Keywords gain "
                f"{CAUGHT_UP_KEYWORD}, so a row of that time from another machine wins over this one; ",
                (Remedy.UPDATE_SUMMARY, f"`memboard update {sid} --summary ...`", sid),
                " changes them)",
            ),
            session_path(sid),
        )


# the message of each status a missing snapshot is found for: one string each, not one per finding
NO_SNAPSHOT = {status: f"{status} row has no snapshot" for status in ("active", "stale")}


def missing_snapshot(c: Checkup, sid: str, row: Row) -> None:
    """missing_snapshot: an active or stale row without a snapshot gets one from the template and the row."""
    message = NO_SNAPSHOT.get(row.status)
    if message is None:
        return
    rel = f"{SESSIONS}/{sid}.md"  # (session_path's check: a live row's ID is a valid one)
    if c.repairs("missing_snapshot"):
        c.new_texts[rel] = row  # (rendered when a plan needs its bytes: Checkup.template)
    c.add("missing_snapshot", sid, message, f"create {rel} from the row", rel)


def check_live_rows(c: Checkup) -> None:
    """Per live row: idle with a snapshot, an archive in progress, a row behind its snapshot, a missing snapshot."""
    for sid, row in c.live.items():
        has_snap = sid in c.snaps
        idle_with_snapshot(c, sid, row)
        if sid in c.archived and not (row.refs and holds_nothing(c.root, archive_dir(sid))):
            half_archived(c, sid, row, has_snap)
        elif has_snap:
            row_behind_snapshot(c, sid, row)
        elif row.status != "idle":
            missing_snapshot(c, sid, row)


def orphan_snapshot(c: Checkup, sid: str) -> None:
    """orphan_snapshot: a snapshot without a row is restored as an active row from its Metadata."""
    ts = format_ts(c.when)
    snap = Snapshot(c.root.read(session_path(sid)) or b"")
    meta = snap.metadata()
    restored = {
        "id": sid,
        "agent": meta.get("Agent Name") or sid[16:],
        "topic": meta.get("Topic") or DEFAULT_TOPIC,
        "summary": first_paragraph(snap) or "Restored by memboard doctor from the snapshot.",
        "keywords": RESTORED_KEYWORDS,  # (says the row is a guess: the real row, when it syncs in, wins a tie)
        "status": "active",
        "referenced_by": "-",
        "started_at": meta.get("Started At") or ts,
        "updated_at": meta.get("Updated At") or ts,
    }
    if c.repairs("orphan_snapshot"):
        c.restored[sid] = restored
    else:
        c.kept_orphans.add(sid)
    c.add(
        "orphan_snapshot",
        sid,
        "snapshot without an index row",
        "append an active row from its Metadata",
        session_path(sid),
    )


def check_orphans(c: Checkup) -> None:
    """Snapshots without a row: stray files, sessions both live and archived, orphans restored as rows."""
    outside = {r.id for r in c.index.outside}  # (rows outside the table: outside_row moves them in)
    for sid in sorted(s for s in c.snaps if not c.in_table(s) and s not in outside):
        if not is_valid_id(sid):
            c.add(
                "stray_file",
                sid,
                f"sessions/{sid}.md is not named by a valid Session ID: rename it to one "
                "(YYYY-MM-DD-HHMM-agent-name) or move it out of sessions/",
                subject=f"sessions/{sid}.md",
            )
        elif sid in c.archived and archived.updated_after_archive(c, sid, None):
            continue  # archived on one machine, its snapshot updated on the other: folded into the archive
        elif sid in c.archived:
            c.add(
                "archived_and_live",
                sid,
                f"the snapshot is both in sessions/ and archive/{sid}/ without a row: "
                f"keep what you need in archive/{sid}/session.md and remove sessions/{sid}.md (or the reverse)",
                subject=archive_dir(sid),
            )
        else:
            orphan_snapshot(c, sid)


def archive_without_index(c: Checkup, sid: str, data: bytes) -> None:
    """archive_without_index: an archived snapshot without its metadata file gets one from the snapshot."""
    snap = Snapshot(data)
    meta = snap.metadata()
    values = {
        "id": sid,
        "agent": meta.get("Agent Name", ""),
        "topic": meta.get("Topic", ""),
        "summary": first_paragraph(snap),
        "keywords": "",
        "status": meta.get("Status", ""),
        "referenced_by": "-",
        "started_at": meta.get("Started At", ""),
        "updated_at": meta.get("Updated At", ""),
    }
    text = encode(render_archive_index(values, format_ts(c.when)))
    if c.repairs("archive_without_index"):
        c.file_changes.append(Change("create", archive_index_path(sid), None, text))
    c.add(
        "archive_without_index",
        sid,
        "archived snapshot without index.md",
        "create it from the snapshot",
        archive_index_path(sid),
    )


def check_archive_folders(c: Checkup) -> None:
    """Archive folders of sessions without a live row: an empty one is reported, a missing index written."""
    for sid in sorted(c.archived):
        if not is_valid_id(sid) or sid in c.live or c.root.exists(archive_index_path(sid)):
            continue
        data = c.root.read(archive_session_path(sid)) if c.root.exists(archive_session_path(sid)) else None
        if data is None:
            c.add(
                "empty_archive",
                sid,
                f"{archive_dir(sid)}/ has no index.md and no session.md: remove the folder "
                "if it holds nothing you need",
                subject=archive_dir(sid),
            )
        else:
            archive_without_index(c, sid, data)
