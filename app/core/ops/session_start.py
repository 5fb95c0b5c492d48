"""A hook's SessionStart: one idle row per agent conversation, however often its hook fires.

An agent's hook fires again for the same conversation (Claude Code `resume`/`compact`, Cursor
running its own hook and the Claude one). The conversation map (formats/conversations.py, in
memboard's local state) makes that idempotent: the first SessionStart of a conversation
registers an idle row and records the conversation's Session ID in its shard, in the same plan
and under the same lock as the row. An older memboard kept the map in the root under
`.memboard/conversations/`; a conversation found only there still maps to its session, until
`doctor --fix` moves those shards.
"""

from __future__ import annotations

from datetime import datetime

from ..files.localstate import LocalState
from ..files.root import MemoryRoot
from ..formats.conversations import legacy_shard_path, lookup, shard_path, with_entry
from ..formats.index import IndexFile
from ..formats.layout import INDEX, archive_dir
from ..plan import Change, Check, Plan
from ..secrets import refuse_secrets
from ..start_results import SessionStartResult, Whoami
from .common import start_keywords
from .register import plan_register


def mapped(root: MemoryRoot, conversation: str, local: bytes | None = None) -> str | None:
    """The Session ID the map records for a conversation (whether or not its row still exists).

    Local state first (its lines are the newer), then the shard an older memboard left in
    the root; local is the local shard's bytes when the caller has read them already.
    """
    if local is None:
        local = LocalState(root).read(shard_path(conversation))
    found = lookup(local, conversation)
    if found is None:
        found = lookup(root.read(legacy_shard_path(conversation)), conversation)
    return found


def whoami(root: MemoryRoot, conversation: str) -> Whoami:
    """What the map knows about a conversation: its Session ID and whether the row is live."""
    sid = mapped(root, conversation)
    if sid is None:
        return Whoami(conversation, None, "unknown")
    rows = IndexFile(root.read(INDEX) or b"").find(sid)
    if rows:
        return Whoami(conversation, sid, "live", rows[0].status)
    return Whoami(conversation, sid, "archived" if root.exists(archive_dir(sid)) else "gone")


def maps_to(rel: str, conversation: str, session_id: str) -> Check:
    """A check that the local shard maps conversation to session_id."""
    return Check(
        f"{rel} maps {conversation} to {session_id}",
        lambda root: lookup(LocalState(root).read(rel), conversation) == session_id,
    )


def plan_session_start(
    root: MemoryRoot, when: datetime, agent: str, conversation: str | None, tool: str, append: bool = False
) -> Plan[SessionStartResult]:
    """A hook's SessionStart: reuse the conversation's live row, else register one and map it.

    A conversation whose mapped row is gone (organized away or archived) gets a fresh idle
    row and a new map line; the old line stays in the shard as history. Without a
    conversation ID this is a plain SessionStart registration. append: the row is written as an
    append when the table ends the file (plan_register; the hook's quick plan).
    """
    if conversation is None:
        unmapped = plan_register(root, when, agent, keywords=start_keywords(tool), append=append)
        done = unmapped.result
        return unmapped.with_result(
            SessionStartResult(done.session_id, done.status, None, False, unmentioned=done.unmentioned)
        )
    rel = shard_path(conversation)
    before = LocalState(root).read(rel)
    previous = mapped(root, conversation, before or b"")
    if previous is not None:
        index = IndexFile(root.read(INDEX) or b"")
        index.refuse_conflicts()  # the row may sit in a conflict block: report no ID from such a file
        rows = index.find(previous)
        if rows:
            found = SessionStartResult(previous, rows[0].status, conversation, reused=True)
            return Plan("register", found, success=f"Your Memory Session ID is: {previous}")
    refuse_secrets({"conversation ID": conversation})  # the map's lines keep it (in local state, but a file still)
    registered = plan_register(root, when, agent, keywords=start_keywords(tool), append=append)
    sid = registered.result.session_id
    result = SessionStartResult(
        sid, registered.result.status, conversation, False, previous, registered.result.unmentioned
    )
    plan = registered.with_result(result)
    plan.local.append(Change.write(rel, before, with_entry(before, conversation, sid, tool, when)))
    plan.checks.append(maps_to(rel, conversation, sid))
    return plan
