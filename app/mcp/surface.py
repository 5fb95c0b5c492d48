"""What `tools/list` says of each tool beyond its name and description: input schemas that cost little, output schemas.

Every listed byte is in the agent's context on every turn, so the input schemas the SDK derives
from the tools' signatures are slimmed without changing what they accept: no `title`s (the
property names say it), an optional argument whose default is null is its type alone (leave it
out to mean none), and `additionalProperties: false`, because the server refuses an argument a
tool does not take (server.py's call_tool) and a client may as well know before it asks.

Each tool's `outputSchema` says what its `structuredContent` holds: the JSON of its text
answer (the command line's `--json`), an object; an answer that is a list is structured as
`{"result": [...]}`. The schemas name the keys an agent reads first, with their types; other
keys are allowed (the `--json` formats add keys, never remove them). Errors are results with
`isError` set and no structured content.
"""

from __future__ import annotations

from typing import Any

JSONSchema = dict[str, Any]
TYPES = {"s": "string", "b": "boolean", "i": "integer", "a": "array", "o": "object"}


def slim(schema: JSONSchema) -> JSONSchema:
    """An input schema without titles, with optional-null arguments as their type, closed to unknown arguments."""
    out = _untitled(schema)
    for name, prop in list(out.get("properties", {}).items()):
        out["properties"][name] = _not_null(prop)
    out["additionalProperties"] = False
    return out


def _untitled(value: Any) -> Any:
    """value with every `title` of a schema left out (a property called title is kept)."""
    if isinstance(value, dict):
        return {
            k: (_untitled(v) if k != "properties" else {p: _untitled(s) for p, s in v.items()})
            for k, v in value.items()
            if k != "title"
        }
    if isinstance(value, list):
        return [_untitled(v) for v in value]
    return value


def _not_null(prop: JSONSchema) -> JSONSchema:
    """A property `anyOf: [X, null]` with default null as X with the property's own description."""
    options = prop.get("anyOf")
    if "default" not in prop or prop["default"] is not None or not isinstance(options, list):
        return prop
    kept = [option for option in options if option != {"type": "null"}]
    if len(kept) == len(options):
        return prop
    out = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
    return {**(kept[0] if len(kept) == 1 else {"anyOf": kept}), **out}


def obj(required: tuple[str, ...] = (), **props: str) -> JSONSchema:
    """An object schema: each property's type by letter (s, b, i, a, o), the required ones named."""
    schema: JSONSchema = {"type": "object", "properties": {k: {"type": TYPES[v]} for k, v in props.items()}}
    if required:
        schema["required"] = list(required)
    return schema


ANY = obj()
WRITE = obj(("dry_run", "changes"), dry_run="b", changes="a")
HITS = obj(("hits",), hits="a")
LISTED = obj(("result",), result="a")


def _write(**props: str) -> JSONSchema:
    """A change's answer: WRITE with the result's keys."""
    schema = obj((), **props)
    return {**WRITE, "properties": {**WRITE["properties"], **schema["properties"]}}


OUTPUT: dict[str, JSONSchema] = {
    "session_context": obj(("session_id", "row", "notes"), session_id="s", row="o", related="o", notes="o"),
    "session_show": obj(("id", "row"), id="s", archived="b", row="o"),
    "session_list": obj(("total", "rows"), total="i", omitted="i", rows="a", warnings="a"),
    "session_chain": obj(("id",), id="s", state="s", continues_from="a", referenced_by="a"),
    "search": HITS,
    "session_register": _write(session_id="s", status="s"),
    "session_update": _write(session_id="s"),
    "session_continue": _write(session_id="s"),
    "session_release": _write(session_id="s"),
    "session_archive": _write(session_id="s"),
    "memory_organize": _write(deleted="a"),
    "mem_context": obj(("session", "related"), session="a", related="a", omitted="i"),
    "mem_search": HITS,
    "mem_get": obj(("note",), note="o", what="s", text="s"),
    "mem_suggest_topic_key": obj(("topic_key",), topic_key="s"),
    "mem_save": WRITE,
    "mem_update": WRITE,
    "mem_session_summary": WRITE,
    "space_where": ANY,
    "space_restore": ANY,
    "space_search": ANY,
    "space_check": obj(("decision",), decision="s"),
    "space_save": WRITE,
    "space_research_save": WRITE,
    "space_dream": WRITE,
    "space_archive": WRITE,
    "space_migrate": WRITE,
    "hierarchy_hot": obj(("workspace", "lint"), workspace="s", lines="i", tokens="i", lint="o"),
    "hierarchy_lint": LISTED,
    "facts_get": obj(("key",), key="s", line="i"),
    "lookup": ANY,
    "hierarchy_migrate_plan": ANY,
    "facts_set": WRITE,
    "facts_todo": WRITE,
    "daily_log": WRITE,
    "hierarchy_migrate_apply": WRITE,
}


def structured(value: object) -> dict[str, Any]:
    """The structured content of an answer: the object itself, or a list as `{"result": [...]}`."""
    return value if isinstance(value, dict) else {"result": value}
