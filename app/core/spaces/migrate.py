"""Migration of the skill's legacy session memory to the seed's paths (issue 24 §4 "migrate"), as plan steps.

The skill's public scripts keep a project's memory in `.codex/session-memory/` (or `.claude/…`) and the
global layer in `${CODEX_HOME:-~/.codex}/session-memory/` (or `$CLAUDE_HOME`'s); the seed's paths are
`.session-memory/` and `${SESSION_MEMORY_HOME:-~/.session-memory}/`. For each legacy folder (a project's:
`.codex/…` then `.claude/…`, at the project and at each route; the global ones: codex then claude), each
file in sorted order:

- no file at the new path: moved there;
- the same bytes there: the legacy copy is deleted;
- other bytes there: moved to `archive/legacy-imports/<codex|claude>/<same path>` (`-1`, `-2` … before
  the extension while that name holds other bytes; the same bytes there: deleted).

Then the folders it emptied are removed bottom-up, and the project's `.codex/` or `.claude/` only when
that leaves it empty. A symlink, or anything that is not a regular file, in a legacy folder refuses the
whole migration (one line, nothing written): it is never followed. The global migration brings only
what the global home holds (`global/`, `dreams/`, `archive/`, the skill's `registry.json`, `state.json`,
`logs/`); any other file (the skill's `sleep.lock`) stays, and so does its folder.

`Migration.check` verifies that the multiset of the contents of every file involved is the same after
as before, a deleted identical copy counted once. `project_migration` and `global_migration` only plan;
every changing space command on a target with legacy data puts `Migration.changes` first in its own
plan (`with_migration`), so its preview shows them.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..errors import MemboardError
from ..files.places import Place, assemble, base_of
from ..files.trees import CREATE, LEGACY_FOLDERS, SPACE
from ..plan import Change, Check, Plan, Premise

R = TypeVar("R")
LEGACY_NAME = "session-memory"
IMPORTS = "archive/legacy-imports"


@dataclass(frozen=True)
class Step:
    """One file of a legacy folder and what becomes of it: `moved`, `deleted` (the same bytes are at dest) or
    `archived` (dest held other bytes, so it went to legacy-imports); absolute paths."""

    action: str
    source: str
    dest: str


@dataclass
class Migration:
    """The steps that migrate legacy folders: the changes (each naming its place), what happens to each file,
    the folders removed, the files left, and what the multiset check counts."""

    places: list[Place]
    changes: list[Change] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # folders, absolute
    left: list[str] = field(default_factory=list)  # files staying in a legacy folder, absolute
    counted: list[tuple[Place, str]] = field(default_factory=list)  # every file the check counts
    expected: Counter[bytes] = field(default_factory=Counter)  # their contents once migrated
    kept: list[tuple[Place, str, bytes]] = field(default_factory=list)  # copies a deleted legacy file equals

    @property
    def empty(self) -> bool:
        """Whether there is nothing to migrate."""
        return not self.changes

    def report(self, base: Path | None = None) -> list[str]:
        """One line per file and folder, paths relative to base (default: the deepest folder holding the places)."""
        where = base or base_of([place.real for place in self.places])

        def shown(path: str) -> str:
            return Path(os.path.relpath(path, where)).as_posix()

        out = []
        for step in self.steps:
            if step.action == "moved":
                out.append(f"moved {shown(step.source)} -> {shown(step.dest)}")
            elif step.action == "deleted":
                out.append(f"deleted {shown(step.source)} (the same bytes are in {shown(step.dest)})")
            else:
                out.append(f"kept {shown(step.source)} as {shown(step.dest)} (the new path holds other bytes)")
        out += [f"removed the empty folder {shown(folder)}" for folder in self.removed]
        out += [f"left {shown(path)} (not session memory memboard moves)" for path in self.left]
        return out

    def check(self, answered: dict[tuple[str, str], bytes | None] | None = None) -> Check:
        """The multiset check: the contents of every file involved, read after the write, are what they were
        less the deleted identical copies. answered: bytes later steps of the plan answer for instead (a file
        the migration moved in that a save then changes: the bytes the migration left there)."""
        counted, expected, given = list(self.counted), Counter(self.expected), dict(answered or {})

        def holds(_root: Any) -> bool:
            found: Counter[bytes] = Counter()
            for place, rel in counted:
                if (place.name, rel) in given:
                    data = given[(place.name, rel)]
                else:
                    try:
                        data = place.abs(rel).read_bytes()
                    except FileNotFoundError:
                        data = None
                    except (OSError, MemboardError):  # unreadable, or reached through a symlink since
                        return False
                if data is not None:
                    found[data] += 1
            return found == expected

        return Check("every legacy file's bytes are at a new path (identical copies once)", holds)

    def premise(self, first: Place) -> Premise:
        """What the plan stands on besides the files it changes: each copy a deleted legacy file equals still
        holds those bytes (else the legacy copy is the only one, and the plan is built again)."""
        kept = list(self.kept)

        def holds(_root: Any) -> bool:
            for place, rel, data in kept:
                try:
                    if place.abs(rel).read_bytes() != data:
                        return False
                except (OSError, MemboardError):
                    return False
            return True

        files = tuple(rel for place, rel, _ in kept if place is first)
        return Premise(
            "the new copies of the legacy files deleted as identical still hold their bytes", holds, files=files
        )

    def after(self, place: Place, rel: str) -> bytes | None:
        """The bytes rel holds in place once the migration is written (what a later step builds on)."""
        for ch in reversed(self.changes):
            if ch.tree != place.name:
                continue
            if ch.kind == "move" and ch.dest == rel:
                return ch.before
            if ch.kind in ("create", "modify") and ch.path == rel:
                return ch.after
            if ch.path == rel and ch.kind in ("delete", "move"):
                return None
        return place.read(rel)


def _walk(place: Place, folder: str) -> tuple[list[str], list[str]]:
    """The files under folder in place (relative to it, sorted) and its folders (deepest first); a symlink or
    anything but a regular file or folder refuses (one line, nothing written)."""
    top = place.abs(folder)
    files: list[str] = []
    folders: list[str] = []

    def visit(rel: str) -> None:
        path = top / rel if rel else top
        try:
            with os.scandir(path) as entries:
                found = sorted(entries, key=lambda e: e.name)
        except OSError as exc:
            raise MemboardError(
                f"cannot read the legacy folder {path}: {exc.strerror or exc}; nothing written"
            ) from None
        for entry in found:
            name = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_symlink():
                raise MemboardError(
                    f"refusing {path / entry.name}: a symlink in the legacy folder {top}, which memboard does not "
                    "follow; nothing written",
                    says_written=True,
                )
            if entry.is_dir(follow_symlinks=False):
                folders.append(name)
                visit(name)
            elif entry.is_file(follow_symlinks=False):
                files.append(name)
            else:
                raise MemboardError(
                    f"refusing {path / entry.name}: not a regular file, in the legacy folder {top}; nothing written",
                    says_written=True,
                )

    visit("")
    files.sort()
    folders.sort(key=lambda rel: (-rel.count("/"), rel))
    return files, folders


def _numbered(rel: str, n: int) -> str:
    """rel with `-n` before its extension (`history.md` -> `history-1.md`)."""
    folder, _, name = rel.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if not stem or stem.strip(".") == "":
        stem, dot, ext = name, "", ""
    numbered = f"{stem}-{n}{dot}{ext}"
    return f"{folder}/{numbered}" if folder else numbered


class _Planner:
    """What the migration writes so far, so that a later file is planned on the bytes an earlier step leaves."""

    def __init__(self, migration: Migration):
        self.m = migration
        self.planned: dict[tuple[str, str], bytes] = {}
        self.counted: set[tuple[str, str]] = set()
        self.before: Counter[bytes] = Counter()
        self.deleted: Counter[bytes] = Counter()

    def now(self, place: Place, rel: str) -> bytes | None:
        """The bytes rel holds in place after the steps planned so far."""
        key = (place.name, rel)
        if key in self.planned:
            return self.planned[key]
        data = place.read(rel)
        self.count(place, rel, data)
        return data

    def count(self, place: Place, rel: str, data: bytes | None) -> None:
        """Count rel (as it is before the migration) among the files the check reads."""
        key = (place.name, rel)
        if key in self.counted:
            return
        self.counted.add(key)
        self.m.counted.append((place, rel))
        if data is not None:
            self.before[data] += 1

    def file(self, src: Place, src_rel: str, dst: Place, dst_rel: str, imports: str, changes: list[Change]) -> None:
        """Plan one legacy file: moved to dst_rel, deleted when dst holds its bytes, else kept under imports."""
        data = src.read(src_rel)
        if data is None:
            return  # gone since the folder was listed: nothing of it to move
        self.count(src, src_rel, data)
        src_path = str(src.real / src_rel)
        target, action = dst_rel, "moved"
        n = 0
        while True:
            there = self.now(dst, target)
            if there is None:
                break
            if there == data:
                action = "deleted"
                break
            target = imports if n == 0 else _numbered(imports, n)
            n += 1
            action = "archived"
        dest_path = str(dst.real / target)
        if action == "deleted":
            changes.append(Change("delete", src_rel, data, None, tree=src.name))
            self.deleted[data] += 1
        elif src is dst:
            changes.append(Change("move", src_rel, data, None, dest=target, tree=src.name))
            self.planned[(dst.name, target)] = data
        else:  # another place: the copy there first (written and read back), the delete here after it
            self.m.changes.append(Change("create", target, None, data, tree=dst.name))
            changes.append(Change("delete", src_rel, data, None, tree=src.name))
            self.planned[(dst.name, target)] = data
        if action == "deleted" and (dst.name, target) not in self.planned:
            self.m.kept.append((dst, target, data))  # (a copy this plan moves there is confirmed as it moves)
        self.m.steps.append(Step(action, src_path, dest_path))

    def finish(self) -> Migration:
        """The migration, with what its check expects."""
        self.m.expected = self.before - self.deleted
        return self.m


def _legacy_folders(project: Place, contexts: Sequence[str]) -> list[tuple[str, str, str]]:
    """The legacy folders of a project that exist: (context, codex|claude, folder), in migration order."""
    out = []
    for context in dict.fromkeys(("", *contexts)):
        at = f"{context.strip('/')}/" if context.strip("/") else ""
        for legacy in LEGACY_FOLDERS:
            folder = f"{at}{legacy}/{LEGACY_NAME}"
            if not os.path.isdir(project.real / folder):
                continue  # (a `.claude` linked elsewhere without session memory in it is no legacy folder)
            project.abs(folder)  # legacy memory reached through a symlink: refused in one line, never followed
            out.append((at, legacy.lstrip("."), folder))
    return out


def project_migration(project: Place, contexts: Sequence[str] = ()) -> Migration:
    """The steps that migrate a project's legacy folders (at its root and at each context, a route folder
    relative to the project's real path) into the `.session-memory/` beside each."""
    migration = Migration([project])
    planner = _Planner(migration)
    for at, tag, folder in _legacy_folders(project, contexts):
        files, folders = _walk(project, folder)
        changes: list[Change] = []
        for rel in files:
            planner.file(
                project, f"{folder}/{rel}", project, f"{at}{SPACE}/{rel}", f"{at}{SPACE}/{IMPORTS}/{tag}/{rel}", changes
            )
        for sub in [*folders, ""]:
            rel = f"{folder}/{sub}" if sub else folder
            changes.append(Change("rmdir", rel, None, None, tree=project.name))
            migration.removed.append(str(project.real / rel))
        parent = f"{at}.{tag}"
        try:
            others = [name for name in os.listdir(project.abs(parent)) if name != LEGACY_NAME]
        except OSError:
            others = ["?"]
        if not others:
            changes.append(Change("rmdir", parent, None, None, tree=project.name))
            migration.removed.append(str(project.real / parent))
        migration.changes += changes
    return planner.finish()


