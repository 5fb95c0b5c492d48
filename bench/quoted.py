"""Bench: `memboard update ID` when the ID's text is quoted in many other cells: `python bench/quoted.py`.

An agent's Summary often names another session ("follow-up of 2026-05-31-0900-…"), so a much-cited
session's ID occurs in many rows besides its own. Finding its row reads only the table lines that
hold the ID's text; that must cost one pass over the table however many they are. This generates
the roots of bench/run.py (10k and 100k rows), then quotes the newest session's ID in the Summary of
one row in ten, and times `memboard update <that ID> --summary …` as a whole process, each run beside
the floor run just before it (`python -c "open(p,'rb').read().split(b'\\n')"` on the same index.md,
as bench/run.py measures every command), and the same update on the root before the quoting, for
comparison. Prints per size the medians and the ratios to the floor, then the growth 10k → 100k
(linear is 10×). Options: --rows N [N ...], --runs N.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.cli_figures import floor_cmd, idle, memboard_cmd, run_series
from bench.roots import generate
from bench.timing import bench_env, median

SHARE = 10  # one row in SHARE quotes the ID
PIPE_RE = re.compile(r"(?<!\\)\|")  # a cell border (an escaped pipe `\|` stays inside its cell)


def quote(index: Path, target: str) -> int:
    """Quote target in the Summary of one table row in SHARE (not its own); returns how many rows quote it."""
    lines = index.read_text(encoding="utf-8").split("\n")
    quoted = row = 0
    for i, line in enumerate(lines):
        cells = PIPE_RE.split(line)
        if len(cells) != 11 or not re.fullmatch(r" \d{4}-\d{2}-\d{2}-\d{4}-\S+ ", cells[1]) or target in line:
            continue
        row += 1
        if row % SHARE == 0:
            cells[4] = f"{cells[4].rstrip()} (follow-up in {target}) "
            lines[i] = "|".join(cells)
            quoted += 1
    index.write_text("\n".join(lines), encoding="utf-8")
    return quoted


def series(root: Path, target: str, runs: int, env: dict) -> tuple[float, float]:
    """Medians (update, floor) of runs of the update on a copy of root, each from root's index.md."""
    work = root.parent / f"{root.name}-work"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(root, work)
    pristine = (root / "index.md").read_bytes()

    def fresh(_i: int) -> None:
        (work / "index.md").write_bytes(pristine)
        idle(work / "index.md")

    cmd = memboard_cmd() + ["update", target, "--summary", "Measured the quoted-ID update.", "--root", str(work)]
    measured = run_series(lambda i: cmd, floor_cmd(root), runs, env, "floor", prepare=fresh)
    shutil.rmtree(work, ignore_errors=True)
    return median([s.wall for s in measured.samples]), median([s.wall for s in measured.base])


def main(argv: list[str] | None = None) -> int:
    """Generate, quote, measure, print the table."""
    p = argparse.ArgumentParser(description="Time `memboard update ID` when the ID is quoted in 10% of other rows.")
    p.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="memboard-quoted-"))
    env = bench_env(base / "state")
    head = f"{'rows':>8}  {'quoting':>8}  {'floor':>8}  {'update':>9}  {'ratio':>7}  {'unquoted':>9}  {'ratio':>7}"
    print(head)
    quoted_medians = {}
    try:
        for n in args.rows:
            plain = base / f"plain-{n}"
            manifest = generate(plain, n)
            target = manifest.ids[-1]
            cited = base / f"quoted-{n}"
            shutil.copytree(plain, cited)
            count = quote(cited / "index.md", target)
            update, floor = series(cited, target, args.runs, env)
            unquoted, floor_plain = series(plain, target, args.runs, env)
            quoted_medians[n] = update
            print(
                f"{n:>8,}  {count:>8,}  {floor * 1000:>6.0f}ms  {update * 1000:>7.0f}ms  {update / floor:>6.2f}×  "
                f"{unquoted * 1000:>7.0f}ms  {unquoted / floor_plain:>6.2f}×"
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    sizes = sorted(quoted_medians)
    if len(sizes) >= 2:
        small, big = sizes[0], sizes[-1]
        print(
            f"growth {small:,} → {big:,} rows of the quoted update: {quoted_medians[big] / quoted_medians[small]:.2f}× "
            f"(linear is {big / small:g}×)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
