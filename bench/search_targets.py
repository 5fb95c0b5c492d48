"""Issue 29's search targets, each printed beside its target: `python bench/search_targets.py [--rows N] [--runs N]`.

On the bench's two kinds of root (a, the bench's own; b, issue 29's, see bench/roots.py), with `--notes`
typed notes beside the rows:

- the first search on a root with no cache (whole process, CLI): its answer within 1 s, while the
  build runs beside it (the seconds until the cache is in place are reported);
- the build itself (`python -m memboard.core.search.beside --build ROOT`, a whole process) beside its
  floor (bench/search_floor.py: read every byte once, insert the same text into FTS5 in one transaction),
  target ≤ 2×;
- warm whole-process `memboard search` beside `python -c pass`, `--root` after and before the command,
  from a normal (not editable) install: a wheel of this tree installed into a venv of its own (its
  dependencies are this Python's), target ≤ 2×; and `--kind session` (no note can pass: no note's stat is taken),
  reported beside the same baseline;
- `mem_search` over MCP on a warm cache (a server started once, the SDK's stdio client), target ≤ 100 ms;
- the build's growth from 100k to 1M rows (root of each kind, no notes; CPU, the steadier figure), beside its
  floor's: linear is at most 12× (slow: `--skip growth` leaves it out).

The load average is printed beside each root's figures; medians of --runs, each command interleaved
with its baseline. For bench/run.py: `measure(rows, notes, runs, roots, skip)` returns every row
({"figure", "value", "target", "result", "note", "root"}); growth_figures(base, kind) the 1M rows alone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.notes import write_notes
from bench.roots import RootCache
from bench.timing import bench_env, median, sample

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
PASS = [PYTHON, "-c", "pass"]
FIRST_TARGET, BUILD_TARGET, WARM_TARGET, MCP_TARGET = 1.0, 2.0, 2.0, 0.100
GROWTH_TARGET = (
    1.2  # linear: the build may grow at most 1.2 times as fast as the rows (10x the rows: ≤ 12x, as bench/run.py)
)
QUERY = "obsidian"


def line(figure: str, value: str, target: str, passed: bool | None, note: str = "") -> dict:
    """Print one figure and return it."""
    verdict = "" if passed is None else ("PASS" if passed else "FAIL")
    print(f"{figure:<58} {value:>10}  {target:<22} {verdict:<4} {note}".rstrip(), flush=True)
    return {"figure": figure, "value": value, "target": target, "result": verdict, "note": note}


def wheel_install(base: Path) -> Path:
    """A venv holding a wheel of this tree (not editable); its own deps are this Python's site-packages. Its
    `memboard` script."""
    dist, venv = base / "dist", base / "venv"
    subprocess.run(
        [PYTHON, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(REPO)],
        check=True,
        capture_output=True,
    )
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    target = next(venv.glob("lib/python*/site-packages"))
    wheel = next(dist.glob("memboard-*.whl"))
    subprocess.run([PYTHON, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)], check=True)
    (target / "zz-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    script = venv / "bin" / "memboard"
    script.write_text(
        f"#!{venv / 'bin' / 'python'}\nimport sys\nfrom memboard.cli import main\nsys.exit(main())\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


def first_figures(root: Path, state: Path, mb: list[str]) -> list[dict]:
    """The first search with no cache, the seconds until the build beside it is done, and the build's own time
    beside its floor."""
    env = bench_env(state)
    shutil.rmtree(state / "search", ignore_errors=True)
    took = sample(mb + ["search", QUERY, "--root", str(root)], env)
    began = time.perf_counter()
    folder = state / "search"
    while not any(p.suffix == ".sqlite3" for p in folder.glob("*")) and time.perf_counter() - began < 600:
        time.sleep(0.05)
    ready = took.wall + time.perf_counter() - began
    out = [
        line(
            "first search, no cache (whole process)",
            f"{took.wall:.2f} s",
            f"≤ {FIRST_TARGET:g} s",
            took.wall <= FIRST_TARGET,
            f"cache in place after {ready:.1f} s",
        )
    ]
    wall, floor, cpu, floor_cpu = build_beside_floor(root, state)
    out.append(
        line(
            "cache build (whole process) / its floor",
            f"{wall / floor:.2f}×",
            f"≤ {BUILD_TARGET:g}×",
            wall / floor <= BUILD_TARGET,
            f"build {wall:.2f} s, floor {floor:.2f} s; CPU {cpu / floor_cpu:.2f}× ({cpu:.2f} s / {floor_cpu:.2f} s)",
        )
    )
    return out


def warm_figures(root: Path, state: Path, mb: list[str], runs: int) -> list[dict]:
    """Warm whole-process search, --root after and before the command, beside python -c pass (interleaved); and one
    no note can pass (`--kind session`: it takes no note's stat), reported beside the same baseline."""
    env = bench_env(state)
    out = []
    for name, cmd in (
        ("search QUERY --root R", mb + ["search", QUERY, "--root", str(root)]),
        ("--root R search QUERY", mb + ["--root", str(root), "search", QUERY]),
        ("search QUERY --kind session --root R", mb + ["search", QUERY, "--kind", "session", "--root", str(root)]),
    ):
        sample(cmd, env)  # warm
        times, base = [], []
        for _ in range(runs):
            base.append(sample(PASS, env).wall)
            times.append(sample(cmd, env).wall)
        ratio = median(times) / median(base)
        out.append(
            line(
                f"warm {name} (wheel install)",
                f"{ratio:.2f}×",
                f"≤ {WARM_TARGET:g}× python -c pass" if "--kind" not in cmd else "(report)",
                ratio <= WARM_TARGET if "--kind" not in cmd else None,
                f"{median(times) * 1000:.0f} ms, python -c pass {median(base) * 1000:.0f} ms",
            )
        )
    return out


def mcp_figures(root: Path, state: Path, mb: list[str], runs: int) -> list[dict]:
    """mem_search and search over MCP on a warm cache, one server."""
    # lazy: only this figure needs the MCP SDK
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=mb[0], args=[*mb[1:], "mcp", "--root", str(root)], env=bench_env(state))
    times: dict[str, list[float]] = {"mem_search": [], "search": []}

    async def calls() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                for tool in times:
                    for i in range(runs + 2):
                        began = time.perf_counter()
                        result = await session.call_tool(
                            tool, {"query": "lock rule" if tool == "mem_search" else QUERY}
                        )
                        if result.is_error:
                            raise SystemExit(f"{tool} failed: {result.content}")
                        if i >= 2:  # the first calls warm the server
                            times[tool].append(time.perf_counter() - began)

    anyio.run(calls)
    return [
        line(
            f"{tool} over MCP, warm cache",
            f"{median(t) * 1000:.0f} ms",
            f"≤ {MCP_TARGET * 1000:.0f} ms" if tool == "mem_search" else "(report)",
            median(t) <= MCP_TARGET if tool == "mem_search" else None,
            f"median of {len(t)}",
        )
        for tool, t in times.items()
    ]


