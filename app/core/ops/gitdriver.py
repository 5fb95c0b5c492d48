"""`install-merge-driver`: git merges memboard's files with memboard (issue 26 §5).

Two clones that each registered a row always conflict in index.md (both rows are appended at the same
spot), and git's built-in `merge=union` duplicates rows edited on both sides. The driver merges by the
protocol's structure instead (core/merge), with git's common ancestor.

- `install_plan`: the plan of `install-merge-driver` in the root: `<root>/.gitattributes` naming the driver
  for memboard's files (patterns relative to the root, which may be any folder of the repository) and
  `<root>/.gitignore` keeping memboard's state out of git except the preserved copies. Existing lines are
  kept; only what is missing is added. The driver's definition in git config is the plan's result
  (`DriverConfig`): the command sets it with `git config` once the files are written.
- the driver itself, what git runs for each file, is mergedriver.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import Refused
from ..formats.layout import MARKERS, STATE
from ..merge.kinds import PATTERNS
from ..plan import Change, Plan
from .mergedriver import ATTRIBUTE, ATTRIBUTES, DRIVER, rules_of

if TYPE_CHECKING:  # (types only)
    from ..files.git import Scope
    from ..files.root import MemoryRoot

OP = "install-merge-driver"
IGNORE = ".gitignore"
DRIVER_NAME = "memboard: index rows by Session ID, snapshots and notes item by item"
ARGUMENTS = "merge-driver %O %A %B %P --marker-size %L"
ATTRIBUTES_COMMENT = "# memboard merges its own files (memboard install-merge-driver)"
IGNORE_COMMENT = "# memboard's state stays on each machine; copies it preserved after a merge travel"
IGNORE_RULES = (f"/{STATE}/*", f"!/{STATE}/conflicts/")
STATE_FOLDER_RULES = {STATE, f"{STATE}/", f"/{STATE}", f"/{STATE}/", f"**/{STATE}", f"**/{STATE}/"}


@dataclass(frozen=True)
class DriverConfig:
    """The driver's definition in git config: where (scope, seen from folder) and each (key, value) to set."""

    scope: Scope
    folder: Path
    settings: tuple[tuple[str, str], ...]

    def commands(self) -> list[str]:
        """Each setting as the `git config` command that makes it."""
        return [f"git config --{self.scope} {key} {_shell_word(value)}" for key, value in self.settings]


def _shell_word(value: str) -> str:
    """value as one word of a POSIX shell command line, double-quoted when that needs no escape (the driver's
    command holds single quotes)."""
    import shlex  # lazy: the preview alone quotes

    if not any(c in value for c in '"$`\\!'):
        return f'"{value}"'
    return shlex.quote(value)


def driver_command(words: list[str]) -> str:
    """The driver's command line for git (run by a POSIX shell): this memboard's words quoted, then the
    placeholders git fills in."""
    return " ".join("'" + word.replace("'", "'\\''") + "'" for word in words) + " " + ARGUMENTS


def install_plan(driver: str, scope: Scope) -> Callable[[MemoryRoot], Plan[DriverConfig]]:
    """The builder of install-merge-driver's plan: the root's .gitattributes and .gitignore, and (its result)
    the git config settings that define the driver as driver."""

    def build(root: MemoryRoot) -> Plan[DriverConfig]:
        from ..files import git  # lazy: the driver's path runs no git config

        real = root.real
        if git.git(real, "--version") is None:
            raise Refused("git cannot be started (is it installed and on PATH?); nothing written")
        if git.work_tree_top(real) is None:
            raise Refused(
                f"{root.path} is not inside a git work tree (git init, or clone the repository first); nothing written"
            )
        if not any((real / marker).exists() for marker in MARKERS):
            raise Refused(
                f"{root.path} is no memory root yet (none of index.md, sessions/, archive/, notes/): register a session "
                "first; nothing written"
            )
        changes = []
        for rel, edit in ((ATTRIBUTES, attributes_after), (IGNORE, ignore_after)):
            before = root.read(rel)
            after = edit(before)
            if after is not None:
                changes.append(Change.write(rel, before, after))
        wanted = (("name", DRIVER_NAME), ("driver", driver))
        settings = tuple(
            (f"merge.{DRIVER}.{key}", value)
            for key, value in wanted
            if git.config_get(real, f"merge.{DRIVER}.{key}", scope) != value
        )
        return Plan(OP, DriverConfig(scope, real, settings), changes)

    return build


def _appended(before: bytes | None, lines: list[str], comment: str) -> bytes:
    """before with lines added at its end (after comment), in its line endings; a new file holds just them."""
    data = before or b""
    eol = b"\r\n" if b"\r\n" in data else b"\n"
    if data and not data.endswith(b"\n"):
        data += eol
    if data.strip():
        data += eol  # a blank line sets memboard's lines apart from the file's own
    return data + b"".join(line.encode("utf-8") + eol for line in [comment, *lines])


def attributes_after(before: bytes | None) -> bytes | None:
    """The root's .gitattributes naming the driver for each of memboard's files, or None when it already does
    (a later line setting another merge for the same pattern undoes an earlier `merge=memboard`)."""
    merge_of: dict[str, str] = {}
    for line in rules_of(before):
        pattern, *attrs = line.split()
        for attr in attrs:
            if attr in ("binary", "-merge", "!merge") or attr.startswith("merge="):
                merge_of[pattern] = attr
    missing = [f"{p} {ATTRIBUTE}" for p in PATTERNS if merge_of.get(p) != ATTRIBUTE]
    return _appended(before, missing, ATTRIBUTES_COMMENT) if missing else None


def ignore_after(before: bytes | None) -> bytes | None:
    """The root's .gitignore ignoring everything under .memboard/ but .memboard/conflicts/, or None when it
    already does (its rules present, in order, after any rule ignoring the folder itself)."""
    rules = rules_of(before)
    last = {rule: i for i, rule in enumerate(rules)}
    hides_folder = [i for i, rule in enumerate(rules) if rule in STATE_FOLDER_RULES]
    wanted = [*([f"!/{STATE}/"] if hides_folder else []), *IGNORE_RULES]
    at = [last.get(rule, -1) for rule in wanted]
    if all(i >= 0 for i in at) and at == sorted(at) and (not hides_folder or at[0] > hides_folder[-1]):
        return None
    return _appended(before, wanted, IGNORE_COMMENT)
