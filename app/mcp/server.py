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
`is_error` set. stdout carries JSON-RPC only: the SDK points the process's own stdout at stderr
while it serves, and logs go to stderr.
"""

from __future__ import annotations

import functools
import inspect
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import ValidationError

from .. import __version__
from ..core import config
from ..core.errors import MemboardError
from .answers import bad_arguments, error_line, failure
from .hierarchy import HierarchyTools
from .notes import NoteTools
from .sessions import SessionTools, Tool
from .spaces import SpaceTools

TOOLSETS = (SessionTools, NoteTools, SpaceTools, HierarchyTools)

SESSION_RULES = """\
memboard keeps the agents' shared working memory (index.md, sessions/<id>.md, archive/, notes/). Change it only through these tools, never by editing its files.
- Know your Memory Session ID: the session-start hook said "Your Memory Session ID is: ..."; else call session_context with your conversation_id. Never take the latest row as yours; with no ID, call session_register once.
- Starting work: session_context shows your snapshot, related sessions and notes; search and session_list find earlier work; session_show reads one snapshot.
- Record progress with session_update (your session_id; summary; snapshot sections such as ## Current Context, ## Decisions, ## Next Actions). It merges and keeps every earlier item: mark outdated ones [superseded], [resolved] or [done] instead of leaving them out.
- Continue another session's work with session_continue; stop depending on it with session_release.
- Archive (session_archive) or organize (memory_organize) only when the user asks.
- Typed notes: when a decision, convention or preference is settled, a bug's root cause found, or a non-obvious fact or reusable pattern learned, save it at once with mem_save (title, type, scope, what, why, where, learned). Reuse the topic_key of an existing note on the topic (mem_search first; mem_suggest_topic_key derives one): the same key updates that note.
- mem_save answering outcome "conflict" wrote nothing: show the user both texts, ask, then call again with choice (supersede or keep_both).
- Before work that may have been done before, or when the user says "remember" or "last time": mem_context and mem_search (active notes first); mem_get reads one note.
- Before saying the work is done: mem_session_summary (goal, instructions, discoveries, accomplished, next_steps, relevant).
- Every writing tool takes dry_run=true to preview the exact diff. An error result means nothing was written (unless it says incomplete): never report a change or a Session ID the tool did not confirm.
- Never put credentials in memory: text that looks like one is refused."""

PLACES_RULES = """\
- Session-memory spaces (a project's .session-memory/): pass workspace, the absolute path of the folder you work in. space_restore at the start of work on a project; space_check decides whether to save; save through space_save and space_research_save instead of editing current.md, history.md or research.md (every line that leaves current.md is kept in history.md). space_dream without notes proposes an extraction: distil it and call again with notes. space_archive and space_migrate preview unless dry_run is false.
- Agent memory hierarchy (MEMORY.md and memory/ of a workspace): load hierarchy_hot at session start; call lookup before searching; change facts with facts_set and facts_todo instead of editing memory/facts.yaml, and append to daily logs with daily_log. hierarchy_migrate_plan proposes, you decide each line, hierarchy_migrate_apply previews unless dry_run is false."""

INSTRUCTIONS = SESSION_RULES + "\n" + PLACES_RULES

NO_ROOT_INSTRUCTIONS = (
    "memboard serves session-memory spaces and agent memory hierarchies here (no memory root is configured, so the "
    "session and note tools are not offered). Change these files only through these tools, never by editing them.\n"
    + PLACES_RULES
    + "\n- Every writing tool takes dry_run=true to preview the exact patch. An error result means nothing was written "
    "(unless it says incomplete). Never put credentials in memory: text that looks like one is refused."
)


class MemoryServer(MCPServer):
    """The memboard MCP server on one memory root (None: no root is configured; the tools needing none)."""

    def __init__(self, root: Path | None):
        """Register every tool set's tools for the memory root at root (without one, the sets needing none)."""
        instructions = INSTRUCTIONS if root is not None else NO_ROOT_INSTRUCTIONS
        super().__init__(name="memboard", instructions=instructions, version=__version__, log_level="WARNING")
        self.parameters: dict[str, frozenset[str]] = {}
        for toolset in TOOLSETS:
            if root is None and getattr(toolset, "NEEDS_ROOT", True):
                continue
            for tool, hints in toolset(root).tools():  # type: ignore[arg-type]
                self.register(tool, hints)

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


def serve(root: Path | None) -> None:
    """Serve the memory root at root (None: spaces and hierarchies only) on stdio until the client closes it."""
    server = MemoryServer(root)
    served = root if root is not None else "spaces and hierarchies (no memory root)"
    print(f"memboard mcp: serving {served} on stdio", file=sys.stderr, flush=True)
    server.run("stdio")
