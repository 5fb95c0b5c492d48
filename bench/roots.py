"""Deterministic benchmark memory roots: an index of N rows plus some snapshots.

The rows look like a long-lived real memory: four agents, ~30% of rows in Chinese (CJK
topics and summaries), some cells with escaped pipes (`a \\| b`), Referenced By links from
sources to later sessions whose snapshots list them under Continues From, and a mix of
idle, active and stale rows. The last row is an hour before the benchmark clock, so recent
active rows stay active while old ones are overdue for organize.

Nothing here imports memboard: the generator writes the protocol's format directly (with the rows
of tests/support/roots.py), so the benchmarks measure memboard reading files it did not write itself.
"""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from tests.support.roots import DEFAULT_SUMMARY, DEFAULT_TOPIC, SEPARATOR, row_line
from tests.support.roots import HEADER as HEADER_LINE

NOW = "2026-06-01 09:30"
HEADER = HEADER_LINE + SEPARATOR
PREAMBLE = (
    "# Memory Index\n\nWorking board of the agents of this vault. One row per live session; see the protocol.\n\n"
)
POSTSCRIPT = "\n<!-- notes under the table survive every write -->\n"

AGENTS = ("cursor-main-agent", "claude-code", "codex-cli", "cursor-bg-agent")
EN_TOPICS = (
    "hook registration latency",
    "Obsidian vault sync",
    "index parser rewrite",
    "snapshot merge policy",
    "archive cleanup script",
    "release notes draft",
    "CI flake on Windows",
    "board filter keys",
    "wiki import pipeline",
    "session chain viewer",
)
EN_SUMMARIES = (
    "Measured the hook on a large index and moved parsing off the hot path.",
    "Decided to keep CRLF endings as written; added round-trip tests for them.",
    "Drafted the organize report and checked it against the protocol text.",
    "Traced a lost row to a stale read; writers now re-read under the lock.",
    "Reviewed archive order so a crash leaves the row in the index.",
    "Paired on the filter bar; typing narrows rows without losing the cursor.",
)
CJK_TOPICS = (
    "記憶索引整理",
    "同步 Obsidian 筆記庫",
    "快照合併規則",
    "封存流程檢查",
    "鉤子註冊延遲",
    "接續記憶與引用",
)
CJK_SUMMARIES = (
    "整理了索引的欄位格式，確認跳脫的直線符號不會切斷儲存格。",
    "決定保留原本的換行格式，並加入往返測試。",
    "檢查封存順序：先寫封存檔，最後才刪除索引列。",
    "接續上一個工作階段，更新來源列的 Referenced By。",
    "量測大型索引上的鉤子時間，把解析移出熱路徑。",
)
PIPE_SUMMARIES = (
    "Piped `rg TODO \\| wc -l` into the report; kept the pipe escaped in the cell.",
    "Column compare: old \\| new \\| merged, all three kept.",
    "用 `cat index.md \\| head` 檢查表格，直線符號保持跳脫。",
)
KEYWORDS = (
    "sessionStart, cursor-agent",
    "manual-registration, cursor-agent, session-snapshot",
    "hooks, latency, index",
    "merge, snapshot, policy",
    "記憶, 索引, 整理",
    "archive, organize",
)

CJK_SHARE = 0.30
PIPE_SHARE = 0.05
SNAPSHOT_SHARE = 0.03
SNAPSHOT_CAP = 3000
CONTINUE_SHARE = 0.5
# root b (issue 29): unlike root a, a third of the Summaries hold an escaped pipe, statuses at random, and 5% of
# the active rows continue an earlier row whether or not they have a snapshot (3% of rows have one, no cap).
B_PIPE_SHARE = 1 / 3
B_CONTINUE_SHARE = 0.05
KINDS = ("a", "b", "b-nopipe")  # b-nopipe: root b without the escaped pipes (what the pipes cost)


@dataclass
class Manifest:
    """What a generated root holds, for benchmarks that need particular rows."""

    path: Path
    rows: int
    ids: list[str] = field(default_factory=list)
    snapshots: list[str] = field(default_factory=list)
    archivable: list[str] = field(default_factory=list)
    cjk_rows: int = 0
    pipe_rows: int = 0
    referenced_rows: int = 0
    index_bytes: int = 0


def _ts(when: datetime) -> str:
    """The protocol's timestamp text."""
    return when.strftime("%Y-%m-%d %H:%M")


