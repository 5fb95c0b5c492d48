"""Which tools `memboard mcp` offers: the tool profiles (`--tools`, config `mcp_tools`), by name only.

Every tool an MCP client lists costs its agent context on every turn, so the server offers a
profile, not always every tool. A profile is a set of tool names; `--tools` takes one or more
profiles joined by commas (their union). The families (`sessions`, `notes`, `spaces`,
`hierarchy`) are each family's every tool; `all` is every tool; `agent`, the default, is what
an agent needs in a normal session: with a memory root, finding out its session and earlier
work, recording progress, continuing from another session, saving, finding and reading notes,
and closing with a summary; with no memory root (the server then serves the spaces and
hierarchies alone), restoring, checking and saving a project's space and loading, looking up
and writing its hierarchy. What `agent` leaves out is maintenance a user asks for (archive,
organize, release, migrations) or a second way to the same thing (session_list beside search,
mem_update beside mem_save with the note's key): `--tools all` offers them.

This module holds names only (no MCP SDK): the command line's `memboard mcp --help` lists the
tools from it, and the server (mcp/server.py) checks that each tool it defines is in exactly one
family.
"""

from __future__ import annotations

from ..core.config import MCP_PROFILES
from ..core.errors import UsageError

DEFAULT_PROFILE = "agent"

FAMILIES: dict[str, tuple[str, ...]] = {
    "sessions": (
        "session_context",
        "session_show",
        "session_list",
        "session_chain",
        "search",
        "session_register",
        "session_update",
        "session_continue",
        "session_release",
        "session_archive",
        "memory_organize",
    ),
    "notes": (
        "mem_context",
        "mem_search",
        "mem_get",
        "mem_suggest_topic_key",
        "mem_save",
        "mem_update",
        "mem_session_summary",
    ),
    "spaces": (
        "space_where",
        "space_restore",
        "space_search",
        "space_check",
        "space_save",
        "space_research_save",
        "space_dream",
        "space_archive",
        "space_migrate",
    ),
    "hierarchy": (
        "hierarchy_hot",
        "hierarchy_lint",
        "facts_get",
        "lookup",
        "hierarchy_migrate_plan",
        "facts_set",
        "facts_todo",
        "daily_log",
        "hierarchy_migrate_apply",
    ),
}
NEED_ROOT = ("sessions", "notes")  # the families served only on a memory root

AGENT_ON_ROOT = (
    "session_context",
    "session_register",
    "session_update",
    "session_continue",
    "session_show",
    "search",
    "mem_context",
    "mem_search",
    "mem_get",
    "mem_save",
    "mem_session_summary",
)
AGENT_WITHOUT_ROOT = (
    "space_restore",
    "space_check",
    "space_save",
    "space_search",
    "hierarchy_hot",
    "lookup",
    "facts_get",
    "facts_set",
    "daily_log",
)
EVERY_TOOL = tuple(name for names in FAMILIES.values() for name in names)


def profile_names(value: str | None) -> tuple[str, ...]:
    """The profiles a `--tools` value names (comma-separated; empty or None: the default), each checked."""
    names = tuple(part.strip() for part in (value or "").split(",") if part.strip()) or (DEFAULT_PROFILE,)
    for name in names:
        if name not in MCP_PROFILES:
            raise UsageError(
                f"unknown tool profile {name!r}: use one of {', '.join(MCP_PROFILES)} (or several, joined by commas)"
            )
    return names


def profile_tools(value: str | None, has_root: bool) -> tuple[str, ...]:
    """The tools a `--tools` value offers, in the families' order, on a server with or without a memory root."""
    wanted: set[str] = set()
    for name in profile_names(value):
        if name == "all":
            wanted.update(EVERY_TOOL)
        elif name == "agent":
            wanted.update(AGENT_ON_ROOT if has_root else AGENT_WITHOUT_ROOT)
        else:
            wanted.update(FAMILIES[name])
    if not has_root:
        wanted.difference_update(name for family in NEED_ROOT for name in FAMILIES[family])
    return tuple(name for name in EVERY_TOOL if name in wanted)


def help_text() -> str:
    """Every tool grouped by profile, for `memboard mcp --help`."""
    import textwrap  # lazy: only the help text wraps

    def row(label: str, names: tuple[str, ...] | str) -> str:
        """One profile's line, wrapped under its label."""
        text = names if isinstance(names, str) else ", ".join(names)
        return textwrap.fill(text, 100, initial_indent=f"  {label:<11}", subsequent_indent=" " * 13)

    lines = [
        "tool profiles (--tools PROFILE[,PROFILE...], config mcp_tools; default agent):",
        row("agent", "with a memory root: " + ", ".join(AGENT_ON_ROOT)),
        row("", "without one: " + ", ".join(AGENT_WITHOUT_ROOT)),
        *(row(family, names) for family, names in FAMILIES.items()),
        row("all", "every tool above (the sessions and notes tools need a memory root)"),
    ]
    return "\n".join(lines)
