"""Baselines for the board's first paint: a bare Textual app, and DataTable with every row.

Each measurement is a separate Python process (so imports count the same for every
contender) that runs its App headless with `App.run_test(size=(120, 40))` and reports the
wall-clock moment its first frame shows the first data row. The parent subtracts the moment
it spawned the process. The child also reports its peak resident memory.

- bare: reads index.md, splits it naively on newlines and shows the first 40 lines in one
  Static. This is the floor: Python + Textual + reading the file, nothing memboard does.
- datatable: reads index.md, splits table lines naively on `|`, and loads every row into
  Textual's DataTable (what a first board might do; slow past a few thousand rows).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from .timing import bench_env

REPO = Path(__file__).resolve().parent.parent
SIZE = (120, 40)


def peak_rss_mb() -> float:
    """This process's peak resident memory in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def screen_text(app) -> str:
    """The text of the app's current screen, rendered now at full size."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def paint_until(app, pilot, expect: str, limit: float = 600.0) -> float:
    """Pause the pilot until the screen shows expect; the wall-clock moment it did."""
    deadline = time.monotonic() + limit
    while True:
        await pilot.pause()
        if expect in screen_text(app):
            return time.time()
        if time.monotonic() > deadline:
            raise TimeoutError(f"{expect!r} never showed on screen")


def build_app(kind: str, index_path: str):
    """The App of one baseline kind."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable, Static

    class BareApp(App):
        """Reads the file, splits it on newlines, shows the first screenful in one Static."""

        def compose(self) -> ComposeResult:
            """One Static with the first 40 lines."""
            text = Path(index_path).read_text(encoding="utf-8")
            lines = text.split("\n")
            yield Static("\n".join(lines[:40]), markup=False)

    class DataTableApp(App):
        """Reads the file and loads every table row into a DataTable."""

        def compose(self) -> ComposeResult:
            """The DataTable."""
            yield DataTable()

        def on_mount(self) -> None:
            """Load every row of the table, split naively on pipes."""
            table = self.query_one(DataTable)
            lines = Path(index_path).read_text(encoding="utf-8").split("\n")
            rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines if line.startswith("|")]
            header, body = rows[0], [r for r in rows[2:] if len(r) == len(rows[0])]
            table.add_columns(*header)
            table.add_rows(body)

    return {"bare": BareApp, "datatable": DataTableApp}[kind]()


def child(kind: str, index_path: str, expect: str) -> None:
    """Run one baseline app headless and print when its first data frame painted."""
    import asyncio

    async def main() -> float:
        """Start, wait for the first frame with data, stop."""
        app = build_app(kind, index_path)
        async with app.run_test(size=SIZE) as pilot:
            painted = await paint_until(app, pilot, expect)
        return painted

    painted = asyncio.run(main())
    print(json.dumps({"painted_at": painted, "peak_rss_mb": peak_rss_mb()}))
    sys.stdout.flush()
    os._exit(0)


def first_paint(kind: str, index_path: Path, expect: str, state: Path, timeout: float = 600.0) -> tuple[float, float]:
    """One measurement in a fresh process: (seconds from spawn to first data frame, peak MiB)."""
    env = bench_env(state, {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))})
    cmd = [sys.executable, "-m", "bench.board_baselines", kind, str(index_path), expect]
    spawned = time.time()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"{kind} baseline failed: {lines[-1] if lines else proc.returncode}")
    report = json.loads(proc.stdout.decode("utf-8").strip().splitlines()[-1])
    return report["painted_at"] - spawned, report["peak_rss_mb"]


if __name__ == "__main__":
    child(sys.argv[1], sys.argv[2], sys.argv[3])
