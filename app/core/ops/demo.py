"""A realistic demo memory root: about forty sessions in every state the protocol knows.

Deterministic for a given `now` (file contents; revision file names carry the write time). It is
written like every other change: one plan of new files, applied and verified (`build_demo`).
Used by `memboard demo`, the screenshots script and the board's tests.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

from ..files import revisions
from ..files.execute import execute
from ..files.root import MemoryRoot
from ..formats.archive import render_archive_index
from ..formats.clock import format_ts
from ..formats.index import COLUMNS
from ..formats.layout import INDEX, archive_index_path, archive_session_path, session_path
from ..formats.snapshot import render_template
from ..formats.text import escape
from ..plan import Change, Plan
from .common import DEFAULT_KEYWORDS, DEFAULT_SUMMARY, DEFAULT_TOPIC


@dataclass
class DemoSession:
    """One demo session: its row values and, optionally, snapshot content."""

    agent: str
    started_ago: timedelta
    updated_ago: timedelta
    topic: str
    summary: str
    keywords: str
    status: str
    snapshot: bool = True
    context: str = ""
    decisions: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    continues: list[str] = field(default_factory=list)  # names of other demo sessions
    superseded: list[str] = field(default_factory=list)
    referenced_by: list[str] = field(default_factory=list)  # names of other demo sessions
    name: str = ""


def d(days: float = 0, hours: float = 0, minutes: float = 0) -> timedelta:
    """A time span (shorthand for the table below)."""
    return timedelta(days=days, hours=hours, minutes=minutes)


def idle(name: str, agent: str, ago: timedelta) -> DemoSession:
    """A sessionStart placeholder row (no snapshot)."""
    return DemoSession(
        agent, ago, ago, DEFAULT_TOPIC, DEFAULT_SUMMARY, DEFAULT_KEYWORDS, "idle", snapshot=False, name=name
    )


S = DemoSession  # shorthand for the table below
TABLE = (  # the demo sessions in index order, before their start minutes are spread (see sessions())
    S(
        "cursor-main-agent",
        d(41),
        d(33),
        "Obsidian vault 同步策略",
        "決定以 Git 同步 vault，memory/ 不進 wiki。",
        "obsidian, sync, git",
        "stale",
        context="比較 Obsidian Sync、Git 與雲端硬碟三種同步方式。",
        decisions=["以 Git 同步整個 vault", "memory/ 與 wiki/ 分開，不互相引用"],
        files=["wiki/tools/obsidian-sync.md"],
        questions=["行動裝置要不要同步 memory/？"],
        actions=["None"],
        referenced_by=["sync2"],
        name="sync1",
    ),
    S(
        "cursor-main-agent",
        d(30),
        d(19),
        "Git 同步衝突處理",
        "接續同步策略，處理 index.md 的合併衝突。",
        "obsidian, git, merge-conflict",
        "stale",
        context="接續 vault 同步：index.md 在兩台機器同時被 hook 寫入時產生衝突。",
        decisions=["index.md 只追加新列，不重寫整張表", "衝突時保留兩邊的列"],
        files=[".gitattributes (merge=union for memory/index.md)"],
        actions=["在第二台機器驗證 union merge"],
        continues=["sync1"],
        referenced_by=["sync3"],
        name="sync2",
    ),
    S(
        "claude-code",
        d(6),
        d(1, 3),
        "Union merge 驗證",
        "在兩台機器上驗證 union merge，確認無遺失列。",
        "git, verification, index",
        "active",
        context="Continuing the sync work: verified union merge on the laptop and the desktop.",
        decisions=["union merge is safe for append-only rows"],
        files=["scripts/check-index.sh"],
        questions=["What happens when two hooks rewrite the same row?"],
        actions=["Write a doctor check for duplicate rows"],
        continues=["sync2"],
        name="sync3",
    ),
    S(
        "claude-code",
        d(2, 5),
        d(0, 2),
        "Hook latency on large indexes",
        "Measured SessionStart hook time at 10k rows; import time dominated.",
        "hooks, performance, python",
        "active",
        context="The SessionStart hook felt slow on a big vault. Profiled it.",
        decisions=["Keep the hook path free of heavy imports", "Append the row without re-parsing the table"],
        files=["bench/hook.py", "notes/hook-latency.md"],
        questions=["Is 40 ms acceptable on Windows?"],
        actions=["Re-run the bench on Windows", "Document the budget in the README"],
        name="hook",
    ),
    S(
        "codex",
        d(1, 2),
        d(0, 5),
        "Snapshot merge policy 實作",
        "實作按 section 合併 snapshot，舊項目不可消失。",
        "snapshot, merge, policy",
        "active",
        context="依 Snapshot Merge Policy 實作合併：舊 snapshot 為基底，逐 section 追加。",
        decisions=["以 item 第一行作為識別鍵", "標記 [superseded] 的項目保留原位"],
        files=["app/core/snapshot.py"],
        questions=["表格型 section 要不要逐列合併？"],
        actions=["補上 hypothesis 性質測試"],
        name="merge",
    ),
    S(
        "cursor-review-agent",
        d(0, 20),
        d(0, 1, 10),
        "Review: archive ordering",
        "Reviewed the archive steps order; found a crash window before the row removal.",
        "review, archive, crash-safety",
        "active",
        context="Walked through the 14 archive steps against the implementation.",
        decisions=["Row removal must be the last write"],
        files=["app/core/ops/archive.py"],
        questions=["Should doctor re-create a missing archive index?"],
        actions=["Add fault-injection tests per step"],
        name="review",
    ),
    idle("idle1", "cursor-main-agent", d(0, 0, 12)),
    S(
        "claude-research",
        d(9),
        d(8),
        "Embedding search for memory",
        "Evaluated local embeddings to find related sessions; parked.",
        "embeddings, search, research",
        "active",
        context="Looked at small local embedding models to suggest related sessions.",
        decisions=["Parked: keyword search is enough for now"],
        files=["notes/embeddings-eval.md"],
        questions=["Revisit when the index passes 5k rows?"],
        actions=["None"],
        referenced_by=["typednotes"],
        name="embed",
    ),
    S(
        "cursor-main-agent",
        d(26),
        d(21),
        "Wiki 目錄重整",
        "重整 wiki/ 目錄結構，建立 tools/ 與 projects/ 兩層。",
        "wiki, obsidian, structure",
        "active",
        context="wiki/ 目錄過深，整理成兩層。",
        decisions=["tools/ 放工具筆記，projects/ 放專案"],
        files=["wiki/index.md"],
        actions=["更新舊連結"],
        name="wiki",
    ),
    S(
        "codex",
        d(18),
        d(16),
        "CRLF handling in index writes",
        "Fixed index writes on Windows files with CRLF endings and a BOM.",
        "windows, crlf, bom",
        "active",
        context="A Windows-edited index.md had CRLF endings; row updates produced mixed endings.",
        decisions=["Keep each line's own ending", "Keep the BOM"],
        files=["app/core/index.py", "tests/test_index_bytes.py"],
        actions=["None"],
        name="crlf",
    ),
    idle("idle2", "claude-code", d(0, 3)),
    S(
        "claude-code",
        d(3),
        d(2, 4),
        "Doctor: half-finished archives",
        "Doctor now recognises an archive folder whose row is still in the index.",
        "doctor, archive, repair",
        "active",
        context="Designed repairs for every crash point of the archive sequence.",
        decisions=["Finish the archive when session.md was already moved"],
        files=["app/core/ops/doctor.py"],
        questions=["Report or fix a duplicate row automatically?"],
        actions=["Add a doctor preview in the board"],
        name="doctor",
    ),
    S(
        "cursor-main-agent",
        d(12),
        d(11),
        "Hook 設定（Claude Code）",
        "為 Claude Code 設定 SessionStart hook，寫入 idle 列。",
        "hooks, claude-code, sessionStart",
        "stale",
        context="在 .claude/settings.json 加上 SessionStart hook。",
        decisions=["hook 只寫 index，不建立 snapshot"],
        files=[".claude/settings.json"],
        actions=["None"],
        name="cchook",
    ),
    S(
        "codex",
        d(0, 9),
        d(0, 0, 40),
        "Board: virtualised table",
        "Built a line-rendering table so 100k rows scroll smoothly.",
        "textual, board, performance",
        "active",
        context="DataTable took seconds at 10k rows; wrote a ScrollView that renders visible lines only.",
        decisions=["Model in plain Python", "Filter over a precomputed lowercase haystack"],
        files=["widgets/session_table.py", "app/board/model.py"],
        questions=["Column widths for CJK topics?"],
        actions=["Snapshot tests at 120x40"],
        continues=["hook"],
        referenced_by=["contflow", "live"],
        name="table",
    ),
    idle("idle3", "cursor-main-agent", d(1, 1)),
    S(
        "claude-code",
        d(44),
        d(38),
        "Archive template",
        "Wrote the archive index template and moved three sessions.",
        "archive, template",
        "stale",
        context="First archive run.",
        decisions=["Archive only sessions with snapshots"],
        files=["memory/archive/"],
        actions=["None"],
        name="archtpl",
    ),
    S(
        "cursor-main-agent",
        d(5),
        d(4, 2),
        "整理 memory 規則釐清",
        "釐清 organize 的 stale 條件：14 天、有 snapshot、無引用。",
        "organize, stale, rules",
        "active",
        context="整理 memory 時哪些列會被標成 stale。",
        decisions=["idle 列直接刪除，不封存", "被引用的列受保護"],
        questions=["stale 天數要不要可設定？"],
        actions=["None"],
        superseded=["[superseded] 原本打算 7 天就標 stale"],
        name="organize",
    ),
    S(
        "codex",
        d(20),
        d(17),
        "Session ID collisions",
        "Two chats in the same minute got the same ID; added a suffix rule.",
        "ids, collisions",
        "active",
        context="Parallel chats started within one minute.",
        decisions=["Append -2, -3 to the agent part on collision"],
        files=["app/core/ids.py"],
        actions=["None"],
        name="collide",
    ),
    idle("idle4", "codex", d(0, 6)),
    S(
        "claude-research",
        d(15),
        d(15),
        "Hot/warm/cold memory tiers",
        "Compared a tiered memory hierarchy with the flat index.",
        "research, memory-tiers",
        "active",
        snapshot=False,
        name="tiers",
    ),
    S(
        "cursor-main-agent",
        d(2),
        d(1, 20),
        "Release reference 流程",
        "實作解除引用：移除 Referenced By 並清空 Continues From。",
        "reference, release",
        "active",
        context="解除引用的兩個寫入必須都成功。",
        decisions=["先改 snapshot，再改來源列"],
        files=["app/core/ops/reference.py"],
        actions=["加上 board 的 release 流程"],
        continues=["wikilinks"],
        name="release",
    ),
    S(
        "claude-code",
        d(0, 4),
        d(0, 0, 25),
        "Board: snapshot merge diffs",
        "Pane shows the diff of the last merge and flags dropped items.",
        "board, snapshot, diff",
        "active",
        context="Designing the snapshot pane.",
        decisions=["Diff section by section", "Flag items that vanished without a marker"],
        files=["widgets/snapshot_pane.py"],
        questions=["How many revisions to keep?"],
        actions=["Revision stepping with [ and ]"],
        name="panediff",
    ),
    idle("idle5", "cursor-main-agent", d(0, 1, 5)),
    S(
        "codex",
        d(8),
        d(7),
        "Windows rename retries",
        "os.replace fails while Obsidian holds the file; retry briefly.",
        "windows, atomic-write",
        "active",
        context="PermissionError on rename when the vault is open in Obsidian.",
        decisions=["Retry 10 times over 1 s"],
        files=["app/core/apply.py"],
        actions=["None"],
        name="rename",
    ),
    S(
        "cursor-main-agent",
        d(23),
        d(22),
        "Wikilinks in summaries",
        "Decided summaries stay plain text; no [[wikilinks]] in the index.",
        "obsidian, wikilinks",
        "active",
        context="Obsidian renders [[links]] in tables but agents do not follow them.",
        decisions=["Plain text only in index cells"],
        actions=["None"],
        referenced_by=["release"],
        name="wikilinks",
    ),
    idle("idle6", "claude-code", d(0, 8)),
    S(
        "claude-code",
        d(35),
        d(29),
        "舊版 hook 移除",
        "移除舊的 shell hook，改用 memboard hook。",
        "hooks, migration",
        "stale",
        context="舊 hook 用 sed 改 index.md。",
        decisions=["改用 memboard hook claude"],
        files=["~/.claude/hooks/old-memory.sh (removed)"],
        actions=["None"],
        name="oldhook",
    ),
    S(
        "codex",
        d(1),
        d(0, 14),
        "Continue flow in the board",
        "Continue picks the referencing session and previews both writes.",
        "board, continue, reference",
        "active",
        context="Built the continue modal.",
        decisions=["Preview both the snapshot and the index change"],
        files=["app/board/screens/continue_flow.py"],
        questions=["Offer to register a new session from the modal?"],
        actions=["Snapshot test for the modal"],
        continues=["table", "archived1"],
        name="contflow",
    ),
    S(
        "cursor-main-agent",
        d(16),
        d(15),
        "Keywords 正規化",
        "keywords 統一小寫、以逗號分隔。",
        "keywords, normalisation",
        "active",
        context="不同 agent 寫的 keywords 格式不一致。",
        decisions=["小寫、逗號加空白分隔"],
        actions=["None"],
        name="keywords",
    ),
    idle("idle7", "cursor-main-agent", d(2, 3)),
    S(
        "claude-research",
        d(4),
        d(3, 6),
        "Typed notes with topic keys",
        "Sketched typed notes with topic-key upsert next to the session index.",
        "research, typed-notes, upsert",
        "active",
        context="Compared typed notes with session snapshots.",
        decisions=["Keep sessions as they are; notes are a separate table"],
        questions=["Who owns a topic key?"],
        actions=["Write a design note"],
        name="typednotes",
    ),
    S(
        "codex",
        d(0, 2),
        d(0, 0, 5),
        "Live reload of index.md",
        "The board polls index.md and snapshots and reloads off the UI thread.",
        "board, watcher, live",
        "active",
        context="Hooks append rows while the board is open.",
        decisions=["Poll mtime and size every 0.5 s", "Keep cursor, marks and filters on reload"],
        files=["app/board/loader.py"],
        actions=["Highlight new rows briefly"],
        continues=["table"],
        name="live",
    ),
    idle("idle8", "codex", d(0, 0, 3)),
    S(
        "cursor-main-agent",
        d(3),
        d(2, 1),
        "Demo root",
        "Generated a realistic demo root for screenshots.",
        "demo, screenshots",
        "idle",
        context="An idle row that already has a snapshot: organize must stop on it.",
        decisions=["Keep it as an inconsistency example"],
        actions=["None"],
        name="idlesnap",
    ),
    S(
        "claude-code",
        d(1, 6),
        d(0, 1),
        "Policy-break example",
        "A merge dropped two open questions without marking them.",
        "snapshot, policy, example",
        "active",
        context="This snapshot was merged by an agent that dropped items.",
        decisions=["Use the board to spot dropped items"],
        name="broken",
    ),
)


def sessions() -> list[DemoSession]:
    """The demo sessions in index order, their start minutes spread so the IDs look like real ones."""
    items = []
    for pos, it in enumerate(TABLE):
        jitter = timedelta(minutes=(pos * 17) % 47)  # deterministic
        items.append(replace(it, started_ago=it.started_ago + jitter, updated_ago=it.updated_ago + jitter))
    return items


ARCHIVED = [
    (
        "archived1",
        "claude-code",
        d(60),
        d(50),
        "First memory hook prototype",
        "Prototype hook that wrote the index with sed.",
        "hooks, prototype",
        "stale",
    ),
    (
        "archived2",
        "cursor-main-agent",
        d(55),
        d(45),
        "記憶目錄初版",
        "建立 memory/ 目錄與 index.md 初版。",
        "memory, setup",
        "stale",
    ),
    (
        "archived3",
        "codex",
        d(40),
        d(36),
        "Lock file location",
        "Locks live in the local state folder, never in the synced vault.",
        "lock, sync",
        "active",
    ),
]

BROKEN_BEFORE_QUESTIONS = [
    "Should the hook also record the chat title?",
    "How long do we keep revisions under .memboard/?",
    "Does Obsidian index the .memboard folder?",
]
BROKEN_BEFORE_ACTIONS = ["Write the merge policy test", "Ask the user about revision retention"]


def session_id(started: datetime, agent: str) -> str:
    """The protocol's Session ID for a start time and agent."""
    return f"{started:%Y-%m-%d-%H%M}-{agent}"


