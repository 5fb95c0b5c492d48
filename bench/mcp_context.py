"""Bench: the agent's start-of-work calls on a running `memboard mcp` at 10k notes beside 100k rows (issue 29, Agents).

Run: python bench/mcp_context.py [--rows 100000] [--notes 10000] [--runs 7]. Generates a root
(bench/roots.py, with bench/notes.py's typed notes beside its rows), starts the server once
through the SDK's stdio client and prints, in ms per call: each tool's first call (the server
reads and parses what it needs) and its warm calls (median of runs, nothing changed: the
server's kept parse, app/mcp/kept.py), then session_context right after another process
changed one note, and right after it appended a row to index.md (each run changes again). mem_search's
first call answers from the files and starts the search cache's build beside it: its warm calls are
measured once that build is done (the seconds waited are reported). The
target beside each: 100 ms. Last, in process, the memory what the server keeps costs at this
size (tracemalloc). `measure(rows, notes, runs)` returns the figures as a dict.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

if __package__ in (None, ""):
    # Run as `python bench/mcp_context.py`: import from the repository, not bench/ (which would shadow the mcp SDK).
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from bench.cli_figures import memboard_cmd
from bench.notes import write_notes
from bench.roots import generate
from bench.timing import bench_env, median
from memboard.core.files.root import MemoryRoot

TARGET = 0.100
NOTE = "notes/bench/project/n1.md"


def calls(sid: str) -> list[tuple[str, str, dict]]:
    """(figure, tool, arguments) of each call measured first and warm."""
    return [
        ("session_context", "session_context", {"session_id": sid}),
        ("mem_context", "mem_context", {}),
        ("mem_context (a project)", "mem_context", {"project": "p3"}),
        ("mem_search 同步", "mem_search", {"query": "同步"}),
        ("session_show", "session_show", {"session_id": sid}),
    ]


async def timed(session: ClientSession, tool: str, arguments: dict) -> float:
    """Seconds one tool call takes (a tool error stops the bench)."""
    began = time.perf_counter()
    result = await session.call_tool(tool, arguments)
    took = time.perf_counter() - began
    if result.is_error:
        raise RuntimeError(f"{tool}: {result.content[0].text}")  # type: ignore[union-attr]
    return took


def touch_note(root: Path, n: int) -> None:
    """Another process rewrites one note (its What gains a line), as an editor saves it."""
    path = root / NOTE
    path.write_bytes(path.read_bytes() + f"- Changed {n}.\n".encode())


def append_row(root: Path, sid: str, n: int) -> None:
    """Another process appends a row to index.md (a copy of sid's under a new ID), as a hook does."""
    index = root / "index.md"
    line = next(line for line in index.read_text(encoding="utf-8").splitlines() if line.startswith(f"| {sid} "))
    with open(index, "a", encoding="utf-8") as fh:
        fh.write(line.replace(sid, f"2030-01-01-{n:04d}-bench-agent", 1) + "\n")


async def cache_built(root: Path, limit: float = 600) -> float:
    """Seconds until root's search cache is in place and no build runs (a warm search is one the cache answers)."""
    from memboard.core.search import beside, cache  # lazy: (the figures before need neither)

    began, memory = time.perf_counter(), MemoryRoot(root)
    while (not cache.cache_path(memory).exists() or beside.building(memory)) and time.perf_counter() - began < limit:
        await anyio.sleep(0.05)
    return time.perf_counter() - began


async def server_figures(root: Path, env: dict, sid: str, runs: int) -> tuple[dict[str, dict[str, float]], float]:
    """Each call's first and warm times, and session_context's after a note changed and after a row was appended;
    and the seconds waited for the search cache built beside the first mem_search."""
    cmd = memboard_cmd()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "mcp", "--root", str(root)], env=env)
    out: dict[str, dict[str, float]] = {}
    built = float("nan")
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            for name, tool, arguments in calls(sid):
                first = await timed(session, tool, arguments)
                if tool == "mem_search":  # its first call answered from the files and started the cache's build
                    built = await cache_built(root)
                warm = [await timed(session, tool, arguments) for _ in range(runs)]
                out[name] = {"first": first, "warm": median(warm)}
            changed, appended = [], []
            for n in range(runs):
                touch_note(root, n)
                changed.append(await timed(session, "session_context", {"session_id": sid}))
                append_row(root, sid, n)
                appended.append(await timed(session, "session_context", {"session_id": sid}))
            out["session_context, one note changed"] = {"first": float("nan"), "warm": median(changed)}
            out["session_context, a row appended"] = {"first": float("nan"), "warm": median(appended)}
    return out, built


