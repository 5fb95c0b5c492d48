"""What every test of the spaces shares: a private global home and private legacy homes, so that no test reads
or writes the user's (a test file that needs another layout defines its own `homes`, which then wins)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private global home whose fresh state.json keeps the skill's preflight from starting a dream, and
    private legacy homes (the skill's preflight writes its registry there)."""
    home = tmp_path / "smhome"
    home.mkdir()
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()
    (home / "state.json").write_text(json.dumps({"version": 1, "last_sleep_check_at": stamp}), encoding="utf-8")
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codexhome"))
    monkeypatch.setenv("CLAUDE_HOME", str(tmp_path / "claudehome"))
    return home
