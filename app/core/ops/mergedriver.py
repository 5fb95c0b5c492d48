"""`memboard merge-driver`: what git runs to merge one of memboard's files (issue 26 §5), in a merge, a rebase or
a cherry-pick, once per file both sides changed.

The file's kind comes from its path in the memory root (the root being the nearest folder above it whose
.gitattributes names the driver: a root may be any folder of the repository); the merge of that kind runs
with git's common ancestor, and the result is written over OURS. git's own line merge (`git merge-file`)
takes over for a file memboard cannot read as its kind and for any error, with exit 1 and never a
traceback: git takes exit 2 and up as "keep ours", dropping theirs. Each import is made when needed: git
starts a process per file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DRIVER = "memboard"  # the driver's name: `merge=memboard`, `merge.memboard.driver`
ATTRIBUTE = f"merge={DRIVER}"
ATTRIBUTES = ".gitattributes"


def rules_of(data: bytes | None) -> list[str]:
    """The lines of a gitattributes or gitignore file that say something (no blank line, no comment)."""
    text = (data or b"").decode("utf-8", "replace").lstrip("\ufeff")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def names_driver(data: bytes | None) -> bool:
    """Whether a gitattributes file's rules name memboard's driver."""
    return any(ATTRIBUTE in line.split()[1:] for line in rules_of(data))


@dataclass(frozen=True)
class Outcome:
    """The driver's answer to git: the exit status (0 merged, 1 conflicts left) and a line for git to show."""

    code: int
    message: str = ""


def root_relative(top: Path, path: str) -> str | None:
    """path (relative to the work tree's top, as git names it) relative to the memory root it lies in: the
    nearest folder above it whose .gitattributes names the driver, and below which path names one of
    memboard's files; else the longest tail of path that names one; None when none does."""
    from ..merge.kinds import kind_of  # lazy: as the module's other driver imports

    parts = [p for p in path.replace("\\", "/").split("/") if p]
    for n in range(len(parts) - 1, -1, -1):
        rel = "/".join(parts[n:])
        if kind_of(rel) is None:
            continue
        try:
            data = (top.joinpath(*parts[:n]) / ATTRIBUTES).read_bytes()
        except OSError:
            continue
        if names_driver(data):
            return rel
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