def in_process(root: Path, sid: str, runs: int) -> dict[str, dict[str, float]]:
    """Warm calls of the same tools in this process (no JSON-RPC, no second process): wall and CPU seconds (CPU
    time hardly depends on the load of a shared machine), and the floor: one lstat of every note file."""
    from memboard.core.ops.notes.store import note_files  # lazy: the server figures come first
    from memboard.mcp.notes import NoteTools  # lazy: (the same)
    from memboard.mcp.sessions import SessionTools  # lazy: (the same)

    sessions, notes = SessionTools(root), NoteTools(root)
    paths = [str(root / rel) for rel in note_files(MemoryRoot(root))]
    jobs = {
        "session_context": lambda: sessions.session_context(session_id=sid),
        "mem_context": lambda: notes.mem_context(),
        "mem_search 同步": lambda: notes.mem_search(query="同步"),
        "floor: lstat every note file": lambda: [os.lstat(p) for p in paths],
    }
    out = {}
    for name, job in jobs.items():
        job()
        walls, cpus = [], []
        for _ in range(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            job()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        out[name] = {"wall": median(walls), "cpu": median(cpus)}
    return out


def kept_memory(root: Path) -> float:
    """MB what a server keeps of root takes (index.md and every note's metadata), measured with tracemalloc."""
    from memboard.mcp.kept import Parsed  # lazy: the server figures come first, as an agent sees them

    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    parsed, memory = Parsed(root), MemoryRoot(root)
    parsed.index_file(memory)
    parsed.note_set(memory)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / 1e6


def measure(rows: int = 100_000, notes: int = 10_000, runs: int = 7) -> dict:
    """The figures at rows rows and notes notes: {"calls": {name: {"first": s, "warm": s}}, "kept_mb": MB,
    "cache_built_s": s, "in_process": {...}, "load": ...}; targets(figures) pairs them with issue 29's targets."""
    with tempfile.TemporaryDirectory(prefix="memboard-bench-context-") as tmp:
        manifest = generate(Path(tmp) / "memory", rows)
        write_notes(manifest.path, notes)
        env = bench_env(Path(tmp) / "state")
        os.environ["MEMBOARD_STATE_DIR"] = env["MEMBOARD_STATE_DIR"]
        sid = manifest.snapshots[len(manifest.snapshots) // 2]
        time.sleep(2.5)  # the files age past the racy window, as a root an agent opens has
        figures, built = anyio.run(server_figures, manifest.path, env, sid, runs)
        local = in_process(manifest.path, sid, runs)
        kept = kept_memory(manifest.path)
    return {
        "rows": rows,
        "notes": notes,
        "runs": runs,
        "load": os.getloadavg()[0],
        "calls": figures,
        "in_process": local,
        "kept_mb": kept,
        "cache_built_s": built,
    }


TARGETED = ("session_context", "mem_context", "mem_search 同步")  # issue 29's Agents targets: each ≤ TARGET warm


def targets(figures: dict) -> list[dict]:
    """Issue 29's Agents targets from measure()'s figures, one row each: {"figure", "value", "target", "result",
    "note"} as bench/search_targets.py's line() gives, plus "seconds" and "limit" (the warm median, TARGET)."""
    rows = []
    for name in TARGETED:
        pair = figures["calls"][name]
        rows.append(
            {
                "figure": f"{name} over MCP, warm ({figures['rows']:,} rows, {figures['notes']:,} notes)",
                "value": f"{pair['warm'] * 1000:.0f} ms",
                "target": f"≤ {TARGET * 1000:.0f} ms",
                "result": "PASS" if pair["warm"] <= TARGET else "FAIL",
                "note": f"median of {figures['runs']}; first call {pair['first'] * 1000:.0f} ms; load {figures['load']:.1f}",
                "seconds": pair["warm"],
                "limit": TARGET,
            }
        )
    return rows


def render(figures: dict) -> str:
    """The figures as a Markdown table."""
    ms = lambda s: "–" if s != s else f"{s * 1000:,.0f} ms"  # noqa: E731
    lines = [
        f"| call ({figures['rows']:,} rows, {figures['notes']:,} notes; load {figures['load']:.1f}) | first call "
        f"| warm (median of {figures['runs']}) | target |",
        "|---|--:|--:|--:|",
    ]
    for name, pair in figures["calls"].items():
        met = "met" if pair["warm"] <= TARGET else "missed"
        lines.append(f"| {name} | {ms(pair['first'])} | {ms(pair['warm'])} | {TARGET * 1000:.0f} ms: {met} |")
    lines += ["", "| in process, warm | wall | CPU |", "|---|--:|--:|"]
    for name, pair in figures["in_process"].items():
        lines.append(f"| {name} | {ms(pair['wall'])} | {ms(pair['cpu'])} |")
    lines.append(f"\nkept by the server: {figures['kept_mb']:.0f} MB (index.md and every note's metadata)")
    lines.append(f"search cache in place {figures['cache_built_s']:.1f} s after the first mem_search (waited for)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the table (and, with --json FILE, write the figures)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    figures = measure(args.rows, args.notes, args.runs)
    print(render(figures))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
