"""Driving `memboard mcp` as agents do: the SDK's own stdio client, the server a subprocess on a temp root.

A server started for a whole test module runs under an anyio blocking portal (an event loop in
a thread), so that sync tests call its tools one after another on the same connection.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult

from tests.conftest import FIXED_NOW


def server_env(state: Path, **extra: str) -> dict[str, str]:
    """The server's environment: this one, with memboard's state and config in state and the suite's fixed clock."""
    env = {k: v for k, v in os.environ.items() if k != "MEMBOARD_ROOT"}
    env.update(
        MEMBOARD_STATE_DIR=str(state),
        MEMBOARD_CONFIG=str(state / "config.toml"),
        MEMBOARD_NOW=FIXED_NOW,
        MEMBOARD_SETTLE_SECONDS="0.05",
    )
    env.update(extra)
    return env


def server_command(root: Path, *more: str, tools: str = "all") -> list[str]:
    """The command line that starts the server on root, with every tool (tools: the profiles to serve instead)."""
    return [sys.executable, "-m", "memboard", "mcp", "--root", str(root), "--tools", tools, *more]


@asynccontextmanager
async def connect(command: list[str], env: dict[str, str]) -> AsyncIterator[ClientSession]:
    """An initialized client session with the server that command starts."""
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


@dataclass
class Agent:
    """A client connected to a running server: call its tools from sync code."""

    portal: BlockingPortal
    session: ClientSession
    root: Path
    state: Path

    def call(self, tool: str, **arguments: Any) -> CallToolResult:
        """Call a tool and return its raw result."""
        return self.portal.call(self.session.call_tool, tool, arguments)

    def answer(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """Call a tool that must succeed; its JSON answer."""
        result = self.call(tool, **arguments)
        text = result.content[0].text  # type: ignore[union-attr]
        assert not result.is_error, text
        assert len(result.content) == 1
        return json.loads(text)

    def refusal(self, tool: str, **arguments: Any) -> str:
        """Call a tool that must fail; its one-line error."""
        result = self.call(tool, **arguments)
        text = result.content[0].text  # type: ignore[union-attr]
        assert result.is_error, text
        assert "\n" not in text and "Traceback" not in text
        return text


@contextmanager
def running(root: Path, state: Path, **env: str) -> Iterator[Agent]:
    """A server on root for the block, and a client connected to it."""
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(connect(server_command(root), server_env(state, **env))) as session,
    ):
        yield Agent(portal, session, root, state)


@pytest.fixture(scope="module")
def agent(tmp_path_factory) -> Iterator[Agent]:
    """One server for the test module, on a fresh memory root (tests add their own sessions to it)."""
    root = tmp_path_factory.mktemp("mcp") / "memory"
    root.mkdir()
    state = tmp_path_factory.mktemp("mcp-state")
    with running(root, state) as client:
        yield client


def places_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a server (or command) with no memory root: its state and config under home, a private
    session-memory home and legacy homes, the suite's fixed clock."""
    env = server_env(home / "state", **extra)
    env.update(
        SESSION_MEMORY_HOME=str(home / "smhome"),
        CODEX_HOME=str(home / "codexhome"),
        CLAUDE_HOME=str(home / "claudehome"),
        HOME=str(home),
    )
    env.pop("OPENCLAW_WORKSPACE_DIR", None)
    return env


@asynccontextmanager
async def connect_in(command: list[str], env: dict[str, str], cwd: Path) -> AsyncIterator[ClientSession]:
    """An initialized client session with the server that command starts in the folder cwd."""
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=cwd)
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


@contextmanager
def rootless(home: Path, **env: str) -> Iterator[Agent]:
    """A server started with no memory root anywhere (no --root, no MEMBOARD_ROOT, no config, no ./memory), and a
    client connected to it; its Agent's root is home (where it runs)."""
    home.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "memboard", "mcp", "--tools", "all"]
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(connect_in(command, places_env(home, **env), home)) as session,
    ):
        yield Agent(portal, session, home, home / "state")
