"""`memboard mcp`: serve the memory root to agents over MCP on stdio (the MCP SDK loads for this command alone)."""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import shutil
import sys
from pathlib import Path
from types import ModuleType

from ..core import config
from ..core.errors import MemboardError, UsageError
from ..core.results import Finding
from ..service import mcp_tools
from .args import root_of

NO_ROOT = "no memory root"  # how config.resolve_root says that no root is named anywhere
SDK_REQUIREMENT = "mcp>=2.3,<3"


def reinstall_line() -> str:
    """The command that installs the MCP SDK where this memboard runs: through pipx for a pipx environment, through
    uv where there is no pip (a uv tool's environment, or pipx's uv backend: `python -m pip` fails there), else pip."""
    prefix, python, requirement = Path(sys.prefix), shlex.quote(sys.executable), shlex.quote(SDK_REQUIREMENT)
    if (prefix / "pipx_metadata.json").is_file():
        return f"pipx runpip {shlex.quote(prefix.name)} install {requirement}"
    if importlib.util.find_spec("pip") is not None:
        return f"{python} -m pip install {requirement}"
    if (prefix / "uv-receipt.toml").is_file() or shutil.which("uv"):
        return f"uv pip install --python {python} {requirement}"
    return f"{python} -m ensurepip && {python} -m pip install {requirement}"


def unloadable(exc: BaseException) -> str:
    """The one line saying that the MCP SDK does not load, why, and the command that fixes it."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        why = f"No module named {exc.name!r}"
    elif isinstance(exc, ImportError):
        why = str(exc)
    else:
        why = f"{exc.__class__.__name__}: {exc}"
    first = why.splitlines()[0] if why else exc.__class__.__name__
    return f"memboard mcp cannot start: the MCP SDK 2.x does not load ({first}); install it: {reinstall_line()}"


def mcp_server() -> ModuleType:
    """The MCP server's module; an MCP SDK that is missing or broken (a dependency of its missing) is a one-line
    error naming the command that installs it, never a traceback."""
    try:
        from ..mcp import server  # lazy: the MCP SDK loads for `memboard mcp` alone (about a second)
    except ImportError as exc:
        if (exc.name or "").split(".")[0] == "memboard":
            raise
        raise MemboardError(unloadable(exc)) from None
    except Exception as exc:  # an SDK that fails while it loads (a dependency of the wrong version)
        raise MemboardError(unloadable(exc)) from None
    return server


def server_cannot_start() -> str | None:
    """Why `memboard mcp` cannot start here (its one line), or None when the MCP SDK loads (install-mcp and doctor
    ask before pointing an agent at it)."""
    try:
        mcp_server()
    except MemboardError as exc:
        return str(exc)
    return None


def sdk_finding() -> Finding | None:
    """doctor's finding when `memboard mcp` cannot start here because a package of the MCP SDK is not installed
    (looked up, not imported: doctor stays quick), else None."""
    from ..mcp import wire  # lazy: only doctor and `memboard mcp` ask

    missing = wire.sdk_missing()
    if missing is None:
        return None
    line = unloadable(ModuleNotFoundError(f"No module named {missing!r}", name=missing))
    return Finding("mcp_server_unavailable", "", line.removeprefix("memboard mcp cannot start: "))


def served_root(args: argparse.Namespace) -> Path | None:
    """The memory root to serve; None when no root is named anywhere (the space and hierarchy tools need none)."""
    try:
        config.resolve_root(getattr(args, "root", None))
    except UsageError as exc:
        if not str(exc).startswith(NO_ROOT):  # a config file that cannot be read is its own error
            raise
        return None
    root = root_of(args)
    root.require_memory_root()
    return root.path.absolute()


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the memory root on stdio until the client closes it, with the tools of --tools (else the config's
    mcp_tools, else `agent`); a missing or foreign root named by --root,
    MEMBOARD_ROOT or the config is refused first. With no root named anywhere (and no ./memory), the space and
    hierarchy tools are served alone: they need no memory root."""
    from ..mcp import wire  # lazy: the server's front end, which answers `initialize` while the SDK loads

    tools = getattr(args, "tools", None)
    if tools is None:
        tools = str(config.settings().value("mcp_tools") or mcp_tools.DEFAULT_PROFILE)
    mcp_tools.profile_names(tools)  # an unknown profile is a one-line error before the SDK loads
    root = served_root(args)
    missing = wire.sdk_missing()
    if missing is not None:
        raise MemboardError(unloadable(ModuleNotFoundError(f"No module named {missing!r}", name=missing)))
    return wire.serve(
        root,
        tools,
        lambda: mcp_server().build(root, tools),
        lambda exc: str(exc) if isinstance(exc, MemboardError) else None,
    )
