"""How fast the secrets guard scans note text: `python bench/secrets.py`.

Generates Markdown notes of 6 KB to 600 KB (prose, Session IDs, hashes, paths, URLs and
assignments with placeholders, but no credential) and prints the median time of `scan` over
each, so the cost every text-carrying write pays is a figure, not a guess; then the same notes
with a zero-width space in one word of ten (the lines that hold one are matched twice: without
it and as written).
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


def hidden(text: str) -> str:
    """text with a zero-width space after the second character of one word in ten."""
    words = text.split(" ")
    return " ".join(w[:2] + "\u200b" + w[2:] if i % 10 == 3 and len(w) > 3 else w for i, w in enumerate(words))


def main() -> None:
    """Print size, median scan time and throughput for three note sizes, without and with invisible characters."""
    print(f"{'size':>8}  {'median':>9}  {'MB/s':>6}  text")
    for lines, invisible in [(n, flag) for flag in (False, True) for n in (50, 500, 5000)]:
        text = hidden(note(lines)) if invisible else note(lines)
        times = []
        for _ in range(7):
            start = time.perf_counter()
            found = scan(text)
            times.append(time.perf_counter() - start)
        if found:
            raise SystemExit(f"false positives in the generated note: {found[:3]}")
        median = statistics.median(times)
        size = len(text.encode("utf-8"))
        what = "a zero-width space in one word of ten" if invisible else "plain"
        print(f"{size / 1024:>6.0f}KB  {median * 1000:>7.1f}ms  {size / median / 1e6:>6.1f}  {what}")


if __name__ == "__main__":
    main()
