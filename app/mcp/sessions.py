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
from ..service.search import hit_json
from .answers import change, ok
from .context import note_context

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
REMOVES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)
LIST_LIMIT = 100

Tool = Callable[..., CallToolResult]

SessionId = Annotated[
    str,
    Field(
        description="a Memory Session ID, YYYY-MM-DD-HHMM-agent-name, as `Your Memory Session ID is: ...` reported it"
    ),
]
DryRun = Annotated[
    bool,
    Field(
        strict=True,
        description="true: write nothing and answer the exact diff the change would make (as `--dry-run` prints it)",
    ),
]
Status = Literal["idle", "active", "stale"]
OneLine = Annotated[str | None, Field(description="one line of text; leave it out to keep the current value")]
SNAPSHOT_HELP = (
    "Markdown with `## ` sections of the snapshot template (Current Context, Decisions, Files / Artifacts, Open Questions, "
    "Next Actions, Continues From, Superseded / Resolved), items as `- ` lines; merged into the snapshot, never replacing it"
)
Snapshot = Annotated[str | None, Field(description=SNAPSHOT_HELP)]
Agent = Annotated[
    str | None,
    Field(
        description="your agent name, such as claude-main-agent (default: the config's agent_name, else cursor-main-agent); "
        "never a task name: put the task in the topic"
    ),
]


