"""`memboard resolve [ID] --prefer ours|theirs`: decide what a merge left open (issue 26 §2, §5).

Two things are left open: the cells `doctor --fix` could not decide when it merged a sync-conflict copy
(their copy stays in place, see doctor/merging.py), and the conflict blocks memboard's git merge driver
leaves in a file (merge.gitblocks). resolve decides them with the original's value (ours) or the copy's
(theirs), every one or those of session or note ID, folds the copy in as doctor does and then keeps it
under `.memboard/conflicts/` like every merged copy. One plan, previewed and applied like every other.
"""

from __future__ import annotations

import os
from datetime import datetime

from ..errors import UsageError
from ..files.copies import ConflictCopy, find_copies
from ..files.root import MemoryRoot
from ..formats.index import IndexFile
from ..formats.layout import ARCHIVE, CONFLICTS, INDEX, NOTES, SESSIONS, archive_index_path, archive_session_path
from ..merge.gitblocks import resolve_blocks
from ..merge.result import OpenCell, Prefer
from ..plan import Change, Plan
from ..results import Decided, ResolveResult
from .doctor import archived, sessions
from .doctor.checkup import Checkup
from .doctor.merging import Merging, fold_copies
from .doctor.notes import note_copies
from .sequence import PlannedRoot

OP = "resolve"
BLOCK_START = b"<<<<<<<"  # (and longer: git's conflict-marker-size)


def _has_block(data: bytes) -> bool:
    """Whether data may hold a conflict block (a cheap look; resolve_blocks reads the blocks, of any size)."""
    return BLOCK_START in data


def memboard_files(root: MemoryRoot) -> list[str]:
    """index.md, the snapshots, the archive files and the notes (the files the git driver merges)."""
    out = [INDEX] if root.exists(INDEX) else []
    out += [f"{SESSIONS}/{n}" for n in root.listdir(SESSIONS) if n.endswith(".md")]
    for sid in root.listdir(ARCHIVE):
        out += [f"{ARCHIVE}/{sid}/{n}" for n in ("index.md", "session.md") if root.exists(f"{ARCHIVE}/{sid}/{n}")]
    base = root.abs(NOTES)
    if base.is_dir() and not base.is_symlink():
        for folder, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
            for name in sorted(files):
                if name.endswith(".md") and not name.startswith("."):
                    out.append(os.path.relpath(os.path.join(folder, name), root.path).replace(os.sep, "/"))
    return out


def _known(root: MemoryRoot, ident: str) -> bool:
    """Whether ident names a session (a row, a snapshot, an archive folder) or a note of the root."""
    if ident in IndexFile(root.read(INDEX) or b"").ids() or ident in root.archived_ids():
        return True
    return root.exists(f"{SESSIONS}/{ident}.md") or root.exists(f"{NOTES}/{ident}.md")


def decide_archives(
    root: MemoryRoot, copies: list[ConflictCopy], left: Merging, prefer: Prefer | None, only: str | None
) -> Checkup:
    """doctor's archive checks (archived on one machine, updated on the other in the same minute) with prefer
    deciding the cells no time decides, of session only or every one: the files it changes (checkup.plan) and
    the copies that stay in place (a row of theirs still open). Only the sessions whose cells doctor leaves
    open are decided (a first pass without prefer finds them, on the same read of the root): resolve does no
    other repair of doctor's."""
    probe = _archive_checks(root, copies, left, None, None, None)
    return _archive_checks(root, copies, left, prefer, only, set(probe.archive_open), probe)


def _archive_checks(
    root: MemoryRoot,
    copies: list[ConflictCopy],
    left: Merging,
    prefer: Prefer | None,
    only: str | None,
    among: set[str] | None,
    read: Checkup | None = None,
) -> Checkup:
    """doctor's checks of live rows, live snapshots and copies' rows beside `archive/<id>/` (of the sessions
    among, else every one), prefer deciding what no time decides; read: an earlier pass over the same root, whose
    reads this one takes instead of reading the index, sessions/ and archive/ again."""
    copied = {c.path[len(SESSIONS) + 1 : -3] for c in copies if c.path.startswith(f"{SESSIONS}/")}
    c = Checkup(root, datetime.now(), copied, read=read)
    c.prefer, c.only = prefer, only
    archived.held_back_rows(c, left.held_back, c.index.ids(), among)  # (no row check here: any row is live)
    live = set(c.index.ids()) & c.archived if c.archived else set()
    for sid in sorted((c.archived & c.snaps) | live):
        rows = c.index.find(sid)
        if (among is not None and sid not in among) or len(rows) > 1 or (rows and rows[0].refs):
            continue
        moved = root.exists(archive_session_path(sid))
        if sid in c.snaps and moved:
            archived.updated_after_archive(c, sid, rows[0] if rows else None)
        elif rows and root.exists(archive_index_path(sid)):
            sessions.finish_archive(c, sid, rows[0], sid in c.snaps)
    return c


