"""The hooks' conversation -> Memory Session ID map, in memboard's local state (`conversations/`).

An agent's hook fires again for the same conversation (Claude Code `resume`/`compact`, Cursor
running its own hook and the Claude one). The map makes that idempotent: the first
SessionStart of a conversation registers an idle row and records
`<conversation-id> TAB <session-id> TAB <tool> TAB <registered-at>` in one of 256 shard
files chosen by a hash of the conversation ID. A shard stays small (about 400 lines at 100k
conversations), so a lookup reads a few kilobytes and the shard is rewritten atomically as
part of the same plan as the index row, under the same lock. The last line of a
conversation wins; lines starting with `#` are comments.

The map is per machine and per root, outside the (synced) root: see localstate.py. An older
memboard kept it in the root under `.memboard/conversations/`; a conversation found only
there still maps to its session, until `doctor --fix` moves those shards.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime

from ..formats.clock import format_ts
from ..formats.ids import is_valid_id
from ..formats.index import IndexFile
from ..files.localstate import LocalState
from ..plan import Change, Check, Plan
from ..formats.layout import INDEX, STATE
from ..files.root import MemoryRoot

FOLDER = "conversations"  # in the root's local state
LEGACY_FOLDER = f"{STATE}/conversations"  # in the root, where an older memboard kept it
HEADER = (
    b"# memboard conversation map v1: conversation-id<TAB>session-id<TAB>tool<TAB>registered-at;"
    b" the last line of a conversation wins\n"
)
MAX_CONVERSATION = 200
CONVERSATION_RE = re.compile(r"[^\x00-\x20\x7f#][^\x00-\x1f\x7f]{0,%d}" % (MAX_CONVERSATION - 1))


def valid_conversation(value: object) -> bool:
    """Whether value can be a map key: one line, no tabs or control characters, at most 200 chars."""
    return isinstance(value, str) and CONVERSATION_RE.fullmatch(value) is not None


def shard_path(conversation: str) -> str:
    """The shard file (relative to the root's local state) that holds a conversation's lines."""
    digest = hashlib.sha1(conversation.encode("utf-8", "surrogateescape")).hexdigest()
    return f"{FOLDER}/{digest[:2]}.tsv"


def legacy_shard_path(conversation: str) -> str:
    """Where an older memboard kept the conversation's shard (relative to the root)."""
    return f"{STATE}/{shard_path(conversation)}"


def lookup(data: bytes | None, conversation: str) -> str | None:
    """The Session ID of the conversation's last complete line in shard bytes, or None."""
    if not data:
        return None
    key = conversation.encode("utf-8", "surrogateescape") + b"\t"
    end = len(data)
    while True:
        at = data.rfind(key, 0, end)
        if at < 0:
            return None
        if at == 0 or data[at - 1] == 0x0A:
            stop = data.find(b"\n", at)
            if stop >= 0:
                fields = data[at:stop].rstrip(b"\r").split(b"\t")
                sid = fields[1].decode("utf-8", "replace") if len(fields) > 1 else ""
                if is_valid_id(sid):
                    return sid
        end = at + len(key) - 1


def with_entry(data: bytes | None, conversation: str, session_id: str, tool: str, when: datetime) -> bytes:
    """Shard bytes with one more line mapping conversation to session_id (nothing else changes)."""
    base = data if data else HEADER
    if not base.endswith(b"\n"):
        base += b"\n"
    line = f"{conversation}\t{session_id}\t{tool}\t{format_ts(when)}\n"
    return base + line.encode("utf-8", "surrogateescape")


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


def whoami(root: MemoryRoot, conversation: str) -> dict:
    """What the map knows about a conversation: its Session ID and whether the row is live."""
    sid = mapped(root, conversation)
    info = {"conversation": conversation, "session_id": sid, "state": "unknown"}
    if sid is None:
        return info
    data = root.read(INDEX)
    rows = IndexFile(data or b"").find(sid)
    if rows:
        info["state"] = "live"
        info["status"] = rows[0].status
    elif root.exists(f"archive/{sid}"):
        info["state"] = "archived"
    else:
        info["state"] = "gone"
    return info


def maps_to(rel: str, conversation: str, session_id: str) -> Check:
    """A check that the local shard maps conversation to session_id."""
    return Check(
        f"{rel} maps {conversation} to {session_id}",
        lambda root: lookup(LocalState(root).read(rel), conversation) == session_id,
    )


def plan_session_start(root: MemoryRoot, when: datetime, agent: str, conversation: str | None, tool: str) -> Plan:
    """A hook's SessionStart: reuse the conversation's live row, else register one and map it.

    A conversation whose mapped row is gone (organized away or archived) gets a fresh idle
    row and a new map line; the old line stays in the shard as history. Without a
    conversation ID this is a plain SessionStart registration.
    """
    from .register import plan_register

    if conversation is None:
        plan = plan_register(root, when, agent)
        plan.result.update(conversation=None, reused=False)
        return plan
    rel = shard_path(conversation)
    before = LocalState(root).read(rel)
    previous = mapped(root, conversation, before or b"")
    if previous is not None:
        index = IndexFile(root.read(INDEX) or b"")
        index.refuse_conflicts()  # the row may sit in a conflict block: report no ID from such a file
        rows = index.find(previous)
        if rows:
            plan = Plan("register")
            plan.result = {"session_id": previous, "status": rows[0].status, "conversation": conversation, "reused": True}
            plan.success = f"Your Memory Session ID is: {previous}"
            return plan
    plan = plan_register(root, when, agent)
    sid = plan.result["session_id"]
    plan.local.append(Change("create" if before is None else "modify", rel, before, with_entry(before, conversation, sid, tool, when)))
    plan.checks.append(maps_to(rel, conversation, sid))
    plan.result.update(conversation=conversation, reused=False)
    if previous is not None:
        plan.result["replaces"] = previous
    return plan
