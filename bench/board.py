"""Board benchmarks: first paint, filter keystroke, external append, peak memory.

    python bench/board.py [--sizes 1000,10000,100000] [--datatable-max N]

Each figure comes from a fresh child process (`--child KIND ROWS FILE`) so that imports and
memory are counted the same way for every variant:

- first paint (start of the process's Python code to the first screen refresh showing rows;
  best of three runs) of the board, of a bare Textual app that reads the same file and naively
  splits it into cells (the baseline; target ratio <= 1.5), and of Textual's DataTable
  loading every row (for the record; skipped above --datatable-max rows, it takes minutes);
- a filter keystroke to repaint at the largest size (target <= 50 ms);
- an external append to index.md until the row is shown, watcher on (target <= 1 s);
- peak memory (max RSS) of the board at the largest size.

The functions are importable (bench/run.py folds them in): generate_index, child_result,
first_paint, filter_keystroke, external_append, peak_memory, run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZE = (120, 40)
HEADER = (
    "# Memory Index\n\n"
    "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n"
    "|---|---|---|---|---|---|---|---|---|\n"
)
STATUSES = ("idle", "active", "stale")


def generate_index(path: Path, rows: int) -> Path:
    """Write an index.md with rows realistic rows (mixed English/CJK) and return its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [HEADER]
    for i in range(rows):
        day, hour, minute = 1 + i % 28, i % 24, (i * 7) % 60
        sid = f"2026-05-{day:02d}-{hour:02d}{minute:02d}-agent-{i}"
        lines.append(
            f"| {sid} | agent-{i} | Topic {i} 主題 {i % 97} | Summary of session {i}: merged the snapshot, 已整理 | "
            f"kw{i % 50}, cursor-agent | {STATUSES[i % 3]} | - | 2026-05-{day:02d} {hour:02d}:{minute:02d} | "
            f"2026-05-{day:02d} {hour:02d}:{minute:02d} |\n"
        )
    path.write_text("".join(lines), encoding="utf-8")
    return path


# -- child processes ------------------------------------------------------------------------


def _bare_app(path: Path):
    """A bare Textual app that reads the file, splits every line into cells, shows the top."""
    from textual.app import App
    from textual.widgets import Static

    class Bare(App):
        """Baseline: read + naive parse + show the first screenful."""

        def compose(self):
            """One Static."""
            yield Static(id="top")

        def on_mount(self) -> None:
            """Read and split, then show the first lines."""
            text = path.read_text(encoding="utf-8")
            self.cells = [line.split("|") for line in text.splitlines()]
            from rich.text import Text

            self.query_one("#top", Static).update(Text("\n".join(" ".join(c) for c in self.cells[:40])))
            self.ready = True

    app = Bare()
    app.ready = False
    return app, lambda: app.ready


def _datatable_app(path: Path):
    """Textual's DataTable with every row added (naive split, as the bare app)."""
    from rich.text import Text
    from textual.app import App
    from textual.widgets import DataTable

    class Table(App):
        """DataTable holding all rows."""

        def compose(self):
            """One DataTable."""
            yield DataTable()

        def on_mount(self) -> None:
            """Read, split and add all rows."""
            table = self.query_one(DataTable)
            lines = path.read_text(encoding="utf-8").splitlines()
            table.add_columns(*[c.strip() for c in lines[2].strip("|").split("|")])
            table.add_rows([[Text(c.strip()) for c in line.strip("|").split("|")] for line in lines[4:]])
            self.ready = True

    app = Table()
    app.ready = False
    return app, lambda: app.ready


def _board_app(path: Path, watch: bool = False):
    """The board on the folder of path."""
    from memboard.board.app import MemboardApp

    app = MemboardApp(path.parent, watch=watch)
    return app, lambda: len(app.sessions.table.rows) > 0


async def _first_paint(kind: str, path: Path) -> dict:
    """Seconds from app start until its rows are on screen (and, for the board, fully loaded)."""
    start = time.perf_counter()
    make = {"board": _board_app, "bare": _bare_app, "datatable": _datatable_app}[kind]
    app, ready = make(path)
    out: dict = {}
    async with app.run_test(size=SIZE) as pilot:
        while not ready():
            await asyncio.sleep(0.002)
        painted = asyncio.Event()
        app.call_after_refresh(painted.set)
        await painted.wait()
        out["first_paint"] = time.perf_counter() - start
        if kind == "board":
            while not app.sessions.model.complete or not app.sessions.model.rows:
                await asyncio.sleep(0.005)
            await pilot.pause()
            out["fully_loaded"] = time.perf_counter() - start
    return out


