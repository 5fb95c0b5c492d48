"""Removals from JSON text that keep everything else byte for byte (indentation, key order, spacing).

`remove(text, paths)` deletes array elements and object members named by paths such as
`("hooks", "SessionStart", 0)`. The json module parses every value; this module only finds
where each value sits in the text, so what is not removed keeps its exact formatting.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

Path = tuple[str | int, ...]
_WS = re.compile(r"[ \t\n\r]*")
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
    for path in sorted(paths, key=lambda p: [(0, part) if isinstance(part, int) else (1, part) for part in p], reverse=True):
        text = _remove_one(text, path)
    return text
