"""Trees: the folders memboard may write under, each of a kind whose layout rules live with it.

memboard writes in nothing but trees. A tree is a folder with a kind, its real path, an allow-list
of the relative paths it may change and a key for its local state (statepaths.key of its real path,
which names its lock). The engine (execute.py) knows no layout: it asks the tree's kind whether the
folder may be written (`require`), whether a path is allowed (`allows`) and what a delete leaves to
tidy (`after_delete`). The kinds:

- the memory root (`MEMORY_ROOT`): any path inside it; a folder that holds other people's files is
  refused; deleting the last file of an archive folder or of an older memboard's `.memboard/` state
  removes the folders it empties;
- its local state (`LOCAL_STATE`, see localstate.py): written under the root's lock, before the root;
- the user's config file (`USER_CONFIG`, see tomledit.py) and an agent's config file (`AGENT_CONFIG`,
  written by install-hook and install-mcp, with a backup beside it): a folder whose allow-list is
  that one file and its backups (filetree.py).

- the places beyond the memory root (issues 24 and 25), each a `PlaceKind` whose trees are made by
  places.py (`project_tree`, `home_tree`, `legacy_home_trees`, `workspace_tree`) with an allow-list of
  `Rule`s, each rule a pattern and the steps it permits there (create, modify, delete, move from, move
  to, remove an empty folder):
  - a project (`PROJECT`, `project_rules(routes)`): `.session-memory/**` and `<route>/.session-memory/**`;
    out of `.codex/session-memory/**` and `.claude/session-memory/**` (also under each route) files
    may only move or be deleted, and their folders, then `.codex/` and `.claude/`, removed when empty;
  - the global session-memory home (`SESSION_HOME`, `home_rules(migrating)`): `global/**`, `dreams/**`,
    `archive/**`; while `space migrate --global` runs also the legacy `registry.json`, `state.json`
    and `logs/**`, created (or moved to) only where no file is;
  - a legacy home folder (`LEGACY_HOME`: `${CODEX_HOME:-~/.codex}` or `${CLAUDE_HOME:-~/.claude}`,
    `legacy_home_rules()`): files under `session-memory/` may only move out or be deleted, and
    `session-memory/` and its folders removed once empty; never the folder itself or any other file;
  - a hierarchy workspace (`WORKSPACE`, `workspace_rules()`): `MEMORY.md`, `memory/facts.yaml`,
    `memory/lookup-index.md`, `memory/project-<a-z0-9-_>.md`, `memory/YYYY-MM-DD.md` (a real date),
    `memory/migrations/**`, `memory/daily-archive/YYYY-MM/**`; OpenClaw's `memory/YYYY-MM-DD-<slug>.md`
    may only move (archive-logs).

`Tree.permits(step, rel)` asks a tree whether one kind of step may touch rel; the engine asks it of
every change before anything is written. A place's lock, settled record and revisions live in local
state keyed by its real path, like a root's (statepaths.py): never a file inside the place.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from ..errors import UsageError
from ..formats.layout import ARCHIVE, MARKERS, TEMP_SUFFIX
from . import statepaths

OS_LITTER = {".DS_Store", "Thumbs.db", "desktop.ini", ".localized"}  # files an OS drops in any folder
# what a sync tool puts in a folder it shares (Syncthing's `.stfolder` and `.stignore`, Dropbox's `.dropbox`): a
# freshly shared folder holding only these is still an empty folder, where a new machine may register
SYNC_MARKERS = {".stfolder", ".stignore", ".dropbox"}
START_HINT = (
    "to start a memory root, pass a new empty folder (for example `mkdir ~/memory` then "
    "`memboard register --root ~/memory`, or `memboard config set root ~/memory`)"
)
IGNORED = OS_LITTER | SYNC_MARKERS  # names that do not make a folder someone else's
ANYWHERE = ("*",)  # an allow-list that lets every path inside the tree change


def is_temp_name(name: str) -> bool:
    """Whether a file name is one of memboard's temp files (`.<name>.<random>.memboard-tmp`): another
    memboard process is writing its first file into a new root right now, or a write was interrupted."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def not_a_memory_root(real: Path) -> str | None:
    """Why the folder real cannot be taken as a memory root for writing, or None when it can.

    A root in use holds one of MARKERS; a new root is an empty folder (or one holding only the temp file
    of memboard's first write there, by another process right now, an OS's litter or a sync tool's own
    markers, SYNC_MARKERS). The filesystem root, the
    home folder and any other folder that already holds files but none of MARKERS are someone
    else's: memboard would scatter index.md, sessions/ and archive/ among them.
    """
    if real == real.parent:
        return "it is the filesystem root"
    try:
        if real == Path.home().resolve():
            return "it is your home folder"
    except (RuntimeError, OSError):
        pass
    if any((real / marker).exists() for marker in MARKERS):
        return None
    try:
        with os.scandir(real) as entries:
            names = [e.name for e in entries if e.name not in IGNORED and not is_temp_name(e.name)]
    except OSError:
        return None  # unreadable: the write itself will say why
    if not names or any(name in MARKERS for name in names):
        return None  # a marker renamed into place since the look above: another memboard's first write
    other = names[0]
    return f"it holds other files (such as {other!r}) and none of index.md, sessions/, archive/, notes/, .memboard/"


