"""Doctor's order: files memboard cannot read first (alone: see readable.py), what other programs left, then the
index, sessions, archive folders, links and notes."""

from __future__ import annotations

from datetime import datetime

from ...errors import Unreadable
from ...files.copies import find_copies
from ...files.root import MemoryRoot, not_a_memory_root
from ...formats.index import IndexFile
from ...formats.layout import INDEX, NOTES
from ...plan import Plan
from ...results import DoctorResult, Finding
from . import archived, gitdriver, leftovers, links, merging, notes, readable, rows, sessions
from .checkup import OP, Checkup


def diagnose(
    root: MemoryRoot, when: datetime | None = None, left_out: frozenset[str] = frozenset()
) -> tuple[list[Finding], Plan[DoctorResult]]:
    """All findings and one plan that repairs the fixable ones (but those of the kinds left_out: see LEAVABLE)."""
    with root.steady():
        return _diagnose(root, when or datetime.now(), left_out)


def findings_and_count(root: MemoryRoot, when: datetime | None = None) -> tuple[list[Finding], int]:
    """All findings and how many file changes their repair plan makes (a doctor without --fix): the plan is
    counted, never returned, so the snapshots it would create are never rendered."""
    with root.steady():
        findings, plan = _diagnose(root, when or datetime.now(), counting=True)
    return findings, len(plan.changes)


def _diagnose(
    root: MemoryRoot, when: datetime, left_out: frozenset[str] = frozenset(), counting: bool = False
) -> tuple[list[Finding], Plan[DoctorResult]]:
    """diagnose, its folders resolved once (left_out: see LEAVABLE; counting: see Checkup)."""
    elsewhere = not_a_memory_root(root.real)
    if elsewhere:  # never walk a home folder or `/` looking for memboard's files
        findings = [leftovers.not_a_memory_root(root, elsewhere)]
        return findings, Plan(OP, DoctorResult(findings))
    findings = readable.unreadable_files(root)
    if not findings:
        try:
            return _checks(root, when, left_out, counting)
        except Unreadable as exc:  # a read that failed mid-pass (permission, I/O error, a lock): never a guess
            findings = [readable.unreadable(exc)]
    return findings, Plan(OP, DoctorResult(findings))


def _checks(
    root: MemoryRoot, when: datetime, left_out: frozenset[str], counting: bool
) -> tuple[list[Finding], Plan[DoctorResult]]:
    """Every check, on a root whose files can all be read: sync-conflict copies merged first, the other checks
    then reading the root as the merge leaves it (merging.py)."""
    markers = leftovers.index_conflict_markers(root)
    copies = find_copies(root, thorough=True)
    findings, copied = leftovers.sync_conflict_copies(root, copies)
    findings += gitdriver.driver_missing(root)  # (before the markers' stop: a missing driver is why git left them)
    if markers is not None:  # rows past a conflict block are invisible: repair nothing
        findings.insert(0, markers)
        return findings, Plan(OP, DoctorResult(findings))
    findings += leftovers.conflict_markers(root, copied)
    merge = merging.fold_copies(root, copies + notes.note_copies(root))
    findings += merge.findings
    laid = merging.MergedRoot.of(root, merge)
    with laid.steady():  # (each of its folders resolved once, as the root's own)
        findings, plan, kept = _repairs(laid, when, findings, copied, merge.held_back, left_out, counting)
    merging.keep_in_place(merge, kept)
    findings += leftovers.preserved_copies(root, when)
    leftovers.state_in_root(root, findings, plan)
    findings[:] = [merging.with_fix(f, merge) for f in findings]
    plan.changes[:0] = merge.changes  # the merged originals first, the copies' moves last
    plan.changes += merge.moves
    plan.premises += merge.premises
    return findings, plan.with_result(DoctorResult(findings, left_out))


def _repairs(
    root: MemoryRoot,
    when: datetime,
    findings: list[Finding],
    copied: set[str],
    held: list[tuple[str, str, str]],
    left_out: frozenset[str],
    counting: bool = False,
) -> tuple[list[Finding], Plan[DoctorResult], set[str]]:
    """The checks after the merge (held: the copies' rows of archived sessions, not brought back): the index,
    sessions, archive folders, links and notes; also the copies that stay in place (archived.held_back_row)."""
    checkup = Checkup(root, when, copied, left_out, counting)
    plan: Plan[DoctorResult] = Plan(OP, DoctorResult([]))
    if rows.index_not_text(checkup):
        rows.index_table(checkup)
        repairable = rows.index_columns(checkup)
        if repairable:
            rows.check_rows(checkup)
            archived.held_back_rows(checkup, held, checkup.live)
            sessions.check_live_rows(checkup)
            sessions.check_orphans(checkup)
            sessions.check_archive_folders(checkup)
            links.check_links(checkup)
            archived.report_open(checkup)
        if repairable or checkup.laid_out:  # (a table lacking columns still gets the line that makes it one)
            plan = checkup.plan(strays=repairable)
    findings += checkup.findings
    if root.exists(NOTES):
        notes.check_notes(root, findings, plan)
    return findings, plan, checkup.kept_copies


def repair_plan(root: MemoryRoot, when: datetime) -> Plan[DoctorResult]:
    """The plan `doctor --fix` applies; refused, nothing written, while index.md holds conflict markers or a file
    memboard reads is no regular file or cannot be read."""
    IndexFile(root.read(INDEX) or b"").refuse_conflicts()
    findings, plan = diagnose(root, when)
    readable.refuse_repairs(findings)
    return plan
