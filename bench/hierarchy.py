"""Hierarchy benchmark (issue 25 §9): `python bench/hierarchy.py [--runs N] [--json PATH]`.

Generates workspaces and prints each figure with its target and PASS/FAIL, as medians of N whole-process
runs (default 5) after a warm-up run: `memboard lookup` resolving a Markdown section (≤ 2× `python -c pass`,
run just before each), `memboard lookup` resolving a facts group of a 300-key facts.yaml (≤ 4×), and
`memboard hierarchy lint` on a 1,000-line MEMORY.md beside a 2,000-key facts.yaml (≤ 1 s), `memboard facts set
--dry-run` on that 2,000-key facts.yaml (≤ 0.5 s) and `memboard facts get` on it (for the record, with its ratio).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.cli_figures import PASS, memboard_cmd
from bench.timing import bench_env, median, sample, time_process

MARKDOWN_RATIO = 2.0
FACTS_RATIO = 4.0
LINT_SECONDS = 1.0
SET_SECONDS = 0.5


def facts_yaml(keys: int, per_group: int = 50) -> str:
    """A facts.yaml of `keys` one-line keys in groups of per_group (comments, quotes and a list among them)."""
    out = [
        "# memory/facts.yaml",
        "# Structured factual data — directly addressable, token-efficient",
        "# Last updated: 2026-05-30",
    ]
    for n in range(keys):
        if n % per_group == 0:
            out.append(f"group_{n // per_group}:  # group {n // per_group}")
        value = f'"quoted value {n}"' if n % 7 == 0 else f"value number {n} of the facts"
        out.append(f"  key_{n}: {value}")
    return "\n".join(out) + "\n"


def memory_md(lines: int) -> str:
    """A MEMORY.md of `lines` lines: headings, rules, prose, some fact-like text."""
    out = ["# Identity", "I help Kim write books.", "# Structured facts → memory/facts.yaml"]
    while len(out) < lines:
        n = len(out)
        if n % 40 == 0:
            out.append(f"## Section {n // 40}")
        elif n % 9 == 0:
            out.append(f"- Met the editor on 2026-03-{1 + n % 28:02d} about chapter {n}.")
        elif n % 13 == 0:
            out.append(f"- Notes in ~/books/notes-{n}.md and mail to kim{n}@example.com")
        else:
            out.append(f"- Always keep the tone warm and the sentences short, line {n}.")
    return "\n".join(out[:lines]) + "\n"


def workspace(folder: Path, hot_lines: int, keys: int) -> Path:
    """A workspace with MEMORY.md, facts.yaml, a lookup index, a project file and a daily log."""
    mem = folder / "memory"
    mem.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(memory_md(hot_lines), encoding="utf-8")
    (mem / "facts.yaml").write_text(facts_yaml(keys), encoding="utf-8")
    book = ["# Book", ""]
    for s in range(30):
        book += [f"## Part {s}", *[f"text of part {s}, line {i}" for i in range(20)], ""]
    book += ["## Plan", "write chapter 1", "### Detail", "outline first", "## After", "not this"]
    (mem / "project-book.md").write_text("\n".join(book) + "\n", encoding="utf-8")
    rows = ["| I need to know... | Go here |", "|---|---|"]
    rows += [f"| facts group {g} | memory/facts.yaml → group_{g} |" for g in range(keys // 50)]
    rows += [f"| part {s} of the book | memory/project-book.md → Part {s} |" for s in range(30)]
    rows.append("| the book plan | memory/project-book.md → Plan |")
    (mem / "lookup-index.md").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (mem / "2026-05-31.md").write_text("# 2026-05-31\n\nwrote\n", encoding="utf-8")
    return folder


def main() -> int:
    """Run the figures; exit 1 when one misses its target."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", metavar="PATH")
    opts = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memboard-bench-hierarchy-"))
    env = bench_env(tmp / "state")
    mb = memboard_cmd()
    small = workspace(tmp / "small", 40, 300)
    big = workspace(tmp / "big", 1000, 2000)
    figures = []

    md_cmd = [*mb, "lookup", "book", "plan", "--workspace", str(small)]
    times, base = time_process(md_cmd, env, opts.runs, baseline=PASS)
    ratio = median(times) / median(base)
    figures.append(
        (
            "lookup, Markdown section",
            median(times),
            ratio,
            f"≤ {MARKDOWN_RATIO}× python -c pass",
            ratio <= MARKDOWN_RATIO,
        )
    )

    facts_cmd = [*mb, "lookup", "facts", "group", "3", "--workspace", str(small)]
    times, base = time_process(facts_cmd, env, opts.runs, baseline=PASS)
    ratio = median(times) / median(base)
    figures.append(
        (
            "lookup, facts group (300 keys)",
            median(times),
            ratio,
            f"≤ {FACTS_RATIO}× python -c pass",
            ratio <= FACTS_RATIO,
        )
    )

    lint_cmd = [*mb, "hierarchy", "lint", "--workspace", str(big)]
    times, base = time_process(lint_cmd, env, opts.runs, baseline=PASS)
    figures.append(
        (
            "hierarchy lint (1,000 lines, 2,000 keys)",
            median(times),
            median(times) / median(base),
            f"≤ {LINT_SECONDS} s",
            median(times) <= LINT_SECONDS,
        )
    )
    middle = "group_20.key_1007"  # a key halfway down the 2,000-key file
    set_cmd = [*mb, "facts", "set", middle, "a new value", "--dry-run", "--workspace", str(big)]
    times, base = time_process(set_cmd, env, opts.runs, baseline=PASS)
    figures.append(
        (
            "facts set --dry-run (2,000 keys)",
            median(times),
            median(times) / median(base),
            f"≤ {SET_SECONDS} s",
            median(times) <= SET_SECONDS,
        )
    )

    cpu = {}  # the facts figures' own CPU time too: on a loaded machine wall time mostly measures the others
    for name, cmd in (("set", set_cmd), ("lint", lint_cmd), ("pass", PASS)):
        cpu[name] = median([sample(cmd, env).cpu for _ in range(opts.runs)])
    print(f"facts set --dry-run CPU: {cpu['set'] * 1000:.0f} ms (python -c pass: {cpu['pass'] * 1000:.0f} ms)")
    print(f"hierarchy lint CPU: {cpu['lint'] * 1000:.0f} ms (python -c pass: {cpu['pass'] * 1000:.0f} ms)")

    get_cmd = [*mb, "facts", "get", middle, "--workspace", str(big)]
    times, base = time_process(get_cmd, env, opts.runs, baseline=PASS)
    figures.append(("facts get (2,000 keys)", median(times), median(times) / median(base), "for the record", True))
    ok = True
    for name, secs, ratio, target, passed in figures:
        ok = ok and passed
        print(
            f"{name}: {secs * 1000:.0f} ms = {ratio:.2f}× python -c pass (target {target}) {'PASS' if passed else 'FAIL'}"
        )
    if opts.json:
        Path(opts.json).write_text(
            json.dumps(
                [{"figure": n, "seconds": s, "ratio": r, "target": t, "pass": p} for n, s, r, t, p in figures], indent=2
            )
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
