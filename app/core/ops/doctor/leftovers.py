"""Doctor's checks of what other programs left: a folder that is no memory root, merge-conflict markers,
sync-conflict copies, and the state an older memboard kept in the root."""

from __future__ import annotations

from ...errors import Remedy, said
from ...files.copies import ConflictCopy, copy_advice, find_copies
from ...files.legacystate import plan_legacy_move
from ...files.localstate import LEGACY_LOGS, LocalState
from ...files.root import MemoryRoot
from ...formats.index import IndexFile
from ...formats.layout import INDEX, SESSIONS, STATE
from ...formats.markers import line_list
from ...plan import Plan
from ...results import DoctorResult, Finding

CONFLICT_MARKERS = "index_conflict_markers"


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
            "stash; every change is refused and nothing else is checked until they are gone: edit index.md, keep "
            "the rows you want from each side, delete the marker lines, then ",
            (Remedy.DOCTOR, "run memboard doctor"),
            " again",
        ),
        subject=INDEX,
    )


def copy_finding(copy: ConflictCopy, about: str) -> Finding:
    """sync_conflict_copy: one copy a sync tool kept (about: the session or note ID it concerns), with the keys
    `doctor --json` adds (path, of, tool, device); its message and fix say what to do about it (copy_advice)."""
    return Finding("sync_conflict_copy", about, copy_advice(copy), subject=copy.original, extra=copy.extra())


def sync_conflict_copies(root: MemoryRoot) -> tuple[list[Finding], set[str]]:
    """sync_conflict_copy: copies a sync tool kept beside their originals (or where the original is missing);
    also the names under sessions/ that are copies, so that none is taken for a session."""
    findings, copied = [], set()
    for copy in find_copies(root, thorough=True):
        findings.append(copy_finding(copy, copy.session))
        if copy.path.startswith(f"{SESSIONS}/") and copy.path.endswith(".md"):
            copied.add(copy.path[len(SESSIONS) + 1 : -3])
    return findings, copied


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
