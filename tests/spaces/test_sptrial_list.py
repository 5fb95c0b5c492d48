"""Defects found by using the spaces as a new user would (issue 24): `space list` with one space it cannot read.

The issue: list shows every known space, "an unresolvable one is listed with its problem, never hidden". A space
whose file is a folder (or unreadable) must not make the whole list fail and hide every other space."""

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
    (p / ".session-memory" / "current.md").write_text("# c\n- Last Updated: 2026-05-01 10:00\n", encoding="utf-8")
    return p


def test_list_keeps_listing_when_one_space_holds_a_folder_where_a_file_should_be(cli, tmp_path):
    good = _project(tmp_path, "good")
    bad = _project(tmp_path, "bad")
    (bad / ".session-memory" / "history.md").mkdir()
    for p in (good, bad):
        assert cli("space", "where", "--workspace", str(p), use_root=False).code == 0
    res = cli("space", "list", "--json", use_root=False)
    assert res.code == 0, res.err
    got = {item["space"]: item for item in json.loads(res.out)}
    assert got[str(good / ".session-memory")]["problem"] is None
    problem = got[str(bad / ".session-memory")]["problem"]
    assert problem is not None and "history.md" in problem and "\n" not in problem
    text = cli("space", "list", use_root=False)
    assert text.code == 0 and "good" in text.out and "bad" in text.out