def global_migration(home: Place, legacy: Sequence[Place]) -> Migration:
    """The steps that migrate the legacy global folders (`session-memory/` in each legacy home place, codex
    then claude) into the global home (a place made with home_tree(migrating=True)); files the home does not
    take stay where they are."""
    migration = Migration([home, *legacy])
    planner = _Planner(migration)
    by_place: list[list[Change]] = []
    for place in legacy:
        changes: list[Change] = []
        by_place.append(changes)
        if not place.abs(LEGACY_NAME).is_dir():
            continue
        files, folders = _walk(place, LEGACY_NAME)
        staying: list[str] = []
        for rel in files:
            if not home.tree.permits(CREATE, rel):
                staying.append(rel)
                migration.left.append(str(place.real / LEGACY_NAME / rel))
                continue
            planner.file(place, f"{LEGACY_NAME}/{rel}", home, rel, f"{IMPORTS}/{place.name}/{rel}", changes)
        for sub in [*folders, ""]:
            if any(rel == sub or rel.startswith(f"{sub}/") or not sub for rel in staying):
                continue  # a file stays in it
            rel = f"{LEGACY_NAME}/{sub}" if sub else LEGACY_NAME
            changes.append(Change("rmdir", rel, None, None, tree=place.name))
            migration.removed.append(str(place.real / rel))
    # the home's copies first (already in migration.changes), then the other legacy places, the first last
    for changes in [*by_place[1:], *by_place[:1]]:
        migration.changes += changes
    return planner.finish()


