"""git merges memboard's files with memboard (issue 26 §5): `install-merge-driver` and `merge-driver`.

Two clones that each registered a row always conflict in index.md (both rows are appended at the same
spot), and git's built-in `merge=union` duplicates rows edited on both sides. The driver merges by the
protocol's structure instead (core/merge), with git's common ancestor.

- `install_plan`: the plan of `install-merge-driver` in the root: `<root>/.gitattributes` naming the driver
  for memboard's files (patterns relative to the root, which may be any folder of the repository) and
  `<root>/.gitignore` keeping memboard's state out of git except the preserved copies. Existing lines are
  kept; only what is missing is added. The driver's definition in git config is the plan's result
  (`DriverConfig`): the command sets it with `git config` once the files are written.
- `merge_driver`: what git runs for one file: the file's kind from its path in the root, the merge with
  base, the result written over OURS; git's own line merge (`git merge-file`) for a file it cannot read
  or any error, never a traceback (git takes exit 2 and up as "keep ours", dropping theirs).
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

if TYPE_CHECKING:  # the driver's path never reads a root
    from ..files.git import Scope
    from ..files.root import MemoryRoot

OP = "install-merge-driver"
DRIVER = "memboard"  # the driver's name: `merge=memboard`, `merge.memboard.driver`
ATTRIBUTE = f"merge={DRIVER}"
ATTRIBUTES = ".gitattributes"
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


def _rules(data: bytes | None) -> list[str]:
    """The lines of a gitattributes or gitignore file that say something (no blank line, no comment)."""
    text = (data or b"").decode("utf-8", "replace").lstrip("\ufeff")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


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
    for line in _rules(before):
        pattern, *attrs = line.split()
        for attr in attrs:
            if attr in ("binary", "-merge", "!merge") or attr.startswith("merge="):
                merge_of[pattern] = attr
    missing = [f"{p} {ATTRIBUTE}" for p in PATTERNS if merge_of.get(p) != ATTRIBUTE]
    return _appended(before, missing, ATTRIBUTES_COMMENT) if missing else None


def ignore_after(before: bytes | None) -> bytes | None:
    """The root's .gitignore ignoring everything under .memboard/ but .memboard/conflicts/, or None when it
    already does (its rules present, in order, after any rule ignoring the folder itself)."""
    rules = _rules(before)
    last = {rule: i for i, rule in enumerate(rules)}
    hides_folder = [i for i, rule in enumerate(rules) if rule in STATE_FOLDER_RULES]
    wanted = [*([f"!/{STATE}/"] if hides_folder else []), *IGNORE_RULES]
    at = [last.get(rule, -1) for rule in wanted]
    if all(i >= 0 for i in at) and at == sorted(at) and (not hides_folder or at[0] > hides_folder[-1]):
        return None
    return _appended(before, wanted, IGNORE_COMMENT)


def names_driver(data: bytes | None) -> bool:
    """Whether a gitattributes file's rules name memboard's driver."""
    return any(ATTRIBUTE in line.split()[1:] for line in _rules(data))


# ---- the driver: what git runs for one file -------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """The driver's answer to git: the exit status (0 merged, 1 conflicts left) and a line for git to show."""

    code: int
    message: str = ""


def root_relative(top: Path, path: str) -> str | None:
    """path (relative to the work tree's top, as git names it) relative to the memory root it lies in: the
    nearest folder above it whose .gitattributes names the driver; else the longest tail of path that names
    one of memboard's files; None when none does."""
    from ..merge.kinds import kind_of  # lazy: as the module's other driver imports

    parts = [p for p in path.replace("\\", "/").split("/") if p]
    for n in range(len(parts) - 1, -1, -1):
        try:
            data = (top.joinpath(*parts[:n]) / ATTRIBUTES).read_bytes()
        except OSError:
            continue
        if names_driver(data):
            return "/".join(parts[n:])
    for n in range(len(parts)):
        rel = "/".join(parts[n:])
        if kind_of(rel) is not None:
            return rel
    return None


def merge_driver(base: Path, ours: Path, theirs: Path, path: str, marker_size: int, top: Path) -> Outcome:
    """Merge one file as git's driver: the result over ours; exit 1 (git's line merge done) for a file that
    cannot be read as its kind and for any error."""
    shown = path or ours.name
    try:
        return _merge(base, ours, theirs, path, marker_size, top)
    except Exception as exc:  # git must get a merge and a status, never a traceback
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return _line_merge(base, ours, theirs, marker_size, f"{shown}: memboard could not merge it ({reason})")


def _merge(base: Path, ours: Path, theirs: Path, path: str, marker_size: int, top: Path) -> Outcome:
    """merge_driver, errors raised."""
    from ..files.fs import atomic_write  # lazy: as the module's other driver imports
    from ..merge.kinds import kind_of, merge_three  # lazy: as above

    rel = root_relative(top, path) if path else None
    kind = kind_of(rel) if rel else None
    if kind is None:  # a file the attributes name that is none of memboard's: git's merge, its own status
        return _line_merge(base, ours, theirs, marker_size, "", strict=False)
    base_data = base.read_bytes()
    merged = merge_three(kind, base_data or None, ours.read_bytes(), theirs.read_bytes(), marker_size)
    if merged.unparsed:
        return _line_merge(base, ours, theirs, marker_size, f"{path}: not readable as memboard's {kind}")
    atomic_write(ours, merged.data)
    if not merged.open:
        return Outcome(0)
    what = "row" if kind == "index" else "item"
    count = len({(o.id, o.column) for o in merged.open})
    return Outcome(
        1,
        f"{path}: {count} open cell{'s' if count != 1 else ''} left as a conflict block "
        f"(each {what}'s two versions): run `memboard resolve --prefer ours|theirs`",
    )


def _line_merge(base: Path, ours: Path, theirs: Path, marker_size: int, why: str, strict: bool = True) -> Outcome:
    """git's own line merge (markers where lines conflict); exit 1 when strict (the file was memboard's and
    memboard could not merge it), else 0 when it merged clean."""
    from ..files.git import line_merge  # lazy: only a fallback runs git

    conflicts = line_merge(ours, base, theirs, marker_size)
    if conflicts is None:
        return Outcome(1, f"{why or ours.name}; git's line merge failed too: ours kept as it was, resolve by hand")
    if not strict:
        return Outcome(1 if conflicts else 0)
    left = "left conflict markers" if conflicts else "merged it line by line"
    return Outcome(1, f"{why}; git's line merge {left}: check the file, then run `memboard doctor`")
