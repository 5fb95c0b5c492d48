"""memboard benchmarks: `python bench/run.py [--quick] [--json PATH]`.

Generates memory roots of 1k, 10k and 100k rows (--quick: 1k and 10k) of two kinds (a, the
bench's own; b, issue 29's), measures every speed figure beside a baseline measured in the same
run, prints one table and writes the same figures as JSON (default bench/results.json). One full
run prints every target of issue 29 beside its figure: the commands at every size and their
growth (cli), the commands at 1M rows with their peak memory and growth from 100k and the search
cache's build to 1M (million, few runs: not with --quick), the search targets (search, through
bench/search_targets.py), the MCP start-of-work calls (agents, through bench/mcp_context.py), the
board and the lock. Whole-process figures are medians of several runs; the ratios are what the
targets mean, since absolute times on shared machines vary by ±30-50%.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path

if __package__ in (None, ""):
    # Run as `python bench/run.py`: import the bench package from the repository, not bench/.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import board_figures, cli_figures, killed_build, lock_throughput, million, search_targets
from bench.notes import write_notes
from bench.roots import RootCache
from bench.timing import BenchFailure, median

FULL_SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 10_000)
TARGET_ROWS = 100_000  # where the targets of the commands, the board's memory and its organize plan are set
TARGETS = {  # command: (largest ratio to the floor at TARGET_ROWS, as the table says it), on every kind of root
    "memboard doctor": (20.0, "≤ 20× floor"),
    "memboard doctor --json": (20.0, "≤ 20× floor"),
    "memboard organize": (12.0, "≤ 12× floor"),
    "memboard organize --dry-run": (12.0, "≤ 12× floor"),
    "memboard organize --dry-run (Continues From record kept)": (12.0, "≤ 12× floor"),
    "memboard list --json": (12.0, "≤ 12× floor"),
    "memboard update ID --summary x": (6.0, "≤ 6× floor"),
    "memboard archive --dry-run": (4.0, "≤ 4× floor"),
    "memboard archive": (4.0, "≤ 4× floor"),
    "memboard register": (4.0, "≤ 4× floor"),
}
SMALL_ROWS = 1_000
SMALL_TARGETS = {  # a command that reads one snapshot, at SMALL_ROWS (issue 29)
    "memboard update ID --summary x": (4.0, "≤ 4× floor"),
    "memboard show": (4.0, "≤ 4× floor"),
}
PIPES_LIMIT = 1.3  # root b over the same root without its escaped pipes
KINDS = {"a": "", "b": " · root b"}  # the kinds of root measured, and how their figures are named
HOOK_OWN_MS = {10_000: 25.0, 100_000: 60.0}  # the hook's own cost (its time minus `import filelock`)
SEARCH_LIMIT = 2.0  # memboard search on an up-to-date cache, × python -c pass
GROWTH_LIMIT = 12.0  # a command's time at 100k over its time at 10k, and at 1M over 100k
BIG_ROWS = million.BIG_ROWS  # the large section's size: issue 29's memory target and growth to 1M rows
BIG_RUNS = 1  # runs per command at BIG_ROWS (a 1M-row doctor takes half a minute)
BIG_MEMORY_MIB = 1e9 / 2**20  # 1 GB: no command above it at BIG_ROWS
BUILD_LIMIT = 2.0  # the search cache's build over its floor (bench/search_floor.py)
BUILD_KINDS = ("b",)  # the roots whose build is measured at 1M rows (1.5 min a build on 2 cores, and its floor)
NOTES = 10_000  # typed notes beside the rows of the search and agents sections (issue 29: 10k notes, 100k rows)
AGENT_TARGET_MS = 100.0  # a served start-of-work call, warm
AGENT_TARGETS = (  # bench/mcp_context.py's calls held to it (mem_search: the search section's, on a warm cache)
    "session_context",
    "mem_context",
    "mem_context (a project)",
    "session_context, one note changed",
    "session_context, a row appended",
)
AGENT_NOTES = {
    "mem_search": "for the record: right after the server starts, the cache may still be building beside it "
    "(the target is the search section's mem_search, on a warm cache)",
}
PAINT_TARGET_RATIO = 1.5
MEMORY_TARGET_RATIO = 1.6
PLAN_TARGET_S = 2.0
FILTER_TARGET_MS = 50.0
APPEND_TARGET_MS = 1000.0
LOCK_PROCESSES = 8
LOCK_CAP_ROWS = 100_000
SECTIONS = ("cli", "million", "search", "agents", "board", "lock")  # in the order a full run measures them


@dataclass
class Figure:
    """One line of the results table: a median of runs, its spread, and what it is held to."""

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
    low: float | None = None  # the fastest and slowest run
    high: float | None = None
    cpu: float | None = None  # median CPU seconds of the command's own process
    peak_mb: float | None = None  # the command's own peak resident memory (largest of its runs)
    load: float | None = None  # the 1-minute load average while it ran (median)
    cpu_ratio: float | None = None  # median CPU seconds over the baseline's (steadier than wall time on a busy machine)


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
    if unit == "MB":
        return f"{value:.1f} MB"
    if unit == "rows":
        return f"{value:.0f}"
    if unit == "×":
        return f"{value:.2f}×"
    return f"{value:g} {unit}".strip()


def ratio(value: float | None, baseline: float | None) -> float | None:
    """value / baseline, or None when either is missing."""
    if value is None or baseline in (None, 0) or math.isnan(value) or math.isnan(baseline):
        return None
    return value / baseline


def _spread(f: Figure) -> str:
    """The fastest and slowest run, when there are several."""
    if f.low is None or f.high is None or f.runs < 2:
        return ""
    return f"{fmt_value(f.low, f.unit)}–{fmt_value(f.high, f.unit)}"


def _cells(f: Figure, dash: str) -> tuple[str, ...]:
    """A figure's cells, in the order of HEAD."""
    base = f"{f.baseline_name} {fmt_value(f.baseline, f.unit)}".strip() if f.baseline_name else dash
    result = "PASS" if f.passed else ("FAIL" if f.passed is False else "")
    value = fmt_value(f.value, f.unit) if f.value is not None else f.note
    runs = f" ×{f.runs}" if f.runs > 1 and f.value is not None else ""
    return (
        f.figure,
        f"{f.n:,}" if f.n else dash,
        value + runs,
        _spread(f) or dash,
        f"{f.cpu * 1000:.0f} ms" if f.cpu is not None else dash,
        f"{f.peak_mb:.0f} MiB" if f.peak_mb is not None else dash,
        f"{f.load:.1f}" if f.load is not None else dash,
        base,
        f"{f.ratio:.2f}×" if f.ratio is not None else dash,
        f"{f.cpu_ratio:.2f}×" if f.cpu_ratio is not None else dash,
        f.target or dash,
        result,
    )


