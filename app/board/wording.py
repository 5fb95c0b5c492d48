"""The board's words: what a preview says will happen (per operation), and the core's messages
said in the board's own keys, with the flow that fixes a refusal where there is one.

Plain Python (no Textual). Core results are read through results.py only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from ..core.errors import MemboardError, Remedy, Said
from ..core.formats import clock
from ..core.plan import Plan
from . import results
from .planview import Left, ViewLine

# -- what will happen ----------------------------------------------------------------------


def archive_words(plan: Plan) -> str:
    """What one archive step will do, in one line."""
    sid = results.session_of(plan) or "?"
    if results.archive_deletes(plan):
        return f"Will delete the placeholder row {sid}: it has no snapshot, so there is nothing to archive."
    released = results.archive_released(plan)
    first = f" First releases its link to {', '.join(released)}." if released else ""
    return (
        f"Will archive {sid}: its row leaves index.md, its snapshot moves to archive/{sid}/session.md and "
        f"its row is kept in archive/{sid}/index.md.{first}"
    )


def archive_sequence(
    steps: list[tuple[str, Plan]], refused: dict[str, MemboardError]
) -> tuple[list[str], list[ViewLine]]:
    """Marked rows' archive: a compact headline, and a block listing each step and each refusal."""
    deleted = [sid for sid, step in steps if results.archive_deletes(step)]
    archived = len(steps) - len(deleted)
    parts = []
    if archived:
        parts.append(f"archive {archived} {'session' if archived == 1 else 'sessions'}")
    if deleted:
        parts.append(f"delete {len(deleted)} placeholder {'row' if len(deleted) == 1 else 'rows'}")
    headline = [
        "Will " + " and ".join(parts) + ", one after another in the order below."
        if parts
        else "Nothing can be archived."
    ]
    if refused:
        headline.append(f"Will not archive {len(refused)}: {', '.join(refused)} (why below).")
    block = [ViewLine(f"In this order ({len(steps)})", "group")]
    for number, (_sid, step) in enumerate(steps, 1):
        block.append(ViewLine(f"  {number}. {archive_words(step)}", "text"))
    for sid, why in refused.items():
        block.append(ViewLine(f"  Will not archive {sid}: {refusal_words(why)}", "refusal"))
    return headline, block


def continue_words(plan: Plan, registers: bool) -> list[str]:
    """What a continue plan will do."""
    sid, source = results.session_of(plan) or "?", results.continued_source(plan)
    if plan.empty:
        return [f"{sid} already continues from {source}: nothing to change."]
    if registers:
        return [f"Will register a new session {sid} (active) that continues from {source}."]
    return [
        f"{sid} will continue from {source}: {source}'s Referenced By gains {sid}, and {sid}'s snapshot lists "
        f"{source} under Continues From."
    ]


def release_words(plan: Plan) -> list[str]:
    """What a release plan will do."""
    sid, source = results.session_of(plan) or "?", results.released_source(plan)
    return [
        f"{sid} will stop continuing from {source}: it leaves {source}'s Referenced By, and {source} leaves "
        f"its Continues From."
    ]


def update_words(plan: Plan) -> list[str]:
    """What an update plan will do to the row and the snapshot."""
    sid = results.session_of(plan) or "?"
    out = results.update(plan)
    lines = [
        f"Will update {sid}: its row becomes active with Updated At now, and its snapshot is merged (no item is lost)."
    ]
    if out.snapshot_created:
        lines.append(f"Will create sessions/{sid}.md from the template.")
    said = []
    added, marked, carried = len(out.added), len(out.marked), len(out.carried_over)
    if added:
        said.append(f"add {added} item{'s' if added != 1 else ''}")
    if marked:
        said.append(f"mark {marked}")
    if carried:
        said.append(f"keep {carried} earlier item{'s' if carried != 1 else ''} the editor left out")
    if out.continues_from:
        said.append(f"continue from {', '.join(out.continues_from)}")
    if said:
        lines.append("The snapshot merge will " + ", ".join(said) + ".")
    return lines


