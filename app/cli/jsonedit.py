"""Edits of JSON text that keep everything else byte for byte (indentation, key order, spacing).

`remove(text, paths)` deletes array elements and object members named by paths such as
`("hooks", "SessionStart", 0)`; `put(text, keys, value)` sets one object member (adding it, and
the objects on its way, after the last member in the file's own indentation). The json module
parses and writes every value; this module only finds where each value sits in the text, so
what is not edited keeps its exact formatting.

JSON with comments (JSONC, which Cursor and VS Code accept: `//` and `/* */` comments, trailing
commas) is read and edited the same way: `loads` parses it, and the edits keep every comment. A
comment counts as part of the item it stands above (removing the item removes it). An edit that
would drop any other comment raises CommentsInTheWay (the caller refuses, nothing written). This
is memboard's own code, on top of the json module's decoder (which parses every value), rather than
a JSONC library, because an edit here must keep every byte it does not touch and add a member in
the file's own layout. Looked at on PyPI: commentjson, json5, jsonc-parser and hjson only load
(comments are dropped on the way back); jsonc-edit wraps Microsoft's jsonc-parser (what VS Code
uses) but runs it in Node, installed from npm on first use; json-five keeps a JSON5 document's
bytes through a round trip, but parses JSON5 (a wider language than what Cursor and VS Code read),
needs sly and regex, and has no way to place a new member in the file's indentation, which is most
of this module. What is hand-written is only the structure finder (`locate`) and the comment rules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core.errors import Refused

Path = tuple[str | int, ...]
_WS = re.compile(r"[ \t\n\r]*")
_COMMENT = r"(?>//[^\r\n]*+|/\*.*?\*/)"  # atomic: a comment never ends early nor late to make a match
# Possessive runs of whitespace: `(?:[ \t\n\r]+|…)*` tried every split of a run before failing (2**n steps: 0.7 s
# for a comma and 24 spaces, minutes for a deeply indented settings file).
_GAP = re.compile(rf"(?:[ \t\n\r]++|{_COMMENT})*+", re.S)  # whitespace and comments
_TOKENS = re.compile(rf'(?>"(?:[^"\\]|\\.)*")|{_COMMENT}|,(?=(?:[ \t\n\r]++|{_COMMENT})*+[}}\]])', re.S)
_BESIDE = re.compile(r"[ \t]*(?>//[^\n\r]*+|/\*.*?\*/)")
_SAME_LINE_COMMENT = re.compile(r"(?:[ \t]*(?>/\*[^\n]*?\*/))*(?:[ \t]*//[^\r\n]*+)?(?=[ \t]*\r?\n)")
_UNIT = re.compile(r"\n([ \t]+)\S")
_DECODER = json.JSONDecoder()


class CommentsInTheWay(Refused):
    """An edit of JSONC text would drop a comment someone wrote (the command refuses: comments must go)."""


def comments(text: str) -> list[str]:
    """The comments of JSONC text, in order."""
    return [t for t in _TOKENS.findall(text) if t.startswith("/")]


def loads(text: str) -> object:
    """The value of JSON or JSONC text (comments and trailing commas read as whitespace)."""

    def blank(match: re.Match[str]) -> str:
        """A comment or a trailing comma as spaces (newlines kept, so that errors name the right line)."""
        token = match.group(0)
        return token if token.startswith('"') else re.sub(r"[^\n]", " ", token)

    return json.loads(_TOKENS.sub(blank, text))


def _keeps_comments(before: str, after: str, dropped: str = "") -> bool:
    """Whether after holds every comment of before except those of the dropped text."""
    left = comments(after)
    for comment in comments(dropped):
        left.append(comment)  # those may go
    for comment in comments(before):
        if comment not in left:
            return False
        left.remove(comment)
    return True


@dataclass
class Node:
    """Where one JSON value sits in the text; a container also knows where each item starts."""

    start: int
    end: int
    items: list[tuple[str | int, int, Node]] = field(default_factory=list)  # (key or index, item start, value)


def _skip(text: str, at: int) -> int:
    """The position of the next character that is neither JSON whitespace nor a comment."""
    match = _GAP.match(text, at)
    return match.end() if match else at


def _skip_ws(text: str, at: int) -> int:
    """The position of the next character that is not JSON whitespace (a comment starts the item below it)."""
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
    item_start = _skip_ws(text, start + 1)
    at = _skip(text, item_start)
    if text[at] == closer:
        node.end = at + 1
        return node
    while True:
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
            beside = _SAME_LINE_COMMENT.match(text, at + 1)  # a comment on the comma's line is the item's above
            item_start = _skip_ws(text, beside.end() if beside else at + 1)
            at = _skip(text, item_start)
            if text[at] == closer:  # a trailing comma (JSONC)
                node.end = at + 1
                return node
        elif text[at] == closer:
            node.end = at + 1
            return node
        else:
            raise ValueError(f"expected ',' or {closer!r} at offset {at}")


def value_text(text: str, path: Path) -> str:
    """The text of the value at path, as it stands in the file (comments inside it included)."""
    node = locate(text)
    for part in path:
        node = next(value for key, _, value in node.items if key == part)
    return text[node.start : node.end]


def _remove_one(text: str, path: Path) -> str:
    """The text without the item at path; its comma and the whitespace before it go too."""
    node = locate(text)
    for part in path[:-1]:
        node = next(value for key, _, value in node.items if key == part)
    keys = [key for key, _, _ in node.items]
    k = keys.index(path[-1])
    item_start, item_end = node.items[k][1], node.items[k][2].end
    if len(keys) == 1:  # comments around a container's only item stay (they were there before it)
        lead = text[node.start + 1 : _skip(text, item_start)]
        tail = re.sub(r"^[ \t]*,", "", text[item_end : node.end - 1])
        kept = lead.rstrip(" \t\r\n") + tail if comments(lead + tail) else ""
        out = text[: node.start + 1] + kept + text[node.end - 1 :]
    elif k + 1 < len(keys):
        out = text[:item_start] + text[node.items[k + 1][1] :]
    else:
        out = _remove_last(text, node.items[k - 1][2].end, item_start, item_end)
    if not _keeps_comments(text, out, text[item_start:item_end]):
        raise CommentsInTheWay(f"removing {'.'.join(map(str, path))} would drop a comment beside it")
    return out


def _remove_last(text: str, previous_end: int, item_start: int, item_end: int) -> str:
    """The text without a container's last item (it follows the item ending at previous_end); comments on the
    previous item's line stay, after its comma when the removed item had a trailing one."""
    same_line = text[previous_end:item_start].split("\n")[0]
    kept = "".join(_BESIDE.findall(same_line))
    trailing = re.match(r"[ \t]*,", text[item_end:])
    if kept and trailing:
        return text[:previous_end] + "," + kept + text[item_end + trailing.end() :]
    return text[:previous_end] + kept + text[item_end:]


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