def prune_empty(folder: Path, stop: Path) -> None:
    """Remove folder and its parents up to (not including) stop while they are empty."""
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


class TreeKind:
    """A kind of tree: its name and its layout rules (this base kind has none)."""

    def __init__(self, name: str, backup: bool = False, revisions: bool = False):
        """A kind named name; backup: a file is saved beside itself before it changes; revisions: the
        snapshots and notes a plan writes are recorded (revisions.py)."""
        self.name = name
        self.backup = backup
        self.revisions = revisions

    def __repr__(self) -> str:
        """The kind's name."""
        return f"TreeKind({self.name!r})"

    def require(self, path: Path, real: Path) -> None:
        """Refuse (nothing written) to write into the folder at path (real: its real path); this kind never does."""

    def after_delete(self, tree: Path, rel: str, path: Path) -> None:
        """Tidy up after rel (at path, in the tree at tree) was deleted; this kind leaves everything."""


class MemoryRootKind(TreeKind):
    """The memory root: only a folder that is one (or a new, empty one); deletes take emptied archive folders."""

    def require(self, path: Path, real: Path) -> None:
        """Refuse (one line, nothing written) to write into a folder that is not a memory root."""
        reason = not_a_memory_root(real)
        if reason:
            raise UsageError(f"{path} is not a memory root: {reason}; nothing written; {START_HINT}", says_written=True)

    def after_delete(self, tree: Path, rel: str, path: Path) -> None:
        """An archive folder a delete emptied goes too; so do the folders of an older memboard's state in the
        root, once their files moved to local state."""
        if rel.startswith(f"{ARCHIVE}/"):
            try:
                path.parent.rmdir()
            except OSError:
                pass
        elif rel.startswith(".memboard/"):
            prune_empty(path.parent, tree)


MEMORY_ROOT = MemoryRootKind("memory root", revisions=True)
LOCAL_STATE = TreeKind("local state")
USER_CONFIG = TreeKind("user config file")
AGENT_CONFIG = TreeKind("agent config file", backup=True)

# the steps a Rule permits, one letter each (see STEP_OF)
CREATE, MODIFY, DELETE, MOVE_FROM, MOVE_TO, RMDIR = "c", "m", "d", "f", "t", "r"
WRITE = CREATE + MODIFY + DELETE + MOVE_FROM + MOVE_TO + RMDIR  # anything
OUT_ONLY = DELETE + MOVE_FROM + RMDIR  # a legacy folder: files leave, emptied folders go
NEW_ONLY = CREATE + MOVE_TO  # never over an existing file (a create or a move refuses one)
STEP_OF = {
    "create": CREATE,
    "modify": MODIFY,
    "append": MODIFY,
    "splice": MODIFY,
    "delete": DELETE,
    "move": MOVE_FROM,
    "rmdir": RMDIR,
}


def _glob_re(pattern: str) -> str:
    """A pattern's regex: `**` any path below (at least one name), `*` any part of one name, the rest literal."""
    out = []
    for i, part in enumerate(re.split(r"(\*\*|\*)", pattern)):
        if i % 2:
            out.append(".+" if part == "**" else "[^/]*")
        else:
            out.append(re.escape(part))
    return "".join(out)