ORGANIZE_KEPT = (
    ("protected", "Protected: something still refers to it"),
    ("blocked", "Blocked: idle, but it has a snapshot (update or archive it first)"),
    ("malformed", "Skipped: malformed or duplicate rows"),
)


def kept_reason(sid: str, out: results.OrganizeResult, when: datetime | None) -> str:
    """Why organize leaves an active row active: the core's reason, or what its Updated At says."""
    if sid in out.reasons:
        return out.reasons[sid]
    stamp = out.updated.get(sid, "")
    at = clock.parse(stamp)
    if when is not None and at is not None and at >= when - timedelta(days=out.stale_days):
        return f"updated {stamp}, within {out.stale_days} days"
    return "nothing to keep yet (no snapshot, the template's Summary): left as it is"


def organize_words(plan: Plan, when: datetime | None = None) -> tuple[list[str], list[ViewLine], dict[str, str]]:
    """Organize: the counts, a block of the rows it leaves (each with why; shown after the changes) and the
    reasons of those it changes.

    when is the plan's moment: with it each row kept active says why too (from the Updated At the organize
    result read with the plan)."""
    out = results.organize(plan)
    groups, days = results.organize_groups(out), out.stale_days
    deleted, stale = len(groups["deleted"]), len(groups["marked_stale"])
    headline = [
        f"Will delete {deleted:,} idle {'row' if deleted == 1 else 'rows'} and mark {stale:,} active "
        f"{'row' if stale == 1 else 'rows'} stale (not updated for more than {days} days).",
        f"Leaves {len(groups['kept_active']):,} active, {len(groups['stale']):,} already stale, "
        f"{len(groups['protected']):,} protected, {len(groups['blocked']):,} blocked, "
        f"{len(groups['malformed']):,} skipped.",
    ]
    if out.unreadable:  # (the core's rule: no row is deleted or marked stale on a guess)
        files = ", ".join(f"{path} ({why})" for path, why in out.unreadable.items())
        headline.append(f"Could not read {files}: no row is deleted or marked stale while a snapshot cannot be read.")
    reasons = dict.fromkeys(groups["deleted"], "idle, referenced by nobody, no snapshot")
    reasons.update(dict.fromkeys(groups["marked_stale"], f"not updated for more than {days} days"))
    kept = {sid: kept_reason(sid, out, when) for sid in groups["kept_active"]}
    block = Left()  # (after the changes: at 20k rows the first change was behind 3,470 rows left as they are)
    for key, title in ORGANIZE_KEPT:
        ids = groups[key]
        if ids:
            block.append(ViewLine(f"{title} ({len(ids):,})", "group"))
            block += [reason_line(sid, out.reasons.get(sid, "")) for sid in ids]
    if kept:
        block.append(ViewLine(f"Kept active ({len(kept):,})", "group"))
        block += [reason_line(sid, why) for sid, why in kept.items()]
    if groups["stale"]:
        block.append(ViewLine(f"Already stale, left as they are ({len(groups['stale']):,})", "group"))
        block += [reason_line(sid, "stale rows are never archived or deleted by organize") for sid in groups["stale"]]
    return headline, block, reasons


def reason_line(sid: str, why: str) -> ViewLine:
    """One row an operation leaves, with why: `  ID  reason` (the ID emphasised)."""
    return ViewLine(f"  {sid}  {why}", "text", ((2, 2 + len(sid), "row"),))


def unfixed_words(finding: results.Finding) -> str:
    """What to do about a finding doctor does not repair: R for what resolve decides, else by hand."""
    if finding.kind in results.HISTORY:
        return "history: nothing to do, nothing needs a hand"
    if finding.kind in results.RESOLVABLE:
        return "not repaired automatically: R (resolve) decides it, keeping ours or taking theirs"
    return "not repaired automatically: fix it by hand"


