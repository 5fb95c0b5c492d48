"""Places: the folders beyond the memory root memboard writes in (issue 24 §1, issue 25 §1), as trees.

A project's spaces, the global session-memory home, the skill's legacy home folders and a hierarchy
workspace are each a `Place`: a tree (see trees.py, whose `PlaceKind`s hold their allow-lists) written
by the engine that writes the memory root (execute.py), so every rule of the root holds there too:

- its own lock in local state, keyed by its real path (statepaths.py), never a file in the place;
  a plan touching several places takes all their locks in order of real path, re-reads every file it
  changes under them (settled, see settle.py) and is built again when one changed;
- a path that resolves outside the place (`..`, a symlink) is refused in one line; so is any symlink
  on the way to a file inside it (a legacy folder being migrated is never followed through a link);
- revisions of the files it writes are kept in local state (revisions.place_revisions), never in it.

The API:

- `project_tree(root, routes)`, `home_tree(migrating)`, `legacy_home_trees()`, `workspace_tree(dir)`:
  the places, each named (`project`, `home`, `codex`/`claude`, `workspace`) for a plan's changes;
  `home_path()` and `legacy_home_paths()` where the global home and the legacy homes are;
- `assemble(op, result, places, changes)`: a plan over several places, each change naming its place
  by `Change.tree` (the first place's changes are the plan's own; the others' are written before it,
  in order of first mention: copies first, so a move between places deletes only after its copy is
  verified);
- `run(places, build, dry_run)`: build (settled) and apply such a plan under the places' locks;
  `apply_previewed(places, plan, build)` applies exactly a plan previewed before, or raises StalePlan
  with the plan built again when a file changed since;
- `touched(plan, places)`, `base_of(folders)` and `patch(plan, places, base)`: the places a plan
  writes, the deepest folder holding them all, and the plan as one git patch relative to it
  (`git -C BASE apply` writes exactly the plan's bytes).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..errors import Incomplete, MemboardError, Remedy
from ..plan import Change, Plan
from .root import MemoryRoot, SideTree
from .trees import (
    LEGACY_HOME,
    PROJECT,
    SESSION_HOME,
    WORKSPACE,
    PlaceKind,
    Rule,
    Tree,
    home_rules,
    legacy_home_rules,
    project_rules,
    workspace_rules,
)

R = TypeVar("R")
HOME_ENV = "SESSION_MEMORY_HOME"
LEGACY_ENVS = (("codex", "CODEX_HOME", ".codex"), ("claude", "CLAUDE_HOME", ".claude"))


class Place(SideTree):
    """A folder memboard may write in beyond the memory root: its kind, real path, allow-list and name."""

    def __init__(self, kind: PlaceKind, path: Path, rules: tuple[Rule, ...], name: str):
        """The place at path (resolved: its real path is where it is locked, recorded and patched from)."""
        real = Path(os.path.realpath(os.path.abspath(path)))
        super().__init__(real, real)
        self.given = Path(path)
        self.kind = kind
        self.rules = rules
        self.name = name

    def __repr__(self) -> str:
        """The place's kind and real path."""
        return f"Place({self.kind.name!r}, {str(self.real)!r})"

    @property
    def tree(self) -> Tree:
        """This place as a tree: its allow-list is its rules."""
        return Tree(self.kind, self.real, self.rules)

    def trees(self) -> list[Tree]:
        """The one tree a plan on this place writes in (its lock is its own)."""
        return [self.tree]

    def abs(self, rel: str) -> Path:
        """The path of rel in the place; refused in one line when it would leave the place (`..`, an absolute
        path) or goes through a symlink (one that leads outside, or any inside: memboard never follows one)."""
        parts = rel.replace("\\", "/").split("/")
        if not rel or rel.startswith(("/", "\\")) or ".." in parts or "\x00" in rel or (os.name == "nt" and ":" in rel):
            raise MemboardError(f"refusing path {rel!r}: it would leave the {self.kind.name} {self.real}")
        at = self.real
        for part in parts:
            if part in ("", "."):
                continue
            at = at / part
            if not os.path.islink(at):
                if not os.path.lexists(at):
                    break
                continue
            target = Path(os.path.realpath(at))
            if target != self.real and self.real not in target.parents:
                raise MemboardError(
                    f"refusing {self.real / rel}: it resolves outside the {self.kind.name} {self.real} "
                    f"(symlink {at} -> {target})"
                )
            raise MemboardError(
                f"refusing {self.real / rel}: {at} is a symlink; memboard does not follow links in the "
                f"{self.kind.name} {self.real}"
            )
        return self.real / rel

    def shown(self, rel: str) -> str:
        """How a patch names rel: by its absolute path without the leading `/` (see patch for base-relative)."""
        return (self.real / rel).as_posix().lstrip("/")

    def rel_of(self, path: Path) -> str:
        """The path in this place of an absolute path (its folders resolved: a route reached through a symlink
        inside the project is named where it really is); refused in one line when it is not inside the place."""
        folder = Path(os.path.realpath(os.path.abspath(path.parent)))
        full = folder / path.name
        if full == self.real or self.real not in full.parents:
            raise MemboardError(f"refusing {path}: it is not inside the {self.kind.name} {self.real}")
        return full.relative_to(self.real).as_posix()

    def relative(self, rel: str, base: Path) -> str:
        """rel in this place as a path relative to the folder base (which holds the place)."""
        return Path(os.path.relpath(self.real / rel, base)).as_posix()


