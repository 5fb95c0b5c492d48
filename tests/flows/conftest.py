"""Fixtures of the flow tests: the sample root (async tests run through tests/conftest.py)."""

from __future__ import annotations

import pytest

from .sample import make_root


@pytest.fixture
def sample_root(root):
    """The sample memory root (a reference pair, a placeholder, an overdue session)."""
    return make_root(root)
