"""The MCP server: the tool sets registered in one place, strict arguments, calls side by side, errors as results.

`TOOLSETS` lists every set of tools the server offers; a set is a class built on the memory
root's path whose `tools()` returns its tools (methods whose docstrings are their descriptions)
with their hints: the session tools (sessions.py), the typed notes' tools (notes.py), and the
space and hierarchy tools (spaces.py, hierarchy.py), which take a workspace with each call and
need no memory root (`NEEDS_ROOT = False`). With no memory root configured at all, the server
serves those alone, and its instructions say so.

Each call runs in a worker thread of its own (the SDK's way with plain functions), beside the
calls already running: a long one (a save over a note of 100k statements) holds up no read, and
writes wait for the root's lock in arrival order as writers in other processes do, a write that
waits past the lock timeout answering that the root is locked (busy), nothing written. A client
that needs one call's effect waits for its answer before the next call, as JSON-RPC has it.
An argument a tool does not take is refused (a misspelt `dry_run` must never mean a write),
and so are arguments of the wrong type; an error of memboard's is answered as one line with
`is_error` set. The SDK's stdio transport serves the wire that wire.py claimed (it answers an
early `initialize` before this module is even imported); stdout carries JSON-RPC only, and logs
go to stderr. Without a memory root no prompt is served, so none is advertised.
"""

from __future__ import annotations

import functools
import inspect
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp_types import CallToolResult, InputRequiredResult, ToolAnnotations
from mcp_types import Tool as MCPTool
from pydantic import ValidationError

from .. import __version__
from ..core import config
from ..core.errors import MemboardError
from ..service.mcp_tools import DEFAULT_PROFILE, profile_tools
from .answers import bad_arguments, error_line, failure
from .hierarchy import HierarchyTools
from .notes import NoteTools
from .resources import add_resources
from .rules import INSTRUCTIONS, instructions
from .sessions import SessionTools, Tool
from .spaces import SpaceTools
from .surface import OUTPUT, slim
from .wire import Incoming, Outgoing

TOOLSETS = (SessionTools, NoteTools, SpaceTools, HierarchyTools)
__all__ = ["INSTRUCTIONS", "TOOLSETS", "MemoryServer", "build"]
PROMPT_METHODS = ("prompts/list", "prompts/get")


class MemoryServer(MCPServer):
    """The memboard MCP server on one memory root (None: no root is configured; the tools needing none)."""

    def __init__(self, root: Path | None, tools: str | None = None):
        """Register the tools of the profiles tools names (None: the config's mcp_tools, else `agent`) for the
        memory root at root (without one, those needing none), with their resources and prompt."""
        if tools is None:
            tools = str(config.settings().value("mcp_tools") or DEFAULT_PROFILE)
        self.served = profile_tools(tools, root is not None)
        super().__init__(
            name="memboard",
            instructions=instructions(self.served, root is not None),
            version=__version__,
            log_level="WARNING",
        )
        self.parameters: dict[str, frozenset[str]] = {}
        for toolset in TOOLSETS:
            if root is None and getattr(toolset, "NEEDS_ROOT", True):
                continue
            for tool, hints in toolset(root).tools():  # type: ignore[arg-type]
                if tool.__name__ in self.served:
                    self.register(tool, hints)
        add_resources(self, root)
        if root is None:  # no prompt without a root: the SDK advertises prompts while their handlers are there
            for method in PROMPT_METHODS:
                self._lowlevel_server._request_handlers.pop(method, None)

    def run_on(self, incoming: Incoming, outgoing: Outgoing) -> None:
        """Serve the SDK's stdio transport on the wire's ends (wire.py) until the input ends."""
        anyio.run(self.serve_streams, anyio.wrap_file(incoming), anyio.wrap_file(outgoing))  # type: ignore[arg-type]

    async def serve_streams(self, stdin: anyio.AsyncFile[str], stdout: anyio.AsyncFile[str]) -> None:
        """MCPServer.run_stdio_async on the given streams (the SDK's own, given explicitly, claim no descriptor)."""
        async with stdio_server(stdin=stdin, stdout=stdout) as (read_stream, write_stream):
            low = self._lowlevel_server
            await low.run(read_stream, write_stream, low.create_initialization_options())

    async def list_tools(self) -> list[MCPTool]:
        """The tools as listed: slim input schemas closed to unknown arguments, and each one's output schema."""
        return [
            tool.model_copy(update={"input_schema": slim(tool.input_schema), "output_schema": OUTPUT[tool.name]})
            for tool in await super().list_tools()
        ]

    def register(self, tool: Tool, hints: ToolAnnotations) -> None:
        """Offer one tool: its name, its docstring as the description, its arguments as they are named."""
        self.parameters[tool.__name__] = frozenset(inspect.signature(tool).parameters)
        self.add_tool(
            once_per_call(tool), name=tool.__name__, description=inspect.cleandoc(tool.__doc__ or ""), annotations=hints
        )

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Run a tool: unknown arguments refused, memboard's errors as one-line results."""
        known = self.parameters.get(name)
        unknown = sorted(set(arguments) - known) if known is not None else []
        if known is not None and unknown:
            return failure(
                f"{name}: unknown argument(s) {', '.join(unknown)}; it takes {', '.join(sorted(known)) or 'none'}; "
                "nothing written"
            )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, MemboardError):
                return failure(error_line(cause))
            if isinstance(cause, ValidationError):
                return failure(bad_arguments(name, cause))
            if isinstance(cause, OSError):
                return failure(f"failed: {cause.strerror or cause}")
            raise


def once_per_call(tool: Tool) -> Tool:
    """The tool, reading the config file once per call, as a command does (each call runs on a worker thread)."""

    @functools.wraps(tool)
    def call(*args: Any, **kwargs: Any) -> CallToolResult:
        """The tool's call within one settings scope."""
        with config.once():
            return tool(*args, **kwargs)

    return call


def build(root: Path | None, tools: str | None = None) -> MemoryServer:
    """The server on the memory root at root (None: spaces and hierarchies only) with the tools of the profiles
    tools names (None: the config's mcp_tools, else `agent`), for wire.serve to run."""
    return MemoryServer(root, tools)
