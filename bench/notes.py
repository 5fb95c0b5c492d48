"""Notes benchmark: `python bench/notes.py [--notes N] [--runs N] [--json PATH]`.

Generates a root with N typed notes (default 10,000: every type and scope, 30% of titles and
texts in Chinese, one note in ten superseded), then prints each figure beside `python -c pass`
measured just before it: `memboard note save` of a new note and of an update, `note list
--json`, `note search` (a two-character Chinese word and an English word, warm cache) and
`memboard search --kind note`, each as the whole process; and in process, the first build of
the search cache with the notes in it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.cli_figures import PASS, memboard_cmd
from bench.timing import bench_env, median, time_process
from memboard.core.files.root import MemoryRoot
from memboard.core.search.engine import run as search_run

TYPES = ("preference", "fact", "decision", "gotcha", "episode", "pattern", "config", "bugfix")
SCOPES = ("global", "project", "tool", "ops")
CJK_WORDS = ("同步", "快照", "封存", "換行", "鉤子", "索引", "設定", "流程")
WORDS = ("obsidian", "vault", "parser", "lock", "merge", "hook", "cache", "index", "deploy", "release")


def note_text(i: int) -> str:
    """The file of generated note number i (the form memboard writes)."""
    cjk = i % 10 < 3
    word = CJK_WORDS[i % len(CJK_WORDS)] if cjk else WORDS[i % len(WORDS)]
    note_type, scope = TYPES[i % len(TYPES)], SCOPES[i % len(SCOPES)]
    title = f"{word} 規則 {i}" if cjk else f"Keep the {word} rule {i}"
    status = "superseded" if i % 10 == 9 else "active"
    what = f"- {word} 要每天{i % 7}次。" if cjk else f"- The {word} runs {i % 7} times a day."
    return f"""# {title}

## Metadata

| Field | Value |
|---|---|
| Title | {title} |
| Type | {note_type} |
| Scope | {scope} |
| Topic Key | bench/{scope}/n{i} |
| Status | {status} |
| Supersedes | - |
| Superseded By | - |
| Project | p{i % 20} |
| Session | - |
| Created | 2026-05-01 09:00 |
| Updated | 2026-05-{1 + i % 28:02d} 09:00 |

## What

{what}

## Why

Because note {i} says so.

## Where

app/core/module{i % 50}.py

## Learned

Nothing surprising in {i}.
"""


def write_notes(root: Path, count: int) -> list[str]:
    """Write count notes under root/notes (nothing else); their IDs."""
    ids = []
    for i in range(count):
        note_id = f"bench/{SCOPES[i % len(SCOPES)]}/n{i}"
        path = root / "notes" / f"{note_id}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note_text(i), encoding="utf-8")
        ids.append(note_id)
    return ids


def generate_notes(root: Path, count: int) -> list[str]:
    """Write count notes under root/notes (and an empty index); their IDs."""
    ids = write_notes(root, count)
    (root / "index.md").write_text("# Memory Index\n", encoding="utf-8")
    return ids


def _figure(rows: list[dict], name: str, times: list[float], base: list[float], note: str = "") -> None:
    """Record and print one figure (ms, median) beside its baseline."""
    value, baseline = median(times) * 1000, median(base) * 1000 if base else float("nan")
    rows.append(
        {
            "figure": name,
            "median_ms": round(value, 1),
            "baseline_ms": round(baseline, 1),
            "runs": len(times),
            "note": note,
        }
    )
    ratio = f"{value / baseline:.2f}× python -c pass ({baseline:.0f} ms)" if base else ""
    print(f"| {name} | {value:,.1f} ms ×{len(times)} | {ratio} | {note} |")


def run(count: int, runs: int) -> list[dict]:
    """Generate the root and measure every figure; the rows printed."""
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="memboard-notes-bench-") as tmp:
        root, state = Path(tmp) / "memory", Path(tmp) / "state"
        root.mkdir()
        generate_notes(root, count)
        env = bench_env(state)
        cmd = [*memboard_cmd(), "--root", str(root)]
        print(f"{count:,} notes; each figure is the whole process, median of {runs} runs\n")
        print("| figure | median | beside | note |\n|---|--:|---|---|")
        os.environ["MEMBOARD_STATE_DIR"] = str(state)  # the first figure runs in this process
        start = time.perf_counter()
        outcome = search_run(MemoryRoot(root), "同步")
        build = time.perf_counter() - start
        _figure(
            rows,
            "first build of the search cache (in process)",
            [build],
            [],
            f"{outcome.backend}, {len(outcome.hits)} hits",
        )
        counter = iter(range(10**6))

        def new_note(_i: int) -> list[str]:
            n = next(counter)
            return [
                *cmd,
                "note",
                "save",
                "--title",
                f"Bench note {n}",
                "--type",
                "fact",
                "--scope",
                "ops",
                "--topic-key",
                f"bench/new/n{n}",
                "--what",
                f"- 同步 fact {n}",
            ]

        times, base = time_process([], env, runs, before_each=new_note, baseline=PASS)
        _figure(rows, "memboard note save (new note)", times, base)
        updates = iter(range(10**6))

        def update_note(_i: int) -> list[str]:
            n = next(updates)
            return [
                *cmd,
                "note",
                "save",
                "--title",
                "Keep the vault rule 1",
                "--type",
                "fact",
                "--scope",
                "project",
                "--topic-key",
                "bench/project/n1",
                "--what",
                "- The vault runs 1 times a day.\n" + f"- Update {n}.",
            ]

        times, base = time_process([], env, runs, before_each=update_note, baseline=PASS)
        _figure(rows, "memboard note save (update, same key)", times, base)
        for name, args in (
            ("memboard note list --json", ["note", "list", "--json"]),
            ("memboard note search 同步 (warm cache)", ["note", "search", "同步"]),
            ("memboard note search vault (warm cache)", ["note", "search", "vault"]),
            ("memboard search 同步 --kind note", ["search", "同步", "--kind", "note"]),
        ):
            times, base = time_process([*cmd, *args], env, runs, baseline=PASS)
            _figure(rows, name, times, base)
    return rows


def main() -> int:
    """Parse the options, run, print (and write JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    rows = run(args.notes, args.runs)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
