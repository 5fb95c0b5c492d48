"""The builders of `space dream` and `space archive` (issue 24 §4, §8), as both faces (CLI, MCP) call them.

Each resolves the space (resolve.py), makes its places (the project, or the global home for the global space,
and the global home for the snapshots; the legacy homes while there is legacy data to migrate), fixes the clock
and returns a `Run`: the places and the builds of its plans. The steps are core/spaces/cold.py's, read as the
legacy data's migration (spaces_migrate) leaves the files, the migration first in the plan. An archive applies
as the migration (when there is one), then the archive files, written and verified, with its journal in the
space's local state, then the sources; its preview is one plan of all. `half_archived_findings` is what
`space check` asks of a space.
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
from ..core.files.places import Place, assemble, home_tree, run
from ..core.formats import clock
from ..core.plan import Change, Plan
from ..core.secrets import refuse_secrets
from ..core.spaces import cold
from ..core.spaces.migrate import Migration, with_migration
from ..core.spaces.resolve import GLOBAL, Where
from .output import JSON
from .spaces_migrate import migration_of, refuse_while_dreaming
from .spaces_read import where, where_json


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
    migrate: Callable[[], Plan[JSON]] | None = None  # an archive's legacy data, migrated first when applied


def _times() -> tuple[datetime, datetime]:
    """Local time to the minute (MEMBOARD_NOW fixes it) and UTC to the second (from it, when fixed)."""
    local = clock.now()
    if os.environ.get(clock.NOW_ENV):
        return local, local.astimezone(UTC)
    return local, datetime.now(UTC).replace(microsecond=0)


class _AfterMigration:
    """A place as the migration first in the same plan leaves it: what a dream's or an archive's steps read."""

    def __init__(self, place: Place, migration: Migration):
        """place, read as migration leaves it."""
        self.place, self.migration = place, migration
        self.name = place.name

    def read(self, rel: str) -> bytes | None:
        """The bytes rel holds once the migration is written."""
        return self.migration.after(self.place, rel)

    def listdir(self, rel: str) -> list[str]:
        """The names in folder rel once the migration is written."""
        names = set(self.place.listdir(rel))
        prefix = f"{rel.rstrip('/')}/"
        for ch in self.migration.changes:
            if ch.tree != self.place.name:
                continue
            for path in (ch.path, ch.dest):
                if path and path.startswith(prefix):
                    name = path[len(prefix) :].split("/")[0]
                    if "/" in path[len(prefix) :] or self.read(path) is not None:
                        names.add(name)
                    else:
                        names.discard(name)
        return sorted(names)

    def abs(self, rel: str) -> Path:
        """The path of rel."""
        return self.place.abs(rel)


@dataclass
class _Spaces:
    """The places a dream or an archive writes in (the legacy ones only while there is something to migrate),
    the space's folder and the global home as its steps read them, and the migration to put first."""

    places: list[Place]
    space: cold.Spot
    home: cold.Spot
    migration: Migration
    own: Place  # the place of the space's folder (its local state holds the archive's journal)


def _spots(decision: Where) -> _Spaces:
    """The places of a dream or an archive on decision's space, read as its legacy data's migration leaves them."""
    target = decision.require()
    mplaces, migration = migration_of(decision)
    real = Path(os.path.realpath(target))
    if decision.rule == GLOBAL:
        home = next(p for p in mplaces if p.name == "home")
        legacy = [p for p in mplaces if p.name != "home"] if not migration.empty else []
        places = [*legacy[:1], home, *legacy[1:]]  # (as migrate orders them: the first legacy's deletes last)
        own = home
    else:
        own, home = mplaces[0], home_tree()
        places = [own, home]
    rel = Path(os.path.relpath(real, own.real)).as_posix()

    def seen(place: Place) -> cold.Place:
        return place if migration.empty else _AfterMigration(place, migration)

    return _Spaces(places, cold.Spot(own.name, seen(own), rel), cold.Spot(home.name, seen(home), ""), migration, own)


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
        spaces = _spots(decision)
    except MemboardError:
        return []
    plain = cold.Spot(spaces.own.name, spaces.own, spaces.space.prefix)  # (the files as they are, not migrated)
    return cold.half_archived_findings(plain, _journal(spaces.own, plain)[1])


def _label(decision: Where) -> str:
    """The snapshot label as the skill's dream takes it: the space name, else the context folder's name."""
    target = decision.require()
    if decision.space:
        return decision.space
    return target.name if decision.rule == "global" else target.parent.name


def _plan(
    op: str, decision: Where, places: list[Place], steps: cold.Steps, success: str, migration: Migration | None = None
) -> Plan[JSON]:
    """The plan of steps over places, with the legacy data's migration first when there is one."""
    result: JSON = {"space": where_json(decision), **steps.result}
    if migration is not None and not migration.empty:
        plan = with_migration(migration, op, result, places, steps.changes, success)
        plan.report += steps.report
        return plan
    plan = assemble(op, result, places, steps.changes, success=success)
    plan.report = list(steps.report)
    return plan


