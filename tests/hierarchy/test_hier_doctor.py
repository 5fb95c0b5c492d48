"""A `memory/` that is both seed 004's hierarchy folder and seed 000's memory root (issue 25 §1): `memboard doctor`
treats every hierarchy file as known — no finding about any of them, and `doctor --fix` plans nothing for them."""

from __future__ import annotations

import json


def test_doctor_finds_nothing_about_hierarchy_files(cli, root):
    assert cli("register", "--agent", "cursor-main-agent", "--manual", "--topic", "t", "--summary", "s").code == 0
    assert cli("doctor", "--json").out.strip() == "[]"
    ws = root.parent
    (ws / "MEMORY.md").write_text("# Me\n# Structured facts → memory/facts.yaml\n")
    files = {
        "facts.yaml": "# memory/facts.yaml\n# Last updated: 2026-05-30\nidentity:\n  name: Kim\n",
        "lookup-index.md": "| I need to know... | Go here |\n|---|---|\n| Session ID | index.md |\n",
        "project-book.md": "# Book\n",
        "project-book_2.md": "# Book 2\n",
        "2026-05-30.md": "# 2026-05-30\n\nwrote\n",
        "2026-05-31-2026-05-31-0930-cursor-main-agent.md": "# Session: 2026-05-31-0930-cursor-main-agent\n",
        "2026-05-31-index.md": "| Session ID | Agent Name |\n|---|---|\n",
        "migrations/2026-05-30-MEMORY.md": "# Me\n- Email: kim@example.com\n",
        "migrations/2026-05-30-plan.yaml": "date: 2026-05-30\nlines: []\n",
        "daily-archive/2026-04/2026-04-01.md": "# 2026-04-01\n",
        "daily-archive/2026-04/2026-04-02-chat.md": "chat\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "2026-05-29.md").write_bytes(b"# 2026-05-29\n\nnot utf-8 \xff\n")
    r = cli("doctor", "--json")
    assert r.code == 0 and json.loads(r.out) == [], r.out
    fix = cli("doctor", "--fix", "--dry-run")
    assert fix.code == 0 and fix.out == "", fix.out
    shown = cli("hierarchy", "show", "--workspace", str(ws), "--json", use_root=False)
    assert [d["path"] for d in json.loads(shown.out)["cold"]["daily"]] == [
        "memory/2026-05-29.md",
        "memory/2026-05-30.md",
        "memory/2026-05-31-2026-05-31-0930-cursor-main-agent.md",
        "memory/2026-05-31-index.md",
    ]
