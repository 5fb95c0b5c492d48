"""The builders of the sync commands, as the command line, the board and the MCP server call them (issue 26).

`resolve_plan` decides the cells a merge left open and the git driver's conflict blocks (core/ops/resolve.py);
the faces preview and apply its plan like every other.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.errors import UsageError
from ..core.files.root import MemoryRoot
from ..core.merge.result import Prefer
from ..core.plan import Plan

PREFERS = ("ours", "theirs")


def resolve_plan(prefer: str, only: str | None = None) -> Callable[[MemoryRoot], Plan[object]]:
    """The builder of `resolve [ID] --prefer ours|theirs`: open cells (of only, else every one) decided by prefer."""
    if prefer not in PREFERS:
        raise UsageError(f"--prefer takes ours or theirs, not {prefer!r}")
    side: Prefer = "ours" if prefer == "ours" else "theirs"
    from ..core.ops.resolve import plan_resolve  # lazy: a command loads only its own operation

    def build(root: MemoryRoot) -> Plan[object]:
        """The plan on root."""
        plan = plan_resolve(root, side, only or None)
        return plan.with_result(plan.result)

    return build
