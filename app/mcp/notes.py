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
from ..service.search import hit_json
from .answers import change, ok
from .context import CONTEXT_LIMIT, note_context
from .sessions import READS, WRITES, DryRun, SessionId, Tool

NoteType = Literal["preference", "fact", "decision", "gotcha", "episode", "pattern", "config", "bugfix"]
Scope = Literal["global", "project", "tool", "ops"]
TYPE_HELP = (
    "preference (the user's choice or taste), fact (non-obvious, found out), decision (architecture, design, "
    "tool, process or naming settled), gotcha (a trap), episode (what happened), pattern (a reusable way), "
    "config (a setting), bugfix (a root cause and its fix)"
)
SCOPE_HELP = (
    "global (everywhere), project (one project: give project), tool (a tool or library), ops (deployment, environments)"
)
KEY_HELP = (
    "the topic's stable key: segments of lowercase a-z, 0-9, '.', '_' and '-' joined by '/' (no '..', no empty "
    "or hidden segment), such as project/shop/database; leave it out to derive <scope>/<type>/<slug of the title> "
    "(mem_suggest_topic_key tells it)"
)
CHOICE_HELP = (
    "only after a `conflict` answer, once the user has chosen: supersede (the new note replaces the old one, "
    "which is kept, marked superseded) or keep_both (the new note is saved beside the old one under the key "
    "the conflict names, both active, each with its scope)"
)
NoteId = Annotated[str, Field(description="a note ID (its topic key, or <key>~<n> for an earlier note moved aside)")]
Items = list[str] | str | None
ITEMS = " (a list of items, or Markdown text whose list items or lines are the items)"


def _text(what: str) -> object:
    """An optional Markdown text argument: what it holds; left out, it stays as it is."""
    return Field(description=f"{what} (Markdown); leave it out to keep the note's own")