def _snapshot(
    sid: str, agent: str, topic: str, status: str, started: str, updated: str, summary: str, sources: list[str]
) -> str:
    """A snapshot in the seed's template, with a few items per section."""
    continues = "\n".join(f"- {s}" for s in sources) if sources else "None"
    return (
        f"# Session: {sid}\n\n## Metadata\n\n| Field | Value |\n|---|---|\n"
        f"| Session ID | {sid} |\n| Agent Name | {agent} |\n| Topic | {topic} |\n| Status | {status} |\n"
        f"| Started At | {started} |\n| Updated At | {updated} |\n\n"
        f"## Current Context\n\n{summary}\n\n"
        "## Decisions\n\n- Keep index writes append-only under the lock.\n- 保留原始換行與 BOM。\n\n"
        "## Files / Artifacts\n\n- memory/index.md\n- hooks/session-start.json\n\n"
        "## Open Questions\n\n- Should organize run weekly?\n\n"
        "## Next Actions\n\n- Re-measure after the parser change.\n\n"
        f"## Continues From\n\n{continues}\n\n"
        "## Superseded / Resolved\n\n- [resolved] Lost row on concurrent register.\n"
    )


def _starts(rng: random.Random, rows: int) -> list[datetime]:
    """Start times going backwards from an hour before the benchmark clock, so IDs are unique and sorted."""
    when = datetime.strptime(NOW, "%Y-%m-%d %H:%M") - timedelta(hours=1)
    starts: list[datetime] = []
    for _ in range(rows):
        starts.append(when)
        when -= timedelta(minutes=rng.randint(1, 9))
    starts.reverse()
    return starts


def _texts(rng: random.Random, status: str, cjk: bool) -> tuple[str, str, str]:
    """A row's Topic, Summary and Keywords: the defaults for an idle row, else drawn (in CJK when cjk)."""
    if status == "idle":
        return DEFAULT_TOPIC, DEFAULT_SUMMARY, KEYWORDS[0]
    topic = rng.choice(CJK_TOPICS if cjk else EN_TOPICS)
    summary = rng.choice(CJK_SUMMARIES if cjk else EN_SUMMARIES)
    return topic, summary, rng.choice(KEYWORDS)


def generate(path: Path, rows: int, seed: int = 6, pipe_share: float = PIPE_SHARE, kind: str = "a") -> Manifest:
    """Write a memory root of `rows` index rows (and some snapshots) into path; same seed, same bytes.
    pipe_share: the share of Summaries holding an escaped pipe (root a); kind: "a", "b" or "b-nopipe"."""
    if kind != "a":
        return generate_b(path, rows, seed, pipes=kind == "b")
    rng = random.Random(seed * 1_000_003 + rows)
    path = Path(path)
    (path / "sessions").mkdir(parents=True, exist_ok=True)
    manifest = Manifest(path=path, rows=rows)

    starts = _starts(rng, rows)

    records = []
    for start in starts:
        agent = AGENTS[rng.randrange(len(AGENTS))]
        sid = f"{start:%Y-%m-%d-%H%M}-{agent}"
        roll = rng.random()
        status = "idle" if roll < 0.40 else ("active" if roll < 0.85 else "stale")
        cjk = rng.random() < CJK_SHARE
        pipe = rng.random() < pipe_share
        topic, summary, keywords = _texts(rng, status, cjk)
        if pipe:
            summary = rng.choice(PIPE_SUMMARIES)
        updated = start + timedelta(minutes=rng.randint(0, 3 * 24 * 60)) if status != "idle" else start
        records.append(
            {
                "id": sid,
                "agent": agent,
                "topic": topic,
                "summary": summary,
                "keywords": keywords,
                "status": status,
                "refs": [],
                "sources": [],
                "started": _ts(start),
                "updated": _ts(min(updated, starts[-1])),
                "cjk": cjk or any(ord(ch) > 0x2E7F for ch in topic + summary),
                "pipe": "\\|" in summary,
            }
        )
    manifest.ids = [r["id"] for r in records]

    # Snapshots for some non-idle rows; half of those continue from an earlier source row.
    candidates = [i for i, r in enumerate(records) if r["status"] != "idle"]
    wanted = min(SNAPSHOT_CAP, max(1, int(rows * SNAPSHOT_SHARE)))
    with_snapshot = sorted(rng.sample(candidates, min(wanted, len(candidates))))
    for i in with_snapshot:
        if i > 0 and rng.random() < CONTINUE_SHARE:
            src = rng.randrange(max(0, i - 500), i)
            records[src]["refs"].append(records[i]["id"])
            records[i]["sources"].append(records[src]["id"])

    return _write(path, manifest, records, with_snapshot)