HEAD = ("figure", "N", "median", "min–max", "CPU", "peak", "load", "baseline", "ratio", "CPU ratio", "target", "result")


def render_table(figures: list[Figure]) -> str:
    """The results as one fixed-width text table."""
    rows = [_cells(f, "-") for f in figures]
    widths = [max(len(str(r[i])) for r in rows + [HEAD]) for i in range(len(HEAD))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    out = [line(HEAD), line(tuple("-" * w for w in widths))]
    out += [line(r) for r in rows]
    notes = [f"- {f.figure} @ {f.n or '-'}: {f.note}" for f in figures if f.note and f.value is not None]
    if notes:
        out += ["", "notes:"] + notes
    return "\n".join(out)


def render_markdown(figures: list[Figure]) -> str:
    """The results as a Markdown table (for docs/benchmarks.md), notes below it."""
    out = ["| " + " | ".join(HEAD) + " |", "|---|--:|--:|--:|--:|--:|--:|---|--:|--:|---|---|"]
    for f in figures:
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in _cells(f, "–")) + " |")
    notes = [
        f"- {f.figure} @ {f'{f.n:,}' if f.n else '–'}: {f.note}" for f in figures if f.note and f.value is not None
    ]
    return "\n".join(out + ([""] + notes if notes else []))


def failures(figures: list[Figure]) -> list[str]:
    """One named line per missed target; growth past GROWTH_LIMIT is a FAILURE."""
    out = []
    for f in figures:
        if f.passed is not False:
            continue
        where = f" @ {f.n:,}" if f.n else ""
        kind = "FAILURE" if f.figure.startswith("growth") else "missed"
        out.append(f"{kind}: {f.figure}{where}: {fmt_value(f.value, f.unit)} (target {f.target})")
    return out


# -- figures ------------------------------------------------------------------------------


def command_figure(name: str, n: int, m: cli_figures.Measured) -> Figure:
    """A command's figure: the median of its runs beside the median of the baseline run before each."""
    walls, base = [s.wall for s in m.samples], [s.wall for s in m.base]
    value, b = median(walls), median(base)
    cpu = median([s.cpu for s in m.samples])
    return Figure(
        name,
        n,
        value,
        "s",
        len(walls),
        m.baseline,
        b,
        ratio(value, b),
        low=min(walls),
        high=max(walls),
        cpu=cpu,
        peak_mb=max(s.peak_mb for s in m.samples),
        load=median(m.loads),
        cpu_ratio=ratio(cpu, median([s.cpu for s in m.base])),
    )


def hold(fig: Figure, n: int, at: int, limit: float, text: str) -> None:
    """Hold fig's ratio to limit when n is the size the target is set at."""
    if n == at and fig.ratio is not None:
        fig.target, fig.passed = text, fig.ratio <= limit


def cli_section(
    results: Results, caches: dict[str, RootCache], sizes, runs: int, state: Path, warmup: bool
) -> dict[str, dict[int, dict[str, Figure]]]:
    """Whole-process figures of every command at every size on every kind of root; by kind, size and name (for
    the growth figures)."""
    print("CLI whole-process figures", file=sys.stderr)
    alone = cli_figures.measure_baselines(state, runs)
    pass_s = median([s.wall for s in alone["python -c pass"]])
    interpreter_mb = max(s.peak_mb for s in alone["python -c pass"])
    for name, samples in alone.items():
        fig = samples_figure(name, None, samples, load=os.getloadavg()[0])
        if name != "python -c pass":
            fig.baseline_name, fig.baseline, fig.ratio = "python -c pass", pass_s, ratio(fig.value, pass_s)
        results.add(fig)
    out = {}
    for kind, cache in caches.items():
        if kind in KINDS:
            out[kind] = cli_kind(results, cache, KINDS[kind], sizes, runs, state, warmup, interpreter_mb)
    if "b" in caches and "b-nopipe" in caches:
        pipes_section(results, caches["b"], caches["b-nopipe"], max(sizes), runs, state)
    return out