def _folder(env: str, default: str) -> Path:
    """The folder an environment variable names (`~` expanded), else ~/default."""
    value = os.environ.get(env)
    return Path(os.path.expanduser(value)) if value else Path.home() / default


def home_path() -> Path:
    """The global session-memory home: `$SESSION_MEMORY_HOME`, else `~/.session-memory`."""
    return _folder(HOME_ENV, ".session-memory")


def legacy_home_paths() -> list[tuple[str, Path]]:
    """The skill's legacy home folders by name: `$CODEX_HOME` (else ~/.codex), then `$CLAUDE_HOME` (else
    ~/.claude); their memory is in `session-memory/` inside."""
    return [(name, _folder(env, default)) for name, env, default in LEGACY_ENVS]


def project_tree(root: Path, routes: Sequence[str] = (), name: str = "project") -> Place:
    """A project as a place: its `.session-memory/`, each route's, and its legacy folders (routes: folders
    relative to the project root, as config.toml's validation leaves them)."""
    return Place(PROJECT, root, project_rules(tuple(routes)), name)


def home_tree(migrating: bool = False, name: str = "home") -> Place:
    """The global home as a place (migrating: `space migrate --global`, which may bring the skill's legacy
    registry.json, state.json and logs/ in, never over a file)."""
    return Place(SESSION_HOME, home_path(), home_rules(migrating), name)


def legacy_home_trees() -> list[Place]:
    """The legacy home folders that exist, as places (named `codex`, `claude`): files only leave their
    `session-memory/`, which is removed once empty."""
    return [Place(LEGACY_HOME, path, legacy_home_rules(), name) for name, path in legacy_home_paths() if path.is_dir()]


def workspace_tree(folder: Path, name: str = "workspace") -> Place:
    """A hierarchy workspace as a place (issue 25 §1's files)."""
    return Place(WORKSPACE, folder, workspace_rules(), name)


def assemble(
    op: str, result: R, places: Sequence[Place], changes: Sequence[Change], success: str | None = None
) -> Plan[R]:
    """A plan over places: each change names its place (Change.tree, a place's name); the first place's
    changes are the plan's own, the others' are written before them, tree by tree in order of first mention.
    A change naming no place given is refused."""
    if not places:
        raise MemboardError(f"{op}: a plan over places needs at least one")
    first = places[0]
    by_name = {place.name: place for place in places}
    own: list[Change] = []
    other: list[Change] = []
    for ch in changes:
        if ch.tree in ("", first.name):
            own.append(Change(ch.kind, ch.path, ch.before, ch.after, ch.dest, ch.rewrite))
        elif ch.tree in by_name:
            other.append(ch)
        else:
            raise MemboardError(f"{op}: {ch.describe()} names the place {ch.tree!r}, which the plan does not hold")
    trees: dict[str, MemoryRoot] = {name: by_name[name] for name in dict.fromkeys(ch.tree for ch in other)}
    return Plan(op, result, own, success=success, elsewhere=other, trees=trees)