def build_beside_floor(root: Path, state: Path, runs: int = 2) -> tuple[float, float, float, float]:
    """Medians of runs whole-process cache builds of root and of its floor, interleaved: (build wall, floor wall,
    build CPU, floor CPU) in seconds. The last build's cache is left in state."""
    env = bench_env(state)
    builds, floors = [], []
    for _ in range(runs):
        shutil.rmtree(state / "search", ignore_errors=True)
        builds.append(sample([PYTHON, "-m", "memboard.core.search.beside", "--build", str(root)], env, timeout=3600))
        with tempfile.TemporaryDirectory(prefix="memboard-floor-") as tmp:
            floors.append(
                sample([PYTHON, str(REPO / "bench" / "search_floor.py"), str(root), f"{tmp}/f.db"], env, timeout=3600)
            )
    return (  # (the last build's cache stays in place: the warm figures use it)
        median([b.wall for b in builds]),
        median([f.wall for f in floors]),
        median([b.cpu for b in builds]),
        median([f.cpu for f in floors]),
    )


def growth_figures(
    base: Path, kind: str = "a", sizes: tuple[int, int] = (100_000, 1_000_000), runs: int = 1
) -> list[dict]:
    """The build beside its floor at both sizes (root `kind`, no notes: a row each), then its growth from the first to
    the second (linear: at most GROWTH_TARGET times the rows' growth; its floor's growth beside it). Slow at 1M rows: about a
    minute a build on 2 cores, the root's generation besides."""
    cache = RootCache(base / "roots-growth", kind=kind)  # (not measure()'s roots, which gain notes)
    measured, out = {}, []
    for rows in sizes:
        root = cache.get(rows).path
        measured[rows] = build_beside_floor(root, base / f"state-growth-{kind}", runs)
        shutil.rmtree(base / f"state-growth-{kind}", ignore_errors=True)  # (gigabytes at 1M rows)
        wall, floor, cpu, floor_cpu = measured[rows]
        out += [
            line(
                f"cache build / its floor at {rows:,} rows (root {kind})",
                f"{wall / floor:.2f}×",
                f"≤ {BUILD_TARGET:g}×",
                wall / floor <= BUILD_TARGET,
                f"build {wall:.1f} s, floor {floor:.1f} s; CPU {cpu / floor_cpu:.2f}× ({cpu:.1f} s / {floor_cpu:.1f} s)",
            )
        ]
    small, large = sizes
    grew = measured[large][2] / measured[small][2]  # (CPU: the steadier figure on a shared machine)
    floor_grew = measured[large][3] / measured[small][3]
    limit = GROWTH_TARGET * large / small
    return out + [
        line(
            f"cache build growth {small:,} -> {large:,} rows (root {kind}, CPU)",
            f"{grew:.1f}×",
            f"≤ {limit:g}× (linear)",
            grew <= limit,
            f"its floor grew {floor_grew:.1f}×; {small:,}: {measured[small][2]:.1f} s, {large:,}: {measured[large][2]:.1f} s",
        )
    ]