def _row(values: list[str]) -> str:
    """A Markdown table line."""
    return "| " + " | ".join(escape(v) for v in values) + " |\n"


def index_text(items: list[DemoSession], ids: dict[str, str], now: datetime) -> str:
    """The demo's index.md: a preamble, every row (and one broken by hand), no text below the table (a row an
    agent appends "after the last line" then lands in the table)."""
    lines = [
        "# Memory Index\n",
        "\n",
        "Working board of the agents. Edited by hooks, agents and memboard; see the protocol before editing by hand."
        " Rows are appended by hooks; run `memboard organize` to tidy up.\n",
        "\n",
        "| " + " | ".join(COLUMNS) + " |\n",
        "|" + "|".join("---" for _ in COLUMNS) + "|\n",
    ]
    for pos, it in enumerate(items):
        sid = ids[it.name]
        refs = ", ".join(ids[r] for r in it.referenced_by) or "-"
        lines.append(
            _row(
                [
                    sid,
                    it.agent,
                    it.topic,
                    it.summary,
                    it.keywords,
                    it.status,
                    refs,
                    format_ts(now - it.started_ago),
                    format_ts(now - it.updated_ago),
                ]
            )
        )
        if pos == 17:
            # a row someone edited by hand and broke: memboard shows it, never drops it
            lines.append("| 2026-02-30-2500-hand-edit | cursor-main-agent | 手動編輯的列 | cells are missing here |\n")
    return "".join(lines)


