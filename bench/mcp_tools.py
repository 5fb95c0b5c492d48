"""Bench: the bytes an agent's context pays for `memboard mcp` per tool profile (issue 28 §3).

Run: python bench/mcp_tools.py. For each profile (and the default without a memory root) it starts
the server, sends initialize and tools/list as a client does, and prints the bytes of the JSON-RPC
line the server writes for tools/list, the number of tools, and the characters of the instructions.
`measure()` returns the figures as a list of dicts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

PROFILES = ("agent", "sessions", "notes", "spaces", "hierarchy", "all")
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


def listing(command: list[str], env: dict, cwd: str) -> dict:
    """tools/list bytes, tool count and instruction characters of the server command starts."""
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd
    ) as proc:
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.flush()
        init = json.loads(proc.stdout.readline())["result"]
        proc.stdin.write(
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
        )
        proc.stdin.flush()
        line = proc.stdout.readline().rstrip(b"\n")
        proc.stdin.close()
        proc.wait(timeout=60)
    return {
        "bytes": len(line),
        "tools": len(json.loads(line)["result"]["tools"]),
        "instructions": len(init.get("instructions") or ""),
    }


def measure() -> list[dict]:
    """The figures of each profile on a memory root, then of the default without one."""
    with tempfile.TemporaryDirectory(prefix="memboard-bench-tools-") as tmp:
        base = Path(tmp)
        (base / "memory").mkdir()
        env = {k: v for k, v in os.environ.items() if k != "MEMBOARD_ROOT"}
        env.update(MEMBOARD_STATE_DIR=str(base / "state"), MEMBOARD_CONFIG=str(base / "config.toml"))
        out = []
        for profile in PROFILES:
            cmd = [sys.executable, "-m", "memboard", "mcp", "--root", str(base / "memory"), "--tools", profile]
            out.append({"profile": profile, "root": True, **listing(cmd, env, tmp)})
        home = base / "home"
        home.mkdir()
        out.append(
            {"profile": "agent", "root": False, **listing([sys.executable, "-m", "memboard", "mcp"], env, str(home))}
        )
    return out


def main() -> int:
    """Print the table."""
    print(f"{'profile':<22} {'tools':>5} {'tools/list bytes':>17} {'instructions chars':>19}")
    for r in measure():
        label = r["profile"] + ("" if r["root"] else " (no memory root)")
        print(f"{label:<22} {r['tools']:>5} {r['bytes']:>17,} {r['instructions']:>19,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