def edits(old: object, new: object, path: Path = ()) -> list[tuple[Path, object]]:
    """The puts that turn the document old into new: members added or changed, array items appended."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict) and all(key in new for key in old):
        return [
            step
            for key, value in new.items()
            for step in (edits(old[key], value, (*path, key)) if key in old else [((*path, key), value)])
        ]
    if isinstance(old, list) and isinstance(new, list) and len(new) >= len(old):
        steps = [step for i, value in enumerate(old) for step in edits(value, new[i], (*path, i))]
        return steps + [((*path, i), new[i]) for i in range(len(old), len(new))]
    return [(path, new)]


def put(text: str, keys: Sequence[str | int], value: object) -> str:
    """The text with the object member at keys set to value; every other byte kept.

    An existing member's value is replaced where it stands. A missing member is added after
    the last member of the deepest object that exists on the way (wrapped in the objects that
    are missing), in that object's indentation, or on one line when the object is on one
    line. Each object on the way must be an object (the caller checks the parsed document).
    """
    out = _put(text, keys, value)
    if not _keeps_comments(text, out):
        raise CommentsInTheWay(f"setting {'.'.join(map(str, keys))} would drop a comment inside its old value")
    return out


def _put(text: str, keys: Sequence[str | int], value: object) -> str:
    """put, without the check that every comment is kept."""
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
    in_array = text[node.start] == "["
    if in_array and keys[depth] != len(node.items):
        raise ValueError(f"no array item {keys[depth]} to set")
    key_text = "" if in_array else json.dumps(keys[depth], ensure_ascii=False) + ": "
    if node.items:
        first = _skip(text, node.items[0][1])  # the first member's own text (after any comment above it)
        multiline = "\n" in text[node.start + 1 : first]
        indent = _line_indent(text, first) if multiline else ""
        lead = newline + indent
        body = f"{key_text}{_render(member, indent, _unit(text) if multiline else None, newline)}"
        end = node.items[-1][2].end
        after = end + 1 if text[end : end + 1] == "," else end  # (a trailing comma stays where it is)
        comment = _SAME_LINE_COMMENT.match(text, after)  # a comment on the last member's line stays beside it
        at = comment.end() if comment and multiline else after
        return text[:end] + "," + text[after:at] + (lead if multiline else " ") + body + text[end:after] + text[at:]
    outer = _line_indent(text, node.start)
    indent = outer + _unit(text)
    body = f"{key_text}{_render(member, indent, _unit(text), newline)}"
    inside = text[node.start + 1 : node.end - 1].rstrip(" \t\r\n")  # comments in an empty container stay
    return text[: node.start + 1] + inside + newline + indent + body + newline + outer + text[node.end - 1 :]
