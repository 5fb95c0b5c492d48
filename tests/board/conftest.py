"""Board test fixtures: a demo root and a small index writer (async tests run through tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memboard.core.formats.clock import now
from memboard.core.ops.demo import build_demo, demo_ids
from memboard.core.formats.index import COLUMNS


@pytest.fixture
def demo_root(tmp_path) -> Path:
    """The demo memory root, generated at the fixed test clock."""
    return build_demo(tmp_path / "memory", now())


@pytest.fixture
def ids() -> dict[str, str]:
    """Demo session names -> Session IDs at the fixed test clock."""
    return demo_ids(now())


def index_text(rows: list[list[str]], extra: str = "") -> str:
    """An index.md with the given rows (cells as given) and optional raw extra lines."""
    head = "| " + " | ".join(COLUMNS) + " |\n" + "|" + "---|" * len(COLUMNS) + "\n"
    return "# Memory Index\n\n" + head + "".join("| " + " | ".join(r) + " |\n" for r in rows) + extra


def row(sid: str, status: str = "active", topic: str = "topic", refs: str = "-", summary: str = "summary") -> list[str]:
    """Nine cells of a well-formed row."""
    agent = sid[16:]
    return [sid, agent, topic, summary, "kw", status, refs, "2026-05-30 10:00", "2026-05-31 10:00"]


@pytest.fixture
def write_index(root):
    """Write index.md in the `root` fixture from rows (lists of cells); returns its path."""

    def write(rows: list[list[str]], extra: str = "") -> Path:
        path = root / "index.md"
        path.write_text(index_text(rows, extra), encoding="utf-8")
        return path

    return write


@pytest.fixture
def make_row():
    """Build the nine cells of a well-formed row."""
    return row