def samples_figure(name: str, n: int | None, samples: list, **extra) -> Figure:
    """A figure of whole-process runs: the median of their wall times, its spread, their CPU and peak memory."""
    walls = [s.wall for s in samples]
    return Figure(
        name,
        n,
        median(walls),
        "s",
        len(walls),
        low=min(walls),
        high=max(walls),
        cpu=median([s.cpu for s in samples]),
        peak_mb=max(s.peak_mb for s in samples),
        **extra,
    )


def floor_figure(name: str, n: int, floors: list) -> Figure:
    """The floor's own figure: its runs (one before each run of a command)."""
    return samples_figure(
        name, n, floors, note="python -c \"open(p,'rb').read().split(b'\\n')\": the baseline of the commands below"
    )


def cli_kind(
    results: Results, cache: RootCache, suffix: str, sizes, runs: int, state: Path, warmup: bool, interpreter_mb: float
) -> dict[int, dict[str, Figure]]:
    """Every command at every size on one kind of root (its figures named with suffix)."""
    by_size: dict[int, dict[str, Figure]] = {}
    for n in sizes:
        try:
            measured = cli_figures.measure_commands(cache, n, runs, state, warmup=warmup)
        except BenchFailure as exc:
            results.unavailable("memboard CLI" + suffix, n, str(exc))
            continue
        results.add(floor_figure("floor: read + split index.md" + suffix, n, measured["memboard list --json"].base))
        figs = by_size[n] = {}
        for name, m in measured.items():
            fig = figs[name] = command_figure(name + suffix, n, m)
            if name in TARGETS:
                limit, text = TARGETS[name]
                hold(fig, n, TARGET_ROWS, limit, text)
            if name in SMALL_TARGETS:
                limit, text = SMALL_TARGETS[name]
                hold(fig, n, SMALL_ROWS, limit, text)
            if name.startswith("memboard search (warm"):
                hold(fig, n, n, SEARCH_LIMIT, f"≤ {SEARCH_LIMIT:g}× python -c pass")
            results.add(fig)
            if name.startswith("memboard hook claude (new chat)"):
                hook_own(results, n, m, suffix, name)
        listing = figs.get("memboard list --json")
        if listing is not None and n == TARGET_ROWS:
            index_mb = cache.get(n).index_bytes / (1024 * 1024)
            allowed = 3 * index_mb + interpreter_mb
            results.add(
                Figure(
                    "memboard list --json peak memory" + suffix,
                    n,
                    listing.peak_mb,
                    "MiB",
                    listing.runs,
                    "3× index.md + python -c pass",
                    allowed,
                    ratio(listing.peak_mb, allowed),
                    "≤ 1×",
                    (listing.peak_mb or 0) <= allowed,
                    note=f"index.md is {index_mb:.0f} MiB",
                )
            )
    return by_size


def pipes_section(results: Results, piped: RootCache, plain: RootCache, n: int, runs: int, state: Path) -> None:
    """What escaped pipes cost: root b beside the same root without them, run by run in turn."""
    try:
        measured = cli_figures.measure_pipes(piped, plain, n, runs, state)
    except BenchFailure as exc:
        results.unavailable("escaped pipes", n, str(exc))
        return
    for name, m in measured.items():
        fig = command_figure(f"escaped pipes: memboard {name} · root b", n, m)
        fig.target, fig.passed = f"≤ {PIPES_LIMIT:g}× without", fig.ratio is not None and fig.ratio <= PIPES_LIMIT
        fig.note = "a third of the Summaries hold `\\|`; the baseline is the same root with plain Summaries"
        results.add(fig)


def hook_own(
    results: Results, n: int, m: cli_figures.Measured, suffix: str = "", name: str = "memboard hook claude (new chat)"
) -> None:
    """The hook's own cost (of the series name): each run's time minus `import filelock` run just before it."""
    own = [s.wall - b.wall for s, b in zip(m.samples, m.base)]
    own_cpu = median([s.cpu - b.cpu for s, b in zip(m.samples, m.base)])
    target = HOOK_OWN_MS.get(n)
    fig = Figure(
        name + ": own cost" + suffix,
        n,
        median(own) * 1000,
        "ms",
        len(own),
        low=min(own) * 1000,
        high=max(own) * 1000,
        cpu=own_cpu,
        load=median(m.loads),
        note='each run\'s whole process minus `python -c "import filelock"` run just before it (CPU: the same difference)',
    )
    if target is not None:
        fig.target, fig.passed = f"≤ {target:g} ms", fig.value is not None and fig.value <= target
    results.add(fig)


def rows_label(n: int) -> str:
    """A row count as the figures' names say it: 10k, 100k, 1M."""
    return f"{n // 1_000_000:g}M" if n >= 1_000_000 and n % 1_000_000 == 0 else f"{n / 1000:g}k"


def growth_section(
    results: Results, by_size: dict[int, dict[str, Figure]], small: int, big: int, suffix: str = ""
) -> None:
    """Each command's time at big rows over its time at small: a growth past GROWTH_LIMIT is a FAILURE."""
    if small not in by_size or big not in by_size:
        return
    scale = big / small
    for name, fig in by_size[big].items():
        before = by_size[small].get(name)
        if before is None or before.value is None or fig.value is None:
            continue
        grown = fig.value / before.value
        cpu = ratio(fig.cpu, before.cpu)
        results.add(
            Figure(
                f"growth {rows_label(small)} → {rows_label(big)}: {name}{suffix}",
                None,
                grown,
                "×",
                target=f"≤ {GROWTH_LIMIT:g}×",
                passed=grown <= GROWTH_LIMIT,
                note=f"{scale:g}× the rows: linear is {scale:g}×, a start-up bound command less"
                + (f"; CPU time grew {cpu:.2f}× (steadier on a busy machine)" if cpu is not None else ""),
                cpu_ratio=cpu,
            )
        )


