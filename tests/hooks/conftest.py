"""Fixtures for the agent-integration tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def state_dir() -> Path:
    """The isolated local state folder the autouse fixture set up."""
    return Path(os.environ["MEMBOARD_STATE_DIR"])
