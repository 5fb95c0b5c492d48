"""Which folder is the agent memory hierarchy's workspace (issue 25 §1).

Every hierarchy command takes `--workspace DIR`; without it the workspace is the config key
`hierarchy_workspace`, else `$OPENCLAW_WORKSPACE_DIR`, else the folder above the memory root when it
holds MEMORY.md, else `~/.openclaw/workspace` when it holds MEMORY.md. A hierarchy command needs no
memboard memory root: an unresolvable root only skips that one candidate.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import config
from ..errors import Refused, UsageError

WORKSPACE_ENV = "OPENCLAW_WORKSPACE_DIR"
DEFAULT_WORKSPACE = "~/.openclaw/workspace"
HOT_NAME = "MEMORY.md"
NO_WORKSPACE = "no hierarchy workspace; pass --workspace DIR"


def resolve_workspace(cli_workspace: str | None = None, cli_root: str | None = None) -> Path:
    """The workspace folder, or a one-line Refused (exit 1) when none is found or the one named is no folder."""
    named = _named(cli_workspace)
    if named is not None:
        return _existing(named)
    root = _memory_root(cli_root)
    if root is not None and (root.parent / HOT_NAME).is_file():
        return root.parent
    home = Path(DEFAULT_WORKSPACE).expanduser()
    if (home / HOT_NAME).is_file():
        return home
    raise Refused(NO_WORKSPACE)


def _named(cli_workspace: str | None) -> Path | None:
    """The workspace named by --workspace, the config key or the environment, in that order; None when none is."""
    if cli_workspace:
        return Path(cli_workspace).expanduser()
    try:
        configured = config.settings().value("hierarchy_workspace")
    except UsageError:
        configured = None
    if isinstance(configured, str) and configured:
        return Path(configured).expanduser()
    env = os.environ.get(WORKSPACE_ENV)
    if env:
        return Path(env).expanduser()
    return None


def _existing(path: Path) -> Path:
    """path when it is a folder, else a one-line refusal naming it."""
    if not path.is_dir():
        raise Refused(f"no hierarchy workspace at {path} (not a folder); pass --workspace DIR")
    return path


def _memory_root(cli_root: str | None) -> Path | None:
    """The memboard memory root when one resolves (absolute), else None: the workspace never requires one."""
    try:
        return config.resolve_root(cli_root).resolve()
    except (UsageError, OSError):
        return None