def snapshot_text(it: DemoSession, ids: dict[str, str], now: datetime) -> str:
    """A demo session's snapshot in the seed's template (the lossy one: its merged, second revision)."""
    if it.name == "broken":
        return broken_revisions(ids[it.name], it, now)[1]
    return render_template(
        ids[it.name],
        it.agent,
        it.topic,
        format_ts(now - it.started_ago),
        format_ts(now - it.updated_ago),
        context=it.context,
        status=it.status,
        decisions=it.decisions,
        files=it.files,
        questions=it.questions,
        actions=it.actions,
        continues=[ids[c] for c in it.continues],
        superseded=it.superseded,
    )


def archived_files(name: str, ids: dict[str, str], now: datetime) -> list[Change]:
    """An archived demo session: its archive index and its snapshot."""
    _, agent, started_ago, updated_ago, topic, summary, keywords, status = next(a for a in ARCHIVED if a[0] == name)
    sid = ids[name]
    values = {
        "id": sid,
        "agent": agent,
        "topic": topic,
        "summary": summary,
        "keywords": keywords,
        "status": status,
        "referenced_by": "-",
        "started_at": format_ts(now - started_ago),
        "updated_at": format_ts(now - updated_ago),
    }
    archived_at = format_ts(now - updated_ago + timedelta(days=2))
    session = render_template(
        sid,
        agent,
        topic,
        values["started_at"],
        values["updated_at"],
        context=summary,
        status=status,
        decisions=["Archived after the work was finished"],
        actions=["None"],
    )
    return [
        Change("create", archive_index_path(sid), None, render_archive_index(values, archived_at).encode("utf-8")),
        Change("create", archive_session_path(sid), None, session.encode("utf-8")),
    ]


