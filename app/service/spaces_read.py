"""The builders of the space reads (issue 24 §2, §4): where, list, restore, search, check.

Each returns the command's JSON-able result, so that the command line prints it and the MCP tools
answer it from the same function. They write nothing anywhere but memboard's own record of known
spaces in local state.
"""

from __future__ import annotations

from typing import Any

from ..core.spaces.resolve import Where, resolve


def where(workspace: str | None = None, scope: str = "auto") -> Where:
    """`space where`: the decision for workspace and scope (its `problem` set when the config is invalid)."""
    return resolve(workspace, scope)


def where_json(decision: Where) -> dict[str, Any]:
    """`space where --json`'s object."""
    return decision.as_json()
