"""Organize Memory: delete idle rows, mark overdue active rows stale, report the rest.

A snapshot organize cannot read (permission denied, locked, a placeholder whose download fails, not a regular
file, a symlink out of the root) may list any row under Continues From: while one is there, no idle row is
deleted and no active row marked stale (each is protected, its reason naming the file), and the report names
each such file and why. A dry run says the same: it is the same plan.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..config import DEFAULT_STALE_DAYS
from ..errors import UsageError
from ..files.continues import Beside, Snapshots, look, premise
from ..files.root import MemoryRoot
from ..formats.clock import parse
from ..formats.index import NO_REFS, IndexEdit, IndexFile, Row, parse_refs
from ..formats.layout import INDEX, SESSIONS
from ..plan import Change, Check, Plan
from ..results import OrganizeResult
from .common import has_meaningful_summary, load_index, refuse_unmerged_copies

KEYS = ("deleted", "marked_stale", "kept_active", "protected", "blocked", "malformed", "stale")
CHUNK = 4096  # overdue rows marked stale at a time (see Pass.done)
BLOCKED = "idle row has a snapshot; resolve (update or archive) before organize deletes it"
LABELS = (
    ("deleted", "deleted idle"),
    ("marked_stale", "marked stale"),
    ("kept_active", "kept active"),
    ("protected", "protected (referenced)"),
    ("blocked", "blocked (idle with snapshot, not deleted)"),
    ("malformed", "skipped (malformed or duplicate row)"),
)


def continued_sources(
    root: MemoryRoot, ids: AbstractSet[str] | None, seen: Snapshots | None = None
) -> dict[str, list[str]]:
    """Fallback protection: source ID → live sessions whose snapshot lists it in Continues From (ids: only these
    sources, None: every one; seen: a look at sessions/ already taken, see files/continues.py)."""
    if seen is None:
        seen = look(root)
    out: dict[str, list[str]] = {}
    answers = seen.answers
    for name in seen.names:
        sid, sources = answers[name]  # (a sync-conflict copy speaks for its original, not as a session)
        for src in sources:
            if (ids is None or src in ids) and sid not in out.get(src, []):
                out.setdefault(src, []).append(sid)
    return out


@dataclass
class Pass:
    """The organize pass as it sorts rows: where each Session ID goes, why, and the index edit."""

    edit: IndexEdit
    fallback: dict[str, list[str]]  # source -> sessions listing it in Continues From
    snapshots: set[str]
    unsure: str | None  # why a row organize would change is kept instead (see unsure_reason), None: it is not
    cutoff: datetime
    lists: dict[str, list[str]] = field(default_factory=lambda: {key: [] for key in KEYS})
    reasons: dict[str, str] = field(default_factory=dict)
    updated: dict[str, str] = field(default_factory=dict)  # each row kept active: its Updated At
    overdue: list[Row] = field(default_factory=list)  # rows to mark stale (in one pass of the edit, see done)

    def put(self, key: str, sid: str, reason: str | None = None) -> None:
        """Record sid under key (and why)."""
        self.lists[key].append(sid)
        if reason is not None:
            self.reasons[sid] = reason

    def active(self, row: Row) -> None:
        """Mark an overdue active row stale when it has content (nobody references it, nor may: every snapshot was
        read, see sort)."""
        sid, text = row.id, row.get("updated_at")
        updated = parse(text)
        if updated is not None and updated < self.cutoff and (sid in self.snapshots or has_meaningful_summary(row)):
            if self.unsure:
                self.put("protected", sid, self.unsure)
                return
            self.lists["marked_stale"].append(sid)
            self.overdue.append(row)
            if len(self.overdue) >= CHUNK:
                self.done()
        else:
            self.put("kept_active", sid, None if updated is not None else "Updated At is not a time")
            self.updated[sid] = text

    def done(self) -> None:
        """Mark the overdue rows sorted so far stale (a chunk at a time: rows are not kept till the end), and
        once every row is sorted, the last of them."""
        self.edit.set_each(self.overdue, {"status": "stale"}, once=True)
        self.overdue = []

    def sort(self, rows: Iterable[Row], twice: AbstractSet[str]) -> None:
        """Sort each row as it comes (twice: the Session IDs of more than one row, each of them malformed): a row
        with Referenced By is protected by it; a stale row (any status but idle and active) stays; an idle or
        active row listed by a snapshot under Continues From is protected; an idle row is deleted unless it has a
        snapshot (blocked) or a snapshot could not be read (protected); an active row, see active."""
        lists, reasons, fallback, snapshots = self.lists, self.reasons, self.fallback, self.snapshots
        protected, stale, deleted, delete = lists["protected"], lists["stale"], lists["deleted"], self.edit.delete
        for row in rows:
            sid = row.id
            if row.problem or sid in twice:
                lists["malformed"].append(sid or f"line {row.line + 1}")
                reasons[sid] = row.problem or "duplicate Session ID"
                continue
            status, value = row.status, row.get("referenced_by")
            refs = [] if value == NO_REFS else parse_refs(value)  # (most rows: `-`, no call to read the list)
            if refs:
                protected.append(sid)
                reasons[sid] = "Referenced By " + ", ".join(refs)
            elif status != "idle" and status != "active":
                stale.append(sid)
            elif sid in fallback:
                protected.append(sid)
                reasons[sid] = "listed in Continues From of " + ", ".join(fallback[sid])
            elif status == "active":
                self.active(row)
            elif sid in snapshots:
                self.put("blocked", sid, BLOCKED)
            elif self.unsure:
                self.put("protected", sid, self.unsure)
            else:
                deleted.append(sid)
                delete(row)

    def hung_on(self, fallback: dict[str, list[str]]) -> bool:
        """Whether a row this pass sorted without fallback (as unprotected: no Referenced By) is a source in it: its
        fate hung on fallback. Sorted with none, those rows are the ones deleted, blocked, marked stale or kept
        active (a row with Referenced By is protected by it, a malformed or stale row is kept either way)."""
        if not fallback:
            return False
        return any(
            sid in fallback for key in ("deleted", "blocked", "marked_stale", "kept_active") for sid in self.lists[key]
        )


def unreadable_list(unreadable: dict[str, str]) -> str:
    """The snapshots that could not be read, each with why: `sessions/a.md (permission denied), ...`."""
    return ", ".join(f"{path} ({reason})" for path, reason in unreadable.items())


def unsure_reason(unreadable: dict[str, str]) -> str | None:
    """Why a row organize would delete or mark stale is kept instead: a snapshot it could not read may list any
    row under Continues From (None when every snapshot was read)."""
    if not unreadable:
        return None
    return "may be listed in Continues From of a snapshot memboard could not read: " + unreadable_list(unreadable)


def organized_check(deleted: list[str], marked: list[str]) -> Check:
    """A check that the deleted rows are gone and the marked rows are stale."""

    def holds(r: MemoryRoot) -> bool:
        # one pass over rows kept by no one (a list of 1M rows is ~1 GB): no row of a deleted ID, no marked row
        # that is not stale; the sets made only when asked (an index that verifies as the bytes written settles the
        # check without it: 800k IDs, 32 MB at 1M rows, at the plan's peak)
        deleted_ids, marked_ids = set(deleted), set(marked)
        for row in load_index(r).each_row():
            sid = row.id
            if sid in deleted_ids or (sid in marked_ids and row.status != "stale"):
                return False
        return True

    return Check("deleted rows are gone and marked rows are stale", holds, INDEX)


def plan_organize(
    root: MemoryRoot, when: datetime, stale_days: int = DEFAULT_STALE_DAYS, beside: bool = False
) -> Plan[OrganizeResult]:
    """The whole default organize pass as one index write, with the seed's report (beside: the snapshots may be
    looked at in a child process while the rows are read, see continues.Beside: a one-shot command's choice)."""
    if stale_days < 0:
        raise UsageError("--stale-days must be 0 or more")
    refuse_unmerged_copies(root, "organize", "the rows organize deletes or marks stale")
    before = root.read(INDEX)
    cutoff = when - timedelta(days=stale_days)
    with Beside(root, apart=beside) as looking:
        index = IndexFile(before or b"")
        index.edit()  # (a file with conflict markers is no table: refused, the look is dropped)
        snapshots = root.session_ids_on_disk()
        # one pass over rows kept by no one (the index keeps 1M rows in ~1 GB), each sorted as it is read, while the
        # snapshots are looked at: as if every one was read and none listed a row the pass decides under Continues
        # From (what the look then says is checked below)
        sorting = Pass(index.edit(), {}, snapshots, None, cutoff)
        sorting.sort(index.each_row(), frozenset())
        seen = looking()
    unreadable = {f"{SESSIONS}/{name}": reason for name, reason in seen.unreadable.items()}
    fallback, unsure = continued_sources(root, None, seen), unsure_reason(unreadable)
    twice: set[str] = set()
    if len(index.ids()) < index.row_count():  # IDs of more than one row (rare): each is malformed
        twice = {sid for sid, n in Counter(row.id for row in index.each_row()).items() if n > 1}
    if twice or unsure or sorting.hung_on(fallback):  # (rare: the pass did not hold) sort again
        sorting = Pass(index.edit(), fallback, snapshots, unsure, cutoff)
        sorting.sort(index.each_row(), frozenset(twice))
    edit = sorting.edit
    lists = sorting.lists
    result = OrganizeResult(
        **lists, reasons=sorting.reasons, stale_days=stale_days, updated=sorting.updated, unreadable=unreadable
    )
    plan = Plan("organize", result)
    plan.premises.append(premise(seen))  # the snapshots still say what protected (or did not protect) each row
    sorting.done()
    after = edit.to_bytes()
    if before is not None and after != before:
        plan.changes.append(Change("modify", INDEX, before, after, rewrite=edit.rewrite()))
        plan.checks.append(organized_check(lists["deleted"], lists["marked_stale"]))
    for key, label in LABELS:
        listed = lists[key]
        plan.report.append(f"{label}: {len(listed)}" + (" — " + ", ".join(listed) if listed else ""))
    if unreadable:
        plan.report.append(
            f"could not read: {len(unreadable)} — {unreadable_list(unreadable)}; no row is deleted or marked stale "
            "while a snapshot cannot be read"
        )
    return plan
