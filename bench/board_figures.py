"""Board figures measured from outside: first paint (board, bare Textual app, DataTable),
filter keystroke to repaint, an external append until it shows (also the first one after opening a root new to
this machine's local state), and peak memory.

Every measurement is a separate Python process (so imports count the same for every
contender) that runs its App headless with `App.run_test(size=(120, 40))`. First paint is
the wall-clock moment the first frame shows a data row (a Session ID), minus the moment the
parent spawned the process; fully loaded is the moment the board's model holds the whole index
(the bare app's is its first paint). The child reports its own peak resident memory from
/proc/self/status (VmHWM; `ru_maxrss` would report the benchmark runner's size, which a child
keeps across exec: see bench/child.py).

- bare: reads index.md, splits it naively on newlines, keeps the lines and shows the first 40
  in one Static. The floor: Python + Textual + holding the file's text, nothing memboard does.
- datatable: reads index.md, splits table lines naively on `|`, and loads every row into
  Textual's DataTable (what a first board might do; slow past a few thousand rows).
- input: the bare app with a text Input; the floor of a keystroke echoed on screen.
- board: memboard.board.app.MemboardApp on the root.

The board is driven only through its documented keys (`/` opens the text filter), so these
measurements work on any board that keeps the DESIGN.md contract.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

from .timing import bench_env

REPO = Path(__file__).resolve().parent.parent
SIZE = (120, 40)
ID_ON_SCREEN = re.compile(r"20\d\d-\d\d-\d\d-\d{4}-[a-z]")
FILTER_WORD = "parser"
APPEND_AGENT = "bench-append-agent"
APPEND_MARK = "apx"


def peak_rss_mb() -> float:
    """This process's own peak resident memory in MiB (VmHWM where Linux has it: ru_maxrss keeps the size
    of the process that started this one)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def screen_text(app) -> str:
    """The text of the app's current screen, rendered now at full size."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def changed_lines(update) -> int:
    """How many screen lines a compositor update repaints."""
    spans = getattr(update, "spans", None)
    if spans is not None:
        return len({y for y, _x1, _x2 in spans})
    region = getattr(update, "region", None)
    return region.height if region is not None else 0


class FrameClock:
    """Timestamps of the frames an App sends to its (headless) display, and the first data frame."""

    def __init__(self, app):
        """Wrap app._display, which Textual calls with every compositor update."""
        self.app = app
        self.frames: list[float] = []
        self.lines: list[int] = []
        self.first_data_frame: float | None = None
        self.watch: tuple | None = None
        original = app._display

        def display(screen, renderable) -> None:
            """Record the frame, check it for what we wait for, then display it."""
            if renderable is not None:
                self.frames.append(time.perf_counter())
                self.lines.append(changed_lines(renderable))
                if self.first_data_frame is None and ID_ON_SCREEN.search(screen_text(app)):
                    self.first_data_frame = time.time()
                if self.watch is not None and self.watch[1] is None and self.watch[0] in screen_text(app):
                    self.watch = (self.watch[0], self.frames[-1])
            return original(screen, renderable)

        app._display = display

    async def until_painted(self, limit: float = 600.0) -> float:
        """Wait for the first frame that shows a Session ID; its wall-clock moment."""
        deadline = time.monotonic() + limit
        while self.first_data_frame is None:
            if time.monotonic() > deadline:
                raise TimeoutError("no frame ever showed a Session ID")
            await asyncio.sleep(0.002)
        return self.first_data_frame

    async def until_quiet(self, since: float, quiet: float = 0.15, limit: float = 30.0) -> float:
        """Wait until no frame came for `quiet` seconds; seconds from since to the last frame."""
        deadline = since + limit
        while True:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            last = self.frames[-1] if self.frames and self.frames[-1] >= since else since
            if now - last >= quiet or now > deadline:
                return last - since

    def repaint_after(self, since: float, lines: int = 3) -> float | None:
        """Seconds from since to the first later frame that changed at least `lines` screen lines."""
        for at, changed in zip(self.frames, self.lines):
            if at >= since and changed >= lines:
                return at - since
        return None

    async def until_shown(self, text: str, since: float, limit: float = 10.0) -> float:
        """Wait for the first frame after since that shows text; seconds from since to that frame."""
        self.watch = (text, None)
        while self.watch[1] is None:
            if time.perf_counter() - since > limit:
                raise TimeoutError(f"{text!r} did not show within {limit:g} s")
            await asyncio.sleep(0.002)
        return self.watch[1] - since


def build_app(kind: str, root: str):
    """The App of one contender."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable, Input, Static

    index_path = Path(root) / "index.md"

    class BareApp(App):
        """Reads the file, splits it on newlines, keeps the lines, shows the first screenful in one Static."""

        def compose(self) -> ComposeResult:
            """One Static with the first 40 lines."""
            self.lines = index_path.read_text(encoding="utf-8").split("\n")
            yield Static("\n".join(self.lines[:40]), markup=False)

    class InputApp(BareApp):
        """The bare app plus a text Input: the floor of a keystroke echoed on screen."""

        def compose(self) -> ComposeResult:
            """An Input above the Static."""
            yield Input()
            yield from super().compose()

    class DataTableApp(App):
        """Reads the file and loads every table row into a DataTable."""

        def compose(self) -> ComposeResult:
            """The DataTable."""
            yield DataTable()

        def on_mount(self) -> None:
            """Load every row of the table, split naively on pipes."""
            table = self.query_one(DataTable)
            lines = index_path.read_text(encoding="utf-8").split("\n")
            rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines if line.startswith("|")]
            header, body = rows[0], [r for r in rows[2:] if len(r) == len(rows[0])]
            table.add_columns(*header)
            table.add_rows(body)

    if kind == "bare":
        return BareApp()
    if kind == "datatable":
        return DataTableApp()
    if kind == "input":
        return InputApp()
    from memboard.board.app import MemboardApp

    return MemboardApp(root)


