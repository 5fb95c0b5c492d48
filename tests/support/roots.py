"""The one builder of memory roots for tests and benchmarks: index rows, snapshots, readers of a root.

Nothing here imports memboard: roots are written in the protocol's format directly, so the
tests read files memboard did not write itself.
"""

from __future__ import annotations

import json
from pathlib import Path

HEADER = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n"
SEPARATOR = "|---|---|---|---|---|---|---|---|---|\n"
PREAMBLE = "# Memory Index\n\n"
DEFAULT_TOPIC = "未設定"
DEFAULT_SUMMARY = "sessionStart 自動註冊，尚未整理主題。"
DEFAULT_KEYWORDS = "sessionStart, cursor-agent"
TEMP_SUFFIX = ".memboard-tmp"


def row_cells(
    sid: str,
    status: str = "active",
    refs: str = "-",
    summary: str = "Did real work.",
    topic: str = "Topic",
    updated: str = "2026-05-31 09:00",
    keywords: str = "kw",
    agent: str | None = None,
    started: str | None = None,
) -> list[str]:
    """The nine cells of an index row (agent from the ID, Started At = Updated At unless given)."""
    return [sid, agent or sid[16:], topic, summary, keywords, status, refs, started or updated, updated]


def table_line(cells: list[str]) -> str:
    """One table line from its cells (no line ending)."""
    return "| " + " | ".join(cells) + " |"


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
    return table_line(row_cells(sid, status, refs, summary, topic, updated, keywords, agent, started))


def idle_line(sid: str, refs: str = "-", updated: str = "2026-05-31 09:00") -> str:
    """A SessionStart placeholder row."""
    return row_line(sid, "idle", refs, DEFAULT_SUMMARY, DEFAULT_TOPIC, updated, DEFAULT_KEYWORDS)


def index_text(lines: list[str], preamble: str = PREAMBLE, extra: str = "") -> str:
    """An index.md: preamble, the table's header, the given table lines, then extra raw text."""
    return preamble + HEADER + SEPARATOR + "".join(line + "\n" for line in lines) + extra


def snapshot_text(
    sid: str, continues: list[str] | None = None, decisions: list[str] | None = None, agent: str | None = None
) -> str:
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

    def index(self, *lines: str, preamble: str = PREAMBLE, eol: str = "\n") -> bytes:
        """Write index.md from table lines; returns the bytes written."""
        data = index_text(list(lines), preamble).replace("\n", eol).encode("utf-8")
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


def rows_of(root: Path) -> list[str]:
    """The table rows (lines starting with `| 2`) of index.md."""
    path = root / "index.md"
    if not path.exists():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("| 2")]


def temp_files(root: Path) -> list[str]:
    """Temp files left behind by interrupted writes."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob(f"*{TEMP_SUFFIX}"))


def item_lines(data: bytes) -> set[str]:
    """The content lines of a snapshot that must never be lost (metadata table excluded)."""
    out = set()
    for line in data.decode("utf-8", "replace").splitlines():
        s = line.strip()
        if s and not s.startswith("|") and not s.startswith("#") and s not in ("- None", "None"):
            out.add(s)
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


def write_tricky(root: Path) -> bytes:
    """Write the tricky root (BOM, CRLF, preamble, trailer, \\|, CJK, extra column, malformed row); its index bytes."""
    data = "".join(TRICKY_LINES).encode("utf-8")
    (root / "index.md").write_bytes(data)
    Mem(root).snapshot(TRICKY_SOURCE, agent="claude-agent")
    Mem(root).snapshot(TRICKY_OLD, agent="codex-agent")
    return data
