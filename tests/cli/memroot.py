"""Helpers for CLI tests: index builders, the tricky root's lines and whole-tree byte snapshots."""

from __future__ import annotations

import json
from pathlib import Path


HEADER = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n"
SEPARATOR = "|---|---|---|---|---|---|---|---|---|\n"
DEFAULT_SUMMARY = "sessionStart 自動註冊，尚未整理主題。"


def row_line(
    sid: str,
    status: str = "active",
    refs: str = "-",
    summary: str = "Did real work.",
    topic: str = "Topic",
    updated: str = "2026-05-31 09:00",
    keywords: str = "kw",
    agent: str | None = None,
    started: str | None = None,
) -> str:
    """One index table line (no line ending)."""
    agent = agent or sid[16:]
    started = started or updated
    return f"| {sid} | {agent} | {topic} | {summary} | {keywords} | {status} | {refs} | {started} | {updated} |"


def idle_line(sid: str, refs: str = "-", updated: str = "2026-05-31 09:00") -> str:
    """A SessionStart placeholder row."""
    return row_line(sid, "idle", refs, DEFAULT_SUMMARY, "未設定", updated, "sessionStart, cursor-agent")


def snapshot_text(sid: str, continues: list[str] | None = None, decisions: list[str] | None = None, agent: str | None = None) -> str:
    """A snapshot in the seed's template with some content."""
    agent = agent or sid[16:]
    cont = "\n".join(f"- {c}" for c in continues) if continues else "- None"
    dec = "\n".join(f"- {d}" for d in decisions) if decisions else "- Use plain Markdown."
    return f"""# Session: {sid}

## Metadata

| Field | Value |
|---|---|
| Session ID | {sid} |
| Agent Name | {agent} |
| Topic | Topic |
| Status | active |
| Started At | 2026-05-31 09:00 |
| Updated At | 2026-05-31 09:00 |

## Current Context

Worked on the thing.

## Decisions

{dec}

## Files / Artifacts

- app/core/index.py

## Open Questions

- Should X happen?

## Next Actions

- Write tests.

## Continues From

{cont}

## Superseded / Resolved

- None
"""


class Mem:
    """A memory root under test: write an index from rows, add snapshots, read things back."""

    def __init__(self, root: Path):
        """Wrap root."""
        self.root = root

    def index(self, *lines: str, preamble: str = "# Memory Index\n\n", eol: str = "\n") -> bytes:
        """Write index.md from table lines; returns the bytes written."""
        text = preamble + HEADER + SEPARATOR + "".join(line + "\n" for line in lines)
        data = text.replace("\n", eol).encode("utf-8")
        (self.root / "index.md").write_bytes(data)
        return data

    def snapshot(self, sid: str, text: str | None = None, **kw) -> Path:
        """Write sessions/<sid>.md."""
        path = self.root / "sessions" / f"{sid}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text if text is not None else snapshot_text(sid, **kw), encoding="utf-8")
        return path

    def read_index(self) -> str:
        """index.md as text."""
        return (self.root / "index.md").read_text(encoding="utf-8")

    def snap(self, sid: str) -> str:
        """sessions/<sid>.md as text."""
        return (self.root / "sessions" / f"{sid}.md").read_text(encoding="utf-8")

    def has_snap(self, sid: str) -> bool:
        """Whether sessions/<sid>.md exists."""
        return (self.root / "sessions" / f"{sid}.md").exists()

    def rows(self, cli) -> dict[str, dict]:
        """list --json as ID -> row."""
        res = cli("list", "--json")
        assert res.code == 0, res.err
        return {r["id"]: r for r in json.loads(res.out)}


def tree(path: Path) -> dict[str, bytes]:
    """Every file under path (relative name -> bytes), folders included as markers."""
    out: dict[str, bytes] = {}
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path).as_posix()
        out[rel + ("/" if p.is_dir() else "")] = b"" if p.is_dir() else p.read_bytes()
    return out


# -- the tricky root ----------------------------------------------------------------------

TRICKY_ACTIVE = "2026-05-01-1000-cursor-main-agent"  # active, old, no snapshot, pipes in cells
TRICKY_IDLE = "2026-05-31-0900-cursor-main-agent"  # idle placeholder
TRICKY_SOURCE = "2026-05-20-0800-claude-agent"  # active, CJK, has a snapshot
TRICKY_OLD = "2026-04-01-0800-codex-agent"  # active, old, has a snapshot: organize marks it stale

TRICKY_LINES = [
    "\ufeff# Memory Index 記憶索引\r\n",
    "\r\n",
    "Preamble text 說明 with a | pipe, kept as is.\r\n",
    "\r\n",
    "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At | Notes |\r\n",
    "|---|---|---|---|---|---|---|---|---|---|\r\n",
    f"| {TRICKY_ACTIVE} | cursor-main-agent | 設計 \\| 管線 | 決定了 A \\| B 方案 | pipes, 中文 | active | - | 2026-05-01 10:00 | 2026-05-01 10:00 | extra note |\r\n",
    f"| {TRICKY_IDLE} | cursor-main-agent | 未設定 | {DEFAULT_SUMMARY} | sessionStart, cursor-agent | idle | - | 2026-05-31 09:00 | 2026-05-31 09:00 | x |\r\n",
    "| this row is broken | only three cells |\r\n",
    f"| {TRICKY_SOURCE} | claude-agent | 中文主題 | 摘要：完成了索引 | 索引 | active | - | 2026-05-30 08:00 | 2026-05-30 08:00 |  |\r\n",
    f"| {TRICKY_OLD} | codex-agent | Old work | Finished the parser. | parser | active | - | 2026-04-01 08:00 | 2026-04-01 08:00 | n |\r\n",
    "\r\n",
    "Text after the table 之後 | also kept.\r\n",
]
