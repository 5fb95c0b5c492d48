"""Real MCP clients nobody here wrote, against `memboard mcp` (issue 28, Done when): the MCP Inspector's CLI and the
TypeScript SDK's client (its schemas compiled with ajv, strict), both from npm. .ci/run installs them into
.ci/clients (MEMBOARD_MCP_CLIENTS names another folder); where node or the packages are absent the tests skip,
saying why."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memboard.service.mcp_tools import AGENT_ON_ROOT
from tests.mcp.conftest import server_env

PROJECT = Path(__file__).resolve().parents[2]
CLIENTS = Path(os.environ.get("MEMBOARD_MCP_CLIENTS", PROJECT / ".ci" / "clients"))
INSTALL = (
    "npm install --prefix .ci/clients @modelcontextprotocol/inspector@2.12 @modelcontextprotocol/sdk@1.32 ajv@8 "
    "(as .ci/run does)"
)


def needs(package: str) -> Path:
    """The folder of an npm package installed in CLIENTS; a skip saying why when node or the package is absent."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed (apt-get install nodejs npm): the real MCP clients run on node")
    folder = CLIENTS / "node_modules" / package
    if not (folder / "package.json").exists():
        pytest.skip(f"{package} is not installed in {CLIENTS}: {INSTALL}")
    return folder


def served(tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    """The command that serves a fresh memory root (the default profile), and its environment."""
    root = tmp_path / "memory"
    root.mkdir()
    return [sys.executable, "-m", "memboard", "mcp", "--root", str(root)], server_env(tmp_path / "state")


def test_the_mcp_inspector_cli_lists_the_tools_and_calls_one(tmp_path):
    inspector = needs("@modelcontextprotocol/inspector")
    command, env = served(tmp_path)
    cli = [str(CLIENTS / "node_modules" / ".bin" / "mcp-inspector"), "--cli", *command]
    listed = subprocess.run([*cli, "--method", "tools/list"], capture_output=True, text=True, env=env, timeout=180)
    assert listed.returncode == 0, listed.stderr[-2000:]
    tools = json.loads(listed.stdout)["tools"]
    assert sorted(t["name"] for t in tools) == sorted(AGENT_ON_ROOT), inspector
    assert all(t["inputSchema"].get("additionalProperties") is False for t in tools)
    called = subprocess.run(
        [*cli, "--method", "tools/call", "--tool-name", "session_register"]
        + ["--tool-arg", "agent=inspector-agent", "--tool-arg", "topic=From the Inspector"],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert called.returncode == 0, called.stderr[-2000:]
    result = json.loads(called.stdout)
    assert result.get("isError") is not True and result["structuredContent"]["session_id"], result


def test_the_typescript_sdk_client_compiles_every_schema_strictly_and_calls_a_tool(tmp_path):
    needs("@modelcontextprotocol/sdk")
    needs("ajv")
    command, env = served(tmp_path)
    script = Path(__file__).with_name("clients") / "ts_client.mjs"
    done = subprocess.run(
        ["node", str(script), str(CLIENTS), *command], capture_output=True, text=True, env=env, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen["server"]["name"] == "memboard" and sorted(seen["tools"]) == sorted(AGENT_ON_ROOT)
    assert seen["compiled"] == 2 * len(AGENT_ON_ROOT)  # every tool has both schemas
    assert seen["isError"] is False and seen["valid"] is True and seen["structured"]["session_id"]
    assert seen["refused"]["isError"] is True and "unknown argument(s) dry_rnu" in seen["refused"]["text"]