class SessionTools:
    """The session tools on one memory root."""

    def __init__(self, root: Path):
        """Serve the memory root at root (opened on each call)."""
        self.path = root

    def tools(self) -> list[tuple[Tool, ToolAnnotations]]:
        """Each tool with its hints (read-only, or writing; destructive when it removes rows or moves files)."""
        return [
            (self.session_context, READS),
            (self.session_show, READS),
            (self.session_list, READS),
            (self.session_chain, READS),
            (self.search, READS),
            (self.session_register, WRITES),
            (self.session_update, WRITES),
            (self.session_continue, WRITES),
            (self.session_release, WRITES),
            (self.session_archive, REMOVES),
            (self.memory_organize, REMOVES),
        ]

    def root(self) -> MemoryRoot:
        """The memory root, opened for this call (a one-line error when it is missing or not a folder)."""
        return MemoryRoot(self.path)

    def apply(self, build: Builder, dry_run: bool) -> CallToolResult:
        """Plan, then write and verify under the root's lock (or, for a dry run, only plan); the answer."""
        return change(execute(self.root(), build, dry_run=dry_run), dry_run)

    def session_context(
        self,
        session_id: Annotated[str | None, Field(description="your Memory Session ID, when you know it")] = None,
        conversation_id: Annotated[
            str | None,
            Field(
                description="your agent's own conversation/session ID, which the session-start hook mapped to a Memory Session ID"
            ),
        ] = None,
    ) -> CallToolResult:
        """Your own session, at the start of work or after a context reset: its Memory Session ID, row, snapshot,
        the sessions it continues from or that continue from it, and typed notes: `notes.session`, those it saved,
        and `notes.related`, active notes its snapshot names, saved by those sessions, of its notes' projects,
        or global (metadata only: read one with mem_get).

        Pass session_id when you know it (the session-start hook said "Your Memory Session ID is: ..."),
        else conversation_id. It never guesses (never the latest row): with neither, or a conversation no
        hook registered, it answers an error; then register with session_register.
        """
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
        view = show(root, session_id or "", warnings)
        out = {"session_id": view.id, "message": f"Your Memory Session ID is: {view.id}", **session_json(view)}
        links = chain(root, view.id)
        out["related"] = {k: v for k, v in chain_json(links).items() if k in ("continues_from", "referenced_by")}
        linked = [node.id for node in links.continues_from + links.referenced_by]
        out["notes"] = note_context(root, view.id, linked=linked, text=view.snapshot or "")
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
        """One session, live or archived: its index row and its whole snapshot (null when it has none).

        Read a snapshot only when the row's Topic and Summary are not enough.
        """
        warnings: list[str] = []
        view = show(self.root(), session_id, warnings)
        return ok({**session_json(view), "warnings": warnings})

    def session_list(
        self,
        status: Annotated[Status | None, Field(description="only rows with this status")] = None,
        limit: Annotated[
            int, Field(ge=1, le=MAX_LIMIT, description="at most this many rows: the last ones, newest registrations")
        ] = LIST_LIMIT,
    ) -> CallToolResult:
        """The rows of index.md in file order (new sessions are appended, so the newest come last): Session ID,
        agent, topic, summary, keywords, status, Referenced By, Started At, Updated At.

        Prefer active and stale rows with a real Topic; idle rows with Topic 未設定 are placeholders. `total`
        counts the matching rows, `omitted` those left out by limit (the oldest).
        """
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
        """A session's reference chain both ways: the sessions it continues from (its Continues From, recursively)
        and those that continue from it (its Referenced By), with one-sided links, archived or missing sessions
        and cycles marked."""
        return ok(chain_json(chain(self.root(), session_id)))

    def search(
        self,
        query: Annotated[
            str,
            Field(
                min_length=1, description="text to find, literally and in any case (quotes, AND, * are searched for)"
            ),
        ],
        status: Annotated[
            Status | None, Field(description="only sessions with this status (archived ones: their last status)")
        ] = None,
        agent: Annotated[str | None, Field(description="only sessions of this agent name")] = None,
        since: Annotated[
            str | None, Field(description="only sessions updated at or after this time: YYYY-MM-DD[ HH:MM] or ISO 8601")
        ] = None,
        until: Annotated[
            str | None, Field(description="only sessions updated at or before this time (a date alone: its whole day)")
        ] = None,
        state: Annotated[
            Literal["live", "archived"] | None, Field(description="only live sessions, or only archived ones")
        ] = None,
        section: Annotated[
            str | None,
            Field(description="only matches in this row cell or snapshot section, such as Topic or Decisions"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="at most this many sessions")] = DEFAULT_LIMIT,
    ) -> CallToolResult:
        """Find earlier work: full-text search over index rows, live snapshots and archived sessions, best match
        first, one hit per session, each with where it matched and a snippet (the match marked «like this»).

        The same search as `memboard search`; read a hit's whole snapshot with session_show.
        """
        filters = SearchFilters(status, agent, since, until, state, section, limit)
        outcome = run(self.root(), query, filters, None)
        return ok({"hits": [hit_json(hit) for hit in outcome.hits], "unreadable": outcome.unreadable})

    def session_register(
        self,
        topic: Annotated[str | None, Field(description="what this session works on (default 未設定)")] = None,
        summary: Annotated[
            str | None, Field(description="one or two sentences on what this session has done or decided so far")
        ] = None,
        snapshot: Snapshot = None,
        agent: Agent = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Manual registration, only when you have no Memory Session ID (no session-start hook told you one and
        session_context cannot find it): a new active session with a snapshot from the template (with your
        snapshot sections merged in) and its row. Never take over another session's row.

        Answers the new Session ID in `session_id` and, once both writes are verified, `message`:
        "Your Memory Session ID is: ...".
        """
        return self.apply(register_plan(agent_name(agent), True, topic, summary, snapshot), dry_run)

    def session_update(
        self,
        session_id: SessionId,
        topic: OneLine = None,
        summary: Annotated[
            str | None, Field(description="the row's Summary: the same facts as Current Context, shorter (one line)")
        ] = None,
        keywords: Annotated[str | None, Field(description="comma-separated keywords for the row")] = None,
        snapshot: Snapshot = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Record your session's state (狀態更新): merge snapshot into sessions/<id>.md by the merge policy, then
        update only that session's row (active, Updated At now, and topic, summary, keywords when given).

        Every earlier item is kept: to retire one, repeat it marked [superseded], [resolved] or [done] rather
        than leaving it out. A missing snapshot is created from the template. Only for your own session_id,
        unless the user names another. The answer lists what was added, marked and carried over.
        """
        return self.apply(update_plan(session_id, topic, summary, keywords, snapshot), dry_run)

    def session_continue(
        self,
        source_id: Annotated[str, Field(description="the Memory Session ID to continue from")],
        session_id: Annotated[
            str | None,
            Field(
                description="your own Memory Session ID; leave it out only when you have none "
                "(a new session is then registered manually first)"
            ),
        ] = None,
        agent: Agent = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Continue work from another session (接續 memory): source_id goes under Continues From in your snapshot
        and your Session ID onto the source row's Referenced By, both verified.

        The source row is otherwise left as it is and is not archived.
        """
        return self.apply(continue_plan(source_id, session_id, agent_name(agent)), dry_run)

    def session_release(
        self,
        source_id: Annotated[str, Field(description="the Memory Session ID you no longer depend on")],
        session_id: SessionId,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Release a reference (解除引用): session_id leaves the source row's Referenced By (`-` when none is left)
        and source_id leaves session_id's Continues From (`None` when empty)."""
        return self.apply(release_plan(source_id, session_id), dry_run)

    def session_archive(self, session_id: SessionId, dry_run: DryRun = False) -> CallToolResult:
        """Archive one finished session, only when the user asks (封存 memory session): its own references are
        released, its row becomes archive/<id>/index.md, its snapshot moves to archive/<id>/session.md, and
        the row leaves index.md. An idle placeholder without a snapshot is deleted instead.

        Refused while other sessions list it in Referenced By (they release it first).
        """
        return self.apply(archive_plan(session_id), dry_run)

    def memory_organize(
        self,
        stale_days: Annotated[
            int | None,
            Field(
                ge=0,
                le=36500,
                description="days without update before an active row becomes stale (default: the config's, else 14)",
            ),
        ] = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Organize the memory, only when the user asks (整理 memory, 清理 memory): delete idle rows (not those
        referenced; idle rows with a snapshot are reported, not deleted) and mark active rows stale when Updated
        At is older than stale_days, they have a snapshot or a real Summary, and nobody references them.

        Archives nothing; the answer lists what was deleted, marked, kept and protected.
        """
        return self.apply(organize_plan(stale_days), dry_run)
