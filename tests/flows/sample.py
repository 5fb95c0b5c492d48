"""A small memory root for the flow tests: a reference pair, a placeholder, an overdue session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memboard.core.formats.snapshot import render_template
from tests.support.roots import index_text, table_line

SOURCE = "2026-05-20-1000-cursor-main-agent"
FOLLOWER = "2026-05-28-0900-claude-code"
PLACEHOLDER = "2026-05-31-0800-cursor-main-agent"
OVERDUE = "2026-04-01-1200-codex"
LONER = "2026-05-30-1500-cursor-main-agent"

ROWS = [
    (
        SOURCE,
        "cursor-main-agent",
        "索引解析器",
        "Line-based parser of index.md; keeps every byte.",
        "parser, index",
        "active",
        FOLLOWER,
        "2026-05-20 10:00",
        "2026-05-29 18:00",
    ),
    (
        FOLLOWER,
        "claude-code",
        "Board flows",
        "Continues the parser work with the board's modal flows.",
        "board, flows",
        "active",
        "-",
        "2026-05-28 09:00",
        "2026-05-31 11:00",
    ),
    (
        PLACEHOLDER,
        "cursor-main-agent",
        "未設定",
        "sessionStart 自動註冊，尚未整理主題。",
        "sessionStart, cursor-agent",
        "idle",
        "-",
        "2026-05-31 08:00",
        "2026-05-31 08:00",
    ),
    (
        OVERDUE,
        "codex",
        "Hook latency",
        "Measured hook start-up; lazy imports keep it under 50 ms.",
        "hook, bench",
        "active",
        "-",
        "2026-04-01 12:00",
        "2026-04-02 16:00",
    ),
    (
        LONER,
        "cursor-main-agent",
        "Demo root",
        "Generated demo sessions for screenshots.",
        "demo",
        "active",
        "-",
        "2026-05-30 15:00",
        "2026-05-30 15:30",
    ),
]

SNAPSHOTS: dict[str, dict[str, Any]] = {
    SOURCE: dict(context="The index parser is line based.", decisions=["Never rewrite the whole table"]),
    FOLLOWER: dict(context="Building the board flows.", decisions=["Preview every change"], continues=[SOURCE]),
    OVERDUE: dict(context="Hook start-up measured.", actions=["Re-measure on Windows"]),
    LONER: dict(context="Demo root generator.", files=["app/board/demo.py"]),
}


def make_root(path: Path) -> Path:
    """Write the sample root into path (an existing empty folder) and return it."""
    lines = [table_line(list(r)) for r in ROWS]
    (path / "index.md").write_text(index_text(lines, extra="\nNotes below the table stay.\n"), encoding="utf-8")
    (path / "sessions").mkdir()
    by_id = {r[0]: r for r in ROWS}
    for sid, extra in SNAPSHOTS.items():
        row = by_id[sid]
        text = render_template(sid, row[1], row[2], row[7], row[8], status=row[5], **extra)
        (path / "sessions" / f"{sid}.md").write_text(text, encoding="utf-8")
    return path
