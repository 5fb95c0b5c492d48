"""The note tools (seed 001): typed notes saved, found and read by agents, through the notes core.

Every save goes through the same plans as `memboard note save|update` (the upsert by topic key,
the conflict policy, the revisions, the secrets guard) and `execute`: plan, lock, write, verify.
Answers are the JSON `memboard note ... --json` prints (service/output.py, service/search.py). A
decision conflict is an answer, not an error: outcome `conflict`, both texts, nothing written;
the agent asks the user and calls again with `choice`. The type, scope, status and choice
arguments are enums in the schemas, so an agent sees the allowed values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from ..core.files.execute import execute
from ..core.files.root import MemoryRoot
from ..core.formats import clock
from ..core.formats.ids import check_id
from ..core.ops.notes import (
    Choice,
    NoteDraft,
    NoteFields,
    plan_note_save,
    plan_note_update,
    plan_session_summary,
    show_note,
    suggest_topic_key,
)
from ..core.search.engine import DEFAULT_LIMIT, MAX_LIMIT, SearchFilters
from ..core.search.notes import find_notes
from ..service.builders import Builder
from ..service.output import note_detail_json
from ..service.search import hits_answer
from .answers import change, ok
from .context import CONTEXT_LIMIT, note_context
from .hints import READS, REWRITES
from .kept import kept_for
from .sessions import DryRun, SessionId, Tool

NoteType = Literal["preference", "fact", "decision", "gotcha", "episode", "pattern", "config", "bugfix"]
Scope = Literal["global", "project", "tool", "ops"]
TYPE_HELP = "preference: the user's choice; decision: settled; fact: non-obvious; bugfix: a root cause and fix"
SCOPE_HELP = "global: everywhere; project: give project"
KEY_HELP = "the topic's stable key, such as project/shop/database (default: <scope>/<type>/<title slug>)"
CHOICE_HELP = "only after a `conflict` answer, as the user chose"
NoteId = Annotated[str, Field(description="a note ID (topic key, or <key>~<n>)")]
Items = list[str] | str | None
ITEMS = ""  # the tool says each list takes items or Markdown lines


def _text(what: str) -> object:
    """An optional Markdown text argument: what it holds; left out, it stays as it is."""
    return Field(description=f"{what} (Markdown)")


class NoteTools:
    """The note tools on one memory root."""

    def __init__(self, root: Path):
        """Serve the memory root at root (opened on each call)."""
        self.path = root

    def tools(self) -> list[tuple[Tool, ToolAnnotations]]:
        """Each tool with its hints (hints.py's rule: a save over a note's key, an update and a summary rewrite
        text in place, the earlier text kept as a revision)."""
        return [
            (self.mem_context, READS),
            (self.mem_search, READS),
            (self.mem_get, READS),
            (self.mem_suggest_topic_key, READS),
            (self.mem_save, REWRITES),
            (self.mem_update, REWRITES),
            (self.mem_session_summary, REWRITES),
        ]

    def root(self) -> MemoryRoot:
        """The memory root, opened for this call (a one-line error when it is missing or not a folder)."""
        return MemoryRoot(self.path)

    def apply(self, build: Builder, dry_run: bool) -> CallToolResult:
        """Plan, then write and verify under the root's lock (or, for a dry run, only plan); the answer."""
        return change(execute(self.root(), build, dry_run=dry_run), dry_run)

    def mem_save(
        self,
        title: Annotated[
            str,
            Field(
                min_length=1,
                description="verb + object, such as 'Choose PostgreSQL for the shop database'",
            ),
        ],
        type: Annotated[NoteType, Field(description=TYPE_HELP)],
        scope: Annotated[Scope, Field(description=SCOPE_HELP)],
        what: Annotated[
            str,
            Field(description="what was decided, found or done (Markdown; each list item a statement)"),
        ],
        why: Annotated[str, Field(description="why (Markdown)")] = "",
        where: Annotated[str, Field(description="files, projects, commands (Markdown)")] = "",
        learned: Annotated[str, Field(description="for next time (Markdown)")] = "",
        topic_key: Annotated[str | None, Field(description=KEY_HELP)] = None,
        project: Annotated[str | None, Field(description="its project, such as shop")] = None,
        session_id: Annotated[str | None, Field(description="your Memory Session ID")] = None,
        choice: Annotated[Choice | None, Field(description=CHOICE_HELP)] = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Save a typed note at once when a decision, preference, root cause, fact or pattern is settled. The same
        topic_key updates that note (the old text kept as a revision); a new preference supersedes the old. A
        decision that drops earlier statements is not written: outcome "conflict" with both texts; ask the user,
        call again with choice. `outcome`: created, updated, unchanged, superseded, kept_both, conflict."""
        draft = NoteDraft(title, type, scope, what, why, where, learned, topic_key, project, session_id)
        when = clock.now()
        return self.apply(lambda root: plan_note_save(root, draft, when, choice), dry_run)

    def mem_update(
        self,
        note_id: NoteId,
        title: Annotated[str | None, Field(description="a new title")] = None,
        type: Annotated[NoteType | None, Field(description="a new type")] = None,
        scope: Annotated[Scope | None, Field(description="a new scope")] = None,
        what: Annotated[str | None, _text("the whole new What")] = None,
        why: Annotated[str | None, _text("the whole new Why")] = None,
        where: Annotated[str | None, _text("the whole new Where")] = None,
        learned: Annotated[str | None, _text("the whole new Learned")] = None,
        project: Annotated[str | None, Field(description="a new project")] = None,
        session_id: Annotated[str | None, Field(description="your Memory Session ID")] = None,
        choice: Annotated[Choice | None, Field(description=CHOICE_HELP)] = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Change some values of one note by ID; those left out stay. A text replaces that section whole (repeat
        the statements that hold); a decision losing statements answers "conflict", as mem_save."""
        fields = NoteFields(title, type, scope, what, why, where, learned, project, session_id)
        when = clock.now()
        return self.apply(lambda root: plan_note_update(root, note_id, fields, when, choice), dry_run)

    def mem_suggest_topic_key(
        self,
        scope: Annotated[Scope, Field(description=SCOPE_HELP)],
        type: Annotated[NoteType, Field(description=TYPE_HELP)],
        title: Annotated[str, Field(min_length=1, description="the title")],
    ) -> CallToolResult:
        """The topic key mem_save derives from scope, type and title (search first: reuse an existing note's)."""
        return ok({"topic_key": suggest_topic_key(scope, type, title)})

    def mem_search(
        self,
        query: Annotated[
            str,
            Field(
                min_length=1,
                description="text to find, literally, any case",
            ),
        ],
        type: Annotated[NoteType | None, Field(description="only this type")] = None,
        scope: Annotated[Scope | None, Field(description="only this scope")] = None,
        project: Annotated[str | None, Field(description="only this project")] = None,
        status: Annotated[
            Literal["active", "superseded"] | None,
            Field(description="only this status"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="most hits")] = DEFAULT_LIMIT,
    ) -> CallToolResult:
        """Find typed notes before deciding what may be decided, or when the user says "remember" or "last time":
        full text, active notes first, each hit with a snippet («match»); mem_get reads one."""
        filters = SearchFilters(status=status, limit=limit, note_type=type, scope=scope, project=project)
        outcome = find_notes(self.root(), query, filters, beside=True)
        return ok(hits_answer(outcome))

    def mem_get(
        self,
        note_id: Annotated[str, Field(description="the note's ID or topic key")],
    ) -> CallToolResult:
        """One note whole: metadata, What, Why, Where, Learned, and its revisions."""
        return ok(note_detail_json(show_note(self.root(), note_id)))

    def mem_context(
        self,
        project: Annotated[str | None, Field(description="your project: its notes first")] = None,
        session_id: Annotated[
            str | None,
            Field(description="your Memory Session ID"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="most related notes")] = CONTEXT_LIMIT,
    ) -> CallToolResult:
        """The notes to know before work (metadata only): `session`, your session's; `related`, active notes
        of your project, then global ones, newest first."""
        if session_id is not None:
            check_id(session_id)
        root = self.root()
        return ok(note_context(root, session_id, project, limit=limit, notes=kept_for(self.path).note_set(root)))

    def mem_session_summary(
        self,
        session_id: SessionId,
        goal: Annotated[str, Field(description="the goal, one line")] = "",
        instructions: Annotated[Items, Field(description="the user's preferences, constraints" + ITEMS)] = None,
        discoveries: Annotated[Items, Field(description="findings, traps, root causes" + ITEMS)] = None,
        accomplished: Annotated[Items, Field(description="what was done" + ITEMS)] = None,
        next_steps: Annotated[Items, Field(description="what comes next" + ITEMS)] = None,
        relevant: Annotated[Items, Field(description="notes, files, commands" + ITEMS)] = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Before saying the work is done: merge a summary into your session's snapshot (nothing earlier
        dropped) and row (Summary: goal and what was done). Each list: items, or Markdown lines."""
        when = clock.now()
        return self.apply(
            lambda root: plan_session_summary(
                root, session_id, goal, instructions, discoveries, accomplished, next_steps, relevant, when=when
            ),
            dry_run,
        )
