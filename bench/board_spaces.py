"""Board Spaces and Hierarchy screens benchmark: `python bench/board_spaces.py [--spaces N] [--runs N]`.

Issue 24 §10: the Spaces screen paints its first rows at most 0.5 s after `p` with 200 known spaces;
issue 25 §9: the Hierarchy screen paints at most 0.5 s after `h`. Each run opens a fresh board (headless,
Textual's Pilot) on a root beside 200 git projects with a space each (a current.md, 30 history entries,
research topics, a dream), known through memboard's record in local state; the time is from the key to the
first frame with the table's rows (or the Hot panel's lines) drawn. Prints the medians of the runs with
the targets and PASS/FAIL, and the ratio to the target.

`make_spaces` and `make_workspace` are the fixtures the board's tests use too.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

SPACES_TARGET = 0.5  # seconds, `p` to the first rows
HIERARCHY_TARGET = 0.5  # seconds, `h` to the first panel

CURRENT = """# 会话记忆

- Last Updated: {updated}

## 当前目标

- {goal}

## 当前思路

- 当前采用的方案：{idea}

## 有效做法

- 先写测试再改代码

## 未决问题

- 大文件的搜索速度

## 下一步

- {next}
"""

HISTORY_HEAD = "# 会话历史\n\n"
ENTRY = "### {when} [context: main@{name}]\n- 触发原因：{why}\n- 发生了什么变化：{what}\n\n"
RESEARCH_ENTRY = (
    "### {when} [context: main@{name}]\n- 研究主题：{topic}\n- 当前结论：{conclusion}\n- 是否有效：{valid}\n"
    "- 是否并入主线：{merged}\n- 关键证据：\n- 关键文件与路径：\n- 下一步：{next}\n- 关键词 / 标签：\n\n"
)
DREAM = (
    "# Dream Notes\n\n- Last Updated: {when}\n- Generated At: {when}:00+00:00\n\n## 正确轨迹\n\n- 先写测试再改代码\n"
)


def write_space(
    folder: Path,
    name: str,
    *,
    updated: str = "2026-05-31 10:00",
    entries: int = 30,
    dream: str | None = "2026-05-31 12:00",
    topics: int = 2,
) -> Path:
    """A space folder with current.md, history.md (entries), research.md (topics, the first closed) and a
    dream-notes.md (dream None: none)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "current.md").write_text(
        CURRENT.format(updated=updated, goal=f"{name} 的目标", idea=f"{name} 方案", next=f"继续 {name}"),
        encoding="utf-8",
    )
    body = "".join(
        ENTRY.format(when=f"2026-05-{1 + i % 28:02d} {i % 24:02d}:00", name=name, why=f"原因 {i}", what=f"变化 {i}")
        for i in range(entries)
    )
    (folder / "history.md").write_text(HISTORY_HEAD + body, encoding="utf-8")
    research = "".join(
        RESEARCH_ENTRY.format(
            when=f"2026-05-{10 + t:02d} 09:00",
            name=name,
            topic=f"主题 {t}",
            conclusion=f"结论 {t}",
            valid="yes" if t == 0 else "unknown",
            merged="yes" if t == 0 else "no",
            next=f"下一步 {t}",
        )
        for t in range(topics)
    )
    (folder / "research.md").write_text("# 研究记录\n\n" + research, encoding="utf-8")
    if dream is not None:
        (folder / "dream-notes.md").write_text(DREAM.format(when=dream), encoding="utf-8")
    return folder


def make_spaces(parent: Path, count: int, **space: object) -> list[Path]:
    """count git projects under parent, each with a space, known through memboard's record in local state
    (MEMBOARD_STATE_DIR must be set); their space folders."""
    from memboard.core.files import statepaths

    folders = []
    for i in range(count):
        project = parent / f"project-{i:03d}"
        (project / ".git").mkdir(parents=True, exist_ok=True)
        folders.append(write_space(project / ".session-memory", f"project-{i:03d}", **space))  # type: ignore[arg-type]
    record = statepaths.known_spaces()
    record.parent.mkdir(parents=True, exist_ok=True)
    old = record.read_text(encoding="utf-8") if record.is_file() else ""
    record.write_text(old + "".join(f"{f}\tauto\n" for f in folders), encoding="utf-8")
    return folders


HOT = """# MEMORY.md

## Identity

- I am the research assistant for Kim.
- Email: kim.lee@example.com

## Rules

- Always ask before spending more than $50.
- Never delete files without asking.

## Narrative

- Sam feels like the one who got skipped.
- Reading list lives in ~/books/list.md

# Structured facts → memory/facts.yaml
"""

