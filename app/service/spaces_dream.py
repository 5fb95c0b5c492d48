"""The builders of `space dream` and `space archive` (issue 24 §4, §8), as both faces (CLI, MCP) call them.

Each resolves the space (resolve.py), makes its places (the project, or the global home for the global space,
and the global home for the snapshots), fixes the clock and returns a `Run`: the places and the plan's build,
and for archive the second plan's build. The steps are core/spaces/cold.py's. An archive applies in two plans,
so the archive files are written and verified before the sources change; its preview is one plan of both.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import Incomplete, MemboardError, Refused
from ..core.files.localstate import LocalState
from ..core.files.places import Place, assemble, home_tree, project_tree, run
from ..core.formats import clock
from ..core.plan import Change, Plan
from ..core.secrets import refuse_secrets
from ..core.spaces import cold
from ..core.spaces.resolve import Where
from .output import JSON
from .spaces_read import skill_dreaming, where, where_json


@dataclass
class Run:
    """A dream or an archive ready to run: its places, its space, the build of its plan (both steps for a
    preview) and, for an archive, the builds of its two plans when applied."""

    op: str
    decision: Where
    places: list[Place]
    build: Callable[[], Plan[JSON]]
    first: Callable[[], Plan[JSON]] | None = None
    then: Callable[[Plan[JSON]], Callable[[], Plan[JSON]]] | None = None
    steps: dict[str, cold.Steps] = field(default_factory=dict)


def _times() -> tuple[datetime, datetime]:
    """Local time to the minute (MEMBOARD_NOW fixes it) and UTC to the second (from it, when fixed)."""
    local = clock.now()
    if os.environ.get(clock.NOW_ENV):
        return local, local.astimezone(UTC)
    return local, datetime.now(UTC).replace(microsecond=0)


def _spots(decision: Where) -> tuple[list[Place], cold.Spot, cold.Spot]:
    """The places a dream or an archive writes in, the space's folder in its place and the global home."""
    target = decision.require()
    home = home_tree()
    real = Path(os.path.realpath(target))
    if home.real == real or home.real in real.parents:
        rel = real.relative_to(home.real).as_posix()
        return [home], cold.Spot(home.name, home, rel), cold.Spot(home.name, home, "")
    project = project_tree(decision.project_root, [route.path for route in decision.routes])
    rel = Path(os.path.relpath(real, project.real)).as_posix()
    return [project, home], cold.Spot(project.name, project, rel), cold.Spot(home.name, home, "")


def _journal_rel(space: cold.Spot) -> str:
    """Where in its place's local state the journal of a space's last archive is (see cold.journal_pending)."""
    return f"spaces/archive-{hashlib.sha1(space.prefix.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}.json"


def _journal(place: Place, space: cold.Spot) -> tuple[bytes | None, dict[str, Any]]:
    """The journal's bytes (None when absent) and its reading ({} when absent or unreadable)."""
    data = LocalState(place).read(_journal_rel(space))
    try:
        found = json.loads(data) if data else {}
    except ValueError:
        found = {}
    return data, found if isinstance(found, dict) else {}


def half_archived_findings(decision: Where) -> list[JSON]:
    """`space check`'s half_archived findings for a resolved space (none when it cannot be resolved)."""
    try:
        places, space, _home = _spots(decision)
    except MemboardError:
        return []
    return cold.half_archived_findings(space, _journal(places[0], space)[1])


def _label(decision: Where) -> str:
    """The snapshot label as the skill's dream takes it: the space name, else the context folder's name."""
    target = decision.require()
    if decision.space:
        return decision.space
    return target.name if decision.rule == "global" else target.parent.name


def _refuse_legacy(decision: Where) -> None:
    """For now, as the other space writes: a space with legacy data is refused (migrate first), nothing written."""
    if decision.legacy:
        raise Refused(f"legacy memory at {decision.legacy[0]}; run memboard space migrate first (nothing written)")


def _refuse_while_dreaming() -> None:
    found = skill_dreaming()
    if found is not None:
        raise Refused(f"the session-memory skill is dreaming (pid {found[1]}); try again")


def _plan(op: str, decision: Where, places: list[Place], steps: cold.Steps, success: str) -> Plan[JSON]:
    result: JSON = {"space": where_json(decision), **steps.result}
    plan = assemble(op, result, places, steps.changes, success=success)
    plan.report = list(steps.report)
    return plan


