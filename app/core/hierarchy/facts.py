"""memory/facts.yaml read at exact character positions and edited without re-serialising (issue 25 §2, §3).

Agents and people edit facts.yaml by hand, with comments, anchors, aliases, merge keys, flow
collections, every quote style, CRLF and a BOM, so memboard never dumps YAML: it parses ruamel.yaml's
event stream (YAML 1.2, the round-trip parser's positions) into a small tree of nodes with their
character ranges, and an edit either replaces one scalar's characters or inserts or deletes whole
lines. Every edit is verified by parsing the new text again: its data must equal the old data changed
exactly as asked (the change applied to the old tree, so an anchored scalar changes wherever it is
aliased, as YAML means). Values are rendered plain only when YAML 1.2 and YAML 1.1 readers both read
the plain text back as the given string (or a decimal integer), else double-quoted with JSON escapes.

The reading half (`read`, `findings`, `last_updated`, `leaves`, `groups`) is what `hierarchy lint`,
`show` and `lookup` use; the editing half (`set_value`, `todo_add`, `todo_done`, `touch`) are pure
functions bytes -> bytes that `facts set|todo|touch` plan with.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ..errors import Refused, UsageError

BOM = "\ufeff"
LAST_UPDATED = re.compile(r"^(?P<lead>[ \t]*#[ \t]*Last updated:[ \t]*)(?P<date>.*?)(?P<trail>[ \t]*)$", re.I)
DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")
BREAKS = "\r\n\x85\u2028\u2029"
STR_TAG = "tag:yaml.org,2002:str"
INT_TAG = "tag:yaml.org,2002:int"
MERGE_TAG = "tag:yaml.org,2002:merge"
# PyYAML (YAML 1.1) also ends a plain scalar at "?" in flow context ({k: a?} does not parse there), so a value
# memboard writes in flow context quotes it
FLOW_INDICATORS = ",[]{}?"
# characters a YAML reader refuses, or reads as a line break, in a stream: escaped in double quotes
UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")


class FactsInvalid(Refused):
    """facts.yaml cannot be read as one YAML document memboard may edit (not UTF-8, not YAML, duplicate keys)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None, kind: str = "yaml"):
        """message: the line; line, column: 1-based where it is (None when unknown); kind: utf8|yaml|duplicate."""
        self.line = line
        self.column = column
        self.kind = kind
        super().__init__(message)


# -- the text --------------------------------------------------------------------------------------


@dataclass
class Text:
    """A facts file decoded: its BOM, its text (without the BOM) and its line end (the first one, else LF)."""

    bom: bool
    text: str
    eol: str

    def encode(self, text: str) -> bytes:
        """text as the file's bytes (the BOM kept)."""
        return ((BOM if self.bom else "") + text).encode("utf-8")


def decode(data: bytes) -> Text:
    """The bytes as text, or FactsInvalid(kind utf8) naming the line and column of the first bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise FactsInvalid(
            f"memory/facts.yaml is not UTF-8 (line {line}, byte {column})", line, column, "utf8"
        ) from None
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    crlf = text.find("\r\n")
    lf = text.find("\n")
    eol = "\r\n" if crlf != -1 and crlf + 1 == lf else "\n"
    return Text(bom, text, eol)


class Lines:
    """Line starts of a text, for 0-based line numbers and line ranges of character offsets."""

    def __init__(self, text: str):
        """text: the file's text (without BOM)."""
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(self, index: int) -> int:
        """The 0-based line holding character index."""
        return bisect_right(self.starts, index) - 1

    def start(self, line: int) -> int:
        """Where 0-based line starts."""
        return self.starts[line]

    def end(self, line: int) -> int:
        """Where 0-based line ends, its line end included (the text's end for the last line)."""
        return self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)

    def content(self, line: int) -> str:
        """Line's text without its line end."""
        return self.text[self.start(line) : self.end(line)].rstrip("\r\n")

    def count(self) -> int:
        """How many lines (a final line end opens no line)."""
        n = len(self.starts)
        return n - 1 if self.text.endswith("\n") else n


# -- the tree --------------------------------------------------------------------------------------


@dataclass(eq=False)
class Node:
    """One node of the document: kind scalar|map|seq|alias, with its characters [start, end) in the text.

    A scalar's start is its own text's (after any anchor or tag); an empty plain scalar has start == end
    at the place the parser gives. A block collection's end is its last child's end."""

    kind: str
    start: int
    end: int
    anchor: str | None = None
    tag: str | None = None
    value: str = ""
    style: str | None = None
    implicit: tuple[bool, bool] = (True, False)
    flow: bool = False
    pairs: list[tuple[Node, Node]] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)
    target: Node | None = None
    prop_start: int = 0  # where the node's properties (anchor, tag) start: its start when it has none

    def deref(self) -> Node:
        """The node an alias names (itself for any other node)."""
        return self.target if self.kind == "alias" and self.target is not None else self

    def is_merge_key(self) -> bool:
        """A `<<` key (plain, untagged)."""
        return self.kind == "scalar" and self.value == "<<" and self.style is None and self.tag is None


@dataclass
class Facts:
    """A parsed facts file: its text, lines and root node (None for a file without content)."""

    source: Text
    lines: Lines
    root: Node | None

    @property
    def text(self) -> str:
        """The text without its BOM."""
        return self.source.text

    def line(self, index: int) -> int:
        """The 1-based line of character index."""
        return self.lines.line_of(index) + 1


@cache
def _yaml(kind: str = "rt", version: tuple[int, int] | None = None) -> Any:
    """A ruamel.yaml instance (cached): its parser's events carry every node's position (the safe parser: the
    round-trip one's comment gathering costs a third more, and memboard reads comments from the text itself)."""
    from ruamel.yaml import YAML  # lazy: ruamel.yaml (10 ms) loads only for commands that read facts.yaml

    y = YAML(typ=kind, pure=True)
    if version is not None:
        y.version = version
    return y


def _events(text: str) -> list[Any]:
    """ruamel.yaml's events of text, or FactsInvalid with the problem's line and column."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError  # lazy: as above

    try:
        return list(_yaml("safe").parse(text))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "not YAML"
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        where = f" (line {line}, column {column})" if line is not None else ""
        raise FactsInvalid(f"memory/facts.yaml is not valid YAML{where}: {problem}", line, column) from None
    except YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "not YAML"
        raise FactsInvalid(f"memory/facts.yaml is not valid YAML: {first}") from None


def _own_start(text: str, start: int, has_props: bool) -> int:
    """Where a node's own text starts: after its anchor and tag (each a run of non-blanks) and the blanks after."""
    i = start
    while has_props and i < len(text) and text[i] in "&!":
        while i < len(text) and not text[i].isspace():
            i += 1
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
    return i