def big_section(
    results: Results,
    caches: dict[str, RootCache],
    by_kind: dict[str, dict[int, dict[str, Figure]]],
    big: int,
    runs: int,
    state: Path,
) -> None:
    """At big rows (1M) on every kind of root: each command beside the floor, its peak memory (≤ 1 GB) and its
    growth from a tenth of big (100k; measured here too when the CLI section did not); then the search cache's build."""
    print(f"{rows_label(big)}-row figures", file=sys.stderr)
    for kind, cache in caches.items():
        if kind not in KINDS:
            continue
        suffix, by_size = KINDS[kind], by_kind.setdefault(kind, {})
        small = big // 10
        for n, count in ((small, max(3, runs)), (big, runs)):
            if not all(name in by_size.get(n, {}) for name in million.NAMES):
                by_size.setdefault(n, {}).update(big_commands(results, cache, n, count, state, big, suffix))
        growth_section(results, {n: by_size[n] for n in (small, big)}, small, big, suffix)
        if kind in BUILD_KINDS:
            build_figures(results, cache, big, state, suffix)


def big_commands(
    results: Results, cache: RootCache, n: int, runs: int, state: Path, big: int, suffix: str
) -> dict[str, Figure]:
    """million.COMMANDS at n rows, each beside the floor; at big rows each command's peak memory too."""
    try:
        measured = million.measure_commands(cache, n, runs, state)
    except BenchFailure as exc:
        results.unavailable("memboard CLI" + suffix, n, str(exc))
        return {}
    floors = measured["memboard list --json"].base
    results.add(floor_figure("floor: read + split index.md" + suffix, n, floors))
    floor_mb = max(s.peak_mb for s in floors)
    figs = {}
    for name, m in measured.items():
        fig = figs[name] = command_figure(name + suffix, n, m)
        if name in TARGETS:
            hold(fig, n, TARGET_ROWS, *TARGETS[name])
        fig.note = f"{fig.runs} run{'s' if fig.runs > 1 else ''}, no warm-up run (--million-runs)" if n == big else ""
        results.add(fig)
        if n == big:
            peak = fig.peak_mb or 0.0
            results.add(
                Figure(
                    f"{name} peak memory{suffix}",
                    n,
                    peak,
                    "MiB",
                    fig.runs,
                    "floor",
                    floor_mb,
                    ratio(peak, floor_mb),
                    f"≤ 1 GB ({BIG_MEMORY_MIB:.0f} MiB)",
                    peak <= BIG_MEMORY_MIB,
                )
            )
    return figs


def build_figures(results: Results, cache: RootCache, big: int, state: Path, suffix: str) -> None:
    """The search cache's build (whole process, from no cache) beside its floor at a tenth of big and at big rows
    (target ≤ 2× at each), and its growth between them (linear: ≤ GROWTH_LIMIT for 10× the rows)."""
    walls, cpus, small = {}, {}, big // 10
    for n in (small, big):
        print(f"    search cache build @ {n:,}", file=sys.stderr, flush=True)
        try:
            build, floor = million.build_and_floor(cache.get(n).path, state / f"build-{cache.kind}-{n}")
        except BenchFailure as exc:
            results.unavailable("search cache build" + suffix, n, str(exc))
            return
        walls[n], cpus[n] = build.wall, build.cpu
        results.add(
            Figure(
                "search cache build (whole process) / its floor" + suffix,
                n,
                build.wall,
                "s",
                1,
                "bench/search_floor.py",
                floor.wall,
                ratio(build.wall, floor.wall),
                f"≤ {BUILD_LIMIT:g}× floor" if n >= TARGET_ROWS else "",
                build.wall <= BUILD_LIMIT * floor.wall if n >= TARGET_ROWS else None,
                ""
                if n < big
                else "one run each, no notes beside the rows (held from 100k rows: below, start-up counts)",
                cpu=build.cpu,
                peak_mb=build.peak_mb,
                load=os.getloadavg()[0],
                cpu_ratio=ratio(build.cpu, floor.cpu),
            )
        )
    grown, cpu = walls[big] / walls[small], ratio(cpus[big], cpus[small])
    results.add(
        Figure(
            f"growth {rows_label(small)} → {rows_label(big)}: search cache build{suffix}",
            None,
            grown,
            "×",
            target=f"≤ {GROWTH_LIMIT:g}×",
            passed=grown <= GROWTH_LIMIT,
            note=f"{big / small:g}× the rows: linear is {big / small:g}×; CPU time grew {cpu:.2f}×",
            cpu_ratio=cpu,
        )
    )


