"""How fast the secrets guard scans note text: `python bench/secrets.py`.

Generates Markdown notes of 6 KB to 600 KB (prose, Session IDs, hashes, paths, URLs and
assignments with placeholders, but no credential) and prints the median time of `scan` over
each, so the cost every text-carrying write pays is a figure, not a guess.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from memboard.core.secrets import scan

WORDS = [
    "the",
    "session",
    "token",
    "api",
    "decision",
    "keep",
    "lock",
    "fair",
    "index",
    "rows",
    "archive",
    "snapshot",
    "password",
    "reset",
    "flow",
    "https://github.com/org/repo",
    "2026-05-01-0900-cursor-main-agent",
    "3f786850e387550fdab836ed7e6dc881de23001b",
    "key:",
    "value",
    "api_key=$API_KEY",
    "/home/u/proj/src/auth.py",
    "postgres://localhost:5432/app",
    "-",
    "|",
    "#",
    ">",
    "整理",
    "memory",
]


def note(lines: int, seed: int = 1) -> str:
    """A deterministic note of `lines` lines of twelve words."""
    rng = random.Random(seed)
    return "\n".join(" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(lines))


def main() -> None:
    """Print size, median scan time and throughput for three note sizes."""
    print(f"{'size':>8}  {'median':>9}  {'MB/s':>6}")
    for lines in (50, 500, 5000):
        text = note(lines)
        times = []
        for _ in range(7):
            start = time.perf_counter()
            found = scan(text)
            times.append(time.perf_counter() - start)
        if found:
            raise SystemExit(f"false positives in the generated note: {found[:3]}")
        median = statistics.median(times)
        size = len(text.encode("utf-8"))
        print(f"{size / 1024:>6.0f}KB  {median * 1000:>7.1f}ms  {size / median / 1e6:>6.1f}")


if __name__ == "__main__":
    main()
