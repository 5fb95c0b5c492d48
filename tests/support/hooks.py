"""Real-shaped hook payloads of Cursor, Claude Code and Codex, and readers of the conversation map and hook log."""

from __future__ import annotations

import json
from pathlib import Path

CONVERSATION = "8f1c2d3e-4b5a-4c6d-9e8f-0a1b2c3d4e5f"


def claude_payload(session_id: str = CONVERSATION, source: str = "startup", **extra) -> dict:
    """A Claude Code SessionStart payload as its docs describe it."""
    body = {
        "session_id": session_id,
        "transcript_path": f"/home/u/.claude/projects/-home-u-proj/{session_id}.jsonl",
        "cwd": "/home/u/proj",
        "hook_event_name": "SessionStart",
        "source": source,
    }
    body.update(extra)
    return body


def cursor_payload(conversation_id: str = CONVERSATION, **extra) -> dict:
    """A Cursor sessionStart payload (hooks.json version 1)."""
    body = {
        "session_id": conversation_id,
        "conversation_id": conversation_id,
        "generation_id": "gen-1",
        "model": "claude-4.5-sonnet",
        "hook_event_name": "sessionStart",
        "cursor_version": "2.1.0",
        "workspace_roots": ["/home/u/proj"],
        "user_email": None,
        "is_background_agent": False,
        "composer_mode": "agent",
    }
    body.update(extra)
    return body


def codex_payload(session_id: str = CONVERSATION, **extra) -> dict:
    """A Codex SessionStart payload (Claude-style, plus model)."""
    body = claude_payload(session_id, **extra)
    body["model"] = "gpt-5-codex"
    return body


def encoded(payload: dict, boms: int = 0) -> bytes:
    """Payload bytes as the tool writes them to stdin, with leading UTF-8 BOMs when asked."""
    return b"\xef\xbb\xbf" * boms + json.dumps(payload).encode("utf-8")


def local(root: Path) -> Path:
    """memboard's local state folder of a root (revisions, conversation map, hook log)."""
    from memboard.core.files.localstate import folder_of

    return folder_of(root.resolve())


def map_lines(root: Path) -> list[list[str]]:
    """Every mapping line of every shard of the root's conversation map (in local state)."""
    folder = local(root) / "conversations"
    out = []
    for shard in sorted(folder.glob("*.tsv")) if folder.exists() else []:
        out += [l.split("\t") for l in shard.read_text(encoding="utf-8").splitlines() if l and not l.startswith("#")]
    return out


def log_lines(folder: Path) -> list[str]:
    """Lines of a hook.log in folder (empty when there is none)."""
    path = folder / "hook.log"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