async def _filter(path: Path) -> dict:
    """Per-keystroke time from a key reaching the filter box until the table has repainted.

    The key is fed as the Input does on a key press (insert at the cursor); the clock stops
    in a call_after_refresh callback registered once the board applied the new filter.
    """
    from memboard.board.browse import BrowseFilter as FilterInput

    app, _ready = _board_app(path)
    times = []
    async with app.run_test(size=SIZE) as pilot:
        while not app.sessions.model.complete or not app.sessions.model.rows:
            await asyncio.sleep(0.01)
        await app.workers.wait_for_complete()
        await pilot.press("slash")
        await pilot.pause()
        box = app.query_one(FilterInput)
        typed = ""
        for key in "topic 77":
            typed += key
            painted = asyncio.Event()
            start = time.perf_counter()
            box.insert_text_at_cursor(key)
            while app.sessions.filter_text != typed:
                await asyncio.sleep(0)
            app.call_after_refresh(painted.set)
            await painted.wait()
            times.append(time.perf_counter() - start)
            await pilot.pause()
        shown = len(app.sessions.table.rows)
    ordered = sorted(times)
    return {"keystrokes": times, "max": ordered[-1], "median": ordered[len(ordered) // 2], "shown": shown}


async def _append(path: Path) -> dict:
    """Seconds from appending a row to index.md until the board (watcher on) shows it."""
    app, _ready = _board_app(path, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        while not app.sessions.model.complete or not app.sessions.model.rows:
            await asyncio.sleep(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause()
        sid = "2026-06-01-0930-appended-agent"
        row = f"| {sid} | appended-agent | appended | appended | a | idle | - | 2026-06-01 09:30 | 2026-06-01 09:30 |\n"
        start = time.perf_counter()
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(row)
        while sid not in app.sessions.model.by_id:
            await asyncio.sleep(0.005)
        await pilot.pause()
        took = time.perf_counter() - start
    return {"append_to_shown": took}


def child_main(kind: str, path: Path) -> dict:
    """Run one measurement in this process and return it with the peak RSS."""
    os.environ.setdefault("MEMBOARD_NOW", "2026-06-01 09:30")
    tmp = tempfile.mkdtemp(prefix="memboard-bench-state-")
    os.environ["MEMBOARD_STATE_DIR"] = tmp
    os.environ["MEMBOARD_CONFIG"] = str(Path(tmp) / "config.toml")
    if kind in ("board", "bare", "datatable"):
        out = asyncio.run(_first_paint(kind, path))
    elif kind == "filter":
        out = asyncio.run(_filter(path))
    elif kind == "append":
        out = asyncio.run(_append(path))
    else:
        raise SystemExit(f"unknown kind {kind}")
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def child_result(kind: str, path: Path, timeout: float = 600) -> dict:
    """Run `kind` on the index at path in a fresh Python process; its JSON result."""
    proc = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"bench child {kind} failed: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- importable measurements -------------------------------------------------------------------


def first_paint(rows: int, workdir: Path, datatable: bool = True, repeat: int = 5) -> dict:
    """First-paint seconds of the board, the bare app and DataTable at rows.

    Board and bare runs alternate, repeat times each, and the fastest of each is kept, so
    that both see the same machine (a shared machine's load swings single runs 2-3x).
    """
    path = generate_index(workdir / f"r{rows}" / "index.md", rows)
    boards, bares = [], []
    for _ in range(repeat):
        boards.append(child_result("board", path))
        bares.append(child_result("bare", path))
    board = min(boards, key=lambda r: r["first_paint"])
    bare = min(bares, key=lambda r: r["first_paint"])
    out = {
        "rows": rows,
        "board": board["first_paint"],
        "board_fully_loaded": board["fully_loaded"],
        "bare": bare["first_paint"],
        "ratio": board["first_paint"] / bare["first_paint"],
        "datatable": None,
    }
    if datatable:
        out["datatable"] = child_result("datatable", path)["first_paint"]  # one run: it is slow
    return out


def filter_keystroke(rows: int, workdir: Path) -> dict:
    """Key-to-repaint seconds of each filter keystroke on the board at rows."""
    path = generate_index(workdir / f"r{rows}" / "index.md", rows)
    return child_result("filter", path)


def external_append(rows: int, workdir: Path) -> dict:
    """Seconds from an external append to index.md until the board shows the row."""
    path = generate_index(workdir / f"a{rows}" / "index.md", rows)
    return child_result("append", path)


def peak_memory(rows: int, workdir: Path) -> float:
    """Peak RSS (MB) of a board process that opened an index of rows."""
    path = generate_index(workdir / f"r{rows}" / "index.md", rows)
    return child_result("board", path)["max_rss_mb"]


def run(sizes: list[int], datatable_max: int = 10_000) -> dict:
    """Every figure, printed as it comes; returns them as a dict."""
    results: dict = {"first_paint": []}
    with tempfile.TemporaryDirectory(prefix="memboard-bench-") as tmp:
        work = Path(tmp)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"machine: {os.cpu_count()} CPUs, load average {load:.2f} (figures are wall-clock seconds)")
        print(f"{'rows':>8} {'board':>9} {'loaded':>9} {'bare':>9} {'ratio':>6} {'DataTable':>10}")
        for n in sizes:
            fp = first_paint(n, work, datatable=n <= datatable_max)
            results["first_paint"].append(fp)
            dt = f"{fp['datatable']:.3f}s" if fp["datatable"] is not None else "skipped"
            print(
                f"{n:>8} {fp['board']:>8.3f}s {fp['board_fully_loaded']:>8.3f}s {fp['bare']:>8.3f}s {fp['ratio']:>6.2f} {dt:>10}"
            )
        big = max(sizes)
        fk = filter_keystroke(big, work)
        results["filter"] = fk
        keys = ", ".join(f"{t * 1000:.0f}" for t in fk["keystrokes"])
        print(
            f"filter keystroke to repaint at {big} rows: median {fk['median'] * 1000:.1f} ms, max {fk['max'] * 1000:.1f} ms (target <= 50 ms) [{keys} ms]"
        )
        ap = external_append(big, work)
        results["append"] = ap
        print(f"external append until shown at {big} rows: {ap['append_to_shown']:.3f} s (target <= 1 s)")
        mem = peak_memory(big, work)
        results["peak_memory_mb"] = mem
        print(f"peak memory (max RSS) of the board at {big} rows: {mem:.0f} MB")
    return results


def main(argv: list[str] | None = None) -> int:
    """Command line of the bench."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--datatable-max", type=int, default=10_000, help="skip DataTable above this many rows")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child_main(args.child[0], Path(args.child[1]))))
        return 0
    run([int(s) for s in args.sizes.split(",")], args.datatable_max)
    return 0


if __name__ == "__main__":
    sys.exit(main())
