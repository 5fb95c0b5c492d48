"""The agent tools memboard wires into: one registry read by the hook, install-hook, completion and the parser.

Cursor reads `hooks.json` (`{"version": 1, "hooks": {"sessionStart": [{"command": ...}]}}`);
Claude Code reads `settings.json` and Codex `hooks.json`, both shaped
`{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": ...}]}]}}`, and both
answer a hook with `hookSpecificOutput`. Cursor names the conversation `conversation_id`, the
others `session_id`.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

Shape = Literal["cursor", "claude"]  # the settings' and the answer's JSON shape


class Tool(NamedTuple):
    """One agent tool: its name on the command line, its default agent name and where its hooks live.

    A typed NamedTuple (immutable, named fields): the hook reads this registry, and a frozen dataclass
    cost it 0.4 ms to create."""

    name: str
    agent: str  # the agent name its rows get unless --agent or config agent_name says otherwise
    settings: str  # its settings file, under the home folder or a project folder
    event: str  # the settings' key of the SessionStart hooks
    shape: Shape
    conversation_keys: tuple[str, ...]  # the payload keys that may hold the conversation ID, first wins


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            "claude",
            "claude-main-agent",
            ".claude/settings.json",
            "SessionStart",
            "claude",
            ("session_id", "conversation_id"),
        ),
        Tool(
            "codex",
            "codex-main-agent",
            ".codex/hooks.json",
            "SessionStart",
            "claude",
            ("session_id", "conversation_id"),
        ),
        Tool(
            "cursor",
            "cursor-main-agent",
            ".cursor/hooks.json",
            "sessionStart",
            "cursor",
            ("conversation_id", "session_id"),
        ),
    )
}
NAMES = tuple(sorted(TOOLS))
