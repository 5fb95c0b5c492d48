"""Applying a Memory Update block (`memboard note apply`): every note and session summary it holds, as one plan.

Each note is saved by the same policy as `plan_note_save`, and each summary merged as
`plan_summary` does, each planned over the root as the earlier ones leave it (a block may save
one topic twice). The conflict rules compare each save with the topic's note as it was before
the whole apply, not as the blocks before it leave it: a block that makes a decision a fact
does not let the next one drop its statements as a fact's, and a statement one block adds and
a later one takes out again was never on disk. Only a step that settles its topic — a save that
creates the note, or one that supersedes it (a preference, or a choice) — makes what it writes
the note later blocks are compared with. The plan is all or nothing: when any note is a
conflict, nothing is written and the result carries every note's outcome, the conflict among
them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...errors import UsageError
from ...files.root import MemoryRoot
from ...formats.memory_update import parse_blocks
from ...formats.topic import check_choice, note_path
from ...plan import Change, Plan
from ...results import MemoryUpdateResult, NoteSaveResult
from ..sequence import PlannedRoot
from .save import CHOICES, Choice, draft_note, plan_note_save
from .summary import plan_summary

OP = "note apply"


def _lay(combined: Plan[Any], planned: PlannedRoot, step: Plan[Any]) -> None:
    """Add a step's changes, local changes, checks and report to the combined plan."""
    planned.lay(step)
    combined.changes += step.changes
    combined.local += step.local
    combined.checks += step.checks
    combined.report += step.report


def net_changes(changes: list[Change]) -> list[Change]:
    """One change per file, from the bytes it holds now to the bytes the last step leaves (a block may save a
    topic twice), each where that file's last step was: the write can then be verified file by file."""
    first: dict[str, Change] = {}
    last: dict[str, tuple[int, Change]] = {}
    for at, ch in enumerate(changes):
        first.setdefault(ch.path, ch)
        last[ch.path] = (at, ch)
    out = []
    for path, (_at, ch) in sorted(last.items(), key=lambda item: item[1][0]):
        before = first[path].before
        out.append(ch if first[path] is ch else Change.write(path, before, ch.after or b""))
    return out


def plan_memory_update(
    root: MemoryRoot, text: str, when: datetime, choice: Choice | None = None, allow_secrets: bool = False
) -> Plan[MemoryUpdateResult]:
    """Apply every block of text (see formats/memory_update.py); choice settles conflicts for notes
    printed without one. A UsageError when text holds no block or a block is malformed."""
    if choice is not None:
        check_choice(choice, CHOICES, "choice")
    updates, summaries = parse_blocks(text)
    if not updates and not summaries:
        raise UsageError("no '## Memory Update' or '## Session Summary' block in the input")
    planned = PlannedRoot(root)
    plan: Plan[MemoryUpdateResult] = Plan(OP, MemoryUpdateResult([]))
    results: list[NoteSaveResult] = []
    before: dict[str, bytes | None] = {}  # per topic: the note the conflict rules compare with
    for update in updates:
        picked = update.choice or choice
        if picked is not None:
            check_choice(picked, CHOICES, "choice")
        key = draft_note(update.draft).topic_key
        if key not in before:
            before[key] = planned.read(note_path(key))
        step = plan_note_save(planned, update.draft, when, picked, allow_secrets, base=before[key])  # type: ignore[arg-type]
        if step.result.outcome in ("created", "superseded"):
            before[key] = step.changes[-1].after  # the topic's file as this step settles it
        results.append(step.result)
        _lay(plan, planned, step)
    if any(r.outcome == "conflict" for r in results):
        refused: Plan[MemoryUpdateResult] = Plan(OP, MemoryUpdateResult(results))
        refused.report = [line for line in plan.report if line.startswith("decision conflict")]
        return refused
    summary = None
    for item in summaries:
        step_summary = plan_summary(planned, item, when, allow_secrets)
        summary = step_summary.result
        _lay(plan, planned, step_summary)
    plan.changes = net_changes(plan.changes)
    return plan.with_result(MemoryUpdateResult(results, summary))