def parse(data: bytes) -> Facts:
    """The facts file as a tree, or FactsInvalid (not UTF-8, not YAML, several documents, duplicate keys)."""
    source = decode(data)
    return parse_text(source)


def parse_text(source: Text, known: dict[str, Node] | None = None) -> Facts:
    """The decoded facts file as a tree (see parse); known: anchors defined before the text (a part of a file
    parsed again on its own, see _verify_part)."""
    text = source.text
    lines = Lines(text)
    anchors: dict[str, Node] = dict(known or {})
    stack: list[Node] = []
    roots: list[Node] = []
    pending_key: list[Node | None] = []

    def add(node: Node) -> None:
        _register(node, anchors)
        if not stack:
            roots.append(node)
            return
        parent = stack[-1]
        if parent.kind == "seq":
            parent.items.append(node)
        elif pending_key[-1] is None:
            pending_key[-1] = node
        else:
            key = pending_key[-1]
            if key is None:  # a value with no key before it: the parser never gives one
                raise FactsInvalid("memory/facts.yaml holds a mapping value without a key")
            parent.pairs.append((key, node))
            pending_key[-1] = None

    for ev in _events(text):
        name = type(ev).__name__
        if name == "ScalarEvent":
            props = ev.anchor is not None or ev.tag is not None
            start = _own_start(text, ev.start_mark.index, props)
            node = Node(
                "scalar",
                start,
                max(start, ev.end_mark.index),
                ev.anchor,
                ev.tag,
                ev.value,
                ev.style,
                tuple(ev.implicit),
                prop_start=ev.start_mark.index,
            )
            if node.style is None and node.value == "":
                node.start = node.end = start
            add(node)
        elif name in ("MappingStartEvent", "SequenceStartEvent"):
            props = ev.anchor is not None or ev.tag is not None
            start = _own_start(text, ev.start_mark.index, props)
            kind = "map" if name == "MappingStartEvent" else "seq"
            node = Node(kind, start, start, ev.anchor, ev.tag, flow=bool(ev.flow_style), prop_start=ev.start_mark.index)
            add(node)
            stack.append(node)
            pending_key.append(None)
        elif name in ("MappingEndEvent", "SequenceEndEvent"):
            node = stack.pop()
            pending_key.pop()
            if node.flow:
                node.end = ev.end_mark.index
            else:
                last = _last_child(node)
                node.end = last.end if last is not None else node.start
        elif name == "AliasEvent":
            target = anchors.get(ev.anchor)
            if target is None:
                line = ev.start_mark.line + 1
                raise FactsInvalid(
                    f"memory/facts.yaml is not valid YAML (line {line}): alias *{ev.anchor} names no anchor",
                    line,
                    ev.start_mark.column + 1,
                )
            add(Node("alias", ev.start_mark.index, ev.end_mark.index, anchor=ev.anchor, target=target))
    if len(roots) > 1:
        raise FactsInvalid("memory/facts.yaml holds several YAML documents; memboard edits one")
    facts = Facts(source, lines, roots[0] if roots else None)
    _check_duplicates(facts)
    return facts


def _register(node: Node, anchors: dict[str, Node]) -> None:
    """Remember node under its anchor (a later anchor of the same name wins, as in YAML)."""
    if node.anchor is not None and node.kind != "alias":
        anchors[node.anchor] = node


def _last_child(node: Node) -> Node | None:
    """A block collection's last child (a mapping's last value; its key when the value is empty and earlier)."""
    if node.kind == "seq":
        return node.items[-1] if node.items else None
    if not node.pairs:
        return None
    key, value = node.pairs[-1]
    return value if value.end >= key.end else key


def _key_text(key: Node) -> str | None:
    """A key's text for key paths (None for a key that is no scalar)."""
    return key.value if key.kind == "scalar" else None


def _check_duplicates(facts: Facts) -> None:
    """FactsInvalid(kind duplicate) naming the first key written twice in one mapping."""
    for node in _walk(facts.root):
        if node.kind != "map":
            continue
        seen: dict[str, Node] = {}
        for key, _value in node.pairs:
            text = _key_text(key)
            if text is None or key.is_merge_key():
                continue
            if text in seen:
                first, line = facts.line(seen[text].start), facts.line(key.start)
                raise FactsInvalid(
                    f"memory/facts.yaml has the key {text!r} twice (lines {first} and {line})",
                    line,
                    key.start - facts.lines.start(line - 1) + 1,
                    "duplicate",
                )
            seen[text] = key


def _walk(node: Node | None) -> Iterator[Node]:
    """Every node written in the document (aliases not followed), in document order."""
    if node is None:
        return
    yield node
    for key, value in node.pairs:
        yield from _walk(key)
        yield from _walk(value)
    for item in node.items:
        yield from _walk(item)


# -- key paths -------------------------------------------------------------------------------------


def split_path(path: str) -> list[str]:
    """A key path's segments: `a.b`, `paths."api.keys"`, `todos.2`; a bad path is a UsageError (exit 2)."""
    segments: list[str] = []
    i = 0
    while True:
        if i < len(path) and path[i] == '"':
            m = re.compile(r'"(?:[^"\\]|\\.)*"').match(path, i)
            if m is None:
                raise UsageError(f"bad key path {path!r}: an unclosed quote")
            try:
                segments.append(json.loads(m.group()))
            except ValueError:
                raise UsageError(f"bad key path {path!r}: a bad escape in quotes") from None
            i = m.end()
        else:
            j = path.find(".", i)
            j = len(path) if j == -1 else j
            if j == i:
                raise UsageError(f"bad key path {path!r}: an empty key")
            segments.append(path[i:j])
            i = j
        if i == len(path):
            return segments
        if path[i] != ".":
            raise UsageError(f"bad key path {path!r}: a quoted key must be followed by . or end the path")
        i += 1


def join_path(segments: list[str]) -> str:
    """Segments as a key path (a segment holding `.` or a quote, or empty, written in double quotes)."""
    return ".".join(
        json.dumps(s, ensure_ascii=False) if (not s or "." in s or s.startswith('"')) else s for s in segments
    )


@dataclass
class Via:
    """An alias or merge key a lookup went through: the alias node and the anchored node it names."""

    alias: Node
    target: Node


@dataclass
class Lookup:
    """Where a key path leads: `node` (None when missing), the deepest existing `parent` and how many segments
    matched (`depth`), the mapping key of the last matched segment, and the aliases crossed."""

    node: Node | None
    parent: Node | None
    depth: int
    key: Node | None = None
    via: list[Via] = field(default_factory=list)


