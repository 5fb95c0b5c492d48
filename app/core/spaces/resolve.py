"""Which space a folder belongs to (issue 24 §2), decided exactly as the session-memory skill decides it.

The skill's scripts and memboard share spaces, so for any folder and config both must pick the same
target folder, rule and space name: `global` is `$SESSION_MEMORY_HOME/global/`, `workspace` is
`DIR/.session-memory/`, and `auto` finds the project root (the nearest folder upwards with a `.git`
entry, else with `.session-memory/config.toml`, else with a `.session-memory/` holding memory, else
DIR) and then the routes of the project's config.toml, the longest matching route winning. The
skill's legacy folders (`.codex/session-memory/`, `.claude/session-memory/`) count as memory too, and
are named in the result so that reads can say so and writes migrate them first.

(NamedTuples, not dataclasses: `space where` starts about as fast as Python, and dataclasses cost 5 ms to import.)
An invalid config.toml is not an exception here: the result carries its one-line problem (naming the
file, and line and column for a TOML syntax error) and no target, so that `space where` can print the
decision and every other command refuse with that line (`require`). Nothing here writes anything.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import Refused

if TYPE_CHECKING:  # tomllib is imported when a project has a config.toml (it costs a plain `space where` 5 ms)
    import tomllib

SPACE_DIR = ".session-memory"
CONFIG_NAME = "config.toml"
MEMORY_FILES = ("current.md", "history.md", "research.md", "dream-notes.md")
LEGACY_DIRS = (".codex", ".claude")  # <project>/<one of these>/session-memory/, in migration order
LEGACY_NAME = "session-memory"
CONFIG_TABLES = ("spaces", "routes")
SCOPES = ("auto", "workspace", "global")
GLOBAL = "global"
WORKSPACE = "workspace"
GIT_ROOT = "git-root"
PROJECT_ROOT = "project-root"
CONFIGURED = "configured-space"


def memory_home() -> Path:
    """The global home: `$SESSION_MEMORY_HOME`, else `~/.session-memory` (made absolute, symlinks kept)."""
    raw = os.environ.get("SESSION_MEMORY_HOME") or str(Path.home() / SPACE_DIR)
    return Path(raw).expanduser().absolute()


def legacy_homes() -> tuple[tuple[str, Path], ...]:
    """The skill's legacy global folders, in migration order: ("codex", `$CODEX_HOME/session-memory`), then
    ("claude", `$CLAUDE_HOME/session-memory`) (defaults `~/.codex`, `~/.claude`)."""
    codex = os.environ.get("CODEX_HOME") or str(Path.home() / ".codex")
    claude = os.environ.get("CLAUDE_HOME") or str(Path.home() / ".claude")
    return (
        ("codex", Path(codex).expanduser().absolute() / LEGACY_NAME),
        ("claude", Path(claude).expanduser().absolute() / LEGACY_NAME),
    )


def global_target() -> Path:
    """The global space's folder: `$SESSION_MEMORY_HOME/global`."""
    return memory_home() / GLOBAL


def holds_memory(folder: Path) -> bool:
    """Whether folder holds one of the memory files (current.md, history.md, research.md, dream-notes.md)."""
    return any((folder / name).exists() for name in MEMORY_FILES)


def legacy_folders(context: Path) -> tuple[Path, ...]:
    """The legacy folders beside context's `.session-memory/` that hold memory (`.codex/…`, then `.claude/…`)."""
    return tuple(
        folder
        for folder in (context / d / LEGACY_NAME for d in LEGACY_DIRS)
        if folder.is_dir() and holds_memory(folder)
    )


class Route(NamedTuple):
    """One route of a config.toml: a space name, its folder relative to the project root (normalised, POSIX)
    and that folder's real path."""

    name: str
    path: str
    root: Path


