"""memboard benchmarks: `python bench/run.py [--quick] [--json PATH]`.

Generates memory roots of 1k, 10k and 100k rows (--quick: 1k and 10k), measures every
speed figure beside a baseline measured in the same run, prints one table and writes the
same figures as JSON (default bench/results.json). Whole-process figures are medians of
several runs; the ratios are what the targets mean, since absolute times on shared
machines vary by ±30-50%.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

if __package__ in (None, ""):
    # Run as `python bench/run.py`: import the bench package from the repository, not bench/.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import board_figures, cli_figures, lock_throughput
from bench.roots import RootCache
from bench.timing import BenchFailure, median

FULL_SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 10_000)
HOOK_TARGET_ROWS = 10_000
HOOK_TARGET_RATIO = 5.0
PAINT_TARGET_RATIO = 1.5
FILTER_TARGET_MS = 50.0
APPEND_TARGET_MS = 1000.0
DATATABLE_CAP_ROWS = 10_000
DATATABLE_QUICK_CAP_ROWS = 1_000
LOCK_PROCESSES = 8
LOCK_CAP_ROWS = 100_000


@dataclass
class Figure:
    """One line of the results table."""

    figure: str
    n: int | None
    value: float | None
    unit: str
    runs: int = 0
    baseline_name: str = ""
    baseline: float | None = None
    ratio: float | None = None
    target: str = ""
    passed: bool | None = None
    note: str = ""


class Results:
    """The figures of one benchmark run, printed as they come and saved as JSON."""

    def __init__(self, stream=sys.stdout):
        """Start an empty result set that echoes progress to stream."""
        self.figures: list[Figure] = []
        self.stream = stream

    def add(self, fig: Figure) -> Figure:
        """Record a figure and say it on stderr (the table comes at the end)."""
        self.figures.append(fig)
        print(f"  {fig.figure} @ {fig.n or '-'}: {fmt_value(fig.value, fig.unit)} {fig.note}".rstrip(), file=sys.stderr)
        return fig

    def unavailable(self, figure: str, n: int | None, why: str, target: str = "") -> Figure:
        """Record a figure that could not be measured, with the reason instead of a number."""
        return self.add(Figure(figure, n, None, "", target=target, note=f"not available ({why})"))


def fmt_value(value: float | None, unit: str) -> str:
    """A value in its display unit."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if unit == "s":
        return f"{value * 1000:.0f} ms"
    if unit == "ms":
        return f"{value:.1f} ms"
    if unit == "MiB":
        return f"{value:.0f} MiB"
    if unit == "rows":
        return f"{value:.0f}"
    return f"{value:g} {unit}".strip()


def ratio(value: float | None, baseline: float | None) -> float | None:
    """value / baseline, or None when either is missing."""
    if value is None or baseline in (None, 0) or math.isnan(value) or math.isnan(baseline):
        return None
    return value / baseline


def render_table(figures: list[Figure]) -> str:
    """The results as one fixed-width text table."""
    head = ("figure", "N", "median", "baseline", "ratio", "target", "result")
    rows = []
    for f in figures:
        base = f"{f.baseline_name} {fmt_value(f.baseline, f.unit)}".strip() if f.baseline_name else "-"
        result = "PASS" if f.passed else ("FAIL" if f.passed is False else "")
        value = fmt_value(f.value, f.unit) if f.value is not None else f.note
        runs = f" ×{f.runs}" if f.runs > 1 and f.value is not None else ""
        rows.append(
            (
                f.figure,
                f"{f.n:,}" if f.n else "-",
                value + runs,
                base,
                f"{f.ratio:.2f}×" if f.ratio is not None else "-",
                f.target or "-",
                result,
            )
        )
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    out = [line(head), line(tuple("-" * w for w in widths))]
    out += [line(r) for r in rows]
    notes = [f"- {f.figure} @ {f.n or '-'}: {f.note}" for f in figures if f.note and f.value is not None]
    if notes:
        out += ["", "notes:"] + notes
    return "\n".join(out)