def lookup(facts: Facts, segments: list[str]) -> Lookup:
    """Follow segments from the root through mappings (merge keys too), sequences (by index) and aliases."""
    cur = facts.root
    via: list[Via] = []
    key_node: Node | None = None
    for depth, seg in enumerate(segments):
        if cur is None:
            return Lookup(None, None, depth, key_node, via)
        here = _deref(cur, via)
        found = _child(here, seg, via)
        if found is None:
            return Lookup(None, here, depth, key_node, via)
        key_node, cur = found
    return Lookup(cur, None, len(segments), key_node, via)


def _deref(node: Node, via: list[Via]) -> Node:
    """node, or the node its alias names (recording the alias)."""
    if node.kind == "alias" and node.target is not None:
        via.append(Via(node, node.target))
        return node.target
    return node


def _child(node: Node, seg: str, via: list[Via]) -> tuple[Node | None, Node] | None:
    """The (key, value) under node for one segment: a mapping key (own keys first, then merged ones), a sequence
    index; None when there is none."""
    if node.kind == "seq":
        if DECIMAL.match(seg) and not seg.startswith("-") and int(seg) < len(node.items):
            return None, node.items[int(seg)]
        return None
    if node.kind != "map":
        return None
    for key, value in node.pairs:
        if _key_text(key) == seg and not key.is_merge_key():
            return key, value
    for key, value in node.pairs:
        if not key.is_merge_key():
            continue
        sources = value.items if value.kind == "seq" else [value]
        for source in sources:
            if source.kind != "alias" or source.target is None or source.target.kind != "map":
                continue
            crossed = [Via(source, source.target)]
            found = _child(source.target, seg, crossed)
            if found is not None:
                via.extend(crossed)
                return found
    return None


# -- values ----------------------------------------------------------------------------------------


def resolved_tag(node: Node, version: tuple[int, int] | None = None) -> str:
    """The tag a scalar node resolves to (its explicit tag, else YAML 1.2's implicit one, or version's)."""
    if node.tag is not None and node.tag != "!":
        return node.tag
    return _implicit_tag(node.value, node.implicit, version)


@cache
def _implicit_tag(value: str, implicit: tuple[bool, bool], version: tuple[int, int] | None) -> str:
    """The tag YAML (1.2, or version) resolves a scalar of this text and implicitness to."""
    from ruamel.yaml.nodes import ScalarNode  # lazy: as YAML above

    return str(_yaml("safe", version).resolver.resolve(ScalarNode, value, implicit))


def construct(node: Node) -> Any:
    """A node's value as JSON-able data: a scalar constructed by YAML 1.2's safe rules (dates as ISO text),
    a mapping with its merge keys applied, a sequence, an alias as what it names."""
    node = node.deref()
    if node.kind == "scalar":
        return _scalar_value(node)
    if node.kind == "seq":
        return [construct(item) for item in node.items]
    out: dict[str, Any] = {}
    for key, value in node.pairs:
        if key.is_merge_key():
            continue
        out[_json_key(key)] = construct(value)
    for key, value in node.pairs:
        if key.is_merge_key():
            sources = value.items if value.kind == "seq" else [value]
            for source in sources:
                merged = construct(source)
                if isinstance(merged, dict):
                    for k, v in merged.items():
                        out.setdefault(k, v)
    return out


def _json_key(key: Node) -> str:
    """A mapping key as JSON's object key (its text)."""
    return key.value if key.kind == "scalar" else f"<{key.kind}>"


def _scalar_value(node: Node) -> Any:
    """A scalar's value, constructed as YAML 1.2 reads it (dates, times as ISO text; bytes as their base64)."""
    from ruamel.yaml.nodes import ScalarNode  # lazy: as YAML above

    y = _yaml("safe")
    tag = resolved_tag(node)
    try:
        value = y.constructor.construct_object(ScalarNode(tag, node.value, style=node.style), deep=True)
    except Exception:
        return node.value
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return node.value
    if isinstance(value, float) and value != value:
        return "nan"
    return value


def _data(node: Node | None) -> Any:
    """The document's data for comparing two parses: scalars as (YAML 1.2 tag, YAML 1.1 tag, value), mappings
    with merges applied (keys likewise), aliases as what they name."""
    if node is None:
        return None
    node = node.deref()
    if node.kind == "scalar":
        return (resolved_tag(node), resolved_tag(node, (1, 1)), node.value)
    if node.kind == "seq":
        return [_data(item) for item in node.items]
    out: dict[Any, Any] = {}
    for key, value in node.pairs:
        if not key.is_merge_key():
            out[_data(key) if key.kind == "scalar" else ("?", repr(_data(key)))] = _data(value)
    for key, value in node.pairs:
        if key.is_merge_key():
            for source in value.items if value.kind == "seq" else [value]:
                merged = _data(source)
                if isinstance(merged, dict):
                    for k, v in merged.items():
                        out.setdefault(k, v)
    return out