class Where(NamedTuple):
    """The decision for one folder and scope: `space where`'s JSON fields, and the project's routes."""

    workspace: Path
    scope: str
    rule: str
    project_root: Path
    target: Path | None
    space: str | None = None
    route: str | None = None
    config: Path | None = None
    exists: bool = False
    legacy: tuple[Path, ...] = ()
    problem: str | None = None
    routes: tuple[Route, ...] = ()

    @property
    def id(self) -> str | None:
        """The space's ID: its target folder's absolute path (the key of the skill's registry.json)."""
        return None if self.target is None else str(self.target)

    def require(self) -> Path:
        """The target folder, or Refused with the config's one-line problem."""
        if self.problem is not None or self.target is None:
            raise Refused(self.problem or "no space here")
        return self.target

    def memory_folder(self) -> Path | None:
        """Where this space's memory is read: the target when it holds memory, else the first legacy folder
        holding it, else None."""
        if self.target is not None and self.exists:
            return self.target
        return self.legacy[0] if self.legacy else None

    def as_json(self) -> dict[str, Any]:
        """`space where --json`: the issue's object, key order included."""
        return {
            "workspace": str(self.workspace),
            "scope": self.scope,
            "rule": self.rule,
            "project_root": str(self.project_root),
            "space": self.space,
            "route": self.route,
            "target": self.id,
            "config": None if self.config is None else str(self.config),
            "exists": self.exists,
            "legacy": [str(p) for p in self.legacy],
            "problem": self.problem,
        }


class ConfigProblem(Exception):
    """A config.toml that makes its project's spaces unusable: the one line naming the file."""


def _upwards(start: Path) -> tuple[Path, ...]:
    """start and each of its parents, nearest first."""
    return (start, *start.parents)


def config_paths(root: Path) -> tuple[Path, ...]:
    """Where a project's config.toml may be: `.session-memory/`, then the legacy folders."""
    return (root / SPACE_DIR / CONFIG_NAME, *(root / d / LEGACY_NAME / CONFIG_NAME for d in LEGACY_DIRS))


def _config_of(root: Path) -> Path | None:
    """The project's config.toml (the first that exists of config_paths), or None."""
    return next((p for p in config_paths(root) if p.exists()), None)


def project_root(workspace: Path) -> tuple[Path, str]:
    """The project root of a resolved workspace and its rule (git-root, project-root or workspace)."""
    chain = _upwards(workspace)
    for candidate in chain:
        if (candidate / ".git").exists():
            return candidate, GIT_ROOT
    for candidate in chain:
        if _config_of(candidate) is not None:
            return candidate, PROJECT_ROOT
    for candidate in chain:
        if holds_memory(candidate / SPACE_DIR) or legacy_folders(candidate):
            return candidate, PROJECT_ROOT
    return workspace, WORKSPACE


_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def _syntax_line(path: Path, exc: tomllib.TOMLDecodeError) -> str:
    """The one line of a TOML syntax error: the file, line and column, and tomllib's message."""
    message = str(exc).splitlines()[0] if str(exc) else "syntax error"
    line, col = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    found = _AT.search(message)
    if found:
        message = message[: found.start()]
        line, col = line or int(found.group(1)), col or int(found.group(2))
    where = f" line {line}, column {col}:" if line is not None else ""
    return f"invalid config {path}:{where} {getattr(exc, 'msg', None) or message}"


def _normalise(project: Path, path: Path, name: str, raw: str) -> tuple[str, Path]:
    """A route's folder, normalised (trimmed, `.` and empty parts dropped), and its real path; ConfigProblem
    when it is empty, absolute, has `..` or resolves outside the project."""
    text = raw.strip()
    if not text:
        raise ConfigProblem(f"invalid config {path}: route {name!r} has an empty folder")
    candidate = Path(text)
    if candidate.is_absolute():
        raise ConfigProblem(f"invalid config {path}: route {name!r} is an absolute path ({text})")
    parts = [part for part in candidate.parts if part not in ("", ".")]
    if not parts:
        raise ConfigProblem(f"invalid config {path}: route {name!r} must name a folder inside the project ({text})")
    if ".." in parts:
        raise ConfigProblem(f"invalid config {path}: route {name!r} escapes the project ({raw})")
    relative = Path(*parts)
    real = (project / relative).resolve()
    if not real.is_relative_to(project):
        raise ConfigProblem(f"invalid config {path}: route {name!r} resolves outside the project ({raw})")
    return relative.as_posix(), real