class Rule(str):
    """One entry of a place's allow-list: a pattern as people read it (the str itself, `.session-memory/**`),
    its regex, the steps it permits there and, optionally, a test of the match (a real date)."""

    regex: re.Pattern[str]
    steps: str
    test: Callable[[re.Match[str]], bool] | None

    def __new__(
        cls,
        pattern: str,
        steps: str = WRITE,
        regex: str | None = None,
        test: Callable[[re.Match[str]], bool] | None = None,
    ) -> Rule:
        """The rule for pattern (regex: its own regex when the pattern's `*`s say too little)."""
        rule = super().__new__(cls, pattern)
        rule.regex = re.compile(regex if regex is not None else _glob_re(pattern))
        rule.steps, rule.test = steps, test
        return rule

    def matches(self, rel: str, step: str | None = None) -> bool:
        """Whether rel is a path of this rule (and, given a step, one it permits there)."""
        if step is not None and step not in self.steps:
            return False
        found = self.regex.fullmatch(rel)
        return found is not None and (self.test is None or self.test(found))


def _real_date(found: re.Match[str]) -> bool:
    """Whether the match's group `date` is a real date (2026-02-30 is not)."""
    from datetime import date  # lazy: only a workspace's rules test dates

    try:
        date.fromisoformat(found["date"])
    except ValueError:
        return False
    return True


def _real_month(found: re.Match[str]) -> bool:
    """Whether the match's group `month` is a real month (YYYY-MM)."""
    from datetime import date  # lazy: as _real_date

    try:
        date.fromisoformat(found["month"] + "-01")
    except ValueError:
        return False
    return True


class PlaceKind(TreeKind):
    """A place beyond the memory root (a project, the global home, a legacy home folder, a hierarchy
    workspace): its trees' allow-lists are Rules, and the folder must exist unless may_be_new."""

    def __init__(self, name: str, may_be_new: bool = False):
        """A kind named name (may_be_new: its folder is made by the first write, as the global home's)."""
        super().__init__(name, revisions=True)
        self.may_be_new = may_be_new

    def require(self, path: Path, real: Path) -> None:
        """Refuse (one line, nothing written) a place that must exist and does not, or is no folder."""
        if self.may_be_new and not os.path.lexists(path):
            return
        if not os.path.isdir(real):
            raise UsageError(f"{self.name} {path} is not a folder; nothing written", says_written=True)


PROJECT = PlaceKind("project")
SESSION_HOME = PlaceKind("session-memory home", may_be_new=True)
LEGACY_HOME = PlaceKind("legacy home folder")
WORKSPACE = PlaceKind("hierarchy workspace")
KINDS = (MEMORY_ROOT, LOCAL_STATE, USER_CONFIG, AGENT_CONFIG, PROJECT, SESSION_HOME, LEGACY_HOME, WORKSPACE)
LEGACY_FOLDERS = (".codex", ".claude")  # a project's legacy session-memory lives in <these>/session-memory/
SPACE = ".session-memory"


def project_rules(routes: tuple[str, ...] = ()) -> tuple[Rule, ...]:
    """A project's allow-list: its spaces (at the root and at each route, a folder relative to the project), and
    its legacy folders out of which files move (removed once empty)."""
    rules: list[Rule] = []
    for route in ("", *sorted(set(routes))):
        at = f"{route.strip('/')}/" if route.strip("/") else ""
        rules.append(Rule(f"{at}{SPACE}/**"))
        rules.append(Rule(f"{at}{SPACE}", RMDIR))
        for legacy in LEGACY_FOLDERS:
            rules.append(Rule(f"{at}{legacy}/session-memory/**", OUT_ONLY))
            rules.append(Rule(f"{at}{legacy}/session-memory", RMDIR))
            rules.append(Rule(f"{at}{legacy}", RMDIR))
    return tuple(rules)


def home_rules(migrating: bool = False) -> tuple[Rule, ...]:
    """The global home's allow-list; migrating (`space migrate --global`): also the skill's legacy files, only
    where no file is."""
    rules = [Rule("global/**"), Rule("dreams/**"), Rule("archive/**")]
    if migrating:
        rules += [Rule("registry.json", NEW_ONLY), Rule("state.json", NEW_ONLY), Rule("logs/**", NEW_ONLY)]
    return tuple(rules)