# -- what lint reads -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One problem of facts.yaml for lint: kind facts_invalid|facts_multiline, 1-based line and column (None
    when unknown), the message, and the span [start, end) in the line (without line end and BOM) or None."""

    kind: str
    line: int | None
    column: int | None
    message: str
    span: tuple[int, int] | None = None


@dataclass(frozen=True)
class LastUpdated:
    """The `# Last updated:` comment line: 1-based line, the date text, the date (None when it does not parse)."""

    line: int
    text: str
    date: dt.date | None


@dataclass(frozen=True)
class Leaf:
    """A scalar at a key path: its path, value (as text), 1-based line, source text, and the anchor it comes
    through (None when written at its key)."""

    key: str
    value: str
    line: int
    source: str
    alias: str | None


def read(data: bytes) -> Facts:
    """The facts file parsed (FactsInvalid when it cannot be: see parse)."""
    return parse(data)


def findings(data: bytes) -> list[Finding]:
    """facts.yaml's findings lint reports: not UTF-8, invalid YAML (line and column), duplicate keys, tabs in
    indentation (facts_invalid), block scalars and scalars running over several lines (facts_multiline)."""
    out: list[Finding] = []
    try:
        source = decode(data)
    except FactsInvalid as exc:
        return [Finding("facts_invalid", exc.line, exc.column, str(exc))]
    lines = Lines(source.text)
    for n in range(lines.count()):
        content = lines.content(n)
        indent = len(content) - len(content.lstrip(" \t"))
        if "\t" in content[:indent] and content.strip():
            out.append(Finding("facts_invalid", n + 1, content.index("\t") + 1, "a tab in indentation", (0, indent)))
    try:
        facts = parse_text(source)
    except FactsInvalid as exc:
        out.append(Finding("facts_invalid", exc.line, exc.column, str(exc)))
        return sorted(out, key=lambda f: (f.line or 0, f.column or 0))
    for node in _walk(facts.root):
        if node.kind != "scalar":
            continue
        first, last = facts.lines.line_of(node.start), facts.lines.line_of(max(node.start, node.end - 1))
        block = node.style in ("|", ">")
        if block or last > first:
            col = node.start - facts.lines.start(first)
            what = "a block scalar" if block else "a scalar running over several lines"
            content = facts.lines.content(first)
            out.append(
                Finding("facts_multiline", first + 1, col + 1, f"{what} (one-line values only)", (col, len(content)))
            )
    return sorted(out, key=lambda f: (f.line or 0, f.column or 0))


def last_updated(data: bytes | str) -> LastUpdated | None:
    """The first `# Last updated:` comment line, with its date parsed (None when there is no such line)."""
    text = decode(data).text if isinstance(data, bytes) else data
    for n, content in enumerate(text.splitlines()):
        m = LAST_UPDATED.match(content)
        if m:
            raw = m.group("date")
            try:
                date: dt.date | None = dt.date.fromisoformat(raw) if len(raw) == 10 else None
            except ValueError:
                date = None
            return LastUpdated(n + 1, raw, date)
    return None


def leaves(facts: Facts) -> list[Leaf]:
    """Every scalar reachable at a key path, in document order (merged and aliased ones carry their anchor)."""
    out: list[Leaf] = []

    def visit(node: Node, path: list[str], alias: str | None, depth: int) -> None:
        if depth > 64:
            return
        if node.kind == "alias" and node.target is not None:
            visit(node.target, path, node.anchor, depth + 1)
            return
        if node.kind == "scalar":
            out.append(
                Leaf(join_path(path), node.value, facts.line(node.start), facts.text[node.start : node.end], alias)
            )
        elif node.kind == "seq":
            for i, item in enumerate(node.items):
                visit(item, [*path, str(i)], alias, depth + 1)
        else:
            own = {_key_text(k) for k, _ in node.pairs}
            for key, value in node.pairs:
                text = _key_text(key)
                if key.is_merge_key():
                    for source in value.items if value.kind == "seq" else [value]:
                        target = source.deref()
                        if target.kind == "map":
                            for k2, v2 in target.pairs:
                                if _key_text(k2) not in own and not k2.is_merge_key() and _key_text(k2) is not None:
                                    visit(v2, [*path, str(_key_text(k2))], source.anchor, depth + 1)
                elif text is not None:
                    visit(value, [*path, text], alias, depth + 1)

    if facts.root is not None:
        visit(facts.root, [], None, 0)
    return out


def project_entries(parsed: Facts) -> dict[str, tuple[str | None, int]]:
    """The `projects` group's entries: name → (its `file` value, 1-based line); empty without the group."""
    node = lookup(parsed, ["projects"]).node
    if node is None or node.deref().kind != "map":
        return {}
    out: dict[str, tuple[str | None, int]] = {}
    for k, v in node.deref().pairs:
        if k.kind != "scalar" or k.is_merge_key():
            continue
        entry, line = None, parsed.line(k.start)
        target = v.deref()
        if target.kind == "map":
            for fk, fv in target.pairs:
                if fk.kind == "scalar" and fk.value == "file" and fv.deref().kind == "scalar":
                    entry, line = fv.deref().value, parsed.line(fv.deref().start)
                    break
        out[k.value] = (entry, line)
    return out


def groups(facts: Facts) -> list[tuple[str, int]]:
    """The top-level keys (facts groups) with their 1-based lines."""
    root = facts.root
    if root is None or root.kind != "map":
        return []
    return [(k.value, facts.line(k.start)) for k, _ in root.pairs if k.kind == "scalar" and not k.is_merge_key()]


def comment_after(facts: Facts, index: int) -> str | None:
    """The comment at the end of the line holding index, after index (its text without `#`), or None."""
    n = facts.lines.line_of(index)
    rest = facts.text[index : facts.lines.start(n) + len(facts.lines.content(n))]
    m = re.search(r"(?:^|[ \t])#(.*)$", rest)
    return m.group(1).strip() if m else None


def get(data: bytes, path: str) -> dict[str, Any]:
    """`facts get KEY`: {key, value, line, source, comment, alias}; a missing key is Refused (exit 1)."""
    return answer(parse(data), path)


def answer(facts: Facts, path: str) -> dict[str, Any]:
    """get's answer for path in parsed facts."""
    found = lookup(facts, split_path(path))
    if found.node is None:
        raise Refused(f"no key {path} in memory/facts.yaml")
    node = found.node.deref()
    alias = found.via[-1].alias.anchor if found.via else (found.node.anchor if found.node.kind == "alias" else None)
    source = facts.text[node.start : node.end]
    end_line = facts.lines.line_of(max(node.start, node.end - 1))
    empty = node.kind == "scalar" and node.style is None and node.value == "" and found.key is not None
    at = _line_of_key_colon(facts, found.key) if empty and found.key is not None else node.start
    return {
        "key": path,
        "value": construct(node),
        "line": facts.line(at),
        "source": source,
        "comment": comment_after(facts, node.end if node.kind == "scalar" else facts.lines.start(end_line)),
        "alias": alias,
    }


# -- rendering -------------------------------------------------------------------------------------


def _reads_plain(doc: str, want: str, at: int, count: int) -> bool:
    """doc (a one-line document holding the plain candidate) parses to count scalars, the one at position at
    plain with text want, which YAML 1.2 and YAML 1.1 both resolve to a string (or a decimal integer)."""
    try:
        facts = parse_text(Text(False, doc, "\n"))
    except FactsInvalid:
        return False
    nodes = list(_walk(facts.root))
    scalars = [n for n in nodes if n.kind == "scalar"]
    if len(scalars) != count or scalars[at].value != want or scalars[at].style is not None:
        return False
    if any(n.kind == "alias" or n.anchor or n.tag for n in nodes):
        return False
    tags = {resolved_tag(scalars[at]), resolved_tag(scalars[at], (1, 1))}
    return tags == {STR_TAG} or (tags == {INT_TAG} and DECIMAL.match(want) is not None and want != "-0")