def render_markdown(figures: list[Figure]) -> str:
    """The results as a Markdown table (for the README), notes folded into the last column."""
    out = ["| figure | N | median | baseline | ratio | target | result |", "|---|--:|--:|---|--:|---|---|"]
    for f in figures:
        base = f"{f.baseline_name} {fmt_value(f.baseline, f.unit)}".strip() if f.baseline_name else "–"
        value = fmt_value(f.value, f.unit) if f.value is not None else f.note
        result = "PASS" if f.passed else ("FAIL" if f.passed is False else "")
        cells = [
            f.figure,
            f"{f.n:,}" if f.n else "–",
            value + (f" ×{f.runs}" if f.runs > 1 and f.value is not None else ""),
            base,
            f"{f.ratio:.2f}×" if f.ratio is not None else "–",
            f.target or "–",
            result,
        ]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    notes = [f"- {f.figure} @ {f'{f.n:,}' if f.n else '–'}: {f.note}" for f in figures if f.note and f.value is not None]
    return "\n".join(out + ([""] + notes if notes else []))


# -- figures ------------------------------------------------------------------------------


def cli_section(results: Results, cache: RootCache, sizes, runs: int, state: Path, warmup: bool) -> None:
    """Whole-process figures of the CLI (and the hook), each vs `python -c pass` run beside it."""
    print("CLI whole-process figures", file=sys.stderr)
    hook_mod = bench_module("hook", "measure")
    hook_cli = hook_mod is None and cli_figures.has_command("hook", state)
    imp, base = cli_figures.measure_import(state, runs, warmup)
    results.add(Figure("python -c pass", None, median(base), "s", runs, note="the baseline; each figure below runs it beside itself"))
    results.add(Figure("python -c 'import memboard.cli'", None, median(imp), "s", runs, "python -c pass", median(base), ratio(median(imp), median(base))))
    for n in sizes:
        if hook_mod is not None:
            hook_figures(results, hook_mod, cache, n, min(runs, cli_figures.BIG_ROOT_RUNS) if n >= cli_figures.BIG_ROOT_ROWS else runs)
        elif not hook_cli:
            results.unavailable("memboard hook claude", n, "hook not built yet", hook_target(n))
        try:
            times = cli_figures.measure_commands(cache, n, runs, state, include_hook=hook_cli, warmup=warmup)
        except BenchFailure as exc:
            results.unavailable("memboard CLI", n, str(exc))
            continue
        for name, (values, base_values) in times.items():
            value, pass_s = median(values), median(base_values)
            r = ratio(value, pass_s)
            fig = Figure(name, n, value, "s", len(values), "python -c pass", pass_s, r)
            if name == "memboard hook claude":
                fig.target = hook_target(n)
                if n == HOOK_TARGET_ROWS and r is not None:
                    fig.passed = r <= HOOK_TARGET_RATIO
            results.add(fig)


def bench_module(name: str, *needs: str):
    """Another helper's bench module (bench/<name>.py) if it is present and has `needs`, else None."""
    try:
        mod = importlib.import_module(f"bench.{name}")
    except ImportError:
        return None
    return mod if all(hasattr(mod, attr) for attr in needs) else None


def hook_figures(results: Results, hook_mod, cache: RootCache, n: int, runs: int) -> None:
    """The hook's figures from bench/hook.py's measure(), run on this run's generated root."""
    if hasattr(hook_mod, "make_root"):
        # Same rows as every other figure: bench/hook.py builds its root through make_root.
        hook_mod.make_root = lambda folder, rows: Path(shutil.copytree(cache.get(rows).path, folder, dirs_exist_ok=True))
    rep = hook_mod.measure(n, runs)
    pass_s = rep["python_pass_s"]
    for key, label in (("hook_new_s", "memboard hook claude (new chat)"), ("hook_resume_s", "memboard hook claude (resume)")):
        if key not in rep:
            continue
        r = ratio(rep[key], pass_s)
        fig = Figure(label, n, rep[key], "s", rep.get("runs", runs), "python -c pass", pass_s, r, hook_target(n))
        if n == HOOK_TARGET_ROWS and r is not None:
            fig.passed = r <= HOOK_TARGET_RATIO
        results.add(fig)


