"""Bench: saving over a long typed note beside creating it: `python bench/note_size.py [--sizes 1000,10000,100000] [--runs N]`.

For each size N it writes a Memory Update block holding a decision of N statements (list items
of What, every tenth in Chinese) and times, as the whole `memboard note apply FILE` process:

- create: the note does not exist yet (it is removed, untimed, before each run);
- save over, one statement added: the N-statement note is put back, untimed, then the block
  with one more statement is applied (`updated` in place; every earlier statement is checked);
- save over, one statement clarified: the same, the block's middle statement extended at its end
  with a clarification (kept: `updated`);
- save over as a fact, one statement dropped: a fact of N statements saved without its middle
  one (`updated` in place, the dropped statement named; the check finds it missing).

Each line gives the median and the ratio to create at the same size, then how the time grows
from one size to the next (10× the statements: linear is 10×). Every command must exit 0.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from itertools import pairwise
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.cli_figures import memboard_cmd
from bench.timing import bench_env, median, time_process

KEY = "project/shop/services"


def statement(i: int) -> str:
    """Statement number i of the generated note."""
    if i % 10 == 3:
        return f"- 服务 {i} 使用队列 q{i % 97}，每天同步 {i % 7} 次"
    return f"- Use service {i} for the shop's orders in region r{i % 31}, with {i % 7} replicas"


def block(items: list[str], note_type: str = "decision") -> str:
    """A Memory Update block saving these statements as the What of the bench note."""
    head = f"## Memory Update\n\n- title: Shop services\n- type: {note_type}\n- scope: project\n- topic_key: {KEY}\n\n"
    return head + "### What\n\n" + "\n".join(items) + "\n"


def measure(size: int, runs: int, tmp: Path) -> dict[str, float]:
    """Median seconds of each figure at one size."""
    root, state = tmp / f"memory-{size}", tmp / f"state-{size}"
    root.mkdir()
    env = bench_env(state)
    cmd = [*memboard_cmd(), "--root", str(root), "note", "apply"]
    items = [statement(i) for i in range(size)]
    middle = size // 2
    files = {
        "create": block(items),
        "added": block([*items, "- Keep one more service for the bench"]),
        "clarified": block([*items[:middle], items[middle] + ", for the peak season", *items[middle + 1 :]]),
        "fact": block(items, "fact"),
        "fact dropped": block([*items[:middle], *items[middle + 1 :]], "fact"),
    }
    for name, text in files.items():
        (tmp / f"{size}-{name}.md").write_text(text, encoding="utf-8")
    note = root / "notes" / f"{KEY}.md"
    kept: dict[str, bytes] = {}

    def put_back(base: str) -> None:
        """Have the note hold the base block's text again (untimed)."""
        if base not in kept:
            if note.exists():
                note.unlink()
            time_process([*cmd, str(tmp / f"{size}-{base}.md")], env, 1, warmup=False)
            kept[base] = note.read_bytes()
        note.write_bytes(kept[base])

    def removed(_i: int) -> None:
        """No note yet."""
        if note.exists():
            note.unlink()

    out: dict[str, float] = {}
    times, _ = time_process([*cmd, str(tmp / f"{size}-create.md")], env, runs, before_each=removed)
    out["create"] = median(times)
    for figure, base, file in (
        ("save over, one statement added", "create", "added"),
        ("save over, one statement clarified", "create", "clarified"),
        ("save over as a fact, one statement dropped", "fact", "fact dropped"),
    ):
        times, _ = time_process(
            [*cmd, str(tmp / f"{size}-{file}.md")], env, runs, before_each=lambda _i, b=base: put_back(b)
        )
        out[figure] = median(times)
    shutil.rmtree(root)
    return out


def main() -> int:
    """Measure each size, print the table (and write JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="statement counts, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict[int, dict[str, float]] = {}
    print("| figure | statements | median | × create |\n|---|--:|--:|--:|")
    with tempfile.TemporaryDirectory(prefix="memboard-note-size-") as tmp:
        for size in sizes:
            figures = measure(size, args.runs, Path(tmp))
            results[size] = figures
            for name, value in figures.items():
                print(f"| {name} | {size:,} | {value * 1000:,.0f} ms ×{args.runs} | {value / figures['create']:.2f}× |")
    for small, large in pairwise(sizes):
        for name in results[small]:
            growth = results[large][name] / results[small][name]
            print(f"growth {small:,} → {large:,} ({large / small:g}× the statements): {name} {growth:.2f}×")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