def open_cells(root: MemoryRoot) -> list[tuple[str, OpenCell, bool]]:
    """Every cell resolve decides on root, with the file it is open in and whether it is an archived session's:
    each cell doctor's merge of a copy leaves open (in the copy's original; ours this machine's value, theirs the
    copy's), then each field of a session archived on one machine and updated on the other in the same minute (in
    the file holding the update: index.md, the live snapshot, a copy's original; ours the archive's value, theirs
    the update's; one per field, as doctor reports them)."""
    copies: list[ConflictCopy] = find_copies(root, thorough=True) + note_copies(root)
    left = fold_copies(root, copies)
    out = [(fold.original, cell, False) for fold in left.folds for cell in fold.open]
    merged = PlannedRoot(root)  # (the archive checks read the copies folded in, as doctor's do)
    merged.lay(Plan(OP, None, left.changes))
    originals = {c.path: c.original for c in copies}
    for _sid, cells in sorted(_archive_checks(merged, copies, left, None, None, None).archive_open.items()):
        by_column: dict[str, tuple[OpenCell, str]] = {}
        for cell, where in cells:
            by_column.setdefault(cell.column, (cell, where))
        out += [(originals.get(where, where), cell, True) for cell, where in by_column.values()]
    return out


def plan_resolve(root: MemoryRoot, prefer: Prefer, only: str | None = None) -> Plan[ResolveResult]:
    """The plan deciding open cells (of only, else every one) by prefer, and the git driver's blocks."""
    copies: list[ConflictCopy] = find_copies(root, thorough=True) + note_copies(root)
    left = fold_copies(root, copies)  # what doctor's merge leaves open
    opened = {f.copy.path: f.open for f in left.folds if f.open}
    chosen = [c for c in copies if c.path in opened and (only is None or any(o.id == only for o in opened[c.path]))]
    # a copy its original already holds is only moved (a resolve stopped after its merge step left it)
    held = {f.copy.path for f in left.folds if not f.open and not f.unparsed and f.after == f.before}
    moving = [c for c in copies if c in chosen or c.path in held]
    blocks: list[tuple[str, bytes, bytes, list[str]]] = []
    for rel in memboard_files(root):
        data = root.read(rel)
        if data is None or not _has_block(data):
            continue
        after, ids = resolve_blocks(rel, data, prefer, only)
        if after != data:
            blocks.append((rel, data, after, ids))
    if only is not None and not chosen and not blocks and not _known(root, only):  # (archived IDs are known)
        raise UsageError(f"{only} is no session or note of this memory root, and nothing open names it")
    laid = PlannedRoot(root)  # (a file with blocks and a copy both: the copy folds into the decided file)
    laid.lay(Plan(OP, None, [Change("modify", rel, data, after) for rel, data, after, _ in blocks]))
    folded = fold_copies(laid, moving, prefer, only)
    merged = PlannedRoot(laid)  # (the archive checks read the copies folded in, the copies still in place)
    merged.lay(Plan(OP, None, folded.changes))
    arch = decide_archives(merged, copies, left, prefer, only)
    folded.moves = [ch for ch in folded.moves if ch.path not in arch.kept_copies]
    decided = [
        Decided(cell.id, cell.column, path)
        for path, cells in opened.items()
        for cell in cells
        if any(c.path == path for c in chosen) and (only is None or cell.id == only)
    ]
    firsts: dict[tuple[str, str], str] = {}  # (a Topic both the row and the snapshot hold: one cell)
    for cell, where in arch.archive_decided:
        firsts.setdefault((cell.id, cell.column), where)
    decided += [Decided(sid, column, where) for (sid, column), where in firsts.items()]
    result = ResolveResult(prefer, decided, [(rel, ids) for rel, _, _, ids in blocks])
    plan = Plan(OP, result)
    plan.changes += [Change("modify", rel, data, after) for rel, data, after, _ in blocks]
    plan.changes += folded.changes + (arch.plan(strays=False).changes if arch.archive_decided else [])
    plan.changes += folded.moves
    plan.premises += folded.premises
    what = [f"{d.id} {d.column}" for d in decided] + [
        f"{rel} ({', '.join(ids) or 'blocks'})" for rel, _, _, ids in blocks
    ]
    moved = sum(1 for ch in folded.moves if ch.path in held)
    if what:
        plan.success = f"resolved with {prefer}: {'; '.join(what)}"
    elif moved:
        plan.success = f"nothing left open; kept {moved} merged cop{'y' if moved == 1 else 'ies'} under {CONFLICTS}/"
    else:
        plan.report.append("nothing to resolve")
    return plan