def plain_ok(text: str, place: str = "value", flow: bool = False) -> bool:
    """Whether text may be written plain as a mapping value, key or sequence item (place value|key|item), in
    flow context or block: both YAML 1.2 and YAML 1.1 read it back as exactly text (a decimal integer too)."""
    if not text or text != text.strip() or any(c in text for c in BREAKS) or UNPRINTABLE.search(text):
        return False
    if flow and any(c in text for c in FLOW_INDICATORS):
        return False
    if place == "key":
        return _reads_plain(f"{{{text}: x}}\n" if flow else f"{text}: x\n", text, 0, 2)
    if place == "item":
        return _reads_plain(f"[{text}, x]\n", text, 0, 2) if flow else _reads_plain(f"- {text}\n", text, 0, 1)
    return _reads_plain(f"{{k: {text}}}\n" if flow else f"k: {text}\n", text, 1, 2)


def double_quoted(text: str) -> str:
    """text in double quotes with JSON escapes (and \\uXXXX for what a YAML stream may not hold as it is)."""
    body = json.dumps(text, ensure_ascii=False)
    return UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", body)


def single_quoted(text: str) -> str | None:
    """text in single quotes ('' for '), or None when it holds a character single quotes cannot."""
    if any(c in text for c in BREAKS) or UNPRINTABLE.search(text) or "\t" in text:
        return None
    return "'" + text.replace("'", "''") + "'"


def render(text: str, old_style: str | None = None, place: str = "value", flow: bool = False) -> str:
    """The scalar text memboard writes for value text: a quoted old scalar's quote style kept, else plain when
    every reader reads it back as text, else double quotes with JSON escapes."""
    if old_style == "'":
        quoted = single_quoted(text)
        if quoted is not None:
            return quoted
    if old_style in ("'", '"'):
        return double_quoted(text)
    return text if plain_ok(text, place, flow) else double_quoted(text)


def raw_scalar(raw: str, flow: bool = False) -> None:
    """Refuse (exit 1) a --raw text that is not one single-line scalar."""
    if any(c in raw for c in BREAKS):
        raise UsageError("a value holds a line break; facts.yaml values are one line")
    try:
        facts = parse_text(Text(False, f"k: {raw}\n" if not flow else f"{{k: {raw}}}\n", "\n"))
    except FactsInvalid:
        facts = None
    ok = (
        facts is not None
        and facts.root is not None
        and facts.root.kind == "map"
        and len(facts.root.pairs) == 1
        and facts.root.pairs[0][1].kind == "scalar"
        and facts.root.pairs[0][1].style not in ("|", ">")
        and not facts.root.pairs[0][1].anchor
        and facts.text[facts.root.pairs[0][1].start : facts.root.pairs[0][1].end] == raw
    )
    if not ok:
        raise Refused(f"--raw {raw!r} is not one single-line YAML scalar")


# -- edits: pure functions bytes -> bytes ----------------------------------------------------------


@dataclass
class Edit:
    """An edit's result: the new bytes (the old ones when nothing changes), and what it did in words."""

    data: bytes
    changed: bool
    summary: str
    removed: str | None = None  # todo done: the item's text
    got: dict[str, Any] | None = None  # set: get's answer for the key in the new file


def _parse_for_edit(data: bytes) -> Facts:
    """The facts file for an edit: FactsInvalid when it is not valid YAML or has duplicate keys."""
    return parse(data)


def _via_refusal(path: str, facts: Facts, via: list[Via]) -> Refused:
    """The refusal for a key reached through an alias or merge key, naming the anchor."""
    first = via[-1]
    name = first.alias.anchor
    return Refused(
        f"{path} comes from *{name} (line {facts.line(first.alias.start)}); "
        f"edit &{name} at line {facts.line(first.target.prop_start)}"
    )


def _line_of_key_colon(facts: Facts, key: Node) -> int:
    """The index just after the `:` that follows a mapping key (for an empty value written after it)."""
    text = facts.text
    i = key.end
    while i < len(text) and text[i] in " \t":
        i += 1
    if i < len(text) and text[i] == ":":
        return i + 1
    return key.end


def set_value(data: bytes, path: str, value: str, *, today: dt.date, create: bool = False, raw: bool = False) -> Edit:
    """`facts set KEY VALUE`: replace the scalar at path (or add the key with --create) and set Last updated;
    the same value again changes nothing. Refusals are one line (Refused exit 1, UsageError exit 2)."""
    if any(c in value for c in BREAKS):
        raise UsageError("a value holds a line break; facts.yaml values are one line")
    facts = _parse_for_edit(data)
    spans = _top_spans(facts)
    segments = split_path(path)
    found = lookup(facts, segments)
    if found.via:
        raise _via_refusal(path, facts, found.via)
    if found.node is None:
        if not create:
            raise Refused(f"no key {path} in memory/facts.yaml (pass --create to add it)")
        return _create(facts, spans, segments, path, value, today, raw)
    node = found.node
    if node.kind == "alias":
        raise _via_refusal(path, facts, [Via(node, node.deref())])
    if node.kind in ("map", "seq"):
        what = "mapping" if node.kind == "map" else "sequence"
        raise Refused(f"{path} is a {what}; set one of its keys")
    if node.style in ("|", ">"):
        raise Refused(f"{path} is a block scalar (line {facts.line(node.start)}); edit it by hand")
    if node.tag is not None:
        written = facts.text[node.prop_start : node.start].split()
        tag = next((t for t in written if t.startswith("!")), node.tag)
        raise Refused(f"{path} has the tag {tag} (line {facts.line(node.start)}); edit it by hand")
    flow = _in_flow(facts, node)
    if raw:
        raw_scalar(value, flow)
        new_text = value
    else:
        new_text = render(value, node.style, "value", flow)
    start, end = node.start, node.end
    if node.style is None and node.value == "" and found.key is not None:
        start = end = _line_of_key_colon(facts, found.key)
        new_text = " " + new_text if not flow else new_text
    new_node = _scalar_of(new_text)
    if not raw:
        _reads_back(new_node, value)
    if _data(new_node) == _data(node):
        return Edit(data, False, "nothing to change", got=answer(facts, path))
    text = facts.text[:start] + new_text + facts.text[end:]
    node.value, node.style, node.implicit = new_node.value, new_node.style, new_node.implicit
    text = _verified(facts, text, start, today, facts.root, spans)
    node.start, node.end = start + len(new_text) - len(new_text.lstrip(" ")), start + len(new_text)
    got = {
        "key": path,
        "value": construct(node),
        "line": facts.line(start),
        "source": new_text.lstrip(" "),
        "comment": comment_after(facts, end),
        "alias": None,
    }
    return Edit(facts.source.encode(text), True, f"set {path}", got=got)


