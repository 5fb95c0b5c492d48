"""Defect found by using the spaces as a new user would (issue 24 §4 search): `space search --all-spaces` failed with
exit 1 when some other known space had a file it could not read (no read permission, a symlink loop), so one bad
space hid every match of the asked one. Search exits 0 with or without matches and 1 only when the asked space does
not exist: another space holding an unreadable file is skipped with a warning naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def homes(tmp_path, monkeypatch):
    """A private global home."""
    home = tmp_path / "smhome"
    home.mkdir()
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codexhome"))
    monkeypatch.setenv("CLAUDE_HOME", str(tmp_path / "claudehome"))
    return home


def _project(tmp_path: Path, name: str) -> Path:
    p = tmp_path / name
    (p / ".git").mkdir(parents=True)
    (p / ".session-memory").mkdir()
    (p / ".session-memory" / "current.md").write_text("# c\n\n## 当前目标\n- find the needle\n", encoding="utf-8")
    return p


def test_search_all_spaces_skips_another_space_it_cannot_read(cli, tmp_path):
    good = _project(tmp_path, "good")
    bad = _project(tmp_path, "bad")
    (bad / ".session-memory" / "history.md").symlink_to("history.md")  # a loop: reading it is an OSError
    assert cli("space", "where", "--workspace", str(bad), use_root=False).code == 0
    res = cli("space", "search", "needle", "--all-spaces", "--json", "--workspace", str(good), use_root=False)
    assert res.code == 0, res.err
    spaces = {hit["space"] for hit in json.loads(res.out)}
    assert spaces == {str(good / ".session-memory")}
    assert len(res.err.strip().splitlines()) == 1 and "history.md" in res.err