def hook_target(n: int) -> str:
    """The hook's target text at n rows (the target is set at 10k rows; others are reported)."""
    return f"≤ {HOOK_TARGET_RATIO:g}×" if n == HOOK_TARGET_ROWS else "(report)"


def board_section(results: Results, cache: RootCache, sizes, runs: int, state: Path, quick: bool) -> None:
    """Board figures: first paint vs a bare app and vs DataTable; filter; external append; memory."""
    print("board figures", file=sys.stderr)
    have_board = board_figures.board_available()
    why = "board not built yet"
    paint_target = f"≤ {PAINT_TARGET_RATIO:g}× bare"
    for n in sizes:
        root = cache.get(n).path
        dt_cap = DATATABLE_QUICK_CAP_ROWS if quick else DATATABLE_CAP_ROWS
        dt_runs = (runs if n <= 1_000 else min(runs, 3)) if n <= dt_cap else 0
        contenders = {"bare": runs, "datatable": dt_runs, "board": runs if have_board else 0}
        paints: dict[str, list[float]] = {k: [] for k in contenders}
        mems: dict[str, list[float]] = {k: [] for k in contenders}
        for i in range(runs):  # interleaved, so a burst of load hits every contender alike
            for kind, count in contenders.items():
                if i < count:
                    seconds, rep = board_figures.spawn(kind, root, state)
                    paints[kind].append(seconds)
                    mems[kind].append(rep["peak_rss_mb"])
        bare_s, bare_mem = median(paints["bare"]), median(mems["bare"])
        results.add(Figure("bare Textual app first paint", n, bare_s, "s", runs, note="baseline: reads index.md, splits lines, shows 40"))
        dt_s = None
        if dt_runs:
            dt_s = median(paints["datatable"])
            results.add(Figure("DataTable all rows first paint", n, dt_s, "s", dt_runs, "bare app", bare_s, ratio(dt_s, bare_s), note="for the record"))
        else:
            why_dt = "skipped in --quick above 1k rows" if quick and n <= DATATABLE_CAP_ROWS else f"skipped above {DATATABLE_CAP_ROWS // 1000}k rows: tens of seconds"
            results.unavailable("DataTable all rows first paint", n, why_dt)
        if not have_board:
            results.unavailable("board first paint", n, why, paint_target)
        else:
            paint_s = median(paints["board"])
            r = ratio(paint_s, bare_s)
            results.add(Figure("board first paint", n, paint_s, "s", runs, "bare app", bare_s, r, paint_target, r is not None and r <= PAINT_TARGET_RATIO))
            if dt_s is not None:
                results.add(Figure("board first paint vs DataTable", n, paint_s, "s", runs, "DataTable", dt_s, ratio(paint_s, dt_s), note="for the record"))
        if n != max(sizes):
            continue
        note = "" if n >= 100_000 else "the filter target is set at 100k rows"
        if not have_board:
            results.unavailable("filter keystroke → repaint", n, why, f"≤ {FILTER_TARGET_MS:g} ms")
            results.unavailable("external append → on board", n, why, f"≤ {APPEND_TARGET_MS:g} ms")
            results.unavailable("board peak memory", n, why)
            continue
        board_interaction(results, cache, n, runs, state, bare_mem, note)


