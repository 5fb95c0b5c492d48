"""Doctor's checks of what other programs left: a folder that is no memory root, merge-conflict markers (in
index.md, a snapshot, an archive file or a note), sync-conflict copies (too many of one file, and the merged copies
kept under .memboard/conflicts/ for a long time), and the state an older memboard kept in the root."""

from __future__ import annotations

import os
from collections import Counter
from datetime import datetime, timedelta

from ...errors import Remedy, said
from ...files.copies import ConflictCopy, copy_advice, find_copies
from ...files.legacystate import plan_legacy_move
from ...files.localstate import LEGACY_LOGS, LocalState
from ...files.root import MemoryRoot
from ...formats.ids import is_valid_id
from ...formats.index import IndexFile
from ...formats.layout import ARCHIVE, CONFLICTS, INDEX, SESSIONS, STATE
from ...formats.markers import line_list, marker_lines
from ...plan import Plan
from ...results import DoctorResult, Finding

CONFLICT_MARKERS = "index_conflict_markers"
TOO_MANY = 8  # copies of one file that doctor warns about: Syncthing deletes copies beyond 10 (maxConflicts)
PRESERVED_DAYS = 30  # a merged copy kept this long is named (for information: memboard never deletes one)


def not_a_memory_root(root: MemoryRoot, reason: str) -> Finding:
    """not_a_memory_root: doctor never walks a home folder or `/` looking for memboard's files."""
    return Finding("not_a_memory_root", "", f"{root.path} is not a memory root ({reason}): nothing to check")


def index_conflict_markers(root: MemoryRoot) -> Finding | None:
    """index_conflict_markers: rows past a conflict block are invisible, so nothing else is checked."""
    markers = IndexFile(root.read(INDEX) or b"").conflict_lines
    if not markers:
        return None
    return Finding(
        CONFLICT_MARKERS,
        "",
        said(
            f"index.md holds merge-conflict markers ({line_list(markers)}), left by a git merge, rebase or "
            "stash; every change is refused and nothing else is checked until they are gone: run `memboard resolve "
            "--prefer ours|theirs`, or edit index.md, keep the rows you want from each side, delete the marker lines, "
            "then ",
            (Remedy.DOCTOR, "run memboard doctor"),
            " again",
        ),
        subject=INDEX,
    )


def copy_finding(copy: ConflictCopy, about: str) -> Finding:
    """sync_conflict_copy: one copy a sync tool kept (about: the session or note ID it concerns), with the keys
    `doctor --json` adds (path, of, tool, device); its message and fix say what to do about it (copy_advice)."""
    return Finding("sync_conflict_copy", about, copy_advice(copy), subject=copy.original, extra=copy.extra())


def too_many_copies(copies: list[ConflictCopy], about: dict[str, str]) -> list[Finding]:
    """too_many_copies: a file with TOO_MANY or more copies (about: each original's session or note ID), which
    Syncthing starts deleting beyond 10, taking what only they hold."""
    counts = Counter(copy.original for copy in copies)
    return [
        Finding(
            "too_many_copies",
            about.get(original, ""),
            said(
                f"{original} has {n} sync-conflict copies: Syncthing keeps at most 10 per file by default and "
                "deletes older ones with what only they hold; merge them now (",
                (Remedy.DOCTOR, "run `memboard doctor --fix`"),
                ") and keep Syncthing's maxConflicts at 10 or more",
            ),
            subject=original,
        )
        for original, n in sorted(counts.items())
        if n >= TOO_MANY
    ]


def sync_conflict_copies(root: MemoryRoot, copies: list[ConflictCopy] | None = None) -> tuple[list[Finding], set[str]]:
    """sync_conflict_copy: copies a sync tool kept beside their originals (or where the original is missing),
    and too_many_copies; also the names under sessions/ that are copies, so that none is taken for a session
    (copies: find_copies's, when the caller has them already)."""
    findings, copied = [], set()
    copies = find_copies(root, thorough=True) if copies is None else copies
    for copy in copies:
        findings.append(copy_finding(copy, copy.session))
        if copy.path.startswith(f"{SESSIONS}/") and copy.path.endswith(".md"):
            copied.add(copy.path[len(SESSIONS) + 1 : -3])
    findings += too_many_copies(copies, {copy.original: copy.session for copy in copies})
    return findings, copied