def append_topic(n: int) -> str:
    """The short, unique Topic of the n-th appended row (short, so no column truncates it)."""
    return f"{APPEND_MARK}{n:03d}"


def insert_row(index_path: Path, n: int) -> str:
    """Add a row at the end of the table as another agent would (whole file, atomically); its ID."""
    sid = f"2026-06-01-{9 + n // 60 % 10:02d}{n % 60:02d}-{APPEND_AGENT}"
    row = f"| {sid} | {APPEND_AGENT} | {append_topic(n)} | written by bench | bench | idle | - | 2026-06-01 09:30 | 2026-06-01 09:30 |\n"
    lines = index_path.read_text(encoding="utf-8").split("\n")
    last = max(i for i, line in enumerate(lines) if line.startswith("|"))
    lines.insert(last + 1, row.rstrip("\n"))
    tmp = index_path.with_name(".index.md.bench-tmp")
    tmp.write_text("\n".join(lines), encoding="utf-8")
    os.replace(tmp, index_path)
    return sid


def send_key(app, key: str) -> None:
    """Deliver one key press to the app the way its driver does."""
    from textual import events

    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    app._driver.send_message(event)


async def run_child(kind: str, root: str, task: str, runs: int) -> dict:
    """Run one App headless and measure what task asks for."""
    app = build_app(kind, root)
    clock = FrameClock(app)
    report: dict = {}
    async with app.run_test(size=SIZE) as pilot:
        report["painted_at"] = await clock.until_painted()
        workers = task != "first_update"  # (the first update comes as soon as the rows are in: revisions go on)
        report["loaded_at"] = await until_loaded(app, workers=workers) if kind == "board" else report["painted_at"]
        report["peak_rss_mb"] = peak_rss_mb()
        if task in ("organize", "doctor"):
            report["plan_s"], report["preview_s"], report["rows_s"] = await preview_ready(app, pilot, task, clock)
            report["peak_rss_mb_end"] = peak_rss_mb()
        if task == "filter":
            if kind == "board":
                await pilot.press("slash")
            else:
                app.query_one("Input").focus()
            await pilot.pause()
            for box in app.query("Input"):
                box.cursor_blink = False  # a blinking cursor repaints on its own every half second
            await pilot.pause()
            per_key, settled = [], []
            for ch in FILTER_WORD:
                start = time.perf_counter()
                send_key(app, ch)
                last = await clock.until_quiet(start)
                table = clock.repaint_after(start) if kind == "board" else None
                per_key.append((last if table is None else table) * 1000)
                settled.append(last * 1000)
            report["settled_ms"] = settled
            text = screen_text(app)
            report["filter_ms"] = per_key
            shown = [line for line in text.splitlines() if ID_ON_SCREEN.search(line)]
            report["filter_rows_shown"] = len(shown)
            report["filter_input_ok"] = FILTER_WORD in text
            await clock.until_quiet(time.perf_counter(), quiet=0.3)
            report["peak_rss_mb_end"] = peak_rss_mb()
        elif task == "first_update":  # a root this machine's memboard has not seen: its first revisions go on now
            await pilot.press("slash", *APPEND_MARK, "enter")
            await pilot.pause()
            start = time.perf_counter()
            insert_row(Path(root) / "index.md", 0)
            report["first_update_ms"] = await clock.until_shown(append_topic(0), start) * 1000
        elif task == "append":
            await pilot.press("slash", *APPEND_MARK, "enter")
            await pilot.pause()
            waits = []
            for n in range(runs):
                start = time.perf_counter()
                insert_row(Path(root) / "index.md", n)
                waits.append(await clock.until_shown(append_topic(n), start) * 1000)
            report["append_ms"] = waits
    return report


