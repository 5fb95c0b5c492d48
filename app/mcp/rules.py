"""The server's instructions (`initialize`): the rules of the tools it serves, and no rule about a tool it does not.

Each rule names the tools it is about; the instructions are the rules whose tools are served
(any of them), so a server on the `agent` profile never tells an agent to call a tool it does
not list. `INSTRUCTIONS` is the text with every tool on a memory root: the rules-file text the
documentation gives for CLAUDE.md or AGENTS.md.
"""

from __future__ import annotations

from collections.abc import Collection

from ..service.mcp_tools import EVERY_TOOL, profile_tools

ROOT_INTRO = (
    "memboard keeps the agents' shared working memory (index.md, sessions/<id>.md, archive/, notes/). Change it "
    "only through these tools, never by editing its files."
)
PLACES_INTRO = (
    "memboard serves session-memory spaces and agent memory hierarchies here (no memory root is configured, so the "
    "session and note tools are not offered). Change these files only through these tools, never by editing them."
)
RULES: tuple[tuple[frozenset[str], str], ...] = tuple(
    (frozenset(tools.split()), text)
    for tools, text in (
        (
            "session_context session_register",
            '- Know your Memory Session ID: the session-start hook said "Your Memory Session ID is: ..."; else call '
            "session_context with your conversation_id. Never take the latest row as yours; with no ID, call "
            "session_register once.",
        ),
        (
            "session_context search session_show",
            "- Starting work: session_context shows your snapshot, related sessions and notes; search finds earlier "
            "work; session_show reads one snapshot.",
        ),
        ("session_list session_chain", "- session_list lists the rows; session_chain walks a session's references."),
        (
            "session_update",
            "- Record progress with session_update (your session_id; summary; snapshot sections such as ## Current "
            "Context, ## Decisions, ## Next Actions). It merges and keeps every earlier item: mark outdated ones "
            "[superseded], [resolved] or [done] instead of leaving them out.",
        ),
        ("session_continue", "- Continue another session's work with session_continue."),
        ("session_release", "- Stop depending on a session with session_release."),
        (
            "session_archive memory_organize",
            "- Archive (session_archive) or organize (memory_organize) only when the user asks.",
        ),
        (
            "mem_save",
            "- Typed notes: when a decision, convention or preference is settled, a bug's root cause found, or a "
            "non-obvious fact or reusable pattern learned, save it at once with mem_save (title, type, scope, what, "
            "why, where, learned). Reuse the topic_key of an existing note on the topic (mem_search first): the same "
            'key updates that note. An answer with outcome "conflict" wrote nothing: show the user both texts, ask, '
            "then call again with choice (supersede or keep_both).",
        ),
        (
            "mem_context mem_search mem_get",
            '- Before work that may have been done before, or when the user says "remember" or "last time": '
            "mem_context and mem_search (active notes first); mem_get reads one note.",
        ),
        (
            "mem_update mem_suggest_topic_key",
            "- mem_update changes one note by ID; mem_suggest_topic_key derives a key.",
        ),
        (
            "mem_session_summary",
            "- Before saying the work is done: mem_session_summary (goal, instructions, discoveries, accomplished, "
            "next_steps, relevant).",
        ),
        (
            "space_restore space_check space_save space_search",
            "- Session-memory spaces (a project's .session-memory/): pass workspace, the absolute path of the folder "
            "you work in. space_restore at the start of work on a project; space_check decides whether to save; save "
            "through space_save instead of editing current.md or history.md (every line that leaves current.md is "
            "kept in history.md).",
        ),
        (
            "space_research_save space_dream space_archive space_migrate",
            "- space_research_save records side research; space_dream without notes proposes an extraction: distil "
            "it and call again with notes. space_archive and space_migrate preview unless dry_run is false.",
        ),
        (
            "hierarchy_hot lookup facts_get facts_set daily_log",
            "- Agent memory hierarchy (MEMORY.md and memory/ of a workspace): load hierarchy_hot at session start; "
            "call lookup before searching; change facts with facts_set instead of editing memory/facts.yaml, and "
            "append to daily logs with daily_log.",
        ),
        (
            "facts_todo hierarchy_lint hierarchy_migrate_plan hierarchy_migrate_apply",
            "- facts_todo adds and closes todos; hierarchy_lint checks the seed's rules; hierarchy_migrate_plan "
            "proposes, you decide each line, hierarchy_migrate_apply previews unless dry_run is false.",
        ),
    )
)
CLOSING = (
    "- Every writing tool takes dry_run=true to preview the exact diff. An error result means nothing was written "
    "(unless it says incomplete): never report a change or a Session ID the tool did not confirm.\n"
    "- Never put credentials in memory: text that looks like one is refused."
)
MORE = "- More tools (listing, archiving, organizing, migrations) come with `memboard mcp --tools all`."


def instructions(served: Collection[str], has_root: bool) -> str:
    """The instructions of a server serving the tools served (on a memory root or without one)."""
    lines = [ROOT_INTRO if has_root else PLACES_INTRO]
    lines += [text for tools, text in RULES if tools & set(served)]
    lines.append(CLOSING)
    if set(profile_tools("all", has_root)) - set(served):
        lines.append(MORE)
    return "\n".join(lines)


INSTRUCTIONS = instructions(EVERY_TOOL, True)