FACTS = """# memory/facts.yaml
# Structured factual data — directly addressable, token-efficient
# Last updated: 2026-05-20

identity:
  name: Kim Lee
  email: kim.lee@example.com
projects:
  book_research:
    status: in progress
    file: memory/project-book.md
todos:
  - call the printer
  - renew the domain
"""

LOOKUP = """| I need to know... | Go here |
|---|---|
| who I am | memory/facts.yaml → identity |
| the book project | memory/project-book.md |
| the garden | memory/project-garden.md |
"""


def make_workspace(folder: Path, daily: int = 5) -> Path:
    """A hierarchy workspace: MEMORY.md with facts in it, facts.yaml, a lookup index with a broken row, a project
    file, daily logs (one of OpenClaw's slugged ones among them)."""
    memory = folder / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    (folder / "MEMORY.md").write_text(HOT, encoding="utf-8")
    (memory / "facts.yaml").write_text(FACTS, encoding="utf-8")
    (memory / "lookup-index.md").write_text(LOOKUP, encoding="utf-8")
    (memory / "project-book.md").write_text("# Book\n\n## Status\n\nDrafting chapter 3.\n", encoding="utf-8")
    (memory / "project-notes.md").write_text("# Notes\n", encoding="utf-8")
    for i in range(daily):
        (memory / f"2026-05-{20 + i:02d}.md").write_text(f"# 2026-05-{20 + i:02d}\n\n- did {i}\n", encoding="utf-8")
    (memory / "2026-05-24-new-chat.md").write_text("# Session: new chat\n\nslugged\n", encoding="utf-8")
    return folder


async def _time_key(app, key: str, ready) -> float:
    """Seconds from pressing key to the first frame where ready(app) holds (the screen notes when its first rows
    were on screen, after the refresh that drew them: `painted_at`)."""
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        start = time.perf_counter()
        await pilot.press(key)
        for _ in range(5000):
            if ready(app) and app.screen.painted_at is not None:
                break
            await asyncio.sleep(0.002)
        else:
            raise RuntimeError(f"{key}: the screen never painted its rows")
        elapsed = app.screen.painted_at - start
        await app.workers.wait_for_complete()
    return elapsed


def spaces_ready(app) -> bool:
    """Whether the Spaces screen is in front with its first rows in the table."""
    from memboard.board.spaces import SpacesScreen

    screen = app.screen
    return isinstance(screen, SpacesScreen) and bool(screen.table.rows)


def hierarchy_ready(app) -> bool:
    """Whether the Hierarchy screen is in front with its Hot panel drawn."""
    from memboard.board.hierarchy import HierarchyScreen

    screen = app.screen
    return isinstance(screen, HierarchyScreen) and screen.painted


def run(spaces: int, runs: int) -> dict[str, float]:
    """The medians, in seconds, of `p` and `h` to their first paint."""
    from memboard.board.app import MemboardApp
    from memboard.core.formats.clock import now
    from memboard.core.ops.demo import build_demo

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ["MEMBOARD_STATE_DIR"] = str(base / "state")
        os.environ["MEMBOARD_CONFIG"] = str(base / "state" / "config.toml")
        os.environ["SESSION_MEMORY_HOME"] = str(base / "home")
        root = build_demo(base / "memory", now())
        make_spaces(base / "projects", spaces)
        os.environ["OPENCLAW_WORKSPACE_DIR"] = str(make_workspace(base / "workspace"))
        p_times, h_times = [], []
        for _ in range(runs):
            p_times.append(asyncio.run(_time_key(MemboardApp(root, watch=False), "p", spaces_ready)))
            h_times.append(asyncio.run(_time_key(MemboardApp(root, watch=False), "h", hierarchy_ready)))
    return {"spaces": statistics.median(p_times), "hierarchy": statistics.median(h_times)}


def main() -> int:
    """Print the figures and PASS/FAIL."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spaces", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    figures = run(args.spaces, args.runs)
    ok = True
    for name, target in (("spaces", SPACES_TARGET), ("hierarchy", HIERARCHY_TARGET)):
        seconds = figures[name]
        passed = seconds <= target
        ok &= passed
        key = "p" if name == "spaces" else "h"
        extra = f" with {args.spaces} known spaces" if name == "spaces" else ""
        print(
            f"{name:<10} `{key}` to first rows{extra}: {seconds:.3f} s (median of {args.runs}) · "
            f"target {target} s · ratio {seconds / target:.2f} · {'PASS' if passed else 'FAIL'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
