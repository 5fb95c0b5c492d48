"""Board test fixtures: a demo root and a small index writer (async tests run through tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memboard.core.formats.clock import now
from memboard.core.ops.demo import build_demo, demo_ids
from tests.support.roots import index_text, row_cells, table_line
from tests.support.sync_findings import says


@pytest.fixture
def demo_root(tmp_path) -> Path:
    """The demo memory root, generated at the fixed test clock."""
    return build_demo(tmp_path / "memory", now())


@pytest.fixture
def ids() -> dict[str, str]:
    """Demo session names -> Session IDs at the fixed test clock."""
    return demo_ids(now())


def row(sid: str, status: str = "active", topic: str = "topic", refs: str = "-", summary: str = "summary") -> list[str]:
    """Nine cells of a well-formed row."""
    return row_cells(sid, status, refs, summary, topic, updated="2026-05-31 10:00", started="2026-05-30 10:00")


@pytest.fixture
def write_index(root):
    """Write index.md in the `root` fixture from rows (lists of cells); returns its path."""

    def write(rows: list[list[str]], extra: str = "") -> Path:
        path = root / "index.md"
        path.write_text(index_text([table_line(r) for r in rows], extra=extra), encoding="utf-8")
        return path

    return write


@pytest.fixture
def make_row():
    """Build the nine cells of a well-formed row."""
    return row


@pytest.fixture
def doctor_says(monkeypatch):
    """Make doctor's pass return these findings (besides what it finds): a stand-in for the merge's findings."""
    return says(monkeypatch)