def search_section(results: Results, caches: dict[str, RootCache], n: int, notes: int, runs: int, state: Path) -> None:
    """Issue 29's search targets on every kind of root, as bench/search_targets.py measures and judges them: the
    first search with no cache (within 1 s, the build beside it), the build beside its floor, warm whole-process
    search from a wheel install with --root after and before the command, mem_search over MCP on a warm cache.
    On a copy of each root with `notes` typed notes beside its rows."""
    print("search figures", file=sys.stderr)
    try:
        with contextlib.redirect_stdout(sys.stderr):  # (search_targets prints its lines as it goes: progress here)
            mb = [str(search_targets.wheel_install(state / "wheel"))]
    except (OSError, subprocess.CalledProcessError, StopIteration) as exc:
        results.unavailable("search targets", n, f"no wheel install of this tree: {exc}")
        return
    for kind, cache in caches.items():
        if kind not in KINDS:
            continue
        root = cache.copy(n)
        write_notes(root, notes)
        where, found = state / f"search-targets-{kind}", []
        try:
            killed_figure(results, root, where, mb, n, KINDS[kind])
            with contextlib.redirect_stdout(sys.stderr):
                found += search_targets.first_figures(root, where, mb)
                found += search_targets.warm_figures(root, where, mb, runs)
                found += search_targets.mcp_figures(root, where, mb, runs)
        except (BenchFailure, SystemExit, RuntimeError) as exc:
            results.unavailable("search targets" + KINDS[kind], n, str(exc))
        finally:
            shutil.rmtree(root, ignore_errors=True)
        for line in found:
            results.add(judged(f"search: {line['figure']}{KINDS[kind]}", n, line, f"{notes:,} notes beside the rows"))


def killed_figure(results: Results, root: Path, state: Path, mb: list[str], n: int, suffix: str) -> None:
    """A build killed mid-way leaves nothing behind: files left once its supervisor had time to clean up (= 0)."""
    left, how = killed_build.measure(root, state, mb)
    name = "search: a killed build leaves nothing behind" + suffix
    if left is None:
        results.unavailable(name, n, how, "= 0 files left")
        return
    results.add(Figure(name, n, float(left), "files", 1, target="= 0", passed=left == 0, note=how))


def judged(name: str, n: int, line: dict, where: str) -> Figure:
    """A figure another bench module printed and judged ({"value": "0.79 s" / "1.88×" / "40 ms", "target", "result",
    "note"}) as one of the table's; a value in another form is kept as text in the note."""
    found = re.fullmatch(r"([\d.,]+)\s*(ms|s|×)", line.get("value", "").strip())
    value = float(found[1].replace(",", "")) if found else None
    unit = found[2] if found else ""
    passed = {"PASS": True, "FAIL": False}.get(line.get("result", ""))
    note = "; ".join(filter(None, [line.get("note", ""), where, "" if found else f"value {line.get('value')!r}"]))
    return Figure(
        name, n, value, unit, target=line.get("target", ""), passed=passed, note=note, load=os.getloadavg()[0]
    )


def agents_section(results: Results, n: int, notes: int, runs: int) -> None:
    """Issue 29's agents targets, as bench/mcp_context.py measures them on a root of its own (root a, `notes` typed
    notes beside n rows, one server): each call's warm time (median of runs), its first call and the same call in
    process beside it; session_context and mem_context ≤ AGENT_TARGET_MS."""
    print("agents figures", file=sys.stderr)
    # lazy: the MCP SDK and memboard's server modules are only this section's
    from bench import mcp_context

    kept_state = os.environ.get("MEMBOARD_STATE_DIR")
    try:
        figures = mcp_context.measure(n, notes, runs)  # (it points this process's MEMBOARD_STATE_DIR at its own)
    except (BenchFailure, RuntimeError, OSError) as exc:
        results.unavailable("MCP start-of-work calls", n, str(exc))
        return
    finally:
        os.environ.pop("MEMBOARD_STATE_DIR", None)
        if kept_state is not None:
            os.environ["MEMBOARD_STATE_DIR"] = kept_state
    local = figures["in_process"]
    for name, pair in figures["calls"].items():
        warm, first = pair["warm"], pair["first"]
        inside = local.get(name)
        how = [
            f"{notes:,} notes beside the rows, one server (the SDK's stdio client)",
            "" if math.isnan(first) else f"first call {first * 1000:,.0f} ms",
            f"in process {inside['wall'] * 1000:.0f} ms wall, {inside['cpu'] * 1000:.0f} ms CPU" if inside else "",
            AGENT_NOTES.get(name.split(" ")[0].rstrip(","), ""),
        ]
        fig = Figure(
            f"agents: {name} over MCP, warm",
            n,
            warm,
            "s",
            runs,
            note="; ".join(filter(None, how)),
            load=figures["load"],
        )
        if name in AGENT_TARGETS:
            fig.target, fig.passed = f"≤ {AGENT_TARGET_MS:g} ms", warm * 1000 <= AGENT_TARGET_MS
        results.add(fig)
    results.add(
        Figure(
            "agents: what the MCP server keeps",
            n,
            figures["kept_mb"],
            "MB",
            note="index.md and every note's metadata (tracemalloc), for the record",
        )
    )


