"""Archived on one machine, updated on the other (issue 26 §2): the session stays archived, nothing is lost.

One machine archived a session (its row removed, its snapshot moved to `archive/<id>/`) while the other
updated it; the sync tool then brings back a live row, a live snapshot, or a copy holding the row. doctor
folds the update into the archive: the live snapshot merged into `archive/<id>/session.md` (core.merge),
the row's later values into `archive/<id>/index.md`, then the live snapshot and the row removed. Every step
is a merge that a second run finds done, so a run stopped midway is finished by the next.
"""

from __future__ import annotations

from ...formats.clock import parse
from ...formats.index import Row
from ...formats.layout import archive_dir, archive_index_path, archive_session_path, session_path
from ...formats.snapshot import Snapshot, set_metadata, text_of
from ...merge.documents import merge_snapshot
from ...plan import Change
from .checkup import Checkup

# the archive file's fields a row's later values replace, by the row's field name
ARCHIVED_FIELDS = (
    ("topic", "Topic"),
    ("summary", "Summary"),
    ("keywords", "Keywords"),
    ("status", "Original Status"),
    ("updated_at", "Updated At"),
)
KIND = "archived_and_updated"


def row_into_archive(c: Checkup, sid: str, row: Row) -> bool:
    """Plan `archive/<id>/index.md` with the row's values where the row is the later (by Updated At); whether
    it changes."""
    rel = archive_index_path(sid)
    text = c.snapshot_text(rel)
    if text is None:
        return False
    meta = Snapshot(text).metadata()
    row_time, archived_time = parse(row.get("updated_at")), parse(meta.get("Updated At", ""))
    if row_time is None or (archived_time is not None and row_time <= archived_time):
        return False
    changes = {col: row.get(name) for name, col in ARCHIVED_FIELDS if row.get(name) and row.get(name) != meta.get(col)}
    if not changes:
        return False
    old = c.new_texts[rel][0]
    c.new_texts[rel] = (old, set_metadata(text, changes))
    return True


def snapshot_into_archive(c: Checkup, sid: str) -> str | None:
    """Plan the live snapshot merged into `archive/<id>/session.md` and deleted; None when done, else why not."""
    live, moved = session_path(sid), archive_session_path(sid)
    ours, theirs = c.root.read(moved), c.root.read(live)
    if ours is None or theirs is None:
        return "a snapshot is missing"
    merged = merge_snapshot(ours, theirs)
    if merged.unparsed:
        return f"memboard cannot merge {live} into {moved}"
    if merged.open:
        fields = ", ".join(cell.column for cell in merged.open)
        return f"{live} and {moved} differ in {fields} with no later side"
    if merged.data != ours:
        c.new_texts[moved] = (ours, text_of(merged.data))
    c.file_changes.append(Change("delete", live, theirs, None))
    return None


def updated_after_archive(c: Checkup, sid: str, row: Row | None) -> bool:
    """archived_and_updated: a live snapshot (and row) beside `archive/<id>/`; folded into the archive when it
    can be (True), else False (the caller reports what a person has to do)."""
    folder = archive_dir(sid)
    if snapshot_into_archive(c, sid) is not None:
        return False
    if row is not None:
        row_into_archive(c, sid, row)
        c.index_edit().delete(row)
        c.finishing.add(sid)
    what = "the row and " if row is not None else ""
    c.add(
        KIND,
        sid,
        f"{sid} was archived on one machine and updated on another: {what}{session_path(sid)} are live again "
        f"beside {folder}/",
        f"merge the update into {folder}/ (session.md, index.md), then remove {what}the live snapshot: the session "
        "stays archived",
        folder,
    )
    return True


def held_back_row(c: Checkup, sid: str, row: Row, copy: str) -> None:
    """archived_and_updated: a copy's row of an archived session is not brought back; its later values go into
    `archive/<id>/index.md`."""
    if row_into_archive(c, sid, row):
        c.add(
            KIND,
            sid,
            f"{copy} holds a later row of {sid}, which is archived (archived on one machine, updated on another)",
            f"merge the row's values into {archive_index_path(sid)}: the session stays archived",
            archive_dir(sid),
        )