def _reads_back(node: Node, value: str) -> None:
    """Refuse a rendered scalar that YAML 1.2 or YAML 1.1 would not read back as value (a decimal integer
    written plain reads as that integer)."""
    tags = {resolved_tag(node), resolved_tag(node, (1, 1))}
    plain_int = tags == {INT_TAG} and DECIMAL.match(value) is not None and node.style is None
    if node.value != value or not (tags == {STR_TAG} or plain_int):
        raise Refused(f"memboard cannot write {value!r} so that every YAML reader reads it back; nothing written")


def _scalar_of(scalar: str) -> Node:
    """The node a one-line scalar text parses to (as a mapping value); refused when it is no one scalar."""
    try:
        parsed = parse_text(Text(False, f"k: {scalar}\n", "\n"))
    except FactsInvalid:
        parsed = None
    if parsed is None or parsed.root is None or parsed.root.kind != "map" or len(parsed.root.pairs) != 1:
        raise Refused(f"memboard's edit would not read back ({scalar!r} is no one YAML scalar); nothing written")
    node = parsed.root.pairs[0][1]
    if node.kind != "scalar":
        raise Refused(f"memboard's edit would not read back ({scalar!r} is no one YAML scalar); nothing written")
    return node


def _in_flow(facts: Facts, target: Node) -> bool:
    """Whether target sits inside a flow collection."""

    def inside(node: Node, flow: bool) -> bool | None:
        if node is target:
            return flow
        for key, value in node.pairs:
            for child in (key, value):
                got = inside(child, flow or node.flow)
                if got is not None:
                    return got
        for item in node.items:
            got = inside(item, flow or node.flow)
            if got is not None:
                return got
        return None

    return bool(facts.root is not None and inside(facts.root, False))


def _verify(source: Text, text: str, expected_root: Node | None) -> Facts:
    """Parse the new text again: its data must be the old tree as changed (else refuse; nothing is written)."""
    try:
        again = parse_text(Text(source.bom, text, source.eol))
    except FactsInvalid as exc:
        raise Refused(f"memboard's edit would not read back ({exc}); nothing written") from None
    if _data(again.root) != _data(expected_root):
        raise Refused("memboard's edit would change other data; nothing written")
    return again


def _verified(
    facts: Facts,
    text: str,
    at: int | None,
    today: dt.date,
    expected: Node | None,
    spans: list[tuple[int, int]] | None,
) -> str:
    """The edited text (facts' text changed around index at, None: unchanged) verified by parsing it again against
    expected (the old tree changed as asked; spans: the old file's top-level entries, see _top_spans), then with
    Last updated set to today (verified likewise): the text to write."""
    if at is not None:
        if spans is None or expected is None or expected is not facts.root:
            _verify(facts.source, text, expected)
        else:
            _verify_part(facts, text, at, spans)
    dated, line = _dated(text, facts.source.eol, today)
    first = expected.prop_start if expected is not None and expected is facts.root else None
    if line is not None and (first is None or _line_start(text, line) >= first):
        _verify(facts.source, dated, expected)  # a Last updated line after the first node: the whole file again
    return dated


def _line_start(text: str, line: int) -> int:
    """Where 0-based line starts in text."""
    at = 0
    for _ in range(line):
        at = text.index("\n", at) + 1
    return at


def _top_spans(facts: Facts) -> list[tuple[int, int]] | None:
    """Each top-level entry's characters [start, end) (its key's line to the next key's), when the file is a
    block mapping whose keys all start their lines at column 0 with no directive or document marker before the
    first; None otherwise (then an edit is verified on the whole file)."""
    root = facts.root
    if root is None or root.kind != "map" or root.flow or not root.pairs or root.anchor or root.tag:
        return None
    head = facts.text[: root.pairs[0][0].prop_start]
    if any(line.startswith(("%", "---", "...")) for line in head.splitlines()):
        return None
    starts = []
    for key, _value in root.pairs:
        at = key.prop_start
        if at != facts.lines.start(facts.lines.line_of(at)):
            return None
        starts.append(at)
    return [(a, b) for a, b in zip(starts, [*starts[1:], len(facts.text)], strict=True)]


def _verify_part(facts: Facts, text: str, at: int, spans: list[tuple[int, int]]) -> None:
    """Parse the changed top-level entries again on their own (the anchors defined before them known): their data
    must be the changed tree's, and they must define the same anchors. The bytes before and after them are the
    old file's, read in the same parser state (a top-level key at column 0 starts a line in both), so the whole
    file reads as the changed tree. Anything less plain is verified on the whole file."""
    root = facts.root
    if root is None:  # (the caller passes only a file with a root) nothing around a change to keep: the whole file
        _verify(facts.source, text, root)
        return
    delta = len(text) - len(facts.text)
    first = max(0, min(len(spans) - 1, next((i for i, (a, b) in enumerate(spans) if a <= at < b), len(spans) - 1)))
    start, end = spans[first][0], spans[first][1]
    count = len(root.pairs) - len(spans) + 1  # a pair appended at the end (a new group) joins the last entry
    if first != len(spans) - 1:
        count = 1
    if text[:start] != facts.text[:start] or text[end + delta :] != facts.text[end:] or end + delta < start:
        _verify(facts.source, text, root)
        return
    known: dict[str, Node] = {}
    old_anchors: list[str] = []
    for node in _walk(root):
        if node.anchor is not None and node.kind != "alias":
            if node.prop_start < start:
                known[node.anchor] = node
            elif node.prop_start < end:
                old_anchors.append(node.anchor)
    try:
        part = parse_text(Text(False, text[start : end + delta], facts.source.eol), known)
    except FactsInvalid as exc:
        raise Refused(f"memboard's edit would not read back ({exc}); nothing written") from None
    got = part.root
    expected = root.pairs[first : first + count]
    if got is None or got.kind != "map" or got.flow or len(got.pairs) != len(expected):
        raise Refused("memboard's edit would change other data; nothing written")
    for (key, value), (old_key, old_value) in zip(got.pairs, expected, strict=True):
        if _data(key) != _data(old_key) or _data(value) != _data(old_value):
            raise Refused("memboard's edit would change other data; nothing written")
    defined = [n.anchor for n in _walk(got) if n.anchor is not None and n.kind != "alias"]
    if defined != old_anchors[: len(defined)] or len(defined) != len(old_anchors):
        raise Refused("memboard's edit would change the file's anchors; nothing written")


def _with_date(text: str, eol: str, today: dt.date) -> str:
    """text with `# Last updated:` set to today (see _dated)."""
    return _dated(text, eol, today)[0]