def board_section(results: Results, cache: RootCache, sizes, runs: int, state: Path, quick: bool) -> None:
    """Board figures per size: first paint and fully loaded and peak memory beside the bare app; the organize
    and doctor plans; at the largest size, the filter keystroke and an external append."""
    print("board figures", file=sys.stderr)
    if not board_figures.board_available():
        results.unavailable("board first paint", None, "board not built yet")
        return
    for n in sizes:
        root = cache.get(n).path
        paints: dict[str, list[tuple[float, dict]]] = {"bare": [], "board": []}
        for _ in range(runs):  # interleaved, so a burst of load hits both alike
            for kind in paints:
                paints[kind].append(board_figures.spawn(kind, root, state))
        bare_s = median([s for s, _ in paints["bare"]])
        bare_mb = max(rep["peak_rss_mb"] for _, rep in paints["bare"])
        results.add(
            Figure(
                "bare Textual app first paint",
                n,
                bare_s,
                "s",
                runs,
                peak_mb=bare_mb,
                load=os.getloadavg()[0],
                note="baseline: reads index.md, splits and keeps its lines, shows 40 in one Static",
            )
        )
        first = [s for s, _ in paints["board"]]
        loaded = [rep["loaded_at"] - rep["painted_at"] + s for s, rep in paints["board"]]
        board_mb = max(rep["peak_rss_mb"] for _, rep in paints["board"])
        fig = Figure(
            "board first paint",
            n,
            median(first),
            "s",
            runs,
            "bare app",
            bare_s,
            ratio(median(first), bare_s),
            low=min(first),
            high=max(first),
            load=os.getloadavg()[0],
        )
        hold(fig, n, n, PAINT_TARGET_RATIO, f"≤ {PAINT_TARGET_RATIO:g}× bare")
        results.add(fig)
        results.add(
            Figure(
                "board fully loaded",
                n,
                median(loaded),
                "s",
                runs,
                "bare app",
                bare_s,
                ratio(median(loaded), bare_s),
                low=min(loaded),
                high=max(loaded),
                note="until the model holds the whole index",
            )
        )
        mem = Figure(
            "board peak memory (loaded)",
            n,
            board_mb,
            "MiB",
            runs,
            "bare app",
            bare_mb,
            ratio(board_mb, bare_mb),
            note="the child's own VmHWM after loading",
        )
        hold(mem, n, TARGET_ROWS, MEMORY_TARGET_RATIO, f"≤ {MEMORY_TARGET_RATIO:g}× bare")
        results.add(mem)
        plan_figures(results, root, n, max(1, runs // 2), state)
        if n == max(sizes):
            board_interaction(
                results, cache, n, runs, state, bare_mb, "" if n >= 100_000 else "the filter target is set at 100k rows"
            )


def plan_figures(results: Results, root: Path, n: int, runs: int, state: Path) -> None:
    """Organize and doctor on the board: until their plan is made, until the preview is on screen (the target),
    and until it lists every row (a large index change is worked out after the preview shows)."""
    for task, key in (("organize", "o"), ("doctor", "d")):
        reports = [board_figures.spawn("board", root, state, task)[1] for _ in range(runs)]
        asked = f"`{key}`{' and enter' if task == 'organize' else ''}"
        made = moment(
            f"board {task} plan ready",
            n,
            reports,
            "plan_s",
            f"for the record: {asked} until the preview is made with the plan",
        )
        made.load = os.getloadavg()[0]
        results.add(made)
        shown = moment(
            f"board {task} preview on screen",
            n,
            reports,
            "preview_s",
            f"{asked} until the first frame that shows the preview (what will happen, the counts, the buttons)",
        )
        if task == "organize" and n == TARGET_ROWS:
            shown.target, shown.passed = (
                f"≤ {PLAN_TARGET_S:g} s",
                median(r["preview_s"] for r in reports) <= PLAN_TARGET_S,
            )
        results.add(shown)
        results.add(
            moment(
                f"board {task} rows listed",
                n,
                reports,
                "rows_s",
                "for the record: until the preview lists every row and holds the exact diff",
            )
        )


def moment(name: str, n: int, reports: list[dict], field: str, note: str) -> Figure:
    """One moment of the board's preview runs (seconds in each report's field): median, min and max."""
    values = [rep[field] for rep in reports]
    return Figure(name, n, median(values), "s", len(values), low=min(values), high=max(values), note=note)


def board_crosscheck(results: Results, sizes, state: Path, quick: bool) -> None:
    """The board helper's own measurements (bench/board.py, its own index, best of 5) beside ours."""
    own = bench_module("board", "first_paint", "filter_keystroke", "external_append")
    label = "bench/board.py"
    if own is None:
        return
    work = Path(tempfile.mkdtemp(prefix="board-crosscheck-", dir=state))
    note = "cross-check: bench/board.py's own index and clock (from the child's first line of Python, best of 5)"
    for n in sizes:
        fp = own.first_paint(n, work, datatable=False)
        results.add(
            Figure(
                f"board first paint ({label})",
                n,
                fp["board"],
                "s",
                5,
                "its bare app",
                fp["bare"],
                fp["ratio"],
                note=note,
            )
        )
    big = max(sizes)
    fk = own.filter_keystroke(big, work)
    results.add(
        Figure(
            f"filter keystroke ({label})",
            big,
            fk["median"] * 1000,
            "ms",
            len(fk["keystrokes"]),
            note=f"cross-check: typing 'topic 77' into the box directly; worst {fk['max'] * 1000:.0f} ms",
        )
    )
    ap = own.external_append(big, work)
    results.add(
        Figure(
            f"external append ({label})",
            big,
            ap["append_to_shown"] * 1000,
            "ms",
            1,
            note="cross-check: one in-place append (open 'a') at the end of the table",
        )
    )
    shutil.rmtree(work, ignore_errors=True)


def first_update(results: Results, cache: RootCache, n: int, runs: int, state: Path) -> None:
    """The first external append after opening a root this machine's memboard has not seen (fresh local state: the
    board records a first revision of every snapshot meanwhile), until the row is on the board."""
    waits = []
    for _ in range(max(1, runs // 2)):
        work = cache.copy(n)
        fresh = Path(tempfile.mkdtemp(prefix="first-update-state-", dir=state))
        try:
            waits.append(board_figures.spawn("board", work, fresh, "first_update")[1]["first_update_ms"])
        finally:
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(fresh, ignore_errors=True)
    took = median(waits)
    results.add(
        Figure(
            "first live update after opening a new root",
            n,
            took,
            "ms",
            len(waits),
            target=f"≤ {APPEND_TARGET_MS:g} ms",
            passed=took <= APPEND_TARGET_MS,
            note=f"worst {max(waits):.0f} ms; fresh local state, the row appended once the board has loaded",
            low=min(waits),
            high=max(waits),
        )
    )


def bench_module(name: str, *needs: str):
    """Another helper's bench module (bench/<name>.py) if it is present and has `needs`, else None."""
    try:
        mod = importlib.import_module(f"bench.{name}")
    except ImportError:
        return None
    return mod if all(hasattr(mod, attr) for attr in needs) else None


def board_interaction(
    results: Results, cache: RootCache, n: int, runs: int, state: Path, bare_mb: float, note: str
) -> None:
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
        Figure(
            "filter keystroke → repaint",
            n,
            filt,
            "ms",
            len(keys),
            "Input echo",
            echo_ms,
            ratio(filt, echo_ms),
            f"≤ {FILTER_TARGET_MS:g} ms",
            filt <= FILTER_TARGET_MS,
            "; ".join(filter(None, [note, how])),
            low=min(keys),
            high=max(keys),
        )
    )
    work = cache.copy(n)
    _, rep = board_figures.spawn("board", work, state, "append", runs)
    shutil.rmtree(work, ignore_errors=True)
    app_ms = median(rep["append_ms"])
    results.add(
        Figure(
            "external append → on board",
            n,
            app_ms,
            "ms",
            runs,
            target=f"≤ {APPEND_TARGET_MS:g} ms",
            passed=app_ms <= APPEND_TARGET_MS,
            note=f"worst {max(rep['append_ms']):.0f} ms; the row is written by another process, whole file, atomic rename",
        )
    )
    first_update(results, cache, n, runs, state)
    mem = max(ends)
    fig = Figure(
        "board peak memory (loaded and filtered)",
        n,
        mem,
        "MiB",
        len(ends),
        "bare app",
        bare_mb,
        ratio(mem, bare_mb),
        note="the child's own VmHWM after loading and filtering",
    )
    hold(fig, n, TARGET_ROWS, MEMORY_TARGET_RATIO, f"≤ {MEMORY_TARGET_RATIO:g}× bare")
    results.add(fig)


def lock_section(results: Results, cache: RootCache, sizes, per_process: int, state: Path, quick: bool) -> None:
    """Lock figures: 8 processes registering at once; p50/p99 wait and rows lost."""
    print("lock figures", file=sys.stderr)
    for n in sizes:
        if n > LOCK_CAP_ROWS:
            results.unavailable(
                "lock wait (8 writers)",
                n,
                f"skipped above {LOCK_CAP_ROWS // 1000}k rows: each write holds the lock for seconds",
            )
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
        results.add(
            Figure(
                "lock wait p50 (8 writers)",
                n,
                rep["wait_p50"],
                "s",
                rep["registrations"],
                "lock hold p50",
                hold,
                ratio(rep["wait_p50"], hold),
                note=how,
            )
        )
        results.add(
            Figure(
                "lock wait p99 (8 writers)",
                n,
                rep["wait_p99"],
                "s",
                rep["registrations"],
                "lock hold p50",
                hold,
                ratio(rep["wait_p99"], hold),
            )
        )
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


def cli_figures_all(results: Results, caches: dict[str, RootCache], sizes, runs: int, state: Path, args) -> dict:
    """The cli section: every kind's roots generated, every command at every size, the growth 10k → 100k."""
    for kind, each in caches.items():
        for n in sizes if kind != "b-nopipe" else [max(sizes)]:
            each.get(n)
    by_kind = cli_section(results, caches, sizes, runs, state, warmup=not args.quick)
    for kind, by_size in by_kind.items():
        growth_section(results, by_size, 10_000, 100_000, KINDS[kind])
    return by_kind


def guarded(results: Results, name: str, job) -> None:
    """Run one section; if it breaks, say so as a figure (and its traceback on stderr) and go on: a run of twenty
    minutes keeps the other sections' figures."""
    try:
        job()
    except Exception as exc:  # (any failure of a section's measuring code: reported as its figure)
        traceback.print_exc(file=sys.stderr)
        results.unavailable(f"{name} section", None, f"it stopped: {type(exc).__name__}: {exc}"[:300])


def parse_args(argv=None):
    """Command-line options."""
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description="Run memboard's benchmarks and print every figure beside its baseline.")
    p.add_argument(
        "--quick", action="store_true", help="only 1k and 10k rows, fewer runs, 1,000 notes, no million section"
    )
    p.add_argument(
        "--json",
        metavar="PATH",
        default=str(here / "results.json"),
        help="where to write the figures as JSON (default bench/results.json)",
    )
    p.add_argument("--runs", type=int, help="runs per whole-process figure (default 7, --quick 5)")
    p.add_argument("--sizes", help="comma-separated row counts instead of the defaults")
    p.add_argument(
        "--only",
        choices=SECTIONS,
        action="append",
        help="run only these sections (repeatable): cli (every command at every size, growth 10k → 100k), million "
        "(the commands at 1M rows: peak memory, growth 100k → 1M; the search cache's build to 1M), search (issue "
        "29's search targets at the largest size), agents (the MCP start-of-work calls), board, lock",
    )
    p.add_argument(
        "--million-rows",
        type=int,
        default=BIG_ROWS,
        help="rows of the million section's large root (default 1,000,000; smaller for a try)",
    )
    p.add_argument(
        "--million-runs", type=int, default=BIG_RUNS, help=f"runs per command at that size (default {BIG_RUNS})"
    )
    p.add_argument(
        "--notes",
        type=int,
        help=f"typed notes beside the rows in the search and agents sections (default {NOTES:,}, --quick 1,000)",
    )
    p.add_argument("--markdown", action="store_true", help="also print the table as Markdown (for docs/benchmarks.md)")
    p.add_argument(
        "--roots",
        default="a,b",
        help="kinds of root for the command figures: a (the bench's own), b (issue 29's: a third of the Summaries "
        "with escaped pipes, statuses at random, few snapshots; with b, also b without its pipes); default a,b",
    )
    p.add_argument("--keep", metavar="DIR", help="generate the roots in DIR and keep them")
    p.add_argument("--crosscheck", action="store_true", help="also run bench/board.py's own board figures beside ours")
    return p.parse_args(argv)


def main(argv=None) -> int:
    """Run the benchmarks, print the table, write the JSON."""
    args = parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else (QUICK_SIZES if args.quick else FULL_SIZES)
    runs = args.runs or (5 if args.quick else 7)
    board_runs = 3 if args.quick else 5
    sections = args.only or [name for name in SECTIONS if not (args.quick and name == "million")]
    notes = args.notes if args.notes is not None else (1_000 if args.quick else NOTES)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memboard-bench-"))
    state = base / "state"
    kinds = [k for k in args.roots.split(",") if k]
    if "b" in kinds:
        kinds.append("b-nopipe")
    caches = {kind: RootCache(base / "roots", kind=kind) for kind in kinds}
    cache = caches.get("a") or RootCache(base / "roots")
    results = Results()
    by_kind: dict[str, dict[int, dict[str, Figure]]] = {}
    took: dict[str, float] = {}  # seconds per section
    started, load_before = time.time(), os.getloadavg()
    try:
        print(f"generating roots {', '.join(f'{n:,}' for n in sizes)} rows in {base}", file=sys.stderr)
        if "cli" in sections:
            began = time.time()
            guarded(results, "cli", lambda: by_kind.update(cli_figures_all(results, caches, sizes, runs, state, args)))
            took["cli"] = time.time() - began
        jobs = {
            "million": lambda: big_section(results, caches, by_kind, args.million_rows, args.million_runs, state),
            "search": lambda: search_section(results, caches, max(sizes), notes, runs, state),
            "agents": lambda: agents_section(results, max(sizes), notes, runs),
            "board": lambda: board_section(results, cache, sizes, board_runs, state, args.quick),
            "lock": lambda: lock_section(results, cache, sizes, 5 if args.quick else 10, state, args.quick),
        }
        for name in (name for name in SECTIONS if name in sections and name in jobs):
            began = time.time()
            guarded(results, name, jobs[name])
            if name == "board" and args.crosscheck:
                board_crosscheck(results, sizes, state, args.quick)
            took[name] = time.time() - began
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    duration, load_after = time.time() - started, os.getloadavg()
    machine = (
        f"{os.cpu_count()} cores, Python {platform.python_version()} on {platform.platform()}; load average "
        f"{load_before[0]:.1f} at the start, {load_after[0]:.1f} at the end"
    )
    print()
    print(
        f"Run of {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))} (`python bench/run.py"
        f"{' --quick' if args.quick else ''}`, {duration:.0f} s; {machine})"
    )
    print()
    print(render_table(results.figures))
    if args.markdown:
        print()
        print(render_markdown(results.figures))
    missed = failures(results.figures)
    print(f"\n{len(results.figures)} figures in {duration:.0f} s; {len(missed)} target(s) missed")
    print("seconds per section: " + ", ".join(f"{name} {seconds:.0f}" for name, seconds in took.items()))
    for line in missed:
        print(line)
    meta = {
        "machine": machine,
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
        "section_seconds": {name: round(seconds, 1) for name, seconds in took.items()},
        "roots": {
            str(n): {
                k: v
                for k, v in asdict(m).items()
                if k in ("rows", "cjk_rows", "pipe_rows", "referenced_rows", "index_bytes")
            }
            | {"snapshots": len(m.snapshots)}
            for n, m in cache.manifests.items()
        }
        | {
            f"{kind} {n}": {
                k: v
                for k, v in asdict(m).items()
                if k in ("rows", "cjk_rows", "pipe_rows", "referenced_rows", "index_bytes")
            }
            | {"snapshots": len(m.snapshots)}
            for kind, each in caches.items()
            if kind != "a"
            for n, m in each.manifests.items()
        },
    }
    payload = {"meta": meta, "figures": [asdict(f) for f in results.figures]}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(payload, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
