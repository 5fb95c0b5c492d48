"""Single-session archive, in the seed's order: archive files first, the index row last."""

from __future__ import annotations

from datetime import datetime

from ..errors import REMEDY_HERE, Refused, Remedy
from ..files.root import MemoryRoot
from ..formats.archive import render_archive_index
from ..formats.clock import format_ts
from ..formats.ids import check_id
from ..formats.index import IndexFile, Row, format_refs
from ..formats.layout import INDEX, TEMP_SUFFIX, archive_dir, archive_index_path, archive_session_path, session_path
from ..formats.sources import continues_from
from ..plan import Change, Check, Plan
from ..results import ArchiveResult
from .checks import file_exists, row_absent
from .common import find_row, has_meaningful_summary, load_index, refuse_unmerged_copies


def archived_row(row: Row, when: datetime) -> bytes:
    """`archive/<id>/index.md` for a live row, archived at `when` (bytes that are not UTF-8 kept)."""
    values = dict(row.values)
    values["referenced_by"] = row.get("referenced_by") or "-"
    return render_archive_index(values, format_ts(when)).encode("utf-8", "surrogateescape")


def holds_nothing(root: MemoryRoot, folder: str) -> bool:
    """Whether a folder holds no file but temp files of interrupted writes (an archive that
    stopped before its first write, say on a full disk, leaves just the folder)."""
    return all(name.startswith(".") and name.endswith(TEMP_SUFFIX) for name in root.listdir(folder))


def _delete_placeholder(index: IndexFile, before: bytes | None, row: Row) -> Plan[ArchiveResult]:
    """A row without a snapshot holds nothing to archive: its line is deleted (unless its Summary says more)."""
    sid = row.id
    if row.status != "idle" and has_meaningful_summary(row):
        raise Refused(
            f"{sid} has a meaningful Summary but no snapshot; {REMEDY_HERE}, then archive it",
            remedy=Remedy.UPDATE,
            subject=sid,
        )
    return Plan(
        "archive",
        ArchiveResult(sid, "deleted", [], None),
        changes=[Change("modify", INDEX, before, index.edit().delete(row).to_bytes())],
        checks=[row_absent(sid)],
        report=[f"deleted placeholder row {sid} (no snapshot: nothing to archive)"],
    )


def released_check(session_id: str, released: list[str]) -> Check:
    """A check that the released sources no longer list the archived session."""
    return Check(
        "sources no longer list the archived session",
        lambda r: all(session_id not in x.refs for src in released for x in load_index(r).find(src)),
        INDEX,
    )


def plan_archive(root: MemoryRoot, session_id: str, when: datetime) -> Plan[ArchiveResult]:
    """Archive one session (or delete a placeholder row), releasing its own references first."""
    check_id(session_id, "session ID")
    refuse_unmerged_copies(root, "archive", "the row and snapshot archive moves")
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    row = find_row(index, session_id, root=root)
    if row.refs:
        raise Refused(
            f"{session_id} is still referenced by {', '.join(row.refs)}; release those references first {REMEDY_HERE}",
            remedy=Remedy.RELEASE,
            subject=session_id,
        )
    rel = session_path(session_id)
    snap_bytes = root.read(rel)
    if snap_bytes is None:
        return _delete_placeholder(index, before, row)
    folder = archive_dir(session_id)
    if root.exists(folder) and not holds_nothing(root, folder):
        raise Refused(
            f"archive/{session_id}/ already exists (half-finished archive?); {REMEDY_HERE}",
            remedy=Remedy.DOCTOR,
            subject=session_id,
        )
    sources = [s for s in continues_from(snap_bytes) if s != session_id]
    edit = index.edit()
    released = []
    for src in sources:
        rows = [r for r in index.find(src) if not r.problem]
        if len(rows) == 1 and session_id in rows[0].refs:
            edit.set_fields(rows[0], {"referenced_by": format_refs([r for r in rows[0].refs if r != session_id])})
            released.append(src)
    edit.delete(row)
    plan = Plan("archive", ArchiveResult(session_id, "archived", released, folder))
    plan.changes += [
        Change("create", archive_index_path(session_id), None, archived_row(row, when)),
        Change("move", rel, snap_bytes, snap_bytes, dest=archive_session_path(session_id)),
        Change("modify", INDEX, before, edit.to_bytes()),
    ]
    plan.checks += [
        file_exists(archive_index_path(session_id)),
        file_exists(archive_session_path(session_id)),
        row_absent(session_id),
        released_check(session_id, released),
    ]
    if released:
        plan.report.append(f"released references to {', '.join(released)}")
    plan.report.append(f"archived {session_id} to {folder}/")
    return plan
