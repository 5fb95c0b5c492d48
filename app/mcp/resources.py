"""The server's resources and prompt: what a client can attach to a conversation without a tool call.

- `memboard://protocol`: the session-memory protocol memboard implements (seed 000), the text
  memboard ships in protocol.md, byte for byte (its example paths are the seed author's: this
  server's memory root is the one it serves).
- `memboard://session/{session_id}`: a session's snapshot (sessions/<id>.md, or the archived
  one), as `memboard show` reads it.
- `memboard://hot/{+workspace}`: the hot memory of a project folder (an absolute path): the
  hierarchy's MEMORY.md and the session-memory space's current.md, whichever exist.
- the prompt `continue_session`: continue the work of an earlier session (its row and snapshot,
  and the calls that record the continuation).

The session resource and the prompt need a memory root; the protocol is served with one; the
hot memory is served always. A resource that cannot be read is a JSON-RPC error with one line.
"""

from __future__ import annotations

from importlib import resources as package_data
from pathlib import Path
from typing import Any

from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.server.mcpserver.resources.templates import ResourceSecurity

from ..core import config
from ..core.errors import MemboardError, Refused, UsageError
from ..core.files.root import MemoryRoot
from ..core.ops.query import show
from .spaces import folder

PROTOCOL_URI = "memboard://protocol"
SESSION_URI = "memboard://session/{session_id}"
HOT_URI = "memboard://hot/{+workspace}"
MARKDOWN = "text/markdown"


def protocol_text() -> str:
    """The protocol text memboard ships (protocol.md beside this module)."""
    return package_data.files(__package__).joinpath("protocol.md").read_text(encoding="utf-8")


def snapshot_text(root: Path, session_id: str) -> str:
    """A session's snapshot text; a one-line error when it has none."""
    with config.once():
        view = show(MemoryRoot(root), session_id, [])
    if view.snapshot is None:
        raise Refused(f"session {view.id} has no snapshot")
    return view.snapshot


def hot_text(workspace: str) -> str:
    """A project folder's hot memory: MEMORY.md and the space's current.md, each under a heading naming it."""
    from ..service import hierarchy, spaces_read  # lazy: only a read of this resource loads them

    place = folder(workspace)
    parts = []
    with config.once():
        try:
            memory = hierarchy.workspace_of(place) / "MEMORY.md"
            if memory.is_file():
                parts.append(f"# {memory}\n\n{memory.read_text(encoding='utf-8', errors='replace')}")
        except MemboardError:
            pass
        try:
            current = spaces_read.restore(place, "auto", "none").result.get("current")
        except MemboardError:
            current = None
        if isinstance(current, dict) and current.get("text"):
            parts.append(f"# {current.get('path')}\n\n{current['text']}")
    if not parts:
        raise UsageError(f"{place} has no hot memory (no MEMORY.md, no session-memory space)")
    return "\n\n".join(parts)


def continue_prompt(root: Path, source_id: str, session_id: str | None = None) -> list[UserMessage]:
    """The prompt that continues a session: its row and snapshot, then the calls to make."""
    with config.once():
        view = show(MemoryRoot(root), source_id, [])
    row = view.row
    yours = f"session_id={session_id}" if session_id else "your session_id (from the session-start hook)"
    text = (
        f"Continue the work of memory session {view.id} (topic: {row.topic}; status: {row.status}; "
        f"summary: {row.summary}).\n\n"
        f"First call session_continue with source_id={view.id} and {yours}. Read its snapshot below, "
        "carry its Next Actions into your own work, and record progress with session_update.\n\n"
        + (view.snapshot or "(it has no snapshot)")
    )
    return [UserMessage(text)]


def add_resources(server: Any, root: Path | None) -> None:
    """Add the resources and the prompt to server (those needing a memory root only when it has one)."""
    exempt = ResourceSecurity(exempt_params=frozenset({"workspace"}))  # an absolute path, checked by folder()
    server.resource(
        HOT_URI,
        name="hot_memory",
        description="A project's hot memory (MEMORY.md, the space's current.md); workspace: its absolute path",
        mime_type=MARKDOWN,
        security=exempt,
    )(hot_text)
    if root is None:
        return

    def session_snapshot(session_id: str) -> str:
        """A session's snapshot (sessions/<id>.md, or its archived one)."""
        return snapshot_text(root, session_id)

    def continue_session(source_id: str, session_id: str | None = None) -> list[UserMessage]:
        """Continue an earlier session's work: its row and snapshot, and the calls that record it."""
        return continue_prompt(root, source_id, session_id)

    server.resource(
        PROTOCOL_URI,
        name="protocol",
        description="The session-memory protocol memboard implements (seed 000)",
        mime_type=MARKDOWN,
    )(protocol_text)
    server.resource(SESSION_URI, name="session_snapshot", mime_type=MARKDOWN)(session_snapshot)
    server.prompt(name="continue_session")(continue_session)
