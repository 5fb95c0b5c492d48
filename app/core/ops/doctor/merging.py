"""Doctor's merge of sync-conflict copies into their originals (issue 26 §2, §3), the first repairs of its plan.

Each recognised copy is folded into its original by the core's merge functions (core.merge: rows by Session
ID, snapshots and notes item by item), several copies of one file one at a time in name order, each fold its
own step. The merged originals are laid over the root (sequence.PlannedRoot) before doctor's other checks
read it, so they see the rows and items the copies held: a row a copy holds is merged, never re-created from
a snapshot's Metadata as an orphan. A copy whose merge leaves no open cell then moves to
`.memboard/conflicts/<the copy's path>` byte for byte (or is deleted when those bytes are there already), as
the plan's last steps; a copy with open cells stays in place (conflict_cell findings) for `memboard resolve`.
Everything is a function of the files alone: two machines merging the same copies write the same bytes, a
second run changes nothing, and a run stopped after any step is finished by the next.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...errors import MemboardError
from ...files.copies import ConflictCopy
from ...files.root import MemoryRoot
from ...formats.index import IndexFile
from ...formats.layout import ARCHIVE, CONFLICTS, INDEX, NOTES, SESSIONS, archive_session_path
from ...merge.documents import merge_archive_index, merge_note, merge_snapshot
from ...merge.index import merge_index
from ...merge.result import Merged, OpenCell, Prefer
from ...plan import Change, Plan, Premise
from ...results import Finding
from ..sequence import PlannedRoot
from .checkup import OP

UNITS = {"index": ("row", "rows"), "snapshot": ("item", "items"), "archive": ("field", "fields")}


def kept_path(copy_path: str) -> str:
    """Where a merged copy is kept: `.memboard/conflicts/<the copy's path in the root>`."""
    return f"{CONFLICTS}/{copy_path}"


def kind_of(original: str) -> str:
    """Which of memboard's files original is: index, snapshot, archive (an archive's index.md) or note."""
    if original == INDEX:
        return "index"
    if original.startswith(f"{NOTES}/"):
        return "note"
    if original.startswith(f"{ARCHIVE}/") and original.endswith("/index.md"):
        return "archive"
    return "snapshot"


def _plural(n: int, kind: str) -> str:
    """`+2 rows`, `+1 item`, `+3 statements`."""
    one, many = UNITS.get(kind, ("statement", "statements"))
    return f"+{n} {one if n == 1 else many}"


def _cells(n: int) -> str:
    """`1 cell`, `2 cells`."""
    return f"{n} cell{'' if n == 1 else 's'}"


@dataclass
class Fold:
    """One copy folded into its original: the merge, the bytes before and after, where the copy goes."""

    copy: ConflictCopy
    data: bytes  # the copy's bytes
    merged: Merged | None  # None: the copy restores a missing original (its bytes are the original's)
    before: bytes | None
    after: bytes
    kind: str
    original: str  # the file it folds into (see _target)

    @property
    def open(self) -> tuple[OpenCell, ...]:
        """The cells this fold leaves open."""
        return self.merged.open if self.merged is not None else ()

    @property
    def unparsed(self) -> bool:
        """Whether a version could not be read as its kind (nothing merged)."""
        return self.merged is not None and self.merged.unparsed


@dataclass
class Merging:
    """Every copy's fold: the findings, the originals' changes (first in the plan), the copies' moves (last)."""

    folds: list[Fold] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    moves: list[Change] = field(default_factory=list)
    premises: list[Premise] = field(default_factory=list)
    fixes: dict[str, str | None] = field(default_factory=dict)  # copy path -> its finding's fix
    reasons: dict[str, str] = field(default_factory=dict)  # copy path -> why nothing is merged (its fix is None)
    merged: dict[str, bytes] = field(default_factory=dict)  # original -> its bytes once every copy is folded in
    held_back: list[tuple[str, str, str]] = field(default_factory=list)  # (Session ID, row line, copy path)

    def overlay(self) -> list[Change]:
        """The changes to lay over the root before the other checks read it."""
        return self.changes + self.moves


Merger = Callable[[bytes, bytes], Merged]


class MergedRoot(PlannedRoot):
    """The root as the merge leaves it, which doctor's other checks read (sequence.PlannedRoot): a file the
    merge does not change is read from the root once (its own read checks the path), not resolved twice."""

    def read(self, rel: str) -> bytes | None:
        """The merged bytes of rel, else the root's."""
        if rel in self.overlay:
            self.abs(rel)
            return self.overlay[rel]
        return self.base.read(rel)

    @classmethod
    def of(cls, root: MemoryRoot, merging: Merging) -> MergedRoot:
        """root with merging's changes laid over it."""
        laid = cls(root)
        laid.lay(Plan(OP, None, merging.overlay()))
        return laid


