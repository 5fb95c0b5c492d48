"""The hooks' conversation map: shard files of `conversation TAB session TAB tool TAB time` lines.

A conversation's lines live in one of 256 shards chosen by a hash of its ID, so a lookup
reads a few kilobytes at any size; the last complete line of a conversation wins and lines
starting with `#` are comments. The map lives in memboard's local state (`conversations/`);
an older memboard kept it in the root under `.memboard/conversations/`.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime

from .clock import format_ts
from .ids import is_valid_id
from .layout import STATE

FOLDER = "conversations"  # in the root's local state
LEGACY_FOLDER = f"{STATE}/conversations"  # in the root, where an older memboard kept it
HEADER = (
    b"# memboard conversation map v1: conversation-id<TAB>session-id<TAB>tool<TAB>registered-at;"
    b" the last line of a conversation wins\n"
)
MAX_CONVERSATION = 200
CONVERSATION_RE = re.compile(rf"[^\x00-\x20\x7f#][^\x00-\x1f\x7f]{{0,{MAX_CONVERSATION - 1}}}")


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