def finding_state(finding: results.Finding, left_out: frozenset[str]) -> str:
    """What doctor's plan does about a finding: "fix", "left" (its kind left out), "history" or "hand"."""
    if finding.fix:
        return "left" if finding.kind in left_out else "fix"
    return "history" if finding.kind in results.HISTORY else "hand"


STATE_MARKS = {"fix": ("✓", "text"), "left": ("○", "muted"), "history": ("·", "muted"), "hand": ("✗", "refusal")}
STATE_WORDS = {"fix": "will be repaired", "left": "left out", "history": "history", "hand": "need a hand"}
ONE_STATE_WORDS = {**STATE_WORDS, "hand": "needs a hand"}  # the same after a count of 1 (`1 needs a hand`)


def state_count(n: int, state: str) -> str:
    """A count of findings and what is done about them, its verb agreeing with it (`1 needs a hand`, `2 need a hand`)."""
    return f"{n:,} {(ONE_STATE_WORDS if n == 1 else STATE_WORDS)[state]}"


def finding_line(finding: results.Finding, state: str) -> list[ViewLine]:
    """One finding as doctor's preview lists it: its mark, kind, session and message, then what is done about it."""
    mark, kind = STATE_MARKS[state]
    where = f" {finding.id}" if finding.id else ""
    if state == "fix":
        then = f"will fix: {board_words(finding.fix or '')}"
    elif state == "left":
        then = f"left out (x puts it back): would fix: {board_words(finding.fix or '')}"
    else:
        then = unfixed_words(finding)
    return [
        ViewLine(f"  {mark} {finding.kind}{where}: {board_words(finding.message)}", kind),
        ViewLine(f"      {then}", "muted"),
    ]


def doctor_words(plan: Plan) -> tuple[list[str], list[ViewLine]]:
    """Doctor: how many findings and repairs (and left out), and a group per kind of finding, each with its fix."""
    found = results.findings(plan)
    if not found:
        return ["No inconsistencies found: nothing to repair."], []
    left_out = results.left_out(plan)
    states = [finding_state(f, left_out) for f in found]
    fixed, left, history = states.count("fix"), states.count("left"), states.count("history")
    said = f"{fixed:,} will be repaired, {state_count(len(found) - fixed - left - history, 'hand')}"
    said += f", {left:,} left out (x)" if left else ""
    headline = [
        f"Found {len(found):,} {'inconsistency' if len(found) == 1 else 'inconsistencies'}: {said}"
        + (f", {history:,} {'is' if history == 1 else 'are'} history (nothing to do)." if history else ".")
    ]
    kinds: dict[str, list[int]] = {}
    for number, finding in enumerate(found):
        kinds.setdefault(finding.kind, []).append(number)
    block: list[ViewLine] = []
    for kind, numbers in kinds.items():
        tally: dict[str, int] = {}
        for number in numbers:
            tally[states[number]] = tally.get(states[number], 0) + 1
        how = ", ".join(state_count(n, state) for state, n in tally.items())
        block.append(ViewLine(f"{kind} ({len(numbers):,}): {how}", "group"))
        for number in numbers:
            block += finding_line(found[number], states[number])
    return headline, block


def resolve_words(prefer: str, only: str | None, conflicts: list[results.OpenConflict]) -> str:
    """Resolve's headline: how many open conflicts whose value decides (`3 open conflicts: keep ours, ...`)."""
    scoped = [c for c in conflicts if only is None or c.id == only]
    n = len(scoped)
    whose = (
        "keep ours (this machine's values; in a git merge, the branch you are on)"
        if prefer == "ours"
        else "take theirs (the sync-conflict copy's values; in a git merge, the branch merged in)"
    )
    kinds = {c.archived for c in scoped}  # (archived on one machine, updated on the other: the cell's sides)
    archived = ""
    if kinds == {True}:
        whose = "keep ours (the archive's values)" if prefer == "ours" else "take theirs (the update's values)"
        archived = "; the session stays archived"
    elif True in kinds:
        archived = "; an archived session's cells: ours the archive's values, theirs the update's (it stays archived)"
    scope = f" of {only}" if only else ""
    moves = "; then each copy moves to .memboard/conflicts/" if any(c.column and not c.archived for c in scoped) else ""
    return f"{n:,} open {'conflict' if n == 1 else 'conflicts'}{scope}: {whose}{moves}{archived}"


