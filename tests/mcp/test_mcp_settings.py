"""The MCP server reads the config file once per tool call, as a command does, and again for the next call."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from memboard.core import config
from memboard.mcp.server import MemoryServer


def test_each_tool_call_reads_the_config_once_and_sees_it_as_it_is_then(tmp_path, monkeypatch):
    path = Path(os.environ["MEMBOARD_CONFIG"])
    path.write_text('agent_name = "first-agent"\nlock_timeout = 5\n')
    root = tmp_path / "memory"
    root.mkdir()
    reads = []
    real = config.read
    monkeypatch.setattr(config, "read", lambda: reads.append(1) or real())
    server = MemoryServer(root, "all")  # the profile named: the server's start reads no config

    def register() -> dict:
        result = asyncio.run(server.call_tool("session_register", {}))
        assert not result.is_error, result.content
        return json.loads(result.content[0].text)

    first = register()
    assert first["session_id"].endswith("-first-agent") and len(reads) == 1  # agent name and lock wait: one read
    path.write_text('agent_name = "second-agent"\n')
    assert register()["session_id"].endswith("-second-agent") and len(reads) == 2
