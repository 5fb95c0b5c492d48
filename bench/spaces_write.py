"""Space save benchmark: `python bench/spaces_write.py [--runs N] [--json PATH]`.

Issue 24 §10: on a space with a 300-line current.md and 2,000 history entries (about 1 MB),
`memboard space save --dry-run` (a new current.md that displaces a tenth of the old lines, so the
plan quotes them into a history entry and patches both files) takes at most 0.5 s, median of 5 warm
runs of the whole process. Prints the figure beside `python -c pass`, with its target and PASS/FAIL.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.cli_figures import PASS, memboard_cmd
from bench.timing import bench_env, median, time_process

SAVE_TARGET = 0.5  # seconds
CURRENT_LINES = 300
HISTORY_ENTRIES = 2_000


def make_space(parent: Path) -> tuple[Path, Path]:
    """A git project whose space has a 300-line current.md and 2,000 history entries; and a new current.md."""
    project = parent / "project"
    folder = project / ".session-memory"
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    lines = ["# 会话记忆", "- Last Updated: 2026-05-01 08:00", ""]
    section = 0
    while len(lines) < CURRENT_LINES:
        if len(lines) % 25 == 3:
            section += 1
            lines += [f"## 区块 {section}"]
        lines.append(f"- 第 {len(lines)} 行：FTS5 索引与 bm25 排序的笔记，路径 app/search/{section}.py")
    (folder / "current.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    entries = ["# 会话记忆历史", "", "每次有重要变化时追加一条简短记录。", ""]
    for n in range(HISTORY_ENTRIES):
        day, minute = divmod(n, 1440)
        entries += [
            f"### 2026-0{1 + day % 5}-{1 + day % 28:02d} {minute // 60:02d}:{minute % 60:02d} [context: main@project]",
            f"- 触发原因：第 {n} 次保存，调整了搜索的排序与缓存策略",
            "- 发生了什么变化：把 current.md 里过时的思路移到这里，保留可追溯的记录",
            f"- 研究主题：FTS5 tokenizer 第 {n} 轮对比（unicode61、trigram、jieba 分词）",
            "- 研究结论：trigram 对中文短词召回更好，但索引体积翻倍；unicode61 需要预分词",
            "- 关键文件与路径：app/core/search/index.py; app/core/search/rank.py",
            "",
        ]
    (folder / "history.md").write_text("\n".join(entries), encoding="utf-8")
    new = parent / "new-current.md"
    kept = [line for n, line in enumerate(lines) if n % 10 != 5 or line.startswith("#")]
    new.write_text("\n".join(kept) + "\n- 新的一行\n", encoding="utf-8")
    return project, new


def main() -> int:
    """Measure and print the figure; exit 1 when it misses its target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        parent = Path(tmp)
        project, new = make_space(parent)
        size = sum(p.stat().st_size for p in (project / ".session-memory").iterdir())
        env = bench_env(parent / "state", {"SESSION_MEMORY_HOME": str(parent / "home")})
        cmd = [*memboard_cmd(), "space", "save", "--dry-run", "--workspace", str(project), "--current", str(new)]
        check = subprocess.run(cmd, env=env, capture_output=True)
        if check.returncode != 0 or b"> - " not in check.stdout:
            print(check.stderr.decode("utf-8", "replace"), file=sys.stderr)
            return 1
        walls, floors = time_process(cmd, env, args.runs, baseline=PASS)
    save, floor = median(walls), median(floors)
    ok = save <= SAVE_TARGET
    print(
        f"space save --dry-run ({CURRENT_LINES}-line current.md, {HISTORY_ENTRIES} history entries, "
        f"{size / 1e6:.1f} MB): {save:.3f} s median of {len(walls)} (python -c pass {floor:.3f} s); "
        f"target <= {SAVE_TARGET} s: {'PASS' if ok else 'FAIL'}"
    )
    if args.json:
        args.json.write_text(json.dumps({"space_save_dry_run_s": save, "python_pass_s": floor, "pass": ok}) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
