"""The conflict blocks memboard's git merge driver leaves, and deciding them (`memboard resolve`, issue 26 §5)."""

from __future__ import annotations

from .result import Prefer


def resolve_blocks(rel: str, data: bytes, prefer: Prefer, only: str | None = None) -> tuple[bytes, list[str]]:
    """The file rel (relative to the root) with the driver's conflict blocks decided by prefer (those of
    session or note `only`, else every one), and the IDs decided."""
    raise NotImplementedError("resolve_blocks is not built yet")
