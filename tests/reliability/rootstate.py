"""Consistency checks of the reliability suites, read with memboard's own parsers."""

from __future__ import annotations

from pathlib import Path

from memboard.core.formats.index import IndexFile
from memboard.core.formats.snapshot import Snapshot


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


def index_ids(root: Path) -> list[str]:
    """Session IDs of the index rows, in order."""
    data = (root / "index.md").read_bytes() if (root / "index.md").exists() else b""
    return [r.id for r in IndexFile(data).rows]
