"""`hierarchy show` (issue 25 §3): the three layers with their sizes, as text and as the documented JSON."""

from __future__ import annotations

import json
from pathlib import Path


def test_show_counts_every_layer(cli, tmp_path: Path):
    ws = tmp_path / "ws"
    mem = ws / "memory"
    mem.mkdir(parents=True)
    (ws / "MEMORY.md").write_text(
        "\ufeff# Me\r\n我是助手\r\n# Find anything → memory/lookup-index.md\r\n", encoding="utf-8"
    )
    (mem / "facts.yaml").write_text(
        "# Last updated: 2026-05-30\nidentity:\n  name: Kim\n  mail: k@x.org\ntodos:\n  - a\n  - b\n"
    )
    (mem / "lookup-index.md").write_text(
        "| Need | Go here |\n|---|---|\n| who | memory/facts.yaml → identity |\n| bad |\n"
    )
    (mem / "project-book.md").write_text("# Book\n")
    (mem / "project-Bad Name.md").write_text("not a project file name\n")
    (mem / "2026-05-30.md").write_text("log\n")
    (mem / "2026-05-31-chat.md").write_text("chat\n")
    (mem / "2026-02-30.md").write_text("no such day\n")
    r = cli("hierarchy", "show", "--workspace", str(ws), "--json", use_root=False)
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert out["workspace"] == str(ws)
    assert out["hot"] == {
        "path": "MEMORY.md",
        "exists": True,
        "lines": 3,
        "tokens": 4 + -(-(len("# Me") + len("# Find anything → memory/lookup-index.md")) // 4),  # CJK 1 each
        "pointers": {"facts": False, "lookup": True},
    }
    assert out["warm"] == {
        "facts": {
            "path": "memory/facts.yaml",
            "groups": 2,
            "keys": 4,
            "last_updated": "2026-05-30",
            "exists": True,
            "problem": None,
        },
        "lookup": {"path": "memory/lookup-index.md", "rows": 2},
        "projects": ["memory/project-book.md"],
    }
    assert out["cold"] == {
        "daily": [
            {"path": "memory/2026-05-30.md", "date": "2026-05-30", "slug": None},
            {"path": "memory/2026-05-31-chat.md", "date": "2026-05-31", "slug": "chat"},
        ],
        "newest": "2026-05-31",
    }
    text = cli("hierarchy", "show", "--workspace", str(ws), use_root=False).out
    assert "MEMORY.md  3/80 lines" in text and "2 groups, 4 keys, last updated 2026-05-30" in text
    assert "daily logs: 2 (1 OpenClaw session logs), newest 2026-05-31" in text


def test_show_of_an_empty_workspace(cli, tmp_path: Path):
    r = cli("hierarchy", "show", "--workspace", str(tmp_path), "--json", use_root=False)
    out = json.loads(r.out)
    assert out["hot"]["exists"] is False and out["warm"]["facts"]["exists"] is False
    assert out["warm"]["lookup"]["rows"] is None and out["cold"] == {"daily": [], "newest": None}
