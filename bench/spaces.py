"""Space reads benchmark: `python bench/spaces.py [--runs N]` (issue 24 §10's speed targets for the reads).

Generates a space with a 300-line current.md and 2,000 history entries (about 1 MB) in a temporary git
project, then times `memboard space restore --json`, `memboard space search` and `memboard space where`
as whole processes, warm (one untimed run first), each beside `python -c pass` run just before it, and
prints the ratio of the medians of 5 runs with its target (each ≤ 2×) and PASS/FAIL; and `memboard space save
--dry-run` with a new current.md that displaces a tenth of the old lines (quoted into a history entry),
whose target is ≤ 0.5 s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.cli_figures import PASS, memboard_cmd
from bench.timing import bench_env, median, time_process

RUNS = 5
TARGET = 2.0
SAVE = "space save --dry-run"
SAVE_TARGET = 0.5  # seconds
CURRENT_LINES = 300
HISTORY_ENTRIES = 2000


def generate(project: Path) -> Path:
    """A git project whose space has a 300-line current.md and 2,000 history entries (~1 MB); its space folder."""
    folder = project / ".session-memory"
    folder.mkdir(parents=True)
    (project / ".git").mkdir()
    sections = ["当前目标", "当前思路", "已完成工作", "有效做法", "无效或放弃的做法", "未决问题", "下一步", "恢复提示"]
    lines = ["# 会话记忆", "- Last Updated: 2026-05-31 18:00", ""]
    i = 0
    while len(lines) < CURRENT_LINES:
        lines.append(f"## {sections[i % len(sections)]}")
        lines.extend(f"- item {i}-{k}: keep the search index warm, 保持索引 {k}" for k in range(10))
        lines.append("")
        i += 1
    (folder / "current.md").write_text("\n".join(lines[:CURRENT_LINES]) + "\n", encoding="utf-8")
    entries = ["# 会话记忆历史\n\n"]
    for n in range(HISTORY_ENTRIES):
        day, hour = 1 + n % 28, n % 24
        body = "".join(
            f"- 细节 {k}：entry {n} changed the ranking of module {k}, 排序调整 {n % 97}\n" for k in range(5)
        )
        entries.append(
            f"### 2026-05-{day:02d} {hour:02d}:{n % 60:02d} [context: main@bench]\n"
            f"- 触发原因：benchmark entry {n}\n- 发生了什么变化：history grows, 历史增长 {n}\n{body}\n"
        )
    (folder / "history.md").write_text("".join(entries), encoding="utf-8")
    (folder / "dream-notes.md").write_text("# Dream Notes\n\n## 判断准则\n- measure first\n", encoding="utf-8")
    return folder


def displacing(folder: Path, tmp: Path) -> Path:
    """A new current.md without one in ten of the old one's list items, and one line more."""
    lines = (folder / "current.md").read_text(encoding="utf-8").splitlines()
    kept = [line for n, line in enumerate(lines) if n % 10 != 5 or not line.startswith("- ")]
    new = tmp / "new-current.md"
    new.write_text("\n".join(kept) + "\n- one more line\n", encoding="utf-8")
    return new


def run(runs: int = RUNS) -> list[tuple[str, float, float, float]]:
    """(name, median seconds, median baseline seconds, ratio) of each read."""
    with tempfile.TemporaryDirectory(prefix="memboard-bench-spaces-") as tmp:
        project = Path(tmp) / "project"
        folder = generate(project)
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(f"space: current.md {CURRENT_LINES} lines, {HISTORY_ENTRIES} history entries, {size / 1e6:.2f} MB")
        env = bench_env(Path(tmp) / "state", {"SESSION_MEMORY_HOME": str(Path(tmp) / "home")})
        base = [*memboard_cmd(), "space"]
        ws = ["--workspace", str(project)]
        figures = []
        for name, args in (
            ("space restore --json", ["restore", "--json", *ws]),
            ("space search", ["search", "ranking", *ws]),
            ("space where", ["where", *ws]),
            (SAVE, ["save", "--dry-run", *ws, "--current", str(displacing(folder, Path(tmp)))]),
        ):
            times, base_times = time_process([*base, *args], env, runs, baseline=PASS)
            ours, bare = median(times), median(base_times)
            figures.append((name, ours, bare, ours / bare))
        return figures


def main() -> None:
    """Print each figure beside `python -c pass` with its target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    for name, ours, bare, ratio in run(args.runs):
        if name == SAVE:
            verdict = "PASS" if ours <= SAVE_TARGET else "FAIL"
            print(
                f"{name:<22} {ours * 1000:7.1f} ms  python -c pass {bare * 1000:6.1f} ms  (target <= {SAVE_TARGET:g} s) {verdict}"
            )
            continue
        verdict = "PASS" if ratio <= TARGET else "FAIL"
        print(
            f"{name:<22} {ours * 1000:7.1f} ms  python -c pass {bare * 1000:6.1f} ms  {ratio:4.2f}x  "
            f"(target <= {TARGET:g}x) {verdict}"
        )


if __name__ == "__main__":
    main()
