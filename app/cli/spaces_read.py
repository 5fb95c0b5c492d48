"""The reads of `memboard space`: where, list, restore, search, check (issue 24 §2, §4).

Only parsing and printing live here: the decisions and results are the service layer's
(service/spaces_read.py), shared with the MCP tools. Reads write nothing in any project or home.
"""

from __future__ import annotations

import argparse

from ..core.errors import Refused
from .entry import err
from .output import dump


def _workspace(args: argparse.Namespace) -> str | None:
    """The --workspace folder (None: the current one); a usage error when it is not a folder."""
    from pathlib import Path

    from ..core.errors import UsageError

    raw: str | None = args.workspace
    if raw is not None and not Path(raw).expanduser().is_dir():
        raise UsageError(f"--workspace {raw} is not a folder")
    return raw


def cmd_where(args: argparse.Namespace) -> int:
    """`space where`: which space the folder belongs to, and why (exit 1 with the problem of an invalid config)."""
    from ..service import spaces_read

    decision = spaces_read.where(_workspace(args), args.scope)
    if args.json:
        dump(spaces_read.where_json(decision))
    else:
        fields = decision.as_json()
        for name in ("target", "rule", "scope", "workspace", "project_root", "space", "route", "config"):
            if fields[name] is not None:
                print(f"{name.replace('_', ' ')}: {fields[name]}")
        if decision.problem is None:
            print(f"exists: {'yes' if decision.exists else 'no'}")
        for folder in decision.legacy:
            print(f"legacy: {folder}")
    if decision.problem is not None:
        err(decision.problem)
        return 1
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_restore(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_search(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_check(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")
