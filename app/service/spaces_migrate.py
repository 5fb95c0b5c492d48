"""The builders of `space migrate [--global]` and `space add NAME SUBDIR` (issue 24 §4), shared by the faces.

Each returns the places a command writes in and a build of its plan (places.run applies it under their
locks), and `*_json` its result's JSON. `migration_of` is what every changing space command calls to put
the legacy data's migration first in its own plan (core/spaces/migrate.with_migration).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.errors import Refused
from ..core.files.places import Place, home_tree, legacy_home_trees, project_tree
from ..core.plan import Change, Plan
from ..core.spaces.addroute import add_route
from ..core.spaces.migrate import Migration, global_migration, project_migration, with_migration
from ..core.spaces.resolve import CONFIG_NAME, GLOBAL, SPACE_DIR, Where
from .output import JSON

Build = Callable[[], Plan[Any]]


def refuse_while_dreaming() -> None:
    """Refused in one line while the skill's background dream (a sleep.lock naming a live process) runs."""
    from .spaces_read import skill_dreaming  # lazy: the reads' module is large

    found = skill_dreaming()
    if found is not None:
        raise Refused(f"the session-memory skill is dreaming (pid {found[1]}); try again")


def _resolved(workspace: str | None, scope: str) -> Where:
    """The decision for workspace and scope, its space remembered among the known ones (as every space command
    remembers what it resolved: spaces_read.where)."""
    from .spaces_read import where  # lazy: as refuse_while_dreaming

    return where(workspace, scope)


def project_place(where: Where) -> Place:
    """The project of a decision as a place: its own space and every route's (named where they really are)."""
    root = Path(os.path.realpath(where.project_root))
    routes = []
    for route in where.routes:
        real = Path(os.path.realpath(route.root))
        if real != root and root in real.parents:
            routes.append(real.relative_to(root).as_posix())
    return project_tree(root, routes)


def contexts(place: Place) -> tuple[str, ...]:
    """The folders of a project place whose legacy folders migrate: its root ("") and each route."""
    return ("", *(rule.removesuffix(f"/{SPACE_DIR}/**") for rule in place.rules if rule.endswith(f"/{SPACE_DIR}/**")))


def migration_of(where: Where) -> tuple[list[Place], Migration]:
    """The places a changing command on where's target writes in for its legacy data, in the order its plan must
    take them (pass them first to with_migration and places.run, the command's own places after), and the
    migration to put first in its plan (empty when there is no legacy data): the project's, or the global one
    (the first legacy home first, so that its deletes are written after the home's copies)."""
    where.require()
    if where.rule == GLOBAL:
        home = home_tree(migrating=True)
        legacy = legacy_home_trees()
        return [*legacy[:1], home, *legacy[1:]], global_migration(home, legacy)
    place = project_place(where)
    return [place], project_migration(place, contexts(place))


def migrate_plan(workspace: str | None, scope: str, global_home: bool) -> tuple[list[Place], Build]:
    """`space migrate [--global]`: the places and the build of the plan that migrates the legacy folders (of
    the project of workspace, or the global ones)."""
    refuse_while_dreaming()
    where = _resolved(workspace, GLOBAL if global_home else scope)
    where.require()
    places = migration_of(where)[0]

    def build() -> Plan[Migration]:
        refuse_while_dreaming()
        migration = migration_of(where)[1]
        done = len(migration.steps)
        success = f"migrated {done} legacy file(s); verified" if done else "removed the empty legacy folders"
        return with_migration(migration, "space migrate", migration, places, [], success)

    return places, build


def migrate_json(plan: Plan[Migration]) -> JSON:
    """`space migrate --json`'s result: what became of each legacy file, the folders removed, the files left."""
    m = plan.result
    return {
        "steps": [{"action": s.action, "source": s.source, "dest": s.dest} for s in m.steps],
        "removed": list(m.removed),
        "left": list(m.left),
    }


def add_plan(
    workspace: str | None, scope: str, name: str, subdir: str, allow_secrets: bool = False
) -> tuple[list[Place], Build]:
    """`space add NAME SUBDIR`: the places and the build of the plan that adds the route to the project's
    config.toml (legacy data migrated first, a legacy config.toml included); a name or folder that looks like
    a credential is refused unless allow_secrets."""
    from ..core.secrets import refuse_secrets  # lazy: the patterns load only for a write

    refuse_secrets({"space name": name, "route folder": subdir}, allow_secrets)
    if scope == GLOBAL:
        raise Refused("space add: the global space has no routes; run it in a project; nothing written")
    where = _resolved(workspace, scope)
    where.require()
    places, _ = migration_of(where)
    place = places[0]
    rel = f"{SPACE_DIR}/{CONFIG_NAME}"

    def build() -> Plan[str]:
        migration = migration_of(where)[1]
        before = migration.after(place, rel)
        after = add_route(before, place.real, place.real / rel, name, subdir)
        change = Change.write(rel, before, after, place.name)
        return with_migration(
            migration,
            "space add",
            str(place.real / rel),
            places,
            [change],
            f"added {name} = {subdir} to {place.real / rel}",
        )

    return places, build


def add_json(plan: Plan[str]) -> JSON:
    """`space add --json`'s result: the config file."""
    return {"config": plan.result}
