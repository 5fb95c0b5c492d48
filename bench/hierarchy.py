"""Hierarchy benchmarks (issue 25 §9): whole-process figures of the hierarchy commands beside `python -c pass`.

    python bench/hierarchy.py [--keys 2000] [--runs 5] [--json]

Each command runs as its own process through bench/child.py (its own wall time), with `python -c pass`
run just before each run so both meet the same load; the figure is the median of the runs and its
ratio to the baseline's median. The workspace is generated once (a facts.yaml of --keys keys in
groups of 20, with comments, quotes of each style, an anchor and a merge key, like a grown one), its
files last changed a minute ago (nobody is writing them: no settle wait).

- `facts set KEY VALUE --dry-run` on the 2,000-key facts.yaml (target: <= 0.5 s);
- `facts get KEY` on the same file (for the record beside the target of `lookup`'s facts group).

The functions are importable: generate_facts, workspace, figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/hierarchy.py`: import the bench package from the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import bench_env, median, sample

PYTHON = sys.executable
PASS = [PYTHON, "-c", "pass"]
SET_TARGET_S = 0.5
IDLE_AGE = 60.0


def generate_facts(keys: int) -> str:
    """A facts.yaml of about keys keys: groups of 20, comments, quote styles, an anchor, a merge key."""
    lines = [
        "# memory/facts.yaml",
        "# Structured factual data — directly addressable, token-efficient",
        "# Last updated: 2026-05-01",
        "contact: &contact",
        "  email: kim.lee@example.com  # work",
        "  phone: '+1 555 0100'",
        "identity:",
        "  <<: *contact",
        "  name: Kim Lee",
    ]
    groups = max(1, (keys - 3) // 20)
    for g in range(groups):
        lines.append(f"group_{g}:  # group {g}")
        for k in range(20):
            n = g * 20 + k
            value = (f"value {n}", f"'quoted {n}'", f'"double {n}"', f"{n}", f"项目 {n} 进行中")[n % 5]
            lines.append(f"  key_{k}: {value}")
    lines += ["todos:", "  - call Sam", "  - renew passport"]
    return "\n".join(lines) + "\n"


def workspace(folder: Path, keys: int) -> Path:
    """A workspace with MEMORY.md and the generated facts.yaml, its files last changed a minute ago."""
    (folder / "memory").mkdir(parents=True, exist_ok=True)
    (folder / "MEMORY.md").write_text("# Memory\n\n# Structured facts → memory/facts.yaml\n")
    facts = folder / "memory" / "facts.yaml"
    facts.write_text(generate_facts(keys), encoding="utf-8")
    then = time.time() - IDLE_AGE
    for path in (folder / "MEMORY.md", facts):
        os.utime(path, (then, then))
    return folder


def memboard() -> list[str]:
    """How a user runs memboard: the console script beside this Python, else `python -m memboard`."""
    script = Path(PYTHON).parent / "memboard"
    return [str(script)] if script.exists() else [PYTHON, "-m", "memboard"]


def measure(cmd: list[str], env: dict, runs: int) -> dict:
    """runs of cmd, each just after a run of `python -c pass`: medians and the ratio."""
    sample(PASS, env)  # warm: bytecode caches and the page cache
    sample(cmd, env)
    own, base = [], []
    for _ in range(runs):
        base.append(sample(PASS, env).wall)
        own.append(sample(cmd, env).wall)
    m, b = median(own), median(base)
    return {"median_s": round(m, 4), "pass_s": round(b, 4), "ratio": round(m / b, 2), "runs": own}


def figures(keys: int = 2000, runs: int = 5) -> list[dict]:
    """The hierarchy figures, each {"name", "median_s", "pass_s", "ratio", "target", "ok"}."""
    with tempfile.TemporaryDirectory() as tmp:
        ws = workspace(Path(tmp) / "ws", keys)
        env = bench_env(Path(tmp) / "state")
        base = [*memboard(), "facts"]
        middle = f"group_{(keys // 20) // 2}.key_7"
        out = []
        m = measure([*base, "set", middle, "a new value", "--dry-run", "--workspace", str(ws)], env, runs)
        out.append({"name": f"facts set --dry-run ({keys} keys)", **m, "target": f"<= {SET_TARGET_S} s"})
        out[-1]["ok"] = m["median_s"] <= SET_TARGET_S
        m = measure([*base, "get", middle, "--workspace", str(ws)], env, runs)
        out.append({"name": f"facts get ({keys} keys)", **m, "target": "for the record", "ok": True})
        return out


def main(argv: list[str] | None = None) -> int:
    """Print the figures (a table, or --json); exit 1 when one misses its target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = figures(args.keys, args.runs)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for r in results:
            mark = "ok" if r["ok"] else "MISSED"
            print(
                f"{r['name']:<34} {r['median_s'] * 1000:7.1f} ms  "
                f"python -c pass {r['pass_s'] * 1000:6.1f} ms  ×{r['ratio']:<6} {r['target']:<16} {mark}"
            )
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
