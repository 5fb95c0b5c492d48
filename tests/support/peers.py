"""Where the session-memory skill's scripts are (../shared/peers/session-memory from the repo root), or why not."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _candidates() -> list[Path]:
    """../shared/peers/session-memory from the repo root; in a linked worktree also from the main checkout."""
    found = [ROOT.parent / "shared" / "peers" / "session-memory"]
    git = ROOT / ".git"
    if git.is_file():  # a linked worktree: `gitdir: <main>/.git/worktrees/<name>`
        gitdir = Path(git.read_text(encoding="utf-8").split(":", 1)[1].strip())
        found.append(gitdir.parents[2].parent / "shared" / "peers" / "session-memory")
    return found


PEERS = next((path for path in _candidates() if path.is_dir()), _candidates()[0])


def skill() -> Path:
    """The skill's folder (README.md, seed_layout.py, upstream/); skips the test, saying why, when absent."""
    if not (PEERS / "seed_layout.py").is_file():
        pytest.skip(f"the session-memory skill is not at {PEERS}")
    return PEERS
