"""The search answer both faces give: a hit's stable JSON (`search --json`, the MCP search tools) and its label.

It imports nothing but the hit's type (no dataclasses, no json): `memboard search` must start
about as fast as Python itself (see core/search/engine.py).
"""

from __future__ import annotations

from ..core.search.engine import SearchHit, SearchOutcome


def label(hit: SearchHit) -> str:
    """Where a hit matched, in words: `snapshot › Decisions`, `archived row › Summary`, `note › What`."""
    where = hit.where if hit.state == "live" else f"archived {hit.where}"
    return f"{where} › {hit.section}"


def hit_json(hit: SearchHit) -> dict[str, object]:
    """One search hit as the stable JSON object documented in docs/search.md."""
    return {
        "kind": hit.kind,
        "id": hit.id,
        "state": hit.state,
        "status": hit.status,
        "agent": hit.agent,
        "topic": hit.topic,
        "updated_at": hit.updated_at,
        "where": hit.where,
        "section": hit.section,
        "path": hit.path,
        "snippet": hit.snippet,
        "spans": [list(s) for s in hit.spans],
        "marked": hit.marked(),
        "score": hit.score,
        "matches": hit.matches,
    } | ({"type": hit.note_type, "scope": hit.scope, "project": hit.project} if hit.kind == "note" else {})


def hits_answer(outcome: SearchOutcome) -> dict[str, object]:
    """The MCP search tools' answer: the hits, the files that could not be read and, for a first answer read in
    part while the search cache is built beside it, `partial` (what was read, in words) and `note` (why)."""
    out: dict[str, object] = {"hits": [hit_json(hit) for hit in outcome.hits], "unreadable": outcome.unreadable}
    if outcome.partial:
        out |= {"partial": outcome.partial, "note": f"{outcome.reason}: search again for the whole answer"}
    return out
