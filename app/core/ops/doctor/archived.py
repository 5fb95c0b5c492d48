"""Archived on one machine, updated on the other (issue 26 §2): the session stays archived, nothing is lost.

One machine archived a session (its row removed, its snapshot moved to `archive/<id>/`) while the other
updated it; the sync tool then brings back a live row, a live snapshot, or a copy holding the row. doctor
folds the update into the archive: the live snapshot merged into `archive/<id>/session.md` (core.merge),
the row's later values into `archive/<id>/index.md`, then the live snapshot and the row removed. Every step
is a merge that a second run finds done, so a run stopped midway is finished by the next.

When the update has the archive's own Updated At (both machines wrote in the same minute), no time decides a
field the two hold differently (Topic, Summary, Keywords; a snapshot's Topic or Status): those are open cells.
doctor merges every item into the archive and leaves the live snapshot, the live row or the copy holding it in
place; `memboard resolve ID --prefer ours|theirs` decides them (ours: the archive's values, theirs: the
update's), and the session stays archived either way, the live snapshot's bytes kept under
`.memboard/conflicts/`. Nothing depends on which machine runs it.
"""

from __future__ import annotations

from collections.abc import Container

from ...files.root import MemoryRoot
from ...formats.clock import parse
from ...formats.index import IndexFile, Row
from ...formats.layout import (
    INDEX,
    archive_dir,
    archive_index_path,
    archive_session_path,
    session_path,
)
from ...formats.snapshot import Snapshot, set_metadata, text_of
from ...merge.documents import merge_snapshot
from ...merge.index import STATUS_RANK
from ...merge.result import OpenCell, Prefer
from ...plan import Change
from ...results import Finding
from .checkup import Checkup
from .merging import kept_path

# the archive file's fields a row's later values replace, by the row's field name
ARCHIVED_FIELDS = (
    ("topic", "Topic"),
    ("summary", "Summary"),
    ("keywords", "Keywords"),
    ("status", "Original Status"),
    ("updated_at", "Updated At"),
)
KIND = "archived_and_updated"


def decision(c: Checkup, sid: str) -> Prefer | None:
    """The side `memboard resolve` chose for sid's open cells (None: doctor, or resolve of another session)."""
    return c.prefer if c.only in (None, sid) else None


def _open_or_decided(c: Checkup, cell: OpenCell, where: str) -> Prefer | None:
    """Record a cell no time decides: open (doctor), or decided by resolve's side (returned)."""
    pick = decision(c, cell.id)
    if pick is None:
        c.archive_open.setdefault(cell.id, []).append((cell, where))
    else:
        c.archive_decided.append((cell, where))
    return pick


def _same_minute(c: Checkup, sid: str, meta: dict[str, str], changes: dict[str, str], where: str) -> dict[str, str]:
    """The row's values an archive of the same Updated At takes: Original Status by rank (stale over active over
    idle, as merge_index ranks it); Topic, Summary and Keywords open, or as resolve decides them."""
    out = {}
    status = changes.pop("Original Status", None)
    if status is not None and STATUS_RANK.get(status, -1) > STATUS_RANK.get(meta.get("Original Status", ""), -1):
        out["Original Status"] = status
    changes.pop("Updated At", None)  # (the same time, written otherwise: the archive's stays)
    for col, value in changes.items():
        if _open_or_decided(c, OpenCell(sid, col, meta.get(col, ""), value), where) == "theirs":
            out[col] = value
    return out


def row_into_archive(c: Checkup, sid: str, row: Row, where: str = INDEX) -> bool:
    """Plan `archive/<id>/index.md` with the row's values where the row is the later (by Updated At; at the same
    Updated At the differing values are open cells, see _same_minute); whether it changes. where: the file
    holding the row."""
    rel = archive_index_path(sid)
    text = c.snapshot_text(rel)
    if text is None:
        return False
    meta = Snapshot(text).metadata()
    row_time, archived_time = parse(row.get("updated_at")), parse(meta.get("Updated At", ""))
    if row_time is None or (archived_time is not None and row_time < archived_time):
        return False
    changes = {col: row.get(name) for name, col in ARCHIVED_FIELDS if row.get(name) and row.get(name) != meta.get(col)}
    if changes and row_time == archived_time:
        changes = _same_minute(c, sid, meta, changes, where)
    if not changes:
        return False
    c.set_text(rel, set_metadata(text, changes))
    return True


def snapshot_into_archive(c: Checkup, sid: str) -> str | None:
    """Plan the live snapshot merged into `archive/<id>/session.md` (the Metadata fields no time decides open,
    or as resolve decides them); None when merged, else why not."""
    live, moved = session_path(sid), archive_session_path(sid)
    ours, theirs = c.root.read(moved), c.root.read(live)
    if ours is None or theirs is None:
        return "a snapshot is missing"
    merged = merge_snapshot(ours, theirs)
    if merged.unparsed:
        return f"memboard cannot merge {live} into {moved}"
    pick = decision(c, sid)
    for cell in merged.open:
        _open_or_decided(c, cell, live)
    if merged.open and pick is not None:
        merged = merge_snapshot(ours, theirs, prefer=pick)
    if merged.data != ours:
        c.new_texts[moved] = (ours, text_of(merged.data))
    return None