def dream_run(workspace: str | None, scope: str, notes: str | None = None, allow_secrets: bool = False) -> Run:
    """`space dream`: the caller's notes (shape checked) or the verbatim extraction, into dream-notes.md and a byte
    copy in the global home's dreams/."""
    decision = where(workspace, scope)
    decision.require()
    refuse_while_dreaming()
    places = _spots(decision).places
    local, utc = _times()
    if notes is not None:
        refuse_secrets({"--from": notes}, allow_secrets)
    space_id, label = decision.id or "", _label(decision)

    def build() -> Plan[JSON]:
        refuse_while_dreaming()
        now = _spots(decision)  # (the migration planned again on the files as they are)
        steps = cold.dream_steps(now.space, now.home, space_id, label, local, utc, notes)
        if notes is None and steps.changes:
            items = [item for items in steps.result["sections"].values() for item in items]
            refuse_secrets({"dream-notes.md": "\n".join(items)}, allow_secrets)
        success = f"dream-notes.md written ({steps.result['mode']})"
        return _plan("space dream", decision, places, steps, success, now.migration)

    return Run("space dream", decision, places, build)


def _finisher(decision: Where, made: dict[str, cold.Steps]) -> Callable[[Plan[JSON]], Callable[[], Plan[JSON]]]:
    """The build of an archive's second plan, once its first is written: the sources without the moved ranges."""

    def then(_written: Plan[JSON]) -> Callable[[], Plan[JSON]]:
        moved = made["all"].moved

        def finish() -> Plan[JSON]:
            spaces = _spots(decision)
            try:
                fin = cold.finish_steps(spaces.space, moved)
            except Refused as exc:
                raise Incomplete(
                    f"space archive incomplete: {exc}; memboard space check reports half_archived, and the next "
                    "memboard space archive finishes it"
                ) from None
            return _plan("space archive", decision, spaces.places[:1], fin, "archived")

        return finish

    return then


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
    snapshots to archive/dreams/YYYY-MM/. Refused before a dream unless force. Legacy data is migrated first
    (in the preview, the same plan; applied, a plan of its own before the archive's)."""
    decision = where(workspace, scope)
    decision.require()
    refuse_while_dreaming()
    places = _spots(decision).places
    now = datetime.now(UTC)
    made: dict[str, cold.Steps] = {}

    def steps(spaces: _Spaces) -> cold.Steps:
        made["all"] = cold.archive_steps(
            spaces.space,
            spaces.home,
            now,
            keep,
            skip_history,
            skip_research,
            skip_dreams,
            dream_keep_days,
            force,
            journal=_journal(spaces.own, spaces.space)[1],
        )
        return made["all"]

    def build() -> Plan[JSON]:
        refuse_while_dreaming()
        spaces = _spots(decision)
        return _plan("space archive", decision, places, steps(spaces), "archived", spaces.migration)

    def migrate() -> Plan[JSON]:
        refuse_while_dreaming()
        spaces = _spots(decision)
        steps(spaces)  # (refused before anything is migrated when a dream has not covered the entries)
        result: JSON = {"space": where_json(decision)}
        return with_migration(spaces.migration, "space archive", result, places, [], "legacy data migrated")

    def first() -> Plan[JSON]:
        refuse_while_dreaming()
        spaces = _spots(decision)
        found = steps(spaces)
        space = spaces.space
        sources = {space.rel(name) for name in ("history.md", "research.md")}
        archive_only = cold.Steps(
            [c for c in found.changes if not (c.tree == space.tree and c.path in sources)],
            found.result,
            found.report,
            found.moved,
        )
        plan = _plan("space archive", decision, spaces.places, archive_only, "archived", spaces.migration)
        if found.journal:  # written first (local state), so a crash after the archive files leaves it behind
            before, _old = _journal(spaces.own, space)
            after = json.dumps(found.journal, sort_keys=True).encode("utf-8")
            if after != before:
                plan.local = [Change.write(_journal_rel(space), before, after)]
        return plan

    job = Run("space archive", decision, places, build, first, _finisher(decision, made), made)
    job.migrate = None if _spots(decision).migration.empty else migrate
    return job


def _flat(plan: Plan[JSON], own: str) -> list[Change]:
    """A plan's changes in the order they are written, each naming its place (own: the plan's first place)."""
    return [
        *plan.elsewhere,
        *(Change(c.kind, c.path, c.before, c.after, c.dest, tree=own) for c in plan.changes),
    ]


def apply(job: Run, dry_run: bool) -> Plan[JSON]:
    """Run a dream or an archive: the preview's one plan (dry_run), or its plan(s) applied in order (an archive's
    migration, archive files, sources). The plan returned holds every step (for the JSON and the report)."""
    if dry_run or job.first is None or job.then is None:
        return run(job.places, job.build, dry_run=dry_run)
    changes: list[Change] = []
    report: list[str] = []
    if job.migrate is not None:
        migrated = run(job.places, job.migrate)
        changes += _flat(migrated, job.places[0].name)
        report += migrated.report
    spaces = _spots(job.decision)
    written = run(spaces.places, job.first)
    finished = run(spaces.places[:1], job.then(written))
    changes += _flat(written, spaces.places[0].name) + _flat(finished, spaces.places[0].name)
    combined = assemble(job.op, written.result, job.places, changes, success=written.success)
    combined.report = report + list(written.report)
    return combined


def result_json(plan: Plan[Any]) -> JSON:
    """The command's result object (the JSON's fields beside base, places, dry_run, changes)."""
    out: JSON = dict(plan.result) if isinstance(plan.result, dict) else {}
    out["report"] = list(plan.report)
    return out