def _b_record(rng: random.Random, start: datetime, last: datetime, pipes: bool) -> dict:
    """One row of root b: any status at random, a third of the Summaries with an escaped pipe."""
    agent = AGENTS[rng.randrange(len(AGENTS))]
    status = rng.choice(("idle", "active", "stale"))
    cjk = rng.random() < CJK_SHARE
    topic, summary, keywords = _texts(rng, status, cjk)
    # the roll happens with or without pipes, so b and b-nopipe hold the same rows but for those Summaries
    if rng.random() < B_PIPE_SHARE:
        summary = rng.choice(PIPE_SUMMARIES) if pipes else rng.choice(EN_SUMMARIES)
    updated = start + timedelta(minutes=rng.randint(0, 3 * 24 * 60)) if status != "idle" else start
    return {
        "id": f"{start:%Y-%m-%d-%H%M}-{agent}",
        "agent": agent,
        "topic": topic,
        "summary": summary,
        "keywords": keywords,
        "status": status,
        "refs": [],
        "sources": [],
        "started": _ts(start),
        "updated": _ts(min(updated, last)),
        "cjk": cjk,
        "pipe": "\\|" in summary,
    }


def generate_b(path: Path, rows: int, seed: int = 6, pipes: bool = True) -> Manifest:
    """Root b of issue 29 (pipes=False: the same root with plain Summaries instead of the piped ones)."""
    rng = random.Random(seed * 2_000_003 + rows)
    path = Path(path)
    (path / "sessions").mkdir(parents=True, exist_ok=True)
    manifest = Manifest(path=path, rows=rows)
    starts = _starts(rng, rows)
    records = [_b_record(rng, start, starts[-1], pipes) for start in starts]
    manifest.ids = [r["id"] for r in records]
    for i, r in enumerate(records):
        if i > 0 and r["status"] == "active" and rng.random() < B_CONTINUE_SHARE:
            src = rng.randrange(max(0, i - 500), i)
            records[src]["refs"].append(r["id"])
            r["sources"].append(records[src]["id"])
    with_snapshot = sorted(rng.sample(range(rows), max(1, int(rows * SNAPSHOT_SHARE))))
    return _write(path, manifest, records, with_snapshot)


def _write(path: Path, manifest: Manifest, records: list[dict], with_snapshot: list[int]) -> Manifest:
    """Write records as index.md and the snapshots of the rows at with_snapshot; fill in the manifest."""
    lines = [PREAMBLE, HEADER]
    for r in records:
        refs = ", ".join(r["refs"]) if r["refs"] else "-"
        line = row_line(
            r["id"], r["status"], refs, r["summary"], r["topic"], r["updated"], r["keywords"], r["agent"], r["started"]
        )
        lines.append(line + "\n")
        manifest.cjk_rows += r["cjk"]
        manifest.pipe_rows += r["pipe"]
        manifest.referenced_rows += bool(r["refs"])
    lines.append(POSTSCRIPT)
    data = "".join(lines).encode("utf-8")
    (path / "index.md").write_bytes(data)
    manifest.index_bytes = len(data)
    for i in with_snapshot:
        r = records[i]
        text = _snapshot(
            r["id"], r["agent"], r["topic"], r["status"], r["started"], r["updated"], r["summary"], r["sources"]
        )
        (path / "sessions" / f"{r['id']}.md").write_text(text, encoding="utf-8")
        manifest.snapshots.append(r["id"])
        if not r["refs"]:
            manifest.archivable.append(r["id"])
    # Newest first: archiving them leaves older sources referenced, as in real use.
    manifest.archivable.reverse()
    return manifest


class RootCache:
    """Generated roots kept in one temp folder for a benchmark run; fresh copies on demand."""

    def __init__(self, base: Path, seed: int = 6, kind: str = "a"):
        """Cache roots of one kind ("a", "b", "b-nopipe") under base (created if needed)."""
        self.base = Path(base) / kind if kind != "a" else Path(base)
        self.base.mkdir(parents=True, exist_ok=True)
        self.seed = seed
        self.kind = kind
        self.manifests: dict[int, Manifest] = {}
        self.copies = 0

    def get(self, rows: int) -> Manifest:
        """The pristine root of `rows` rows (generated once); do not write to it."""
        if rows not in self.manifests:
            self.manifests[rows] = generate(self.base / f"pristine-{rows}", rows, self.seed, kind=self.kind)
        return self.manifests[rows]

    def copy(self, rows: int) -> Path:
        """A fresh writable copy of the root of `rows` rows."""
        source = self.get(rows).path
        self.copies += 1
        dest = self.base / f"work-{rows}-{self.copies}"
        shutil.copytree(source, dest)
        return dest

    def restore_index(self, rows: int, dest: Path) -> None:
        """Put the pristine index.md back into a working copy."""
        shutil.copyfile(self.get(rows).path / "index.md", Path(dest) / "index.md")