def plan_demo(root: MemoryRoot, now: datetime) -> Plan[dict[str, str]]:
    """The demo root as one plan of new files, the index last; its result maps demo names to Session IDs."""
    items = sessions()
    ids = demo_ids(now)
    plan = Plan("demo", ids)
    for it in items:
        if it.snapshot:
            plan.changes.append(
                Change("create", session_path(ids[it.name]), None, snapshot_text(it, ids, now).encode("utf-8"))
            )
    for name, *_ in ARCHIVED:
        plan.changes += archived_files(name, ids, now)
    plan.changes.append(Change("create", INDEX, None, index_text(items, ids, now).encode("utf-8")))
    return plan


def build_demo(target: str | os.PathLike[str], now: datetime) -> Path:
    """Write the demo memory root into target (created if needed, empty) through its plan; returns its path.

    The lossy session's earlier revision is recorded first, so the board shows its merge."""
    root_path = Path(target)
    root_path.mkdir(parents=True, exist_ok=True)
    root = MemoryRoot(root_path)
    broken = next(it for it in sessions() if it.name == "broken")
    revisions.record(
        root, demo_ids(now)["broken"], broken_revisions(demo_ids(now)["broken"], broken, now)[0].encode("utf-8")
    )
    execute(root, lambda r: plan_demo(r, now))
    return root_path