def with_migration(
    migration: Migration,
    op: str,
    result: R,
    places: Sequence[Place],
    changes: Sequence[Change],
    success: str | None = None,
) -> Plan[R]:
    """A command's plan over places with the migration's steps first (issue 24 §4: every changing space command
    on a target with legacy data migrates it first, visibly): its report lines lead the plan's report, and its
    check counts the bytes the migration leaves in a file the command's own steps then change. The command
    builds its changes on `migration.after(place, rel)`."""
    copied_to = {ch.tree for ch in migration.changes if ch.kind == "create"}
    if places and places[0].name in copied_to:  # its steps would be written after the legacy deletes
        raise MemboardError(
            f"{op}: a plan that migrates into {places[0].real} must not have it as its first place "
            "(take the places in the order migration_of gives them); nothing written"
        )
    named = {place.name for place in places}
    missing = [
        p for p in migration.places if p.name not in named and any(ch.tree == p.name for ch in migration.changes)
    ]
    plan = assemble(op, result, [*places, *missing], [*migration.changes, *changes], success)
    if migration.empty:
        return plan
    later = {(ch.tree or places[0].name, p) for ch in changes for p in (ch.path, ch.dest) if p}
    by_name = {p.name: p for p in migration.places}
    answered = {
        key: migration.after(by_name[key[0]], key[1])
        for key in later
        if key[0] in by_name and any((p.name, r) == key for p, r in migration.counted)
    }
    plan.checks.append(migration.check(answered))
    if migration.kept:
        plan.premises.append(migration.premise(places[0]))
    plan.report[:0] = migration.report()
    return plan
