"""`hierarchy show`: the three layers of a workspace and their sizes (issue 25 §3 "show").

Hot: MEMORY.md's lines and estimated tokens against their limits, and its two pointers; warm: facts.yaml's
groups, keys and Last updated, the lookup rows, the project files; cold: the daily logs of both forms
(OpenClaw's slugged ones included) and the newest. The result is the command's JSON as the issue gives it.
"""

from __future__ import annotations

import os
from typing import Any

from . import hot, lint, lookup


def show(workspace: str) -> dict[str, Any]:
    """The workspace's layers as `hierarchy show --json` prints them."""
    ws = lint.read_workspace(workspace)
    hot_lines = hot.lines_of(ws.hot or "")
    facts: dict[str, Any] = {"path": lint.FACTS_FILE, "groups": None, "keys": None, "last_updated": None}
    if ws.facts is not None:
        view = lint.read_facts(ws.facts)
        if view.facts is not None:
            facts["groups"] = len(view.groups())
            facts["keys"] = view.leaves()
        facts["last_updated"] = view.last_updated.text if view.last_updated else None
    index = lookup.parse_index(ws.index) if ws.index is not None else None
    logs = ws.logs
    return {
        "workspace": os.path.abspath(workspace),
        "hot": {
            "path": lint.HOT_FILE,
            "exists": ws.hot is not None,
            "lines": len(hot_lines),
            "tokens": hot.estimate_tokens(ws.hot or ""),
            "pointers": hot.pointers(hot_lines),
        },
        "warm": {
            "facts": {**facts, "exists": ws.facts is not None, "problem": ws.facts_problem},
            "lookup": {"path": lookup.LOOKUP_FILE, "rows": len(index.rows) if index else None},
            "projects": ws.projects,
        },
        "cold": {"daily": [log.as_json() for log in logs], "newest": logs[-1].date if logs else None},
    }


def render(result: dict[str, Any], max_lines: int, max_tokens: int) -> str:
    """The text `hierarchy show` prints."""
    h, w, c = result["hot"], result["warm"], result["cold"]
    ptr = h["pointers"]
    pointers = ", ".join(k for k in ("facts", "lookup") if ptr[k]) or "none"
    f = w["facts"]
    facts = (
        (f"cannot be read ({f['problem']})" if f.get("problem") else "absent")
        if not f["exists"]
        else ("not readable YAML" if f["groups"] is None else f"{f['groups']} groups, {f['keys']} keys")
        + f", last updated {f['last_updated'] or '-'}"
    )
    rows = "absent" if w["lookup"]["rows"] is None else f"{w['lookup']['rows']} rows"
    slugged = sum(1 for d in c["daily"] if d["slug"])
    lines = [
        f"workspace {result['workspace']}",
        f"hot   MEMORY.md  {h['lines']}/{max_lines} lines · ~{h['tokens']}/{max_tokens} tokens · pointers: {pointers}"
        if h["exists"]
        else "hot   MEMORY.md  absent",
        f"warm  memory/facts.yaml  {facts}",
        f"      memory/lookup-index.md  {rows}",
        f"      projects: {', '.join(w['projects']) if w['projects'] else 'none'}",
        f"cold  daily logs: {len(c['daily'])}"
        + (f" ({slugged} OpenClaw session logs)" if slugged else "")
        + (f", newest {c['newest']}" if c["newest"] else ""),
    ]
    return "\n".join(lines) + "\n"
