"""What the board reads from the core's results: plan results, listed rows, chains, doctor findings.

The core returns typed results (memboard.core.results); every read of one by the board happens
here, in a few small functions the flows and the wording call, so that a change to a result's
shape touches this module only. Plain Python (no Textual).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.files.root import MemoryRoot
from ..core.merge.result import Prefer
from ..core.ops.query import chain as _chain
from ..core.ops.query import list_rows as _list_rows
from ..core.plan import Plan
from ..core.results import (
    HISTORY,
    ArchiveResult,
    ChainView,
    ContinueResult,
    DoctorResult,
    Finding,
    ManualResult,
    OrganizeResult,
    ReleaseResult,
    RowView,
    UpdateResult,
)

__all__ = [
    "HISTORY",
    "ChainView",
    "Finding",
    "OpenConflict",
    "OrganizeResult",
    "Prefer",
    "RowView",
    "UpdateResult",
    "archive_deletes",
    "archive_released",
    "chain",
    "continued_source",
    "findings",
    "listed_rows",
    "open_conflicts",
    "organize",
    "organize_groups",
    "released_source",
    "resolve_builder",
    "session_of",
    "update",
]


def listed_rows(root: MemoryRoot) -> list[RowView]:
    """Every row of the index, in file order."""
    return _list_rows(root)


def findings(plan: Plan[Any]) -> list[Finding]:
    """Doctor's findings from its repair plan."""
    result = plan.result
    return list(result.findings) if isinstance(result, DoctorResult) else []


def left_out(plan: Plan[Any]) -> frozenset[str]:
    """The kinds of finding whose repairs doctor's plan leaves out (the board's doctor preview, `x`)."""
    result = plan.result
    return result.left_out if isinstance(result, DoctorResult) else frozenset()


def organize(plan: Plan[Any]) -> OrganizeResult:
    """The organize plan's outcome: Session IDs per group, the reasons the core gave, the stale days."""
    result = plan.result
    if isinstance(result, OrganizeResult):
        return result
    return OrganizeResult([], [], [], [], [], [], [], {}, 0)


ORGANIZE_GROUPS = ("deleted", "marked_stale", "kept_active", "protected", "blocked", "malformed", "stale")


def organize_groups(result: OrganizeResult) -> dict[str, list[str]]:
    """An organize result's Session IDs by group name (ORGANIZE_GROUPS, in that order)."""
    return {name: list(getattr(result, name)) for name in ORGANIZE_GROUPS}


def session_of(plan: Plan[Any]) -> str | None:
    """The session a plan is about (the one that continues, releases, is updated or archived)."""
    value = getattr(plan.result, "session_id", None)
    return value if isinstance(value, str) else None


def archive_deletes(plan: Plan[Any]) -> bool:
    """Whether an archive plan deletes a placeholder row instead of archiving a snapshot."""
    return isinstance(plan.result, ArchiveResult) and plan.result.action == "deleted"


def archive_released(plan: Plan[Any]) -> list[str]:
    """The references an archive plan releases first."""
    return list(plan.result.released) if isinstance(plan.result, ArchiveResult) else []


def continued_source(plan: Plan[Any]) -> str:
    """The source a continue plan links to (also a new session's, registered to continue)."""
    result = plan.result
    if isinstance(result, (ContinueResult, ManualResult)):
        return result.continues_from or ""
    return ""


def released_source(plan: Plan[Any]) -> str:
    """The source a release plan unlinks."""
    return plan.result.released if isinstance(plan.result, ReleaseResult) else ""


def update(plan: Plan[Any]) -> UpdateResult:
    """The update plan's snapshot outcome."""
    result = plan.result
    if isinstance(result, UpdateResult):
        return result
    return UpdateResult(session_of(plan) or "", False, [], [], [], [])


def chain(root: MemoryRoot, session_id: str) -> ChainView:
    """session_id's reference chain both ways (with the session's own status and topic)."""
    return _chain(root, session_id)


RESOLVABLE = frozenset({"conflict_cell", "conflict_markers", "index_conflict_markers"})
"""Doctor's findings `resolve` decides: a merge's open cells, the git merge driver's conflict blocks."""


@dataclass(frozen=True)
class OpenConflict:
    """One thing resolve decides: a cell a merge left open, or a file's conflict blocks.

    file is the original's path (`index.md`, `sessions/<id>.md`, a note's); id the session or note ("" for
    blocks no ID names); column the cell's (`Summary`; "" for conflict blocks); ours and theirs the cell's two
    values (this machine's, the copy's; an archived session's: the archive's, the update's); message doctor's words
    about conflict blocks; archived whether the cell is of a session archived on one machine and updated on the
    other in the same minute (it stays archived either way)."""

    file: str
    id: str
    column: str
    ours: str = ""
    theirs: str = ""
    message: str = ""
    archived: bool = False


def open_conflicts(root: MemoryRoot) -> list[OpenConflict]:
    """What resolve can decide on root: each cell left open (a copy's merge leaves it, or a session archived on one
    machine and updated on the other in the same minute), under the file it is open in, with both values; then
    each file with conflict blocks (from a doctor pass)."""
    # lazy: doctor's checks load only with the resolve flow
    from ..core.ops.doctor import diagnose

    # lazy: resolve's own reading of the open cells loads only with its flow
    from ..core.ops.resolve import open_cells

    with root.steady():
        cells = open_cells(root)
        found, _ = diagnose(root)
    out = [OpenConflict(file, c.id, c.column, c.ours, c.theirs, archived=arch) for file, c, arch in cells]
    for f in found:
        if f.kind in RESOLVABLE and f.kind != "conflict_cell":
            out.append(OpenConflict(dict(f.extra).get("path") or f.subject or "", f.id, "", message=str(f.message)))
    return out


def resolve_builder(prefer: Prefer, only: str | None) -> Callable[[MemoryRoot], Plan[Any]]:
    """The plan of `memboard resolve [ONLY] --prefer PREFER`, from the builder the command line and the MCP server
    share (service/sync.py)."""
    from ..service.sync import resolve_plan  # lazy: resolve's operation loads with its flow

    return resolve_plan(prefer, only)