def _dated(text: str, eol: str, today: dt.date) -> tuple[str, int | None]:
    """text with `# Last updated:` set to today (its date replaced), or the line inserted after the leading
    comment lines when there is none."""
    stamp = today.isoformat()
    lines = text.splitlines(keepends=True)
    for n, line in enumerate(lines):
        body = line.rstrip("\r\n")
        m = LAST_UPDATED.match(body)
        if m:
            new = m.group("lead") + stamp + m.group("trail") + line[len(body) :]
            if new == line:
                return text, None
            lines[n] = new
            return "".join(lines), n
    n = 0
    while n < len(lines) and lines[n].lstrip(" \t").startswith("#"):
        n += 1
    new = f"# Last updated: {stamp}"
    if n > 0 and not lines[n - 1].endswith(("\n", "\r")):
        lines[n - 1] += eol
        lines.insert(n, new)
    else:
        lines.insert(n, new + eol)
    return "".join(lines), n


def touch(data: bytes, *, today: dt.date) -> Edit:
    """`facts touch`: Last updated set to today (nothing to change when it already is)."""
    facts = parse(data)
    text = _verified(facts, facts.text, None, today, facts.root, None)
    if text == facts.text:
        return Edit(data, False, "nothing to change")
    return Edit(facts.source.encode(text), True, "touch")


def _indent_step(facts: Facts) -> int:
    """The file's indentation step for a nested mapping (the first nested block mapping's), 2 when none."""
    for node in _walk(facts.root):
        if node.kind == "map" and not node.flow:
            for key, value in node.pairs:
                inner = value.deref()
                if inner.kind == "map" and not inner.flow and inner.pairs and value.kind != "alias":
                    step = _column(facts, inner.pairs[0][0]) - _column(facts, key)
                    if step > 0:
                        return step
    return 2


def _column(facts: Facts, node: Node) -> int:
    """A node's 0-based column (where its properties start)."""
    return node.prop_start - facts.lines.start(facts.lines.line_of(node.prop_start))


def _after_line(facts: Facts, index: int) -> int:
    """Where the line after the one holding character index starts (the text's end for the last line)."""
    return facts.lines.end(facts.lines.line_of(index))


def _content_end(facts: Facts, node: Node) -> int:
    """The index of a node's last character of content (trailing blanks and line ends of block scalars skipped)."""
    end = node.end
    while end > node.start and facts.text[end - 1] in " \t\r\n":
        end -= 1
    return max(end - 1, node.start)


def _block_end(facts: Facts, node: Node) -> int:
    """The last content index of a block collection: its last descendant's."""
    while node.kind in ("map", "seq") and not node.flow:
        last = _last_child(node)
        if last is None:
            break
        node = last
    return _content_end(facts, node)


def _insert_lines(facts: Facts, at: int, new_lines: list[str]) -> str:
    """The text with new_lines (no line ends) inserted at index at (a line start, or the text's end)."""
    eol = facts.source.eol
    text = facts.text
    if at == len(text) and text and not text.endswith("\n"):
        return text + eol + eol.join(new_lines)
    return text[:at] + "".join(line + eol for line in new_lines) + text[at:]


def _create(
    facts: Facts,
    spans: list[tuple[int, int]] | None,
    segments: list[str],
    path: str,
    value: str,
    today: dt.date,
    raw: bool,
) -> Edit:
    """--create: the missing key (and missing parent mappings) as new lines at the end of the deepest existing
    mapping's block with its keys' indentation, or a new top-level group at the end of the file."""
    found = lookup(facts, segments)
    parent = found.parent if found.depth > 0 else facts.root
    depth = found.depth
    parent_path = join_path(segments[:depth]) or "the file"
    if parent is not None and parent.kind == "alias":
        raise Refused(f"{parent_path} comes from *{parent.anchor}; edit &{parent.anchor} by hand")
    if parent is not None and parent.kind != "map":
        if parent.kind == "scalar" and depth == 0 and parent.value == "" and parent.style is None:
            parent = None
        else:
            what = {"seq": "a sequence", "scalar": "a scalar"}.get(parent.kind, parent.kind)
            raise Refused(f"{parent_path} is {what}, not a mapping; cannot add {path}")
    if parent is not None and parent.flow:
        raise Refused(f"{parent_path} is a flow mapping (line {facts.line(parent.start)}); edit it by hand")
    if raw:
        raw_scalar(value)
        scalar = value
    else:
        scalar = render(value)
        _reads_back(_scalar_of(scalar), value)
    step = _indent_step(facts)
    if parent is not None and parent.pairs:
        indent = _column(facts, parent.pairs[0][0])
        at = len(facts.text) if parent is facts.root else _after_line(facts, _block_end(facts, parent))
    else:
        indent = 0
        at = len(facts.text)
    missing = segments[depth:]
    new_lines = []
    for i, seg in enumerate(missing):
        key = render(seg, place="key")
        pad = " " * (indent + i * step)
        new_lines.append(f"{pad}{key}: {scalar}" if i == len(missing) - 1 else f"{pad}{key}:")
    text = _insert_lines(facts, at, new_lines)
    expected = _expected_create(facts, parent, missing, scalar)
    dated = _verified(facts, text, max(at - 1, 0), today, expected, spans)
    where = text.index(new_lines[-1], max(at - 1, 0)) + len(dated) - len(text)
    got = {
        "key": path,
        "value": construct(_scalar_of(scalar)),
        "line": dated.count("\n", 0, where) + 1,
        "source": scalar,
        "comment": None,
        "alias": None,
    }
    return Edit(facts.source.encode(dated), True, f"created {path}", got=got)


def _expected_create(facts: Facts, parent: Node | None, missing: list[str], scalar: str) -> Node:
    """The old tree with the new keys added under parent (a new root mapping when the file had none)."""
    root = facts.root if parent is not None and facts.root is not None else Node("map", 0, 0)
    target: Node = parent if parent is not None else root
    for i, seg in enumerate(missing):
        key = _scalar_of(render(seg, place="key"))
        if i == len(missing) - 1:
            target.pairs.append((key, _scalar_of(scalar)))
        else:
            child = Node("map", 0, 0)
            target.pairs.append((key, child))
            target = child
    return root


def _todos(facts: Facts) -> tuple[Node | None, Node | None]:
    """The top-level `todos` key and its value (None, None when missing)."""
    root = facts.root
    if root is None or root.kind != "map":
        return None, None
    for key, value in root.pairs:
        if _key_text(key) == "todos":
            return key, value
    return None, None


