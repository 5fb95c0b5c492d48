"""Helpers for the reliability suites: byte images of a root and consistency checks."""

from __future__ import annotations

from pathlib import Path

from memboard.core.formats.index import IndexFile
from memboard.core.formats.snapshot import Snapshot

TEMP_SUFFIX = ".memboard-tmp"


def image(root: Path) -> dict[str, bytes]:
    """Every file under root (symlinks not followed) as relative path -> bytes."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def content_changes(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    """Paths added, removed or changed between two images, ignoring memboard's own state folder."""
    keys = set(before) | set(after)
    return {k for k in keys if before.get(k) != after.get(k) and not k.startswith(".memboard/")}


def temp_files(root: Path) -> list[str]:
    """Temp files left behind by interrupted writes."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob(f"*{TEMP_SUFFIX}"))


def parse_problems(root: Path) -> list[str]:
    """Files that do not parse: the index table, snapshot sections."""
    problems = []
    data = (root / "index.md").read_bytes() if (root / "index.md").exists() else b""
    index = IndexFile(data)
    if data and not index.has_table:
        problems.append("index.md has no board table")
    problems += index.problems
    problems += [f"index line {r.line + 1}: {r.problem}" for r in index.rows if r.problem]
    for path in sorted((root / "sessions").glob("*.md")) if (root / "sessions").is_dir() else []:
        if not Snapshot(path.read_bytes()).sections:
            problems.append(f"{path.name} has no sections")
    return problems


def item_lines(data: bytes) -> set[str]:
    """The content lines of a snapshot that must never be lost (metadata table excluded)."""
    out = set()
    for line in data.decode("utf-8", "replace").splitlines():
        s = line.strip()
        if s and not s.startswith("|") and not s.startswith("#") and s not in ("- None", "None"):
            out.add(s)
    return out


def index_ids(root: Path) -> list[str]:
    """Session IDs of the index rows, in order."""
    data = (root / "index.md").read_bytes() if (root / "index.md").exists() else b""
    return [r.id for r in IndexFile(data).rows]