def dream_run(workspace: str | None, scope: str, notes: str | None = None, allow_secrets: bool = False) -> Run:
    """`space dream`: the caller's notes (shape checked) or the verbatim extraction, into dream-notes.md and a byte
    copy in the global home's dreams/."""
    decision = where(workspace, scope)
    decision.require()
    _refuse_legacy(decision)
    _refuse_while_dreaming()
    places, space, home = _spots(decision)
    local, utc = _times()
    if notes is not None:
        refuse_secrets({"--from": notes}, allow_secrets)
    space_id, label = decision.id or "", _label(decision)

    def build() -> Plan[JSON]:
        steps = cold.dream_steps(space, home, space_id, label, local, utc, notes)
        if notes is None and steps.changes:
            items = [item for items in steps.result["sections"].values() for item in items]
            refuse_secrets({"dream-notes.md": "\n".join(items)}, allow_secrets)
        return _plan("space dream", decision, places, steps, f"dream-notes.md written ({steps.result['mode']})")

    return Run("space dream", decision, places, build)


def archive_run(
    workspace: str | None,
    scope: str,
    keep: int = 20,
    skip_history: bool = False,
    skip_research: bool = False,
    skip_dreams: bool = False,
    dream_keep_days: int = 30,
    force: bool = False,
) -> Run:
    """`space archive`: history beyond --keep and closed research topics to archive/, byte ranges; old dream
    snapshots to archive/dreams/YYYY-MM/. Refused before a dream unless force."""
    decision = where(workspace, scope)
    decision.require()
    _refuse_legacy(decision)
    _refuse_while_dreaming()
    places, space, home = _spots(decision)
    now = datetime.now(UTC)
    made: dict[str, cold.Steps] = {}

    def steps() -> cold.Steps:
        made["all"] = cold.archive_steps(
            space,
            home,
            now,
            keep,
            skip_history,
            skip_research,
            skip_dreams,
            dream_keep_days,
            force,
            journal=_journal(places[0], space)[1],
        )
        return made["all"]

    def build() -> Plan[JSON]:
        return _plan("space archive", decision, places, steps(), "archived")

    def first() -> Plan[JSON]:
        found = steps()
        sources = {space.rel(name) for name in ("history.md", "research.md")}
        archive_only = cold.Steps(
            [c for c in found.changes if not (c.tree == space.tree and c.path in sources)],
            found.result,
            found.report,
            found.moved,
        )
        plan = _plan("space archive", decision, places, archive_only, "archived")
        if found.journal:  # written first (local state), so a crash after the archive files leaves it behind
            before, _old = _journal(places[0], space)
            after = json.dumps(found.journal, sort_keys=True).encode("utf-8")
            if after != before:
                plan.local = [Change.write(_journal_rel(space), before, after)]
        return plan

    def then(_written: Plan[JSON]) -> Callable[[], Plan[JSON]]:
        moved = made["all"].moved

        def finish() -> Plan[JSON]:
            try:
                fin = cold.finish_steps(space, moved)
            except Refused as exc:
                raise Incomplete(
                    f"space archive incomplete: {exc}; memboard space check reports half_archived, and the next "
                    "memboard space archive finishes it"
                ) from None
            return _plan("space archive", decision, places[:1], fin, "archived")

        return finish

    return Run("space archive", decision, places, build, first, then, made)


def apply(job: Run, dry_run: bool) -> Plan[JSON]:
    """Run a dream or an archive: the preview's one plan (dry_run), or its plan(s) applied in order. The plan
    returned holds every step (for the JSON and the report)."""
    if dry_run or job.first is None or job.then is None:
        return run(job.places, job.build, dry_run=dry_run)
    written = run(job.places, job.first)
    finished = run(job.places[:1], job.then(written))
    changes: list[Change] = []
    for plan in (written, finished):
        changes += [
            *plan.elsewhere,
            *(Change(c.kind, c.path, c.before, c.after, c.dest, tree=job.places[0].name) for c in plan.changes),
        ]
    combined = assemble(job.op, written.result, job.places, changes, success=written.success)
    combined.report = list(written.report)
    return combined


def result_json(plan: Plan[Any]) -> JSON:
    """The command's result object (the JSON's fields beside base, places, dry_run, changes)."""
    out: JSON = dict(plan.result) if isinstance(plan.result, dict) else {}
    out["report"] = list(plan.report)
    return out