def board_crosscheck(results: Results, sizes, state: Path, quick: bool) -> None:
    """The board helper's own measurements (bench/board.py, its own index, best of 5) beside ours."""
    own = bench_module("board", "first_paint", "filter_keystroke", "external_append", "peak_memory")
    label = "bench/board.py"
    if own is None:
        return
    if quick:
        results.unavailable(f"board first paint ({label})", None, "cross-check skipped in --quick")
        return
    work = Path(tempfile.mkdtemp(prefix="board-crosscheck-", dir=state))
    note = "cross-check: bench/board.py's own index and clock (from the child's first line of Python, best of 5)"
    for n in sizes:
        fp = own.first_paint(n, work, datatable=False)
        results.add(Figure(f"board first paint ({label})", n, fp["board"], "s", 5, "its bare app", fp["bare"], fp["ratio"], note=note))
    big = max(sizes)
    fk = own.filter_keystroke(big, work)
    results.add(Figure(f"filter keystroke ({label})", big, fk["median"] * 1000, "ms", len(fk["keystrokes"]), note=f"cross-check: typing 'topic 77' into the box directly; worst {fk['max'] * 1000:.0f} ms"))
    ap = own.external_append(big, work)
    results.add(Figure(f"external append ({label})", big, ap["append_to_shown"] * 1000, "ms", 1, note="cross-check: one in-place append (open 'a') at the end of the table"))
    results.add(Figure(f"board peak memory ({label})", big, own.peak_memory(big, work), "MiB", 1, note="cross-check: RSS after first paint and full load"))
    shutil.rmtree(work, ignore_errors=True)


