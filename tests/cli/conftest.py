"""Fixtures for CLI tests: memory-root helpers, whole-tree byte snapshots, the tricky root."""

from __future__ import annotations

import pytest

from tests.support.roots import Mem, write_tricky
from tests.support.tree import tree


@pytest.fixture
def mem(root) -> Mem:
    """Helpers on the test's memory root."""
    return Mem(root)


@pytest.fixture
def whole_tree(root):
    """A function returning the bytes of every file around and inside the root (its parent's tree, folders too)."""
    return lambda: tree(root.parent, folders=True)


@pytest.fixture
def tricky(root) -> bytes:
    """Write the tricky index (BOM, CRLF, preamble, trailer, \\|, CJK, extra column, malformed row)."""
    return write_tricky(root)
