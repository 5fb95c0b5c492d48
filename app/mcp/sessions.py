"""The session tools (seed 000): each is the command line's operation, called with an agent's arguments.

Reads go through the same views as `memboard list|show|chain|search --json`; every change goes
through the same builders as the commands (service/builders.py) and `execute`: plan, lock, write,
verify, with the secrets guard. A tool's docstring is its description for the agent, and each
argument's description says what to pass. The root is opened afresh for each call, so a root
that went away is an error of that call, not of the server.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Literal

from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from ..core.errors import Refused, UsageError
from ..core.files.execute import execute
from ..core.files.root import MemoryRoot
from ..core.formats.conversations import valid_conversation
from ..core.ops.query import chain, list_rows, show
from ..core.ops.session_start import whoami
from ..core.search.engine import DEFAULT_LIMIT, MAX_LIMIT, SearchFilters, run
from ..service.agents import agent_name
from ..service.builders import (
    Builder,
    archive_plan,
    continue_plan,
    organize_plan,
    register_plan,
    release_plan,
    update_plan,
)
from ..service.output import chain_json, row_json, session_json
from ..service.search import hits_answer
from .answers import change, ok
from .context import note_context
from .hints import ADDS, READS, REMOVES, REWRITES
from .kept import kept_for

LIST_LIMIT = 100

Tool = Callable[..., CallToolResult]

SessionId = Annotated[
    str,
    Field(description="a Memory Session ID (YYYY-MM-DD-HHMM-agent-name)"),
]
DryRun = Annotated[
    bool,
    Field(
        strict=True,
        description="true: write nothing, answer the diff",
    ),
]
Status = Literal["idle", "active", "stale"]
OneLine = Annotated[str | None, Field(description="one line")]
SNAPSHOT_HELP = (
    "Markdown: `## ` sections (Current Context, Decisions, Files / Artifacts, Open Questions, Next Actions), "
    "`- ` items; merged in"
)
Snapshot = Annotated[str | None, Field(description=SNAPSHOT_HELP)]
Agent = Annotated[
    str | None,
    Field(description="your agent name, such as claude-main-agent (never a task name)"),
]


class SessionTools:
    """The session tools on one memory root."""

    def __init__(self, root: Path):
        """Serve the memory root at root (opened on each call)."""
        self.path = root

    def tools(self) -> list[tuple[Tool, ToolAnnotations]]:
        """Each tool with its hints (hints.py's rule: update rewrites a row and a snapshot, release removes
        references, archive moves files out, organize deletes rows and marks others stale)."""
        return [
            (self.session_context, READS),
            (self.session_show, READS),
            (self.session_list, READS),
            (self.session_chain, READS),
            (self.search, READS),
            (self.session_register, ADDS),
            (self.session_update, REWRITES),
            (self.session_continue, ADDS),
            (self.session_release, REMOVES),
            (self.session_archive, REMOVES),
            (self.memory_organize, REWRITES),
        ]

    def root(self) -> MemoryRoot:
        """The memory root, opened for this call (a one-line error when it is missing or not a folder)."""
        return MemoryRoot(self.path)

    def apply(self, build: Builder, dry_run: bool) -> CallToolResult:
        """Plan, then write and verify under the root's lock (or, for a dry run, only plan); the answer."""
        return change(execute(self.root(), build, dry_run=dry_run), dry_run)

    def session_context(
        self,
        session_id: Annotated[str | None, Field(description="your Memory Session ID")] = None,
        conversation_id: Annotated[
            str | None,
            Field(description="your agent's own conversation ID (the hook mapped it)"),
        ] = None,
    ) -> CallToolResult:
        """Your session at the start of work or after a context reset: row, snapshot, related sessions and notes
        (metadata; mem_get reads one). Pass session_id, else conversation_id; it never guesses."""
        if session_id is None and conversation_id is None:
            raise UsageError(
                "pass session_id or conversation_id: memboard never takes the latest row as yours; "
                "without either, register with session_register"
            )
        root = self.root()
        if conversation_id is not None:
            mapped = self._mapped(root, conversation_id)
            if session_id is not None and session_id != mapped:
                raise Refused(f"conversation {conversation_id} is mapped to {mapped}, not {session_id}")
            session_id = mapped
        warnings: list[str] = []
        parsed = kept_for(self.path)
        index = parsed.index_file(root)
        view = show(root, session_id or "", warnings, index)
        out = {"session_id": view.id, "message": f"Your Memory Session ID is: {view.id}", **session_json(view)}
        links = chain(root, view.id, index)
        out["related"] = {k: v for k, v in chain_json(links).items() if k in ("continues_from", "referenced_by")}
        linked = [node.id for node in links.continues_from + links.referenced_by]
        notes = parsed.note_set(root)
        out["notes"] = note_context(root, view.id, linked=linked, text=view.snapshot or "", notes=notes)
        out["warnings"] = warnings
        return ok(out)

    @staticmethod
    def _mapped(root: MemoryRoot, conversation_id: str) -> str:
        """The live Session ID the hooks' map records for a conversation; a one-line error otherwise."""
        if not valid_conversation(conversation_id):
            raise UsageError(f"invalid conversation_id {conversation_id[:60]!r}: one line, at most 200 characters")
        info = whoami(root, conversation_id)
        if info.state == "unknown" or info.session_id is None:
            raise Refused(
                f"no Memory Session ID recorded for conversation {conversation_id} (no session-start hook "
                "registered it); register with session_register"
            )
        if info.state != "live":
            gone = "archived" if info.state == "archived" else "no longer in index.md"
            raise Refused(
                f"conversation {conversation_id} was registered as {info.session_id}, but that row is {gone}; "
                "register a new session with session_register"
            )
        return info.session_id

    def session_show(self, session_id: SessionId) -> CallToolResult:
        """One session, live or archived: its row and whole snapshot (null when none)."""
        warnings: list[str] = []
        root = self.root()
        view = show(root, session_id, warnings, kept_for(self.path).index_file(root))
        return ok({**session_json(view), "warnings": warnings})

    def session_list(
        self,
        status: Annotated[Status | None, Field(description="only rows with this status")] = None,
        limit: Annotated[
            int, Field(ge=1, le=MAX_LIMIT, description="at most this many rows: the last ones, newest registrations")
        ] = LIST_LIMIT,
    ) -> CallToolResult:
        """The rows of index.md in file order (newest last); idle rows with Topic 未設定 are placeholders.
        `omitted` counts the oldest rows limit left out."""
        warnings: list[str] = []
        rows = list_rows(self.root(), status, warnings)
        shown = rows[-limit:]
        return ok(
            {
                "total": len(rows),
                "omitted": len(rows) - len(shown),
                "rows": [row_json(r) for r in shown],
                "warnings": warnings,
            }
        )

    def session_chain(self, session_id: SessionId) -> CallToolResult:
        """A session's references both ways (Continues From, Referenced By, recursively), one-sided links,
        archived or missing sessions and cycles marked."""
        root = self.root()
        return ok(chain_json(chain(root, session_id, kept_for(self.path).index_file(root))))

    def search(
        self,
        query: Annotated[
            str,
            Field(min_length=1, description="text to find, literally, any case"),
        ],
        status: Annotated[Status | None, Field(description="only this status")] = None,
        agent: Annotated[str | None, Field(description="only this agent name")] = None,
        since: Annotated[str | None, Field(description="updated at or after: YYYY-MM-DD[ HH:MM]")] = None,
        until: Annotated[str | None, Field(description="updated at or before")] = None,
        state: Annotated[Literal["live", "archived"] | None, Field(description="live or archived only")] = None,
        section: Annotated[
            str | None,
            Field(description="only in this cell or section, such as Topic or Decisions"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="most hits")] = DEFAULT_LIMIT,
    ) -> CallToolResult:
        """Find earlier work: full text over rows, snapshots and archived sessions, best first, one hit per
        session with a snippet («match»)."""
        filters = SearchFilters(status, agent, since, until, state, section, limit)
        outcome = run(self.root(), query, filters, None, beside=True)
        return ok(hits_answer(outcome))

    def session_register(
        self,
        topic: Annotated[str | None, Field(description="what this session works on")] = None,
        summary: Annotated[str | None, Field(description="what it has done so far, one line")] = None,
        snapshot: Snapshot = None,
        agent: Agent = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Register a new active session, only when you have no Memory Session ID (no hook said one and
        session_context finds none). Answers `session_id` and, once verified, `message`."""
        return self.apply(register_plan(agent_name(agent), True, topic, summary, snapshot), dry_run)

    def session_update(
        self,
        session_id: SessionId,
        topic: OneLine = None,
        summary: Annotated[str | None, Field(description="the row's Summary, one line")] = None,
        keywords: Annotated[str | None, Field(description="comma-separated")] = None,
        snapshot: Snapshot = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Record your session's state (狀態更新): merge snapshot into sessions/<id>.md, then update its row
        (active, Updated At, the values given). Earlier items stay: retire one by repeating it marked
        [superseded], [resolved] or [done]. Only your own session unless the user names another."""
        return self.apply(update_plan(session_id, topic, summary, keywords, snapshot), dry_run)

    def session_continue(
        self,
        source_id: Annotated[str, Field(description="the session to continue from")],
        session_id: Annotated[
            str | None,
            Field(description="your Memory Session ID (none: a new session is registered)"),
        ] = None,
        agent: Agent = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Continue another session's work (接續 memory): source_id under your Continues From, your ID on its
        Referenced By."""
        return self.apply(continue_plan(source_id, session_id, agent_name(agent)), dry_run)

    def session_release(
        self,
        source_id: Annotated[str, Field(description="the session you no longer depend on")],
        session_id: SessionId,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Release a reference (解除引用): session_id leaves source_id's Referenced By, source_id leaves its
        Continues From."""
        return self.apply(release_plan(source_id, session_id), dry_run)

    def session_archive(self, session_id: SessionId, dry_run: DryRun = False) -> CallToolResult:
        """Archive a finished session, only when the user asks (封存 memory session): row and snapshot move to
        archive/<id>/ (an idle placeholder is deleted). Refused while it is referenced."""
        return self.apply(archive_plan(session_id), dry_run)

    def memory_organize(
        self,
        stale_days: Annotated[
            int | None,
            Field(
                ge=0,
                le=36500,
                description="days without update before an active row is stale (default: config, else 14)",
            ),
        ] = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Organize, only when the user asks (整理 memory): delete unreferenced idle rows without a snapshot,
        mark active rows not updated for stale_days stale. Archives nothing."""
        return self.apply(organize_plan(stale_days), dry_run)
