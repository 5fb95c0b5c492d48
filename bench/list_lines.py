"""Bench: what `list --json` from the lines' text (app/service/listing.py) earns: `python bench/list_lines.py`.

Generates root a (the bench's own) and root b (issue 29's: a third of the Summaries with escaped pipes) of
100k rows, then times in this process, interleaved, the JSON text of every row made the way `list --json`
made it before (a Row and a RowView per row, then row_text) and the way it makes it now (listing_texts),
checks both give the same text, and prints the CPU medians and the ratio now / before. Options: --rows N,
--runs N.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.roots import generate, generate_b
from bench.timing import median


def main(argv: list[str] | None = None) -> int:
    """Generate the roots, time both ways, print the figures."""
    from memboard.core.files.root import MemoryRoot  # lazy: after sys.path is set for a run from the repository
    from memboard.core.ops.query import iter_row_views  # lazy: as above
    from memboard.service.listing import listing_texts  # lazy: as above
    from memboard.service.output import row_text  # lazy: as above

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="list-lines-"))
    try:
        for kind, make in (("a", generate), ("b", generate_b)):
            root = MemoryRoot(make(base / kind, args.rows).path)
            ways = {
                "before": lambda root=root: [row_text(view) for view in iter_row_views(root)],
                "now": lambda root=root: list(listing_texts(root)),
            }
            if ways["before"]() != ways["now"]():
                print(f"root {kind}: the two ways differ", file=sys.stderr)
                return 1
            took: dict[str, list[float]] = {name: [] for name in ways}
            for _ in range(args.runs):
                for name, way in ways.items():
                    start = time.process_time()
                    way()
                    took[name].append(time.process_time() - start)
            before, now = median(took["before"]), median(took["now"])
            print(
                f"root {kind}, {args.rows:,} rows: before {before * 1000:.0f} ms, now {now * 1000:.0f} ms CPU "
                f"(now / before {now / before:.2f}; medians of {args.runs}, same text)"
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