def _merger(
    root: MemoryRoot, kind: str, original: str, merged: dict[str, bytes], pref: Prefer | None, only: str | None
) -> Merger:
    """The merge function for one original (the index's archived IDs, a snapshot's merged row; pref and only
    decide open cells)."""
    if kind == "index":
        archived = frozenset(root.archived_ids())
        return lambda ours, theirs: merge_index(ours, theirs, archived=archived, prefer=pref, only=only)
    if kind == "note":
        return lambda ours, theirs: merge_note(ours, theirs, prefer=pref)
    if kind == "archive":
        return lambda ours, theirs: merge_archive_index(ours, theirs, prefer=pref)
    row = _row_of(merged.get(INDEX) or root.read(INDEX), _session_of(original))
    return lambda ours, theirs: merge_snapshot(ours, theirs, row=row, prefer=pref)


def _session_of(original: str) -> str:
    """The Session ID of a snapshot or archive file's path."""
    if original.startswith(f"{SESSIONS}/"):
        return original[len(SESSIONS) + 1 : -3]
    return original.split("/")[1] if original.startswith(f"{ARCHIVE}/") else ""


def _row_of(index: bytes | None, sid: str) -> dict[str, str] | None:
    """The (merged) index row of sid, by field name, when there is exactly one."""
    if not index or not sid:
        return None
    found = IndexFile(index).find(sid)
    return dict(found[0].values) if len(found) == 1 else None


def fold_copies(
    root: MemoryRoot, copies: list[ConflictCopy], prefer: Prefer | None = None, only: str | None = None
) -> Merging:
    """Fold every copy into its original (index.md first, then by path; each original's copies in name order).

    prefer and only decide open cells (`memboard resolve`); without them an open cell keeps ours' value and
    leaves its copy in place."""
    out = Merging()
    groups: dict[str, list[ConflictCopy]] = {}
    for copy in sorted(copies, key=lambda c: c.path):
        groups.setdefault(_target(root, copy), []).append(copy)
    for original in sorted(groups, key=lambda rel: (rel != INDEX, rel)):
        _fold_group(root, out, original, groups[original], prefer, only)
    return out


def _target(root: MemoryRoot, copy: ConflictCopy) -> str:
    """The file a copy folds into: its original, or for a snapshot whose session was archived meanwhile (on
    the other machine) the archived snapshot `archive/<id>/session.md`: the session stays archived."""
    if copy.original.startswith(f"{SESSIONS}/") and root.read(copy.original) is None:
        archived = archive_session_path(_session_of(copy.original))
        if root.exists(archived):
            return archived
    return copy.original


def _fold_group(
    root: MemoryRoot,
    out: Merging,
    original: str,
    copies: list[ConflictCopy],
    prefer: Prefer | None,
    only: str | None,
) -> None:
    """Fold one original's copies in name order, each fold its own step."""
    kind = kind_of(original)
    merge = _merger(root, kind, original, out.merged, prefer, only)
    current = root.read(original)
    for copy in copies:
        data = root.read(copy.path)
        if data is None:
            continue
        if current is None:  # no original (rclone renames both sides): the first copy restores it
            fold = Fold(copy, data, None, None, data, kind, original)
        else:
            try:
                merged = merge(current, data)
            except MemboardError:  # (a version the merge refuses: nothing merged, said in the copy's finding)
                merged = Merged(current, unparsed=True)
            fold = Fold(copy, data, merged, current, merged.data, kind, original)
        out.folds.append(fold)
        if fold.unparsed:
            out.fixes[copy.path] = None
            out.reasons[copy.path] = (
                f"memboard cannot read it or {original} as its kind of file, so nothing is merged: compare them, "
                "carry over by hand what only the copy holds, then delete the copy"
            )
            continue
        if fold.after != fold.before:
            out.changes.append(Change.write(original, fold.before, fold.after))
        current = fold.after
        _findings(out, fold)
        out.fixes[copy.path] = _keep(root, out, fold)
    if current is not None:
        out.merged[original] = current