def parse_routes(project: Path, path: Path, text: str) -> tuple[Route, ...]:
    """The routes of a config.toml's text, longest first (stably); ConfigProblem naming path when invalid."""
    import tomllib  # lazy: see the import above

    try:
        payload = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigProblem(_syntax_line(path, exc)) from None
    entries: list[tuple[str, str]] = []
    for table_name in CONFIG_TABLES:
        table = payload.get(table_name)
        if table is None:
            continue
        if not isinstance(table, dict):
            raise ConfigProblem(f"invalid config {path}: [{table_name}] must be a table")
        for name, value in table.items():
            if not isinstance(value, str):
                raise ConfigProblem(f"invalid config {path}: route {name!r} in [{table_name}] must be a folder name")
            entries.append((str(name).strip(), value))
    if not entries:
        entries = [
            (str(name).strip(), value)
            for name, value in payload.items()
            if name not in CONFIG_TABLES and isinstance(value, str)
        ]
    routes: list[Route] = []
    names: set[str] = set()
    paths: set[str] = set()
    for name, value in entries:
        if not name:
            raise ConfigProblem(f"invalid config {path}: a route has an empty name")
        if name in names:
            raise ConfigProblem(f"invalid config {path}: route name {name!r} appears twice")
        names.add(name)
        relative, real = _normalise(project, path, name, value)
        if relative in paths:
            raise ConfigProblem(f"invalid config {path}: route folder {relative!r} appears twice")
        paths.add(relative)
        routes.append(Route(name, relative, real))
    routes.sort(key=lambda route: len(route.root.parts), reverse=True)
    return tuple(routes)


def load_routes(project: Path, path: Path) -> tuple[Route, ...]:
    """The routes of the config.toml at path (of the project); ConfigProblem when unreadable or invalid."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigProblem(f"invalid config {path}: not UTF-8 (byte {exc.start})") from None
    except OSError as exc:
        raise ConfigProblem(f"invalid config {path}: unreadable ({exc.strerror or exc})") from None
    return parse_routes(project, path, text)


def match_route(workspace: Path, routes: tuple[Route, ...]) -> Route | None:
    """The route whose folder is workspace or holds it (routes longest first: the first match wins), or None."""
    for route in routes:
        if workspace == route.root or workspace.is_relative_to(route.root):
            return route
    return None


def _result(workspace: Path, scope: str, rule: str, project: Path, target: Path, **more: Any) -> Where:
    """A decision with the target's existence and legacy folders filled in."""
    if rule == GLOBAL:
        legacy = tuple(home / GLOBAL for _, home in legacy_homes() if holds_memory(home / GLOBAL))
    else:
        legacy = legacy_folders(target.parent)
    return Where(workspace, scope, rule, project, target, exists=holds_memory(target), legacy=legacy, **more)


def resolve(workspace: str | Path | None = None, scope: str = "auto") -> Where:
    """The space of workspace (default: the current folder) for scope auto, workspace or global."""
    if scope not in SCOPES:
        raise ValueError(f"scope {scope!r}")
    here = Path(workspace if workspace is not None else os.getcwd()).expanduser().resolve()
    if scope == GLOBAL:
        target = global_target()
        return _result(here, scope, GLOBAL, target, target)
    if scope == WORKSPACE:
        return _result(here, scope, WORKSPACE, here, here / SPACE_DIR)
    project, rule = project_root(here)
    config = _config_of(project)
    routes: tuple[Route, ...] = ()
    if config is not None:
        try:
            routes = load_routes(project, config)
        except ConfigProblem as exc:
            return Where(here, scope, rule, project, None, config=config, problem=str(exc))
    matched = match_route(here, routes)
    if matched is None:
        return _result(here, scope, rule, project, project / SPACE_DIR, config=config, routes=routes)
    return _result(
        here,
        scope,
        CONFIGURED,
        project,
        matched.root / SPACE_DIR,
        space=matched.name,
        route=matched.path,
        config=config,
        routes=routes,
    )


def project_spaces(where: Where) -> tuple[Path, ...]:
    """Every space folder of where's project: its own, then each route's (none when the config is invalid)."""
    if where.problem is not None or where.rule == GLOBAL:
        return () if where.target is None else (where.target,)
    return (where.project_root / SPACE_DIR, *(route.root / SPACE_DIR for route in where.routes))