def done_words(plan: Plan) -> str:
    """What an applied plan did, in one line for a toast and the result log."""
    if plan.op.startswith("doctor"):
        found = results.findings(plan)
        left_out = results.left_out(plan)
        fixed = sum(1 for f in found if f.fix and f.kind not in left_out)
        left = sum(1 for f in found if f.fix and f.kind in left_out)
        kinds = ", ".join(sorted({f.kind for f in found if f.fix and f.kind in left_out}))
        return (
            f"doctor repaired {fixed:,} of {len(found):,} {'inconsistency' if len(found) == 1 else 'inconsistencies'}"
            + (f" ({left:,} left out: {kinds})" if left else "")
        )
    if plan.op == "organize":
        groups = results.organize_groups(results.organize(plan))
        deleted, stale = len(groups["deleted"]), len(groups["marked_stale"])
        return (
            f"organize deleted {deleted:,} idle {'row' if deleted == 1 else 'rows'} and marked {stale:,} "
            f"{'row' if stale == 1 else 'rows'} stale"
        )
    return plan.success or "; ".join(plan.report) or f"{plan.op} done"


# -- refusals and findings in the board's keys -------------------------------------------------

REMEDY_WORDS = {  # each remedy a refusal names, in the board's keys ({subject}: the refusal's subject)
    Remedy.RELEASE: "(select {subject} and press r to release them)",
    Remedy.UPDATE: "select {subject} and press u to write its snapshot",
    Remedy.DOCTOR: "press d (doctor)",
    Remedy.DOCTOR_FIX: "press d (doctor) and apply its repairs first",
    Remedy.SPACE_CHECK: "press x on the Spaces screen (p) for what is left",
    Remedy.HIERARCHY_LINT: "press l on the Hierarchy screen (h) for what is left",
}


def refusal_words(exc: BaseException) -> str:
    """A refusal in the board's words: its remedy said as the board's keys, from its type (any other error as is)."""
    return exc.worded(REMEDY_WORDS) if isinstance(exc, MemboardError) else str(exc)


FINDING_WORDS = {  # each command doctor's findings name (a Said text), in the board's keys ({0}, {1}: its arguments)
    Remedy.DOCTOR: "press d (doctor)",
    Remedy.CONTINUE_LINK: "select {0} and press c (choosing {1})",
    Remedy.RELEASE_LINK: "r",
    Remedy.UPDATE_SUMMARY: "u on {0}",
    Remedy.ARCHIVE: "a archives it",
}


def board_words(text: str) -> str:
    """A finding's text with the commands it names said as the board's keys (`press d (doctor)`, `c`, `u`, `a`)."""
    return text.worded(FINDING_WORDS) if isinstance(text, Said) else text


@dataclass(frozen=True)
class Fix:
    """The flow that fixes a refusal: its action (a board action name), the session it starts on, its label."""

    action: str
    session_id: str | None
    label: str


FIXES = {  # the flow each remedy starts: its board action and its button's label
    Remedy.RELEASE: ("release", "Release its references"),
    Remedy.UPDATE: ("update", "Write its snapshot (update)"),
    Remedy.DOCTOR: ("doctor", "Run doctor"),
    Remedy.DOCTOR_FIX: ("doctor", "Run doctor"),
}


def fix_for(exc: BaseException, session_id: str | None) -> Fix | None:
    """The fix flow a refusal's remedy offers (on session_id, else the refusal's subject, where it acts on a
    session), or None."""
    remedy = exc.remedy if isinstance(exc, MemboardError) else None
    if remedy not in FIXES:
        return None
    action, label = FIXES[remedy]
    subject = session_id or (exc.subject if isinstance(exc, MemboardError) else None)
    return Fix(action, subject if action != "doctor" else None, label)