async def until_loaded(app, limit: float = 600.0, workers: bool = True) -> float:
    """Wait until the board's model holds the whole index (its first paint may come from its head) and, with
    workers, its first read's worker has finished; the wall-clock moment."""
    deadline = time.monotonic() + limit
    while True:
        view = getattr(app, "sessions", None)  # the board's sessions view holds its model
        model = getattr(view, "model", None)
        if (
            model is not None
            and model.complete
            and not (workers and any(w.group == "reload" and not w.is_finished for w in app.workers))
        ):
            return time.time()
        if time.monotonic() > deadline:
            raise TimeoutError("the board never finished loading")
        await asyncio.sleep(0.005)


async def preview_ready(app, pilot, task: str, clock: FrameClock, limit: float = 600.0) -> tuple[float, float, float]:
    """Seconds from asking for an organize (its stale days confirmed) or doctor preview until its plan is made
    (the preview screen is created with it), until the first frame that shows that preview, and until the
    preview lists every row and holds the exact diff (a large index change is worked out after it shows)."""
    from memboard.board.screens import preview
    from memboard.board.screens.pickers import StaleDaysScreen

    made: list[float] = []
    original = preview.PreviewScreen.__init__

    def noting(self, *args, **kwargs) -> None:
        made.append(time.perf_counter())
        original(self, *args, **kwargs)

    preview.PreviewScreen.__init__ = noting
    deadline = time.monotonic() + limit
    start = time.perf_counter()
    if task == "organize":
        await pilot.press("o")
        while not isinstance(app.screen, StaleDaysScreen):
            if time.monotonic() > deadline:
                raise TimeoutError("the stale days question never showed")
            await asyncio.sleep(0.005)
        await pilot.pause()
        clock.watch = (preview.READABLE_TITLE, None)  # the changes' title: only a preview shows it
        start = time.perf_counter()
        await pilot.press("enter")
    else:
        clock.watch = (preview.READABLE_TITLE, None)
        await pilot.press("d")
    while clock.watch[1] is None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the {task} preview never showed (top screen {app.screen!r})")
        await asyncio.sleep(0.005)
    shown = clock.watch[1] - start
    while not isinstance(app.screen, preview.PreviewScreen) or app.screen.view.pending:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the {task} preview never listed its rows")
        await asyncio.sleep(0.005)
    listed = time.perf_counter() - start
    await pilot.pause()
    # cancel: the flow ends, writing nothing, before the app is taken down; escape in a preview reached from a
    # picker (organize's stale days) goes back to that picker, so escape again there
    await pilot.press("escape")
    while any(w.group == "flow" and not w.is_finished for w in app.workers):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the {task} flow never ended")
        if not isinstance(app.screen, preview.PreviewScreen) and app.screen is not app.screen_stack[0]:
            await pilot.press("escape")
        await asyncio.sleep(0.005)
    return made[0] - start, shown, listed


def child(kind: str, root: str, task: str, runs: int) -> None:
    """Process entry point: measure, print one JSON line, leave without teardown."""
    import asyncio

    report = asyncio.run(run_child(kind, root, task, runs))
    print(json.dumps(report))
    sys.stdout.flush()
    os._exit(0)


def spawn(
    kind: str, root: Path, state: Path, task: str = "paint", runs: int = 1, timeout: float = 600.0
) -> tuple[float, dict]:
    """Run one measuring process; (seconds from spawn to its first data frame, its report)."""
    env = bench_env(state, {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))})
    cmd = [sys.executable, "-m", "bench.board_figures", kind, str(root), task, str(runs)]
    spawned = time.time()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"{kind} {task} failed: {lines[-1] if lines else proc.returncode}")
    report = json.loads(proc.stdout.decode("utf-8").strip().splitlines()[-1])
    return report["painted_at"] - spawned, report


def board_available() -> bool:
    """Whether this build has the board App."""
    try:
        import importlib.util

        return importlib.util.find_spec("memboard.board.app") is not None
    except ImportError:
        return False


if __name__ == "__main__":
    child(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
