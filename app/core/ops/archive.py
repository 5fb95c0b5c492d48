"""Single-session archive, in the seed's order: archive files first, the index row last."""

from __future__ import annotations

from datetime import datetime

from ..formats.clock import format_ts
from ..errors import Refused
from ..formats.index import IndexFile, format_refs
from ..plan import Change, Check, Plan
from ..formats.layout import INDEX, TEMP_SUFFIX, archive_dir, archive_index_path, archive_session_path, session_path
from ..files.root import MemoryRoot
from ..formats.snapshot import Snapshot
from ..formats.archive import render_archive_index
from .common import find_row, has_meaningful_summary, load_index
from .checks import file_exists, row_absent


def archived_row(row, when: datetime) -> bytes:
    """`archive/<id>/index.md` for a live row, archived at `when` (bytes that are not UTF-8 kept)."""
    values = dict(row.values)
    values["referenced_by"] = row.get("referenced_by") or "-"
    return render_archive_index(values, format_ts(when)).encode("utf-8", "surrogateescape")


def holds_nothing(root: MemoryRoot, folder: str) -> bool:
    """Whether a folder holds no file but temp files of interrupted writes (an archive that
    stopped before its first write, say on a full disk, leaves just the folder)."""
    return all(name.startswith(".") and name.endswith(TEMP_SUFFIX) for name in root.listdir(folder))


def plan_archive(root: MemoryRoot, session_id: str, when: datetime) -> Plan:
    """Archive one session (or delete a placeholder row), releasing its own references first."""
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    row = find_row(index, session_id)
    rel = session_path(session_id)
    if row.refs:
        raise Refused(
            f"{session_id} is still referenced by {', '.join(row.refs)}; release those references first "
            f"(memboard release {session_id} --as <id>)"
        )
    snap_bytes = root.read(rel)
    plan = Plan("archive")
    plan.result = {"session_id": session_id, "action": None, "released": [], "archive": None}
    if snap_bytes is None:
        if row.status != "idle" and has_meaningful_summary(row):
            raise Refused(
                f"{session_id} has a meaningful Summary but no snapshot; run `memboard update {session_id}` "
                "to write its snapshot, then archive it"
            )
        plan.changes.append(Change("modify", INDEX, before, index.edit().delete(row).to_bytes()))
        plan.checks.append(row_absent(session_id))
        plan.result["action"] = "deleted"
        plan.report.append(f"deleted placeholder row {session_id} (no snapshot: nothing to archive)")
        return plan
    if root.exists(archive_dir(session_id)) and not holds_nothing(root, archive_dir(session_id)):
        raise Refused(f"archive/{session_id}/ already exists (half-finished archive?); run `memboard doctor`")
    sources = [s for s in Snapshot(snap_bytes).continues_from() if s != session_id]
    plan.changes.append(Change("create", archive_index_path(session_id), None, archived_row(row, when)))
    plan.changes.append(Change("move", rel, snap_bytes, snap_bytes, dest=archive_session_path(session_id)))
    edit = index.edit()
    released = []
    for src in sources:
        rows = [r for r in index.find(src) if not r.problem]
        if len(rows) == 1 and session_id in rows[0].refs:
            edit.set_fields(rows[0], {"referenced_by": format_refs([r for r in rows[0].refs if r != session_id])})
            released.append(src)
    edit.delete(row)
    plan.changes.append(Change("modify", INDEX, before, edit.to_bytes()))
    plan.checks += [
        file_exists(archive_index_path(session_id)),
        file_exists(archive_session_path(session_id)),
        row_absent(session_id),
        Check(
            "sources no longer list the archived session",
            lambda r: all(session_id not in x.refs for src in released for x in load_index(r).find(src)),
        ),
    ]
    plan.result.update(action="archived", released=released, archive=archive_dir(session_id))
    if released:
        plan.report.append(f"released references to {', '.join(released)}")
    plan.report.append(f"archived {session_id} to {archive_dir(session_id)}/")
    return plan
