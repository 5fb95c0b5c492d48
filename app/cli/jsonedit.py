"""Edits of JSON text that keep everything else byte for byte (indentation, key order, spacing).

`remove(text, paths)` deletes array elements and object members named by paths such as
`("hooks", "SessionStart", 0)`; `put(text, keys, value)` sets one object member (adding it, and
the objects on its way, after the last member in the file's own indentation). The json module
parses and writes every value; this module only finds where each value sits in the text, so
what is not edited keeps its exact formatting.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

Path = tuple[str | int, ...]
_WS = re.compile(r"[ \t\n\r]*")
_UNIT = re.compile(r"\n([ \t]+)\S")
_DECODER = json.JSONDecoder()


@dataclass
class Node:
    """Where one JSON value sits in the text; a container also knows where each item starts."""

    start: int
    end: int
    items: list[tuple[str | int, int, Node]] = field(default_factory=list)  # (key or index, item start, value)


def _skip(text: str, at: int) -> int:
    """The position of the next character that is not JSON whitespace."""
    match = _WS.match(text, at)
    return match.end() if match else at


def locate(text: str, at: int = 0) -> Node:
    """The node of the JSON value starting at `at` (after whitespace), with its items' positions."""
    start = _skip(text, at)
    opener = text[start : start + 1]
    if opener not in ("{", "["):
        _, end = _DECODER.raw_decode(text, start)
        return Node(start, end)
    closer = "}" if opener == "{" else "]"
    node = Node(start, start)
    at = _skip(text, start + 1)
    if text[at] == closer:
        node.end = at + 1
        return node
    while True:
        item_start = at
        key: str | int = len(node.items)
        if opener == "{":
            key, at = _DECODER.raw_decode(text, at)
            at = _skip(text, at)
            if text[at] != ":":
                raise ValueError(f"expected ':' at offset {at}")
            at += 1
        value = locate(text, at)
        node.items.append((key, item_start, value))
        at = _skip(text, value.end)
        if text[at] == ",":
            at = _skip(text, at + 1)
        elif text[at] == closer:
            node.end = at + 1
            return node
        else:
            raise ValueError(f"expected ',' or {closer!r} at offset {at}")


def _remove_one(text: str, path: Path) -> str:
    """The text without the item at path; its comma and the whitespace before it go too."""
    node = locate(text)
    for part in path[:-1]:
        node = next(value for key, _, value in node.items if key == part)
    keys = [key for key, _, _ in node.items]
    k = keys.index(path[-1])
    if len(keys) == 1:
        return text[: node.start + 1] + text[node.end - 1 :]
    if k + 1 < len(keys):
        return text[: node.items[k][1]] + text[node.items[k + 1][1] :]
    return text[: node.items[k - 1][2].end] + text[node.items[k][2].end :]


def remove(text: str, paths: Sequence[Path]) -> str:
    """The text without the items at paths (applied from the last index backwards, so that
    removing one does not shift the others)."""
    for path in sorted(
        paths, key=lambda p: [(0, part) if isinstance(part, int) else (1, part) for part in p], reverse=True
    ):
        text = _remove_one(text, path)
    return text


def _line_indent(text: str, at: int) -> str:
    """The whitespace that starts the line holding offset at."""
    start = text.rfind("\n", 0, at) + 1
    return text[start : start + len(text[start:at]) - len(text[start:at].lstrip(" \t"))]


def _render(value: object, indent: str, unit: str | None, newline: str) -> str:
    """value as JSON text starting at a line indented by indent (one line when unit is None)."""
    if unit is None:
        return json.dumps(value, ensure_ascii=False)
    text = json.dumps(value, ensure_ascii=False, indent=unit)
    return text.replace("\n", newline + indent)


def _unit(text: str) -> str:
    """The file's indentation step (two spaces when it has none)."""
    match = _UNIT.search(text)
    return match.group(1) if match else "  "


def put(text: str, keys: Sequence[str], value: object) -> str:
    """The text with the object member at keys set to value; every other byte kept.

    An existing member's value is replaced where it stands. A missing member is added after
    the last member of the deepest object that exists on the way (wrapped in the objects that
    are missing), in that object's indentation, or on one line when the object is on one
    line. Each object on the way must be an object (the caller checks the parsed document).
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    node = locate(text)
    depth = 0
    while depth < len(keys):
        found = next((item for item in node.items if item[0] == keys[depth]), None)
        if found is None:
            break
        node, depth = found[2], depth + 1
    if depth == len(keys):  # the member exists: its value is replaced
        multiline = "\n" in text[node.start : node.end]
        line = _line_indent(text, node.start)
        return text[: node.start] + _render(value, line, _unit(text) if multiline else None, newline) + text[node.end :]
    member: object = value
    for key in reversed(keys[depth + 1 :]):
        member = {key: member}
    key_text = json.dumps(keys[depth], ensure_ascii=False)
    if node.items:
        _, first_start, _ = node.items[0]
        lead = text[node.start + 1 : first_start]
        multiline = "\n" in lead
        indent = lead[lead.rfind("\n") + 1 :] if multiline else ""
        body = f"{key_text}: {_render(member, indent, _unit(text) if multiline else None, newline)}"
        end = node.items[-1][2].end
        return text[:end] + "," + (lead if multiline else " ") + body + text[end:]
    outer = _line_indent(text, node.start)
    indent = outer + _unit(text)
    body = f"{key_text}: {_render(member, indent, _unit(text), newline)}"
    return text[: node.start + 1] + newline + indent + body + newline + outer + text[node.end - 1 :]
