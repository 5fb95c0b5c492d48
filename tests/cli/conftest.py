"""Fixtures for CLI tests: the memory-root helper, whole-tree byte snapshots, the tricky root."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if str(Path(__file__).parent) not in sys.path:  # memroot is importable under any --import-mode
    sys.path.insert(0, str(Path(__file__).parent))

from memroot import TRICKY_LINES, TRICKY_OLD, TRICKY_SOURCE, Mem, tree  # noqa: E402


@pytest.fixture
def mem(root) -> Mem:
    """Helpers on the test's memory root."""
    return Mem(root)


@pytest.fixture
def whole_tree(root):
    """A function returning the bytes of every file around and inside the root (its parent's tree)."""
    return lambda: tree(root.parent)


@pytest.fixture
def tricky(root) -> bytes:
    """Write the tricky index (BOM, CRLF, preamble, trailer, \\|, CJK, extra column, malformed row)."""
    data = "".join(TRICKY_LINES).encode("utf-8")
    (root / "index.md").write_bytes(data)
    Mem(root).snapshot(TRICKY_SOURCE, agent="claude-agent")
    Mem(root).snapshot(TRICKY_OLD, agent="codex-agent")
    return data