def broken_revisions(sid: str, it: DemoSession, now: datetime) -> tuple[str, str]:
    """The session whose last merge dropped items: its two revisions, the second one lossy."""
    started = format_ts(now - it.started_ago)
    before = render_template(
        sid,
        it.agent,
        it.topic,
        started,
        format_ts(now - it.updated_ago - timedelta(hours=5)),
        context="Recording how the board should show merges.",
        status="active",
        decisions=["Use the board to spot dropped items"],
        files=["notes/merge-policy.md"],
        questions=BROKEN_BEFORE_QUESTIONS,
        actions=BROKEN_BEFORE_ACTIONS,
    )
    after = render_template(
        sid,
        it.agent,
        it.topic,
        started,
        format_ts(now - it.updated_ago),
        context=it.context,
        status="active",
        decisions=["Use the board to spot dropped items", "Keep revisions for 30 days"],
        files=["notes/merge-policy.md", "app/core/revisions.py"],
        questions=[BROKEN_BEFORE_QUESTIONS[0]],
        actions=["[done] Write the merge policy test", "Show revisions in the pane"],
    )
    return before, after


def demo_ids(now: datetime) -> dict[str, str]:
    """Demo session names -> Session IDs (for tests and screenshots)."""
    out = {it.name: session_id(now - it.started_ago, it.agent) for it in sessions()}
    out.update({name: session_id(now - started_ago, agent) for name, agent, started_ago, *_ in ARCHIVED})
    return out
