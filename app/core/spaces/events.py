"""The high-value events of the skill's save gate (`space check --event`, the MCP tool's `events`): one list
for the command line's choices and the MCP schema's enum, so the two cannot drift apart."""

from __future__ import annotations

from typing import Literal, get_args

Event = Literal[
    "goal-changed",
    "approach-changed",
    "research-confirmed",
    "blocker-cleared",
    "next-step-changed",
    "task-completed",
    "session-ending",
]
EVENTS: tuple[str, ...] = get_args(Event)