def _kept_live(c: Checkup, live: str, data: bytes) -> None:
    """Plan the live snapshot's removal once resolve decided its cells: moved to `.memboard/conflicts/<path>` (a
    free name beside it when another file is there: `<id>.2.md`, ...), deleted when those bytes are there."""
    stem, n = live[:-3], 1
    while True:
        kept = kept_path(live if n == 1 else f"{stem}.{n}.md")
        there = c.root.read(kept)
        if there is None:
            c.file_changes.append(Change("move", live, data, data, dest=kept))
            return
        if there == data:
            c.file_changes.append(Change("delete", live, data, None))
            return
        n += 1


def updated_after_archive(c: Checkup, sid: str, row: Row | None) -> bool:
    """archived_and_updated: a live snapshot (and row) beside `archive/<id>/`; folded into the archive when it
    can be (True: done, or its open cells recorded for report_open), else False (the caller reports what a
    person has to do)."""
    folder, live = archive_dir(sid), session_path(sid)
    if snapshot_into_archive(c, sid) is not None:
        return False
    if row is not None:
        row_into_archive(c, sid, row)
    if sid in c.archive_open:  # the same minute on both machines: the live files stay until resolve decides
        return True
    data = c.root.read(live) or b""
    if any(cell.id == sid for cell, _ in c.archive_decided):
        _kept_live(c, live, data)
    else:
        c.file_changes.append(Change("delete", live, data, None))
    if row is not None:
        c.index_edit().delete(row)
        c.finishing.add(sid)
    what = "the row and " if row is not None else ""
    c.add(
        KIND,
        sid,
        f"{sid} was archived on one machine and updated on another: {what}{live} are live again beside {folder}/",
        f"merge the update into {folder}/ (session.md, index.md), then remove {what}the live snapshot: the session "
        "stays archived",
        folder,
    )
    return True


def held_back_row(c: Checkup, sid: str, row: Row, copy: str) -> None:
    """archived_and_updated: a copy's row of an archived session is not brought back; its later values go into
    `archive/<id>/index.md` (at the same Updated At, the copy stays in place while a cell of its row is open)."""
    changed = row_into_archive(c, sid, row, copy)
    if any(where == copy for _, where in c.archive_open.get(sid, [])):
        c.kept_copies.add(copy)
    elif changed:
        c.add(
            KIND,
            sid,
            f"{copy} holds a later row of {sid}, which is archived (archived on one machine, updated on another)",
            f"merge the row's values into {archive_index_path(sid)}: the session stays archived",
            archive_dir(sid),
        )


def held_back_rows(
    c: Checkup, held: list[tuple[str, str, str]], live: Container[str], among: set[str] | None = None
) -> None:
    """held_back_row for each row a copy holds of an archived session that the merge did not bring back (held:
    merging's held_back), read from the copy as it is on disk, unless live holds the session (its live row is
    checked instead) or it is not among the sessions asked about (None: every one)."""
    disk: MemoryRoot = getattr(c.root, "base", c.root)  # (the copies as they are, not as the merge moves them)
    for sid, _line, copy in held:
        found = IndexFile(disk.read(copy) or b"").find(sid)
        if found and sid not in live and (among is None or sid in among):
            held_back_row(c, sid, found[-1], copy)


def report_open(c: Checkup) -> None:
    """The findings of the cells no time decided: a conflict_cell per field, and one finding per session saying
    what doctor --fix merged and what to run (half_archived with a live row, archived_and_live with a live
    snapshot, else archived_and_updated)."""
    for sid, cells in sorted(c.archive_open.items()):
        folder = archive_dir(sid)
        by_column: dict[str, tuple[OpenCell, str]] = {}
        for cell, where in cells:
            by_column.setdefault(cell.column, (cell, where))
        for column, (cell, where) in by_column.items():
            c.findings.append(
                Finding(
                    "conflict_cell",
                    sid,
                    f"{folder}/ and {where} hold different {column} for {sid} at the same Updated At (archived on one "
                    f"machine, updated on another): {cell.ours!r} (the archive's, kept) and {cell.theirs!r} (the "
                    f"update's); decide with `memboard resolve {sid} --prefer ours` or `--prefer theirs` (the "
                    "session stays archived either way)",
                    None,
                    folder,
                    (("path", where), ("column", column)),
                )
            )
        merged = any(
            rel.startswith(f"{folder}/") and (isinstance(made, Row) or made[0] is None or text_of(made[0]) != made[1])
            for rel, made in c.new_texts.items()
        )
        kind = "half_archived" if sid in c.live else "archived_and_live" if sid in c.snaps else KIND
        c.add(
            kind,
            sid,
            f"{sid} was archived on one machine and updated on another in the same minute: no time decides "
            f"{', '.join(by_column)}; `memboard resolve {sid} --prefer ours` keeps the archive's values, "
            f"`memboard resolve {sid} --prefer theirs` takes the update's (either way the session stays archived, "
            f"every item of both in {archive_session_path(sid)})",
            f"merge every item of the update into {folder}/; the open cells wait for resolve" if merged else None,
            folder,
        )