def run(
    places: Sequence[Place],
    build: Callable[[], Plan[R]],
    dry_run: bool = False,
    timeout: float | None = None,
    settle_wait: float | None = None,
) -> Plan[R]:
    """Build a plan over places from settled reads and, unless dry_run, apply it under their locks (taken in
    order of real path), re-reading every file it changes there and building it again when one changed."""
    from .execute import SETTLE_WAIT, execute  # lazy: a read never loads the engine

    wait = SETTLE_WAIT if settle_wait is None else settle_wait
    try:
        return execute(places[0], lambda _first: build(), dry_run=dry_run, timeout=timeout, settle_wait=wait)
    except Incomplete as exc:
        exc.remedied(remedy_of(places))
        raise


def apply_previewed(
    places: Sequence[Place],
    plan: Plan[R],
    build: Callable[[], Plan[R]],
    progress: Callable[[int, int], None] | None = None,
) -> Plan[R]:
    """Apply exactly this previewed plan over places (the board's `y`), or raise StalePlan carrying the plan
    built again from the fresh files when one changed since the preview; nothing is written then."""
    from .execute import apply_exact  # lazy: as run

    try:
        return apply_exact(places[0], plan, lambda _first: build(), progress)
    except Incomplete as exc:
        exc.remedied(remedy_of(places))
        raise


def remedy_of(places: Sequence[Place]) -> str:
    """What names the state a plan over places left when it stopped half-way: `hierarchy lint` for a
    workspace, `space check` for a project's spaces and the homes (doctor knows the memory root only)."""
    return Remedy.HIERARCHY_LINT if any(p.kind is WORKSPACE for p in places) else Remedy.SPACE_CHECK


def _place_of(plan: Plan[Any], places: Sequence[Place], ch: Change, own: bool) -> Place:
    """The place a change of the plan is in (own: one of the plan's own changes, in the first place)."""
    if own:
        return places[0]
    found = plan.trees.get(ch.tree)
    if not isinstance(found, Place):
        raise MemboardError(f"{plan.op}: {ch.describe()} is in no place the plan holds")
    return found


def touched(plan: Plan[Any], places: Sequence[Place]) -> list[Place]:
    """The places the plan writes in, in the order given."""
    names = {places[0].name} if plan.changes else set()
    names.update(ch.tree for ch in plan.elsewhere)
    return [place for place in places if place.name in names]


def base_of(folders: Sequence[Path]) -> Path:
    """The deepest folder holding all these folders (one folder: itself)."""
    if not folders:
        raise ValueError("no folders")
    return Path(os.path.commonpath([str(f) for f in folders]))


def plan_base(plan: Plan[Any], places: Sequence[Place]) -> Path:
    """A plan's base folder: the one place it writes in (project root, global home, workspace), or the deepest
    folder holding all it writes in (the first place's when it writes nothing)."""
    written = touched(plan, places) or [places[0]]
    return base_of([place.real for place in written])


def based(plan: Plan[Any], places: Sequence[Place], base: Path) -> list[Change]:
    """The plan's file changes (a folder's removal is no part of a patch) with paths relative to base."""
    out: list[Change] = []
    for own, changes in ((False, plan.elsewhere), (True, plan.changes)):  # (in the order they are written)
        for ch in changes:
            if ch.kind == "rmdir":
                continue
            place = _place_of(plan, places, ch, own)
            dest = place.relative(ch.dest, base) if ch.dest else None
            out.append(Change(ch.kind, place.relative(ch.path, base), ch.before, ch.after, dest, ch.rewrite))
    return out


def patch(plan: Plan[Any], places: Sequence[Place], base: Path) -> bytes:
    """The plan as one git patch whose paths are relative to base: `git -C base apply` writes its bytes."""
    from ..diff import file_patch_bytes  # lazy: only a preview makes a patch

    return b"".join(
        file_patch_bytes(ch.kind, ch.path, ch.before, ch.after, ch.dest, ch.rewrite) for ch in based(plan, places, base)
    )


def described(plan: Plan[Any], places: Sequence[Place], base: Path) -> list[str]:
    """Each step of the plan in a few words, in the order they are written, its paths relative to base (a
    folder's removal included)."""
    out = []
    for own, changes in ((False, plan.elsewhere), (True, plan.changes)):
        for ch in changes:
            place = _place_of(plan, places, ch, own)
            dest = place.relative(ch.dest, base) if ch.dest else None
            out.append(Change(ch.kind, place.relative(ch.path, base), None, None, dest).describe())
    return out
