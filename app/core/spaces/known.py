"""Known spaces (issue 24 §4): the ones `space list`, the board and `memboard search` show.

Three sources, and never a walk of the disk: the projects in the config key `space_roots` (each with its
own space and every route's), every space a memboard command resolved on this machine (remembered in
memboard's local state, statepaths.known_spaces(), never in the project: `.session-memory/` is often
committed), and the entries of the skill's `registry.json` (in the global home, and in the legacy global
folders, whose legacy target paths are read as the spaces they migrate to). Each known space is a target
folder and the scope that resolves it again from its folder, so a list re-reads every decision fresh.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NamedTuple

from .. import config
from ..errors import MemboardError
from ..files import statepaths
from .resolve import (
    GLOBAL,
    LEGACY_DIRS,
    LEGACY_NAME,
    SPACE_DIR,
    WORKSPACE,
    Where,
    global_target,
    legacy_homes,
    memory_home,
    project_spaces,
    resolve,
)

ROOTS = "space_roots"
RECORDED = "memboard"
REGISTRY = "registry"


class Known(NamedTuple):
    """A known space: its target folder (its ID), the scope that resolves it from its folder, and its sources."""

    target: Path
    scope: str
    sources: tuple[str, ...]

    def resolve(self) -> Where:
        """The decision for this space's folder, made now."""
        return resolve(self.target.parent, self.scope)


def scope_of(rule: str) -> str:
    """The scope that resolves a space of rule again from its own folder."""
    return GLOBAL if rule == GLOBAL else WORKSPACE if rule == WORKSPACE else "auto"


def _read_record() -> list[tuple[str, str]]:
    """The record's lines: (target, scope)."""
    try:
        text = statepaths.known_spaces().read_bytes().decode("utf-8", "replace")
    except OSError:
        return []
    rows = []
    for line in text.splitlines():
        target, _, scope = line.partition("\t")
        if target and scope in ("auto", WORKSPACE, GLOBAL):
            rows.append((target, scope))
    return rows


def remember(where: Where) -> None:
    """Add where's space to the local record when it holds memory (at its target or a legacy folder) and is not
    there yet; a record that cannot be written is left as it is (a read never fails for it)."""
    if where.problem is not None or where.target is None or not (where.exists or where.legacy):
        return
    rows = _read_record()
    target = str(where.target)
    if any(row[0] == target for row in rows):
        return
    rows.append((target, scope_of(where.rule)))
    data = "".join(f"{t}\t{s}\n" for t, s in rows).encode("utf-8", "surrogateescape")
    from ..files.fs import atomic_write  # lazy: only a new space is written (its imports cost a read 4 ms)

    try:
        atomic_write(statepaths.known_spaces(), data)
    except OSError:
        pass


def _migrated_target(raw: str) -> Path:
    """A registry's target folder as the space it is now: a legacy `<ctx>/.codex/session-memory` (or .claude)
    is `<ctx>/.session-memory`, a legacy global `…/session-memory/global` the global space."""
    path = Path(raw)
    for _, home in legacy_homes():
        if path == home / GLOBAL:
            return global_target()
    if path.name == LEGACY_NAME and path.parent.name in LEGACY_DIRS:
        return path.parent.parent / SPACE_DIR
    return path


def registry_entries() -> list[tuple[Path, str]]:
    """The skill's registry.json entries (global home first, then the legacy ones): (target, scope)."""
    found: list[tuple[Path, str]] = []
    for folder in (memory_home(), *(home for _, home in legacy_homes())):
        try:
            payload = json.loads((folder / "registry.json").read_bytes().decode("utf-8"))
        except (OSError, ValueError):
            continue
        projects = payload.get("projects") if isinstance(payload, dict) else None
        if not isinstance(projects, dict):
            continue
        for key, entry in projects.items():
            raw = entry.get("target_dir") if isinstance(entry, dict) else None
            rule = entry.get("scope") if isinstance(entry, dict) else None
            if not isinstance(raw, str) or not raw:
                raw = key
            if not os.path.isabs(raw):
                continue  # not a space's ID (an absolute folder): nothing to resolve it from
            found.append((_migrated_target(raw), scope_of(rule if isinstance(rule, str) else "")))
    return found


def _roots() -> list[tuple[Path, str]]:
    """The spaces of the projects in space_roots: each project's own space and every route's."""
    found: list[tuple[Path, str]] = []
    try:
        folders = config.settings().value(ROOTS)
    except MemboardError:  # a bad stored value: no roots (`memboard config` names it)
        folders = ()
    for folder in folders if isinstance(folders, tuple) else ():
        where = resolve(os.path.expanduser(folder), "auto")
        if where.problem is not None:
            found.append((where.project_root / SPACE_DIR, "auto"))
            continue
        found.extend((target, scope_of(where.rule)) for target in project_spaces(where))
    return found


def known() -> list[Known]:
    """Every known space once, in source order (space_roots, memboard's record, the registries)."""
    order: list[Path] = []
    scopes: dict[Path, str] = {}
    sources: dict[Path, list[str]] = {}
    groups = (
        (ROOTS, _roots()),
        (RECORDED, [(Path(t), s) for t, s in _read_record()]),
        (REGISTRY, registry_entries()),
    )
    for source, rows in groups:
        for target, scope in rows:
            if target not in scopes:
                order.append(target)
                scopes[target] = scope
                sources[target] = []
            if source not in sources[target]:
                sources[target].append(source)
    return [Known(t, scopes[t], tuple(sources[t])) for t in order]