def board_interaction(results: Results, cache: RootCache, n: int, runs: int, state: Path, bare_mem: float, note: str) -> None:
    """Filter keystroke, external append and peak memory of the board at n rows."""
    root = cache.get(n).path
    _, echo = board_figures.spawn("input", root, state, "filter")
    echo_ms = median(echo["filter_ms"])
    keys, settled, ends = [], [], []
    for _ in range(max(1, runs // 2)):
        _, rep = board_figures.spawn("board", root, state, "filter")
        keys += rep["filter_ms"]
        settled += rep["settled_ms"]
        ends.append(rep["peak_rss_mb_end"])
        if not rep["filter_input_ok"]:
            note = (note + "; " if note else "") + "the filter box did not show the typed text"
    filt = median(keys)
    how = (
        f"typing {board_figures.FILTER_WORD!r}: key to the frame that repaints the table; "
        f"worst {max(keys):.0f} ms; until the last frame (pane too) median {median(settled):.0f} ms"
    )
    results.add(
        Figure("filter keystroke → repaint", n, filt, "ms", len(keys), "Input echo", echo_ms, ratio(filt, echo_ms), f"≤ {FILTER_TARGET_MS:g} ms", filt <= FILTER_TARGET_MS, "; ".join(filter(None, [note, how])))
    )
    work = cache.copy(n)
    _, rep = board_figures.spawn("board", work, state, "append", runs)
    shutil.rmtree(work, ignore_errors=True)
    app_ms = median(rep["append_ms"])
    results.add(
        Figure("external append → on board", n, app_ms, "ms", runs, target=f"≤ {APPEND_TARGET_MS:g} ms", passed=app_ms <= APPEND_TARGET_MS,
               note=f"worst {max(rep['append_ms']):.0f} ms; the row is written by another process, whole file, atomic rename")
    )
    mem = median(ends)
    results.add(Figure("board peak memory", n, mem, "MiB", len(ends), "bare app", bare_mem, ratio(mem, bare_mem), note="peak RSS after loading and filtering"))


def lock_section(results: Results, cache: RootCache, sizes, per_process: int, state: Path, quick: bool) -> None:
    """Lock figures: 8 processes registering at once; p50/p99 wait and rows lost."""
    print("lock figures", file=sys.stderr)
    for n in sizes:
        if n > LOCK_CAP_ROWS:
            results.unavailable("lock wait (8 writers)", n, f"skipped above {LOCK_CAP_ROWS // 1000}k rows: each write holds the lock for seconds")
            continue
        if quick and n != min(sizes):
            results.unavailable("lock wait (8 writers)", n, "skipped in --quick")
            continue
        root = cache.copy(n)
        k = per_process if n <= 1_000 else max(2, per_process // 2)
        rep = lock_throughput.measure(root, state, LOCK_PROCESSES, k)
        shutil.rmtree(root, ignore_errors=True)
        how = f"{LOCK_PROCESSES} processes × {k} registrations, {rep['per_second']:.1f} registrations/s, {rep['failed']} failed"
        hold = rep["hold_p50"]
        results.add(Figure("lock wait p50 (8 writers)", n, rep["wait_p50"], "s", rep["registrations"], "lock hold p50", hold, ratio(rep["wait_p50"], hold), note=how))
        results.add(Figure("lock wait p99 (8 writers)", n, rep["wait_p99"], "s", rep["registrations"], "lock hold p50", hold, ratio(rep["wait_p99"], hold)))
        results.add(
            Figure(
                "rows lost (8 writers)",
                n,
                float(rep["rows_lost"]),
                "rows",
                rep["registrations"],
                target="= 0",
                passed=rep["rows_lost"] == 0 and rep["duplicated"] == 0 and rep["failed"] == 0,
                note=f"{rep['rows_before']:,} + {rep['registrations']} registered → {rep['rows_after']:,} rows, {rep['duplicated']} duplicated",
            )
        )


# -- driver -------------------------------------------------------------------------------


def parse_args(argv=None):
    """Command-line options."""
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description="Run memboard's benchmarks and print every figure beside its baseline.")
    p.add_argument("--quick", action="store_true", help="only 1k and 10k rows, fewer runs (about a minute on 2 cores)")
    p.add_argument("--json", metavar="PATH", default=str(here / "results.json"), help="where to write the figures as JSON (default bench/results.json)")
    p.add_argument("--runs", type=int, help="runs per whole-process figure (default 7, --quick 5)")
    p.add_argument("--sizes", help="comma-separated row counts instead of the defaults")
    p.add_argument("--only", choices=["cli", "board", "lock"], action="append", help="run only these sections")
    p.add_argument("--markdown", action="store_true", help="also print the table as Markdown (for the README)")
    p.add_argument("--keep", metavar="DIR", help="generate the roots in DIR and keep them")
    return p.parse_args(argv)


def main(argv=None) -> int:
    """Run the benchmarks, print the table, write the JSON."""
    args = parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else (QUICK_SIZES if args.quick else FULL_SIZES)
    runs = args.runs or (5 if args.quick else 7)
    board_runs = 3 if args.quick else 5
    sections = args.only or ["cli", "board", "lock"]
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memboard-bench-"))
    state = base / "state"
    cache = RootCache(base / "roots")
    results = Results()
    started = time.time()
    try:
        print(f"generating roots {', '.join(f'{n:,}' for n in sizes)} rows in {base}", file=sys.stderr)
        for n in sizes:
            cache.get(n)
        if "cli" in sections:
            cli_section(results, cache, sizes, runs, state, warmup=not args.quick)
        if "board" in sections:
            board_section(results, cache, sizes, board_runs, state, args.quick)
            board_crosscheck(results, sizes, state, args.quick)
        if "lock" in sections:
            lock_section(results, cache, sizes, 5 if args.quick else 10, state, args.quick)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    duration = time.time() - started
    print()
    print(render_table(results.figures))
    if args.markdown:
        print()
        print(render_markdown(results.figures))
    failed = [f for f in results.figures if f.passed is False]
    print(f"\n{len(results.figures)} figures in {duration:.0f} s; {len(failed)} target(s) missed")
    meta = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "quick": args.quick,
        "runs": runs,
        "board_runs": board_runs,
        "sizes": list(sizes),
        "memboard": " ".join(cli_figures.memboard_cmd()),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "seconds": round(duration, 1),
        "roots": {str(n): {k: v for k, v in asdict(m).items() if k in ("rows", "cjk_rows", "pipe_rows", "referenced_rows", "index_bytes")} | {"snapshots": len(m.snapshots)} for n, m in cache.manifests.items()},
    }
    payload = {"meta": meta, "figures": [asdict(f) for f in results.figures]}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(payload, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
