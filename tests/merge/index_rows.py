"""Index tables for the merge tests: a header, rows written as the protocol writes them, whole files."""

from __future__ import annotations

from memboard.core.formats.index import COLUMNS

HEADER = "| " + " | ".join(COLUMNS) + " |"
SEP = "|---|---|---|---|---|---|---|---|---|"
A = "2026-05-31-0900-cursor-main-agent"
B = "2026-05-31-1015-claude-main-agent"
C = "2026-05-31-1100-codex-helper"


def row(
    sid: str = A,
    *,
    agent: str | None = None,
    topic: str = "T",
    summary: str = "S",
    keywords: str = "K",
    status: str = "active",
    refs: str = "-",
    started: str = "2026-05-31 09:00",
    updated: str = "2026-05-31 09:00",
) -> str:
    """A table line (without its ending)."""
    agent = sid[16:] if agent is None else agent
    return f"| {sid} | {agent} | {topic} | {summary} | {keywords} | {status} | {refs} | {started} | {updated} |"


def index(*rows: str, pre: str = "# Memory\n\n", post: str = "", eol: str = "\n", bom: bool = False) -> bytes:
    """index.md's bytes: text before the table, the header, the rows, text after it."""
    text = pre + eol.join([HEADER, SEP, *rows]) + eol + post
    return (("\ufeff" if bom else "") + text).encode("utf-8")
