"""Typed notes for the demo root: every kind the notes view shows, saved like any note.

Each note goes through the store's own plans (`execute`), in order, at fixed offsets before `now`,
so the demo holds what real saves leave behind: a note updated since its first save (its earlier
text kept as a revision), a preference superseded on its topic (moved aside, linked both ways),
a decision kept beside a conflicting one, a note marked superseded, a link written on one side
only and a link to a note that does not exist. Used by `memboard demo`, the screenshots script
and the board's tests.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

from ...files.execute import execute
from ...files.root import MemoryRoot
from ...formats.note import NoteDraft, read_note, write_note
from ...formats.topic import note_path
from ...plan import Change, Plan
from ...results import NoteSaveResult
from ..demo import demo_ids
from .save import Choice, plan_note_mark, plan_note_save, plan_note_supersede

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


# fmt: off
def _drafts(sessions: dict[str, str]) -> list[tuple[timedelta, NoteDraft, Choice | None]]:
    """The saves, oldest first: (how long before now, the draft, the choice it is saved with)."""
    return [
        (12 * DAY, NoteDraft("Keep notes as Markdown under notes/", "decision", "project",
                             "- One file per topic key, readable in Obsidian.",
                             "Search and review need no database.", "notes/<topic/key>.md", "",
                             "project/memboard/note-storage", "memboard", sessions["typednotes"]), None),
        (11 * DAY, NoteDraft("Wrap prose at 100 columns", "preference", "global",
                             "- Wrap Markdown prose at 100 columns.", "Diffs stay readable.",
                             topic_key="global/preference/prose-wrap"), None),
        (10 * DAY, NoteDraft("CRLF breaks the table parser", "gotcha", "tool",
                             "- A row ending in CRLF kept the CR in its last cell.", "Windows editors save CRLF.",
                             "app/core/formats/index.py", "Split lines at \\n only and keep each ending.",
                             project="memboard", session=sessions["crlf"]), None),
        (9 * DAY, NoteDraft("Sync the vault with Git", "decision", "project",
                            "- The vault syncs through Git, memory/ included.", "One history for notes and code.",
                            topic_key="project/vault/sync", project="vault", session=sessions["sync2"]), None),
        (8 * DAY, NoteDraft("Retry renames while Obsidian holds the file", "bugfix", "tool",
                            "- Retry a refused rename 10 times over one second.", "Obsidian keeps the file open.",
                            "app/core/files/fs.py", project="memboard", session=sessions["rename"]), None),
        (7.5 * DAY, NoteDraft("Hook timed out on a 100k-row index", "bugfix", "tool",
                              "- The hook parsed the whole index to add one row.", "Agents gave up after 5 s.",
                              "app/cli/hook.py", project="memboard", session=sessions["oldhook"]), None),
        (7 * DAY, NoteDraft("同步前先關閉 Obsidian", "fact", "ops", "- 同步時 Obsidian 會鎖住檔案。",
                            "Windows 上 rename 會失敗。", project="vault"), None),
        (6 * DAY, NoteDraft("Wrap prose at 120 columns", "preference", "global",
                            "- Wrap Markdown prose at 120 columns.", "Wide screens; tables fit.",
                            topic_key="global/preference/prose-wrap"), None),
        (5 * DAY, NoteDraft("Sync the vault with Syncthing", "decision", "ops",
                            "- The phone syncs the vault through Syncthing.", "Git does not run on the phone.",
                            topic_key="project/vault/sync", project="vault", session=sessions["sync2"]), "keep_both"),
        (4 * DAY, NoteDraft("Hook registration stays under 100 ms", "pattern", "tool",
                            "- The hook reads the index tail only.", "Agents wait on it at every chat start.",
                            "app/cli/hook.py", project="memboard", session=sessions["hook"]), None),
        (3 * DAY, NoteDraft("Lock files live in local state", "config", "ops",
                            "- The lock is in the local state folder, never in the vault.",
                            "Sync tools break lock files.", project="memboard"), None),
        (2 * DAY, NoteDraft("Keep notes as Markdown under notes/", "decision", "project",
                            "- One file per topic key, readable in Obsidian.\n- Revisions stay in local state.",
                            "Search and review need no database.", "notes/<topic/key>.md",
                            "Obsidian shows the metadata table as is.", "project/memboard/note-storage", "memboard",
                            sessions["typednotes"]), None),
        (1 * DAY, NoteDraft("First merge of two agents' snapshots", "episode", "project",
                            "- Two agents merged one snapshot within a minute; nothing was lost.",
                            project="memboard", session=sessions["merge"]), None),
        (5 * HOUR, NoteDraft("Embeddings for search", "decision", "project",
                             "- Evaluate embeddings once the index passes 5k rows.", project="memboard",
                             session=sessions["embed"]), None),
    ]
# fmt: on


def _links(root: MemoryRoot, when: datetime) -> None:
    """Links the saves above do not make: one note superseded by another of a different topic, one
    marked superseded, and a link written on one side only to a note that is not there."""
    execute(
        root,
        lambda r: plan_note_supersede(
            r,
            "tool/bugfix/hook-timed-out-on-a-100k-row-index",
            "tool/pattern/hook-registration-stays-under-100-ms",
            when,
        ),
    )
    execute(root, lambda r: plan_note_mark(r, "project/decision/embeddings-for-search", "superseded", when + HOUR))
    _hand_link(root, "ops/config/lock-files-live-in-local-state", supersedes=("ops/config/lock-files-in-the-vault",))
    _hand_link(root, "project/decision/embeddings-for-search", superseded_by=("project/memboard/note-storage",))


def _hand_link(root: MemoryRoot, key: str, **links: tuple[str, ...]) -> None:
    """Write links on one note only, as a person editing it by hand would (through a plan all the same)."""

    def build(r: MemoryRoot) -> Plan[NoteSaveResult]:
        """The note's file with the links added."""
        rel = note_path(key)
        data = r.read(rel) or b""
        note = read_note(data)
        plan = Plan("demo link", NoteSaveResult("updated", key, rel, note.status, [], []))
        plan.changes.append(Change("modify", rel, data, write_note(data, note.with_changes(**links))))
        return plan

    execute(root, build)


def _save(root: MemoryRoot, draft: NoteDraft, when: datetime, choice: Choice | None) -> None:
    """Save one note through its plan."""
    execute(root, lambda r: plan_note_save(r, draft, when, choice))


def build_demo_notes(target: str | os.PathLike[str], now: datetime) -> Path:
    """Save the demo's notes into the memory root at target (a demo root: its sessions are named); returns it."""
    root = MemoryRoot(Path(target))
    for ago, draft, choice in _drafts(demo_ids(now)):
        _save(root, draft, now - ago, choice)
    _links(root, now - 2 * HOUR)
    return root.path
