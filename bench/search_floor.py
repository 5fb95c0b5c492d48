"""The search cache build's floor: `python bench/search_floor.py ROOT [DB]`.

Reads every byte a cache build reads (index.md, each snapshot, each archived session, each
note) once, and inserts the same text (each index line, each file) into an FTS5 trigram table
(detail=full, as the cache's) in one transaction, then commits. No parsing, no ranking data:
what any build must at least pay. Prints the seconds it took. bench/search.py and
bench/run.py divide the cache's own build by it (target: at most 2x).
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
import time


def files(root: str) -> list[str]:
    """Every file a build reads besides index.md."""
    out = []
    for top in ("sessions", "archive", "notes"):
        for folder, _dirs, names in os.walk(os.path.join(root, top)):
            out += [os.path.join(folder, n) for n in names if n.endswith(".md")]
    return sorted(out)


def floor(root: str, db: str) -> float:
    """Seconds to read everything once and insert it into FTS5 in one transaction."""
    start = time.perf_counter()
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode = OFF")
    con.execute("PRAGMA synchronous = OFF")
    con.execute("CREATE VIRTUAL TABLE fts USING fts5(t, tokenize='trigram', detail='full')")
    con.execute("BEGIN")
    with open(os.path.join(root, "index.md"), "rb") as fh:
        lines = fh.read().decode("utf-8", "replace").split("\n")
    con.executemany("INSERT INTO fts(t) VALUES (?)", ((line,) for line in lines))
    for path in files(root):
        with open(path, "rb") as fh:
            con.execute("INSERT INTO fts(t) VALUES (?)", (fh.read().decode("utf-8", "replace"),))
    con.execute("COMMIT")
    con.close()
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    """Print the floor of the root at argv[0] (into a temporary database unless argv[1] names one)."""
    if len(argv) > 1:
        print(f"{floor(argv[0], argv[1]):.3f}")
        return 0
    with tempfile.TemporaryDirectory(prefix="memboard-floor-") as tmp:
        print(f"{floor(argv[0], os.path.join(tmp, 'floor.sqlite3')):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