def measure(
    rows: int = 100_000,
    notes: int = 10_000,
    runs: int = 7,
    roots: str = "a,b",
    skip: frozenset[str] = frozenset(),
    keep: Path | None = None,
) -> list[dict]:
    """Every search figure of issue 29 on each root (kinds, comma-separated) beside its target, printed as measured
    and returned as rows {"figure", "value", "target", "result" (PASS, FAIL or ""), "note", "root"}. skip holds
    sections to leave out: first, warm, mcp, growth (the build at 100k and 1M rows beside its floor: slow).
    keep: generate the roots there and keep them (else a temporary folder)."""
    figures: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="memboard-search-targets-") as tmp:
        base = Path(keep or tmp)
        mb = [str(wheel_install(base / "install"))]
        for kind in roots.split(","):
            root = RootCache(base / "roots", kind=kind).get(rows).path
            if notes:  # (a kept root may hold fewer: the same names are written again)
                write_notes(root, notes)
            state = base / f"state-{kind}"
            print(f"root {kind}: {rows:,} rows, {notes:,} notes; load {os.getloadavg()[0]:.2f}", flush=True)
            mine = []
            if "first" not in skip:
                mine += first_figures(root, state, mb)
            if "warm" not in skip:
                mine += warm_figures(root, state, mb, runs)
            if "mcp" not in skip:
                mine += mcp_figures(root, state, mb, runs)
            if "growth" not in skip:
                mine += growth_figures(base, kind)
            figures += [{**f, "root": kind} for f in mine]
            print(f"  load {os.getloadavg()[0]:.2f} at the end of root {kind}", flush=True)
    return figures


def main(argv: list[str] | None = None) -> int:
    """Generate the roots, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--roots", default="a,b")
    parser.add_argument("--keep", metavar="DIR", help="generate the roots in DIR and keep them")
    parser.add_argument("--skip", default="", help="comma-separated sections to skip: first, warm, mcp, growth")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    skip = frozenset(filter(None, args.skip.split(",")))
    figures = measure(args.rows, args.notes, args.runs, args.roots, skip, Path(args.keep) if args.keep else None)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0 if all(f["result"] != "FAIL" for f in figures) else 1


if __name__ == "__main__":
    raise SystemExit(main())
