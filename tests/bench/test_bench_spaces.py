"""bench/spaces.py's generated space is the one issue 24 §10 measures on (not a timed test): a 300-line current.md
and 2,000 history entries, about 1 MB, that memboard's reads take whole."""

from __future__ import annotations

import json

from bench.spaces import CURRENT_LINES, HISTORY_ENTRIES, generate


def test_the_generated_space_is_the_measured_one(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(tmp_path / "home"))
    folder = generate(tmp_path / "project")
    size = sum(p.stat().st_size for p in folder.iterdir())
    assert 0.9e6 <= size <= 1.2e6
    current = (folder / "current.md").read_text(encoding="utf-8")
    assert len(current.splitlines()) == CURRENT_LINES
    res = cli("space", "restore", "--json", "--workspace", str(tmp_path / "project"), use_root=False)
    got = json.loads(res.out)
    assert got["history"]["entries"] == HISTORY_ENTRIES and got["current"]["text"] == current
    hits = json.loads(
        cli("space", "search", "ranking", "--json", "--workspace", str(tmp_path / "project"), use_root=False).out
    )
    assert [h["file"] for h in hits] == ["history.md"] * 8