def legacy_home_rules() -> tuple[Rule, ...]:
    """A legacy home folder's allow-list (the folder is `~/.codex` or `~/.claude`): only out of session-memory/."""
    return (Rule("session-memory/**", OUT_ONLY), Rule("session-memory", RMDIR))


DAY = r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})"


def workspace_rules() -> tuple[Rule, ...]:
    """A hierarchy workspace's allow-list (issue 25 §1): the hot, warm and cold files memboard writes, and
    OpenClaw's slugged daily logs, which only move (archive-logs)."""
    daily = CREATE + MODIFY + MOVE_FROM
    return (
        Rule("MEMORY.md", CREATE + MODIFY),
        Rule("memory/facts.yaml", CREATE + MODIFY),
        Rule("memory/lookup-index.md", CREATE + MODIFY),
        Rule("memory/project-<name>.md", CREATE + MODIFY, r"memory/project-[a-z0-9_-]+\.md"),
        Rule("memory/YYYY-MM-DD.md", daily, rf"memory/{DAY}\.md", _real_date),
        Rule("memory/YYYY-MM-DD-<slug>.md", MOVE_FROM, rf"memory/{DAY}-[^/]+\.md", _real_date),
        Rule("memory/migrations/**", CREATE + MODIFY),
        Rule(
            "memory/daily-archive/YYYY-MM/**",
            CREATE + MODIFY + MOVE_TO,
            r"memory/daily-archive/(?P<month>[0-9]{4}-[0-9]{2})/.+",
            _real_month,
        ),
    )


class Tree:
    """A folder memboard may write under: its kind, real path, allow-list and the key of its local state.

    allow holds patterns of relative paths (fnmatch, `*` crossing folders); lock_of, when given, is
    the real path of the tree whose lock this one is written under (a root's local state is written
    under the root's lock). (A plain class: `memboard search` loads no dataclasses.)
    """

    __slots__ = ("allow", "kind", "lock_of", "path")

    def __init__(self, kind: TreeKind, path: Path, allow: tuple[str, ...] = ANYWHERE, lock_of: Path | None = None):
        """A tree of kind at the real path path."""
        self.kind, self.path, self.allow, self.lock_of = kind, path, allow, lock_of

    def __eq__(self, other: object) -> bool:
        """Trees are equal when kind, path and allow-list are."""
        if not isinstance(other, Tree):
            return NotImplemented
        return (self.kind, self.path, self.allow) == (other.kind, other.path, other.allow)

    def __hash__(self) -> int:
        """As for equality."""
        return hash((self.kind.name, self.path, self.allow))

    def __repr__(self) -> str:
        """The tree's kind and path."""
        return f"Tree({self.kind.name!r}, {str(self.path)!r}, allow={self.allow!r})"

    @property
    def key(self) -> str:
        """The key of this tree's local state (its lock, its record of settled files)."""
        return statepaths.key(self.path)

    @property
    def lock_file(self) -> Path:
        """The lock this tree is written under."""
        return statepaths.lock_file(self.lock_of or self.path)

    def allows(self, rel: str) -> bool:
        """Whether rel is a path this tree may change."""
        return self.permits(None, rel)

    def permits(self, step: str | None, rel: str) -> bool:
        """Whether this tree may take this kind of step (a letter of STEP_OF or MOVE_TO; None: any) on rel: a
        Rule says which steps it permits, a plain pattern permits every one."""
        if self.allow == ANYWHERE:
            return True
        import fnmatch  # lazy: the memory root allows everything, and the hook needs no patterns

        return any(
            pattern.matches(rel, step) if isinstance(pattern, Rule) else fnmatch.fnmatchcase(rel, pattern)
            for pattern in self.allow
        )


def lock_order(trees: list[Tree]) -> list[Tree]:
    """The trees whose locks a plan takes, one per lock, in order of the lock owner's real path: two plans that
    touch the same trees take their locks in the same order, so neither holds one the other waits for."""
    by_lock: dict[Path, Tree] = {}
    for tree in trees:
        by_lock.setdefault(tree.lock_of or tree.path, tree)
    return [by_lock[owner] for owner in sorted(by_lock, key=str)]
