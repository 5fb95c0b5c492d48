"""The seed-001 session summary (mem_session_summary), merged into the session's snapshot.

Goal, Instructions, Discoveries, Accomplished, Next Steps and Relevant Notes/Files become items
of the snapshot's sections, merged by the seed-000 Snapshot Merge Policy (`plan_update`: nothing
earlier is dropped, the row is promoted to active), and the row's Summary says the goal and what
was accomplished, so the index and Current Context stay aligned:

- Current Context: `Goal: ...`, `Accomplished: ...` and `Discovery: ...` items;
- Decisions: `Instruction: ...` items (the user's preferences and constraints);
- Next Actions: the next steps; Files / Artifacts: the relevant notes, files and commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ...errors import UsageError
from ...files.root import MemoryRoot
from ...formats.memory_update import SessionSummary, items_of
from ...formats.snapshot import safe_line
from ...plan import Plan
from ...results import UpdateResult
from ..update import plan_update

MAX_SUMMARY = 300
Items = str | Sequence[str]


def as_items(value: Items | None) -> tuple[str, ...]:
    """A list field as items: a sequence as given, a text as its list items or lines."""
    if value is None:
        return ()
    if isinstance(value, str):
        return items_of(value)
    return tuple(" ".join(str(v).split()) for v in value if str(v).strip())


def summary_snapshot(summary: SessionSummary) -> str:
    """The snapshot sections a summary merges in (empty sections left out)."""
    sections = {
        "Current Context": ([f"Goal: {summary.goal}"] if summary.goal.strip() else [])
        + [f"Accomplished: {x}" for x in summary.accomplished]
        + [f"Discovery: {x}" for x in summary.discoveries],
        "Decisions": [f"Instruction: {x}" for x in summary.instructions],
        "Files / Artifacts": list(summary.relevant),
        "Next Actions": list(summary.next_steps),
    }
    parts = []
    for name, items in sections.items():
        if items:
            parts.append(f"## {name}\n\n" + "\n".join(f"- {safe_line(x)}" for x in items) + "\n")
    return "\n".join(parts)


def summary_line(summary: SessionSummary) -> str | None:
    """The row's new Summary: the goal and what was accomplished, shortened (None when neither is given)."""
    parts = [" ".join(summary.goal.split())] if summary.goal.strip() else []
    if summary.accomplished:
        parts.append("Accomplished: " + "; ".join(summary.accomplished))
    text = " — ".join(parts)
    if not text:
        return None
    return text if len(text) <= MAX_SUMMARY else text[: MAX_SUMMARY - 1].rstrip() + "…"


def plan_summary(
    root: MemoryRoot, summary: SessionSummary, when: datetime, allow_secrets: bool = False
) -> Plan[UpdateResult]:
    """Merge a session summary into its session's snapshot and row (see the module's docstring)."""
    text = summary_snapshot(summary)
    if not text:
        raise UsageError("the session summary is empty: give a goal or at least one item")
    plan = plan_update(
        root, summary.session, when, summary=summary_line(summary), snapshot_text=text, allow_secrets=allow_secrets
    )
    plan.op = "session summary"
    return plan


def plan_session_summary(
    root: MemoryRoot,
    session_id: str,
    goal: str = "",
    instructions: Items | None = None,
    discoveries: Items | None = None,
    accomplished: Items | None = None,
    next_steps: Items | None = None,
    relevant: Items | None = None,
    *,
    when: datetime,
    allow_secrets: bool = False,
) -> Plan[UpdateResult]:
    """mem_session_summary: merge the seed's session-close summary into session_id's snapshot and row.

    Each list takes a sequence of items or a text (its list items, or its lines). The merge keeps
    every earlier item (seed 000's policy); the row becomes active with the new Summary.
    """
    summary = SessionSummary(
        session_id,
        " ".join((goal or "").split()),
        as_items(instructions),
        as_items(discoveries),
        as_items(accomplished),
        as_items(next_steps),
        as_items(relevant),
    )
    return plan_summary(root, summary, when, allow_secrets)