def todo_add(data: bytes, item: str, *, today: dt.date) -> Edit:
    """`facts todo add TEXT`: `- TEXT` appended to the todos sequence (created at the end when missing)."""
    if any(c in item for c in BREAKS):
        raise UsageError("a todo holds a line break; facts.yaml values are one line")
    facts = parse(data)
    spans = _top_spans(facts)
    if (
        facts.root is not None
        and facts.root.kind != "map"
        and not (facts.root.kind == "scalar" and facts.root.value == "")
    ):
        raise Refused("memory/facts.yaml is not a mapping; cannot add todos")
    key, seq = _todos(facts)
    scalar = render(item, place="item")
    _reads_back(_scalar_of(scalar), item)
    if key is None or seq is None:
        at = len(facts.text)
        text = _insert_lines(facts, at, ["todos:", f"{' ' * _indent_step(facts)}- {scalar}"])
        root = facts.root if facts.root is not None and facts.root.kind == "map" else Node("map", 0, 0)
        root.pairs.append((_scalar_of("todos"), Node("seq", 0, 0, items=[_scalar_of(scalar)])))
        expected = root
    else:
        if seq.kind == "alias":
            raise Refused(f"todos comes from *{seq.anchor}; edit &{seq.anchor} by hand")
        empty = (seq.kind == "seq" and seq.flow and not seq.items) or (
            seq.kind == "scalar" and seq.style is None and seq.value == "" and not seq.anchor and not seq.tag
        )
        if (seq.kind != "seq" or seq.flow) and not empty:
            what = "a flow sequence" if seq.kind == "seq" else f"no sequence (line {facts.line(key.start)})"
            raise Refused(f"todos is {what}; edit it by hand")
        if empty:
            at, text = _first_todo(facts, key, seq, scalar)
            new_seq = Node("seq", 0, 0, items=[_scalar_of(scalar)])
            if facts.root is None:  # a todos found in the file means a root mapping holds it
                raise FactsInvalid("memory/facts.yaml has no top-level mapping")
            facts.root.pairs = [(k, new_seq if v is seq else v) for k, v in facts.root.pairs]
        else:
            indent = _column(facts, seq)
            at = _after_line(facts, _block_end(facts, seq))
            text = _insert_lines(facts, at, [f"{' ' * indent}- {scalar}"])
            seq.items.append(_scalar_of(scalar))
        expected = facts.root if facts.root is not None else seq
    text = _verified(facts, text, max(at - 1, 0), today, expected, spans)
    return Edit(facts.source.encode(text), True, "todo added")


def _first_todo(facts: Facts, key: Node, seq: Node, scalar: str) -> tuple[int, str]:
    """The first item written into an empty todos (`[]` on its own line or the key's, or no value at all):
    where the change is, and the new text. `[]` gives way to the item; an empty value gets the item's line."""
    text, eol = facts.text, facts.source.eol
    key_line = facts.lines.line_of(key.start)
    step = " " * (_column(facts, key) + _indent_step(facts))
    if seq.kind == "scalar":  # `todos:` and nothing: the item's line after the key's
        at = facts.lines.end(key_line)
        return at, _insert_lines(facts, at, [f"{step}- {scalar}"])
    line = facts.lines.line_of(seq.start)
    start = facts.lines.start(line)
    if line != key_line:  # `[]` alone on its line: that line holds the item instead
        return seq.start, text[:start] + " " * (seq.start - start) + f"- {scalar}" + text[seq.end :]
    end = facts.lines.start(line) + len(facts.lines.content(line))
    head = text[start : seq.start].rstrip(" \t") + text[seq.end : end]
    rest = text[end:]
    if rest.startswith(("\r\n", "\n")):
        rest = rest[2:] if rest.startswith("\r\n") else rest[1:]
        return seq.start, text[:start] + head + eol + f"{step}- {scalar}" + eol + rest
    return seq.start, text[:start] + head + eol + f"{step}- {scalar}" + rest


def todo_done(data: bytes, which: str, *, today: dt.date) -> Edit:
    """`facts todo done N|TEXT`: the item (N 1-based, else the exact text) removed with its line; the Edit's
    `removed` is its text, for the daily log's `- [x] TEXT`."""
    facts = parse(data)
    spans = _top_spans(facts)
    key, seq = _todos(facts)
    if key is None or seq is None or seq.kind != "seq":
        raise Refused("memory/facts.yaml has no todos list")
    if seq.flow and seq.items:  # `[]` (what done leaves of the last todo) is just an empty list
        raise Refused("todos is a flow sequence; edit it by hand")
    texts = [item.value if item.kind == "scalar" else None for item in seq.items]
    index: int | None = None
    if which.isdigit() and 1 <= int(which) <= len(seq.items):
        index = int(which) - 1
    elif which in texts:
        index = texts.index(which)
    if index is None:
        raise Refused(f"no todo {which!r} (todos has {len(seq.items)} items)")
    item = seq.items[index]
    if item.kind != "scalar":
        raise Refused(f"todo {index + 1} is no one-line item; edit it by hand")
    first = facts.lines.line_of(item.prop_start)
    last = facts.lines.line_of(_content_end(facts, item))
    dash = facts.text.rfind("-", facts.lines.start(first), item.prop_start)
    before = facts.text[facts.lines.start(first) : dash] if dash != -1 else "x"
    after_end = facts.lines.start(last) + len(facts.lines.content(last))
    after = facts.text[_content_end(facts, item) + 1 : after_end]
    if before.strip() or (after.strip() and not after.strip().startswith("#")):
        raise Refused(f"todo {index + 1} shares its line with other text; edit it by hand")
    start, end = facts.lines.start(first), facts.lines.end(last)
    replacement = ""
    if len(seq.items) == 1:
        replacement = (
            " " * _column(facts, seq) + "[]" + facts.text[start:end][len(facts.text[start:end].rstrip("\r\n")) :]
        )
    text = facts.text[:start] + replacement + facts.text[end:]
    if end == len(facts.text) and start > 0 and not replacement and not facts.text.endswith("\n"):
        text = text[: len(text) - len(facts.source.eol)] if text.endswith(facts.source.eol) else text
    del seq.items[index]
    if not seq.items:
        seq.flow = True
    text = _verified(facts, text, start, today, facts.root, spans)
    return Edit(facts.source.encode(text), True, f"todo done: {item.value}", removed=item.value)


def no_line_break(value: str) -> None:
    """A UsageError (exit 2) for a value holding a line break: facts.yaml values are one line."""
    if any(c in value for c in BREAKS):
        raise UsageError("a value holds a line break; facts.yaml values are one line")
