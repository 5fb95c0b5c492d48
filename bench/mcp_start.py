"""Bench: how soon `memboard mcp` answers `initialize`, beside Python's start and the MCP SDK's import (medians).

Run: python bench/mcp_start.py [--runs 9]. Each run spawns a fresh process and times it from the
spawn: `python -c pass`; `python -c "import mcp.server.mcpserver"` (the SDK's import, to its
exit); the server until its `initialize` answer is read (the answer sent while the SDK loads),
then until its `tools/list` answer (asked right after); and the same server with
`MEMBOARD_MCP_EARLY=0` (the SDK answers `initialize` itself, as before). The target of issue 28:
`initialize` answered within 0.4 s plus twice `python -c pass`. The requests are raw JSON-RPC
lines on a pipe, as a client sends them; the root is an empty one in a temporary folder.
`measure(runs)` returns the figures (seconds) as a dict.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    # Run as `python bench/mcp_start.py`: import from the repository, not bench/ (where mcp.py would shadow the SDK).
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.timing import median

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def lines(*messages: dict) -> bytes:
    """The messages as JSON-RPC lines."""
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def exit_time(cmd: list[str]) -> float:
    """Seconds from spawn to exit."""
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def server_times(root: Path, env: dict[str, str]) -> tuple[float, float]:
    """(spawn → initialize answered, spawn → tools/list answered) of one fresh server."""
    cmd = [sys.executable, "-m", "memboard", "mcp", "--root", str(root)]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(lines(INITIALIZE))
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())
    initialized = time.perf_counter() - start
    proc.stdin.write(lines(INITIALIZED, TOOLS))
    proc.stdin.flush()
    second = json.loads(proc.stdout.readline())
    listed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(timeout=120)
    if first.get("id") != 0 or "result" not in first or second.get("id") != 1 or "tools" not in second["result"]:
        raise SystemExit(f"unexpected answers: {first!r:.200} {second!r:.200}")
    return initialized, listed


def measure(runs: int = 9) -> dict[str, float]:
    """The medians of every figure, in seconds."""
    python = [sys.executable, "-c", "pass"]
    sdk = [sys.executable, "-c", "import mcp.server.mcpserver"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        root.mkdir()
        env = {**os.environ, "MEMBOARD_STATE_DIR": str(Path(tmp) / "state"), "MEMBOARD_CONFIG": str(Path(tmp) / "c")}
        env.pop("MEMBOARD_ROOT", None)
        late = {**env, "MEMBOARD_MCP_EARLY": "0"}
        figures: dict[str, list[float]] = {k: [] for k in ("python", "sdk", "init", "list", "init_late", "list_late")}
        for _ in range(runs):  # interleaved, so that a busy moment touches every figure alike
            figures["python"].append(exit_time(python))
            figures["sdk"].append(exit_time(sdk))
            init, listed = server_times(root, env)
            figures["init"].append(init)
            figures["list"].append(listed)
            init, listed = server_times(root, late)
            figures["init_late"].append(init)
            figures["list_late"].append(listed)
    return {k: median(v) for k, v in figures.items()}


def render(f: dict[str, float], runs: int) -> str:
    """The figures as a Markdown table, with the target and the ratios."""
    target = 0.4 + 2 * f["python"]
    ms = lambda s: f"{s * 1000:.0f} ms"  # noqa: E731
    rows = [
        ("python -c pass", f["python"], ""),
        ("import mcp.server.mcpserver (the SDK)", f["sdk"], f"{f['sdk'] / f['python']:.1f}× python"),
        (
            "memboard mcp: initialize answered",
            f["init"],
            f"target {ms(target)}: {'met' if f['init'] <= target else 'MISSED'}",
        ),
        ("memboard mcp: tools/list answered (asked after initialize)", f["list"], ""),
        (
            "MEMBOARD_MCP_EARLY=0: initialize answered (by the SDK)",
            f["init_late"],
            f"{f['init_late'] / f['init']:.1f}× early",
        ),
        ("MEMBOARD_MCP_EARLY=0: tools/list answered", f["list_late"], ""),
    ]
    out = [f"| from spawn (median of {runs}) | time | note |", "|---|---:|---|"]
    out += [f"| {name} | {ms(value)} | {note} |" for name, value, note in rows]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args(argv)
    print(render(measure(args.runs), args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