def _findings(out: Merging, fold: Fold) -> None:
    """conflict_cell for each open cell, id_collision for each Session ID two sessions share; held-back rows."""
    copy, merged, original = fold.copy, fold.merged, fold.original
    if merged is None:
        return
    for cell in merged.open:
        out.findings.append(
            Finding(
                "conflict_cell",
                cell.id,
                f"{original} and its copy {copy.path} hold different {cell.column} for {cell.id}: "
                f"{cell.ours!r} (this machine's, kept) and {cell.theirs!r} (the copy's); decide with "
                f"`memboard resolve {cell.id} --prefer ours` or `--prefer theirs` (the copy stays until then)",
                None,
                original,
                (("path", copy.path), ("column", cell.column)),
            )
        )
    for sid in merged.collisions:
        out.findings.append(
            Finding(
                "id_collision",
                sid,
                f"{original} and its copy {copy.path} hold two sessions under the Session ID {sid} (their "
                "Agent Name or Started At differ: two machines registered in the same minute): both rows are "
                "kept, never merged; give one of them another Session ID by hand (a per-machine agent name, "
                "`memboard config set agent_name …`, keeps this from happening)",
                None,
                original,
                (("path", copy.path),),
            )
        )
    for sid, line in merged.held_back:
        out.held_back.append((sid, line, copy.path))


def _keep(root: MemoryRoot, out: Merging, fold: Fold) -> str | None:
    """Plan keeping a copy under .memboard/conflicts/ (unless cells stay open); its finding's fix."""
    copy = fold.copy
    kept = kept_path(copy.path)
    what = _what(fold)
    if fold.open:
        cols = ", ".join(dict.fromkeys(f"{c.column} of {c.id}" for c in fold.open))
        n = len(fold.open)
        left = f"{n} open cell{'' if n == 1 else 's'} ({cols}) left to `memboard resolve`: the copy stays in place"
        if fold.after == fold.before:  # nothing left to merge: a person decides the rest
            out.reasons[copy.path] = left
            return None
        return f"{what}; {left}"
    there = root.read(kept)
    if there is None:
        out.moves.append(Change("move", copy.path, fold.data, fold.data, dest=kept))
        return f"{what}; keep the copy as {kept}"
    if there == fold.data:
        out.moves.append(Change("delete", copy.path, fold.data, None))
        out.premises.append(
            Premise(f"{kept} holds the bytes of {copy.path}", lambda r: r.read(kept) == fold.data, files=(kept,))
        )
        return f"{what}; {kept} holds its bytes already: delete the copy"
    stays = f"{kept} holds other bytes: the copy stays in place (keep or delete it by hand)"
    if fold.after == fold.before:  # nothing left to merge: a person decides the rest
        out.reasons[copy.path] = f"{what}; {stays}"
        return None
    return f"{what}; {stays}"


def _what(fold: Fold) -> str:
    """What folding the copy does to its original, in words: `merge into index.md: +2 rows, 1 cell`."""
    original = fold.original
    if fold.merged is None:
        return f"restore {original} from it"
    merged = fold.merged
    parts = [_plural(merged.added, fold.kind)] if merged.added else []
    if merged.cells:
        parts.append(_cells(merged.cells))
    outside = (
        f" (the text outside the table differs in {len(merged.outside)} line(s): {original}'s is kept, the kept copy "
        "holds the rest)"
        if merged.outside
        else ""
    )
    if not parts:
        said = f"{original} holds all of it already" if fold.after == fold.before else f"merge into {original}"
        return said + outside
    return f"merge into {original}: {', '.join(parts)}{outside}"


def keep_in_place(out: Merging, copies: set[str]) -> None:
    """Leave these copies in place, not kept under .memboard/conflicts/: a row of theirs is open against its
    session's archive (archived on one machine, updated on another in the same minute: doctor/archived.py)."""
    if not copies:
        return
    out.moves = [ch for ch in out.moves if ch.path not in copies]
    left = (
        "a row in it of a session archived meanwhile holds other values at the archive's Updated At, left to "
        "`memboard resolve`: the copy stays in place"
    )
    for fold in out.folds:
        if fold.copy.path not in copies:
            continue
        if fold.after == fold.before:
            out.fixes[fold.copy.path], out.reasons[fold.copy.path] = None, left
        else:
            out.fixes[fold.copy.path] = f"{_what(fold)}; {left}"


def copy_of_finding(finding: Finding) -> str:
    """The copy a sync_conflict_copy finding names (its `path`, else the start of its message)."""
    path = dict(finding.extra).get("path")
    return path if path else finding.message.split(" is a sync-conflict copy of ", 1)[0]


def with_fix(finding: Finding, merging: Merging) -> Finding:
    """A sync_conflict_copy finding with what the merge does as its fix (or None, the reason in its message)."""
    if finding.kind != "sync_conflict_copy":
        return finding
    path = copy_of_finding(finding)
    if path not in merging.fixes:
        return finding
    reason = merging.reasons.get(path)
    message = f"{finding.message}; {reason}" if reason else finding.message
    return finding._replace(message=message, fix=merging.fixes[path])
