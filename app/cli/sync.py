"""`memboard resolve`: decide the open cells of a merge and the git driver's conflict blocks (issue 26 §2, §5).

The plan is the service layer's (service/sync.py, which the board and the MCP server share); it is previewed
(`--dry-run`), printed as JSON (`--json`) or applied like every other changing command's.
"""

from __future__ import annotations

import argparse

from ..service.sync import resolve_plan
from .changes import run_plan


def cmd_resolve(args: argparse.Namespace) -> int:
    """resolve [ID] --prefer ours|theirs [--dry-run] [--json]."""
    return run_plan(args, resolve_plan(args.prefer, args.id))
