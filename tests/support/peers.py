"""Where the session-memory skill's scripts are (../shared/peers/session-memory from the repo root; from a
worktree one folder deeper, ../../shared), for the tests that run them; those tests skip, saying why, where
the folder is absent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PEER = (
    next(
        (p for p in (REPO.parent / "shared", REPO.parent.parent / "shared") if (p / "peers").is_dir()),
        REPO.parent / "shared",
    )
    / "peers"
    / "session-memory"
)
LAUNCHER = PEER / "seed_layout.py"


def skill() -> Path:
    """The launcher seed_layout.py, or a skip naming the missing folder."""
    if not LAUNCHER.is_file():
        pytest.skip(f"the session-memory skill's scripts are not at {PEER}")
    return LAUNCHER


def run_skill(name: str, *args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the skill's script name (init, save, …) on the seed's layout in cwd; its output as text."""
    full = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, str(skill()), name, *args], cwd=cwd, env=full, capture_output=True, text=True, timeout=60
    )
