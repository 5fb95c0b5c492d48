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
  dependencies are this Python's), target ≤ 2×;
- `mem_search` over MCP on a warm cache (a server started once, the SDK's stdio client), target ≤ 100 ms.

The load average is printed beside each root's figures; medians of --runs, each command interleaved
with its baseline.
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
    builds, floors = [], []
    for _ in range(2):
        shutil.rmtree(state / "search", ignore_errors=True)
        builds.append(sample([PYTHON, "-m", "memboard.core.search.beside", "--build", str(root)], env).wall)
        with tempfile.TemporaryDirectory(prefix="memboard-floor-") as tmp:
            floors.append(sample([PYTHON, str(REPO / "bench" / "search_floor.py"), str(root), f"{tmp}/f.db"], env).wall)
    ratio = median(builds) / median(floors)
    out.append(
        line(
            "cache build (whole process) / its floor",
            f"{ratio:.2f}×",
            f"≤ {BUILD_TARGET:g}×",
            ratio <= BUILD_TARGET,
            f"build {median(builds):.2f} s, floor {median(floors):.2f} s",
        )
    )
    return out


def warm_figures(root: Path, state: Path, mb: list[str], runs: int) -> list[dict]:
    """Warm whole-process search, --root after and before the command, beside python -c pass (interleaved)."""
    env = bench_env(state)
    out = []
    for name, cmd in (
        ("search QUERY --root R", mb + ["search", QUERY, "--root", str(root)]),
        ("--root R search QUERY", mb + ["--root", str(root), "search", QUERY]),
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
                f"≤ {WARM_TARGET:g}× python -c pass",
                ratio <= WARM_TARGET,
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


def main(argv: list[str] | None = None) -> int:
    """Generate the roots, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--roots", default="a,b")
    parser.add_argument("--keep", metavar="DIR", help="generate the roots in DIR and keep them")
    parser.add_argument("--skip", default="", help="comma-separated sections to skip: first, warm, mcp")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    figures = []
    with tempfile.TemporaryDirectory(prefix="memboard-search-targets-") as tmp:
        base = Path(args.keep or tmp)
        mb = [str(wheel_install(base / "install"))]
        for kind in args.roots.split(","):
            root = RootCache(base / "roots", kind=kind).get(args.rows).path
            if args.notes and not (root / "notes").exists():
                write_notes(root, args.notes)
            state = base / f"state-{kind}"
            print(f"root {kind}: {args.rows:,} rows, {args.notes:,} notes; load {os.getloadavg()[0]:.2f}", flush=True)
            if "first" not in skip:
                figures += first_figures(root, state, mb)
            if "warm" not in skip:
                figures += warm_figures(root, state, mb, args.runs)
            if "mcp" not in skip:
                figures += mcp_figures(root, state, mb, args.runs)
            print(f"  load {os.getloadavg()[0]:.2f} at the end of root {kind}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0 if all(f["result"] != "FAIL" for f in figures) else 1


if __name__ == "__main__":
    raise SystemExit(main())