class NoteTools:
    """The note tools on one memory root."""

    def __init__(self, root: Path):
        """Serve the memory root at root (opened on each call)."""
        self.path = root

    def tools(self) -> list[tuple[Tool, ToolAnnotations]]:
        """Each tool with its hints (read-only, or writing; none removes anything)."""
        return [
            (self.mem_context, READS),
            (self.mem_search, READS),
            (self.mem_get, READS),
            (self.mem_suggest_topic_key, READS),
            (self.mem_save, WRITES),
            (self.mem_update, WRITES),
            (self.mem_session_summary, WRITES),
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
                description="short and searchable: verb + object, such as 'Choose PostgreSQL for the shop database'",
            ),
        ],
        type: Annotated[NoteType, Field(description=TYPE_HELP)],
        scope: Annotated[Scope, Field(description=SCOPE_HELP)],
        what: Annotated[
            str,
            Field(
                description="what was decided, found or done (Markdown: each list item is a statement; "
                "headings of level 3 and below only)"
            ),
        ],
        why: Annotated[str, Field(description="why (Markdown)")] = "",
        where: Annotated[str, Field(description="where it applies: files, projects, commands (Markdown)")] = "",
        learned: Annotated[str, Field(description="what to remember next time (Markdown)")] = "",
        topic_key: Annotated[str | None, Field(description=KEY_HELP)] = None,
        project: Annotated[str | None, Field(description="the project it belongs to, such as shop")] = None,
        session_id: Annotated[
            str | None, Field(description="your Memory Session ID: the note records which session saved it")
        ] = None,
        choice: Annotated[Choice | None, Field(description=CHOICE_HELP)] = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Save a typed note (mem_save) as soon as something worth remembering happens: a decision or convention
        settled, a preference the user stated, a bug's root cause, a non-obvious fact, a reusable pattern.

        One note per topic key: the same topic_key updates that note, never a duplicate (the previous text is
        kept as a revision), and different topics never overwrite each other. Saving over a note: a statement
        it made is kept only when your text has it again as a statement (list item) of its own, the same or
        with a clarification after it, never a negation or a replacement ("not", "instead", "no longer",
        "replaced by", 不再, 改用); a new preference supersedes the old one (both kept and linked); other types
        are updated in place. A decision whose new text drops or changes earlier statements, or a decision or
        preference saved as another type, is NOT written: the answer has outcome "conflict" with both texts
        (conflict.old_text, conflict.new_text), the statements dropped and conflict.new_type. Show them to the
        user, ask, then call again with the same values and choice. `outcome` says what happened: created,
        updated, unchanged, superseded, kept_both or conflict.
        """
        draft = NoteDraft(title, type, scope, what, why, where, learned, topic_key, project, session_id)
        when = clock.now()
        return self.apply(lambda root: plan_note_save(root, draft, when, choice), dry_run)

    def mem_update(
        self,
        note_id: NoteId,
        title: Annotated[str | None, Field(description="a new title; leave it out to keep the note's own")] = None,
        type: Annotated[NoteType | None, Field(description="a new type; leave it out to keep the note's own")] = None,
        scope: Annotated[Scope | None, Field(description="a new scope; leave it out to keep the note's own")] = None,
        what: Annotated[str | None, _text("the whole new What")] = None,
        why: Annotated[str | None, _text("the whole new Why")] = None,
        where: Annotated[str | None, _text("the whole new Where")] = None,
        learned: Annotated[str | None, _text("the whole new Learned")] = None,
        project: Annotated[str | None, Field(description="a new project; leave it out to keep the note's own")] = None,
        session_id: Annotated[
            str | None, Field(description="your Memory Session ID, recorded as the note's session")
        ] = None,
        choice: Annotated[Choice | None, Field(description=CHOICE_HELP)] = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Change some values of one note by its ID (mem_update); values left out stay as they are.

        A text you give replaces that section whole, by the same policy as mem_save: repeat the statements
        that still hold. A decision that would lose statements, or a decision or preference given another type,
        answers outcome "conflict" and writes nothing until called again with choice. A note moved aside
        (<key>~<n>) is history: it only takes additions.
        """
        fields = NoteFields(title, type, scope, what, why, where, learned, project, session_id)
        when = clock.now()
        return self.apply(lambda root: plan_note_update(root, note_id, fields, when, choice), dry_run)

    def mem_suggest_topic_key(
        self,
        scope: Annotated[Scope, Field(description=SCOPE_HELP)],
        type: Annotated[NoteType, Field(description=TYPE_HELP)],
        title: Annotated[str, Field(min_length=1, description="the note's title")],
    ) -> CallToolResult:
        """The stable topic key mem_save derives from scope, type and title when it is given none
        (<scope>/<type>/<slug of the title>): the same three values always give the same key.

        Search first (mem_search): when a note on the topic exists, save under its key instead.
        """
        return ok({"topic_key": suggest_topic_key(scope, type, title)})

    def mem_search(
        self,
        query: Annotated[
            str,
            Field(
                min_length=1,
                description="text to find, literally and in any case "
                "(two-character Chinese words and parts of words too)",
            ),
        ],
        type: Annotated[NoteType | None, Field(description="only notes of this type")] = None,
        scope: Annotated[Scope | None, Field(description="only notes of this scope")] = None,
        project: Annotated[str | None, Field(description="only notes of this project")] = None,
        status: Annotated[
            Literal["active", "superseded"] | None,
            Field(description="only notes with this status (default: any, active ones first)"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="at most this many notes")] = DEFAULT_LIMIT,
    ) -> CallToolResult:
        """Find typed notes (mem_search) before deciding something that may have been decided, when the user says
        "remember", "last time", "how did we", or before a risky step: full-text search over notes, active
        notes first, best match first, each hit with where it matched and a snippet (the match marked «like
        this»).

        The same search as `memboard search` (sessions too: use search); read a hit whole with mem_get.
        """
        filters = SearchFilters(status=status, limit=limit, note_type=type, scope=scope, project=project)
        outcome = find_notes(self.root(), query, filters)
        return ok({"hits": [hit_json(hit) for hit in outcome.hits], "unreadable": outcome.unreadable})

    def mem_get(
        self,
        note_id: Annotated[str, Field(description="the note's ID or topic key (as mem_search or mem_context gave it)")],
    ) -> CallToolResult:
        """One note whole (mem_get): its metadata (type, scope, status, supersedes / superseded_by, project,
        session, created, updated), What, Why, Where and Learned, the file's text, and how many revisions
        are kept (`previous`: the newest text that differs)."""
        return ok(note_detail_json(show_note(self.root(), note_id)))

    def mem_context(
        self,
        project: Annotated[str | None, Field(description="the project you work on: its notes come first")] = None,
        session_id: Annotated[
            str | None,
            Field(description="your Memory Session ID: the notes it saved, and those of the projects they belong to"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="at most this many related notes")] = CONTEXT_LIMIT,
    ) -> CallToolResult:
        """The notes to know before you start or resume work (mem_context), compact (metadata only, no texts):
        `session`, the notes your session saved; `related`, active notes of your project and of the projects
        of your session's notes, then global ones, newest first (with neither argument: the newest active
        notes). `total` counts the related notes, `omitted` those left out by limit.

        Read one whole with mem_get; find others with mem_search.
        """
        if session_id is not None:
            check_id(session_id)
        return ok(note_context(self.root(), session_id, project, limit=limit))

    def mem_session_summary(
        self,
        session_id: SessionId,
        goal: Annotated[str, Field(description="this session's goal, one line")] = "",
        instructions: Annotated[Items, Field(description="preferences or constraints the user stated" + ITEMS)] = None,
        discoveries: Annotated[Items, Field(description="non-obvious findings, traps, root causes" + ITEMS)] = None,
        accomplished: Annotated[Items, Field(description="what was done" + ITEMS)] = None,
        next_steps: Annotated[Items, Field(description="what comes next" + ITEMS)] = None,
        relevant: Annotated[
            Items, Field(description="relevant notes (notes/<key>.md), files and commands" + ITEMS)
        ] = None,
        dry_run: DryRun = False,
    ) -> CallToolResult:
        """Close a session (mem_session_summary): before you say the work is done, merge its summary into your
        session's snapshot and row. Each list takes items (or Markdown list text).

        Goal, accomplished and discoveries become Current Context items, instructions Decisions items, next
        steps Next Actions and relevant Files / Artifacts, merged by the snapshot merge policy (nothing earlier
        dropped); the row becomes active and its Summary the goal and what was accomplished. Save decisions,
        preferences and findings worth keeping as notes with mem_save too.
        """
        when = clock.now()
        return self.apply(
            lambda root: plan_session_summary(
                root, session_id, goal, instructions, discoveries, accomplished, next_steps, relevant, when=when
            ),
            dry_run,
        )