def markers_advice(rel: str, lines: list[int]) -> str:
    """What a conflict_markers finding says: where the markers are and what to do about them."""
    return (
        f"{rel} holds merge-conflict markers ({line_list(lines)}), left by a git merge, rebase or stash: edit it, "
        "keep what you want from each side and delete the marker lines"
    )


def marked_file(rel: str, data: bytes | None, about: str) -> Finding | None:
    """conflict_markers: the finding for one file (a snapshot, an archive file or a note; about: its session or
    note ID) when it holds git's merge-conflict markers, else None."""
    lines = marker_lines(data) if data else []
    return Finding("conflict_markers", about, markers_advice(rel, lines), subject=rel) if lines else None


def conflict_markers(root: MemoryRoot, copied: set[str]) -> list[Finding]:
    """conflict_markers in the snapshots (not the copies, named already) and the archive files (notes: notes.py)."""
    found: list[Finding | None] = []
    for name in root.listdir(SESSIONS):
        if name.endswith(".md") and name[:-3] not in copied:
            rel = f"{SESSIONS}/{name}"
            found.append(marked_file(rel, root.read(rel), name[:-3] if is_valid_id(name[:-3]) else ""))
    for sid in root.listdir(ARCHIVE):
        if is_valid_id(sid):
            for leaf in ("index.md", "session.md"):
                rel = f"{ARCHIVE}/{sid}/{leaf}"
                found.append(marked_file(rel, root.read(rel), sid))
    return [f for f in found if f is not None]


def preserved_copies(root: MemoryRoot, when: datetime) -> list[Finding]:
    """preserved_copies: merged copies kept under .memboard/conflicts/ for more than PRESERVED_DAYS (information:
    memboard never deletes them)."""
    base = root.path / CONFLICTS
    if base.is_symlink() or not base.is_dir():
        return []
    cutoff = (when - timedelta(days=PRESERVED_DAYS)).timestamp()
    old: list[str] = []
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
        for name in sorted(files):
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if st.st_mtime < cutoff:
                old.append(os.path.relpath(path, root.path).replace(os.sep, "/"))
    if not old:
        return []
    shown = ", ".join(old[:3]) + (", …" if len(old) > 3 else "")
    noun = "copy is" if len(old) == 1 else "copies are"
    return [
        Finding(
            "preserved_copies",
            "",
            f"{len(old)} merged sync-conflict {noun} kept under {CONFLICTS}/ for more than {PRESERVED_DAYS} days "
            f"({shown}); memboard never deletes them: delete those you no longer need by hand",
            subject=CONFLICTS,
        )
    ]


def state_in_root(root: MemoryRoot, findings: list[Finding], plan: Plan[DoctorResult]) -> None:
    """state_in_root: what an older memboard kept in the root's .memboard/ moves to local state (copied first)."""
    move = plan_legacy_move(root)
    if move.deletes:
        kinds = [
            (move.count(f"{STATE}/revisions/"), "snapshot revision(s)"),
            (move.count(f"{STATE}/conversations/"), "conversation-map shard(s)"),
            (sum(f"{STATE}/{log}" in move.files for log in LEGACY_LOGS), "hook log file(s)"),
        ]
        what = ", ".join(f"{n} {label}" for n, label in kinds if n)
        findings.append(
            Finding(
                "state_in_root",
                "",
                f"{STATE}/ in the memory root holds {what} written by an older memboard; a synced root carries them to "
                "every machine, and a revision keeps text later removed from a snapshot (a pasted secret)",
                f"copy them to memboard's local state ({LocalState(root).path}), read the copies back, "
                "then delete them from the root",
                STATE,
            )
        )
        plan.local += move.local
        plan.changes += move.deletes
    for rel in move.kept:
        findings.append(
            Finding(
                "state_in_root",
                "",
                f"{rel} is not memboard's to move (unknown, or local state "
                "holds a different file of that name); move or delete it by hand",
                subject=rel,
            )
        )
