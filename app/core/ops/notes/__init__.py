"""Typed notes (seed 001): saving by topic key with the conflict policy, reading, session summaries.

The API the command line and the MCP server call (every write is a plan: run it with
`memboard.core.files.execute.execute(root, builder, dry_run=...)`, which builds it from settled
reads, takes the root's lock, re-reads, writes and verifies):

- `plan_note_save(root, draft: NoteDraft, when, choice=None, allow_secrets=False) -> Plan[NoteSaveResult]`
  (mem_save). choice is None, "supersede" or "keep_both". `result.outcome` is created, updated,
  unchanged, superseded, kept_both or conflict; a conflict plan writes nothing and carries
  `result.conflict: NoteConflict` with both texts.
- `plan_note_update(root, ref, fields: NoteFields, when, choice=None, allow_secrets=False)
  -> Plan[NoteSaveResult]` (mem_update): ref is a note ID or topic key; fields left None stay.
- `plan_note_supersede(root, old_ref, new_ref, when) -> Plan[NoteLinkResult]` and
  `plan_note_mark(root, ref, status, when) -> Plan[NoteSaveResult]` (the board's flows).
- `plan_session_summary(root, session_id, goal, instructions, discoveries, accomplished,
  next_steps, relevant, *, when, allow_secrets=False) -> Plan[UpdateResult]` (mem_session_summary).
- `plan_memory_update(root, text, when, choice=None, allow_secrets=False) -> Plan[MemoryUpdateResult]`
  (`memboard note apply`).
- `list_notes(root, NoteFilters(type, scope, project, status, session)) -> list[NoteView]`,
  `show_note(root, ref) -> NoteDetail` (mem_get).
- `suggest_topic_key(scope, type, title) -> str` (mem_suggest_topic_key).

Searching notes is `memboard.core.search.notes.search_notes` (mem_search: active notes first).
Result types are in `memboard.core.results`; bad input raises `UsageError`, refusals `Refused`,
a credential in the text `SecretFound` (all `MemboardError`, each with a one-line message).
"""

from __future__ import annotations

from ...formats.note import NoteDraft
from ...formats.topic import SCOPES, TYPES, suggest_topic_key
from .apply import plan_memory_update
from .save import CHOICES, Choice, NoteFields, plan_note_mark, plan_note_save, plan_note_supersede, plan_note_update
from .store import NoteFilters, list_notes, show_note
from .summary import plan_session_summary

__all__ = [
    "CHOICES",
    "SCOPES",
    "TYPES",
    "Choice",
    "NoteDraft",
    "NoteFields",
    "NoteFilters",
    "list_notes",
    "plan_memory_update",
    "plan_note_mark",
    "plan_note_save",
    "plan_note_supersede",
    "plan_note_update",
    "plan_session_summary",
    "show_note",
    "suggest_topic_key",
]
