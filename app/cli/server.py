"""`memboard mcp`: serve the memory root to agents over MCP on stdio (the optional extra `memboard[mcp]`)."""

from __future__ import annotations

import argparse
from types import ModuleType

from ..core import config
from ..core.errors import MemboardError, UsageError
from ..service import mcp_tools
from .args import root_of

MCP_PACKAGES = ("mcp", "mcp_types", "pydantic")
NO_ROOT = "no memory root"  # how config.resolve_root says that no root is named anywhere


def mcp_server() -> ModuleType:
    """The MCP server's module; without the mcp SDK (2.x) it is a one-line error."""
    try:
        from ..mcp import server  # lazy: the mcp SDK loads for `memboard mcp` alone (about 0.4 s)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing not in MCP_PACKAGES:
            raise
        raise MemboardError(
            f"memboard mcp needs the mcp SDK 2.x, which is not installed ({exc.name} not found): pip install 'memboard[mcp]'"
        ) from None
    return server


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the memory root on stdio until the client closes it, with the tools of --tools (else the config's
    mcp_tools, else `agent`); a missing or foreign root named by --root,
    MEMBOARD_ROOT or the config is refused first. With no root named anywhere (and no ./memory), the space and
    hierarchy tools are served alone: they need no memory root."""
    tools = getattr(args, "tools", None)
    if tools is None:
        tools = str(config.settings().value("mcp_tools") or mcp_tools.DEFAULT_PROFILE)
    mcp_tools.profile_names(tools)  # an unknown profile is a one-line error before the SDK loads
    server = mcp_server()
    try:
        config.resolve_root(getattr(args, "root", None))
    except UsageError as exc:
        if not str(exc).startswith(NO_ROOT):  # a config file that cannot be read is its own error
            raise
        server.serve(None, tools)
        return 0
    root = root_of(args)
    root.require_memory_root()
    server.serve(root.path.absolute(), tools)
    return 0
