"""Property tests of facts.yaml edits (issue 25 §9, byte preservation): random facts files (comments, anchors,
aliases, merge keys, flow collections, mixed indentation, CRLF, BOM, no final newline) and random `set`s and
`--create`s. Every byte outside the edited scalar and the Last updated line is identical, a parse gives the
expected data, and ruamel.yaml (YAML 1.2) and PyYAML (YAML 1.1) read every written value as the text given."""

from __future__ import annotations

import copy
import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from memboard.core.errors import MemboardError
from memboard.core.hierarchy import facts as F
from tests.support.sizes import examples

SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
TODAY = dt.date(2026, 12, 2)
DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")

PLAIN_WORDS = ["kim", "hello world", "x-y", "42", "kim@example.com", "~/books/list.md", "a b c", "中文", "v1.2.3"]
TRICKY = ["no", "on", "off", "yes", "y", "3.10", "2026-01-05", "~", "null", "@x", "a: b", "x #y", "#x", "- a", "'q'"]
TRICKY += ['"d"', "007", "0x1F", "1_000", "190:20:30", "<<", "=", "", " lead", "trail ", "a,b", "[x]", "{y}", "*a"]
TRICKY += ["&b", "!t", "|", ">", "%p", "`x", "?", "a\tb", "\x01", "é", "\ufeffx", "-1", "-0", "+1", "1e3", ".inf"]
KEYS = ["email", "name", "status", "file", "city", "id", "phone", "role"]
GROUPS = ["identity", "paths", "projects", "misc", "services", "accounts", "dates"]

value_text = st.one_of(
    st.sampled_from(PLAIN_WORDS + TRICKY),
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x85\u2028\u2029"),  # type: ignore[arg-type]
        max_size=12,
    ),
)


@dataclass
class Leaf:
    """A scalar the generator wrote: its key path, line index, and the line's text before and after it."""

    path: list[str]
    line: int
    prefix: str
    suffix: str
    editable: bool


@dataclass
class Group:
    """A top-level group: its name, whether it is a block mapping new keys may go in, its indentation."""

    name: str
    block: bool
    indent: int
    keys: list[str] = field(default_factory=list)
    anchored: bool = False


@dataclass
class Doc:
    """A generated facts file."""

    lines: list[str]
    eol: str
    bom: bool
    final: bool
    leaves: list[Leaf]
    groups: list[Group]
    last_updated: int | None

    def data(self) -> bytes:
        """The file's bytes."""
        text = self.eol.join(self.lines) + (self.eol if self.final else "")
        return (("\ufeff" if self.bom else "") + text).encode()


def scalar_source(draw: st.DrawFn) -> str:
    """A scalar as written: plain, single- or double-quoted."""
    word = draw(st.sampled_from(PLAIN_WORDS))
    style = draw(st.sampled_from(["plain", "single", "double"]))
    if style == "single":
        return "'" + word.replace("'", "''") + "'"
    if style == "double":
        return '"' + word + '"'
    return word


def comment(draw: st.DrawFn) -> str:
    """A trailing comment, or none."""
    return draw(st.sampled_from(["", "  # note", " # a: b", "   #x"]))


@st.composite
def facts_doc(draw: st.DrawFn) -> Doc:
    """A random valid facts file, with what the generator knows about it."""
    lines = ["# memory/facts.yaml"]
    if draw(st.booleans()):
        lines.append("# Structured factual data")
    last_updated = None
    if draw(st.booleans()):
        last_updated = len(lines)
        lines.append("# Last updated: 2026-01-01")
    leaves: list[Leaf] = []
    groups: list[Group] = []
    names = draw(st.lists(st.sampled_from(GROUPS), min_size=1, max_size=4, unique=True))
    anchor: str | None = None
    scalar_anchor: str | None = None
    for gi, name in enumerate(names):
        kind = draw(st.sampled_from(["block", "block", "flow_map", "flow_seq", "seq", "merge"]))
        if kind == "merge" and anchor is None:
            kind = "block"
        indent = draw(st.integers(1, 4))
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "# a comment", "  # indented comment"])))
        if kind == "flow_map":
            keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=3, unique=True))
            head = f"{name}: {{"
            parts: list[str] = []
            for key in keys:
                src = scalar_source(draw)
                pre = head + ", ".join(parts) + (", " if parts else "") + f"{key}: "
                parts.append(f"{key}: {src}")
                leaves.append(Leaf([name, key], len(lines), pre, "", True))
            line = head + ", ".join(parts) + "}" + comment(draw)
            for leaf in leaves:
                if leaf.line == len(lines):
                    leaf.suffix = line[len(leaf.prefix) + len(_src_at(line, leaf.prefix)) :]
            lines.append(line)
            groups.append(Group(name, False, 0))
            continue
        if kind == "flow_seq":
            items = [scalar_source(draw) for _ in range(draw(st.integers(1, 3)))]
            line = f"{name}: [" + ", ".join(items) + "]" + comment(draw)
            pos = len(f"{name}: [")
            for i, src in enumerate(items):
                leaves.append(Leaf([name, str(i)], len(lines), line[:pos], line[pos + len(src) :], True))
                pos += len(src) + 2
            lines.append(line)
            groups.append(Group(name, False, 0))
            continue
        if kind == "seq":
            lines.append(f"{name}:" + comment(draw))
            dash = draw(st.sampled_from([0, indent]))
            for i in range(draw(st.integers(1, 3))):
                src = scalar_source(draw)
                pre = " " * dash + "- "
                suf = comment(draw)
                leaves.append(Leaf([name, str(i)], len(lines), pre, suf, True))
                lines.append(pre + src + suf)
            groups.append(Group(name, False, 0))
            continue
        group = Group(name, True, indent)
        head = f"{name}:"
        if anchor is None and kind == "block" and draw(st.booleans()):
            anchor = f"a{gi}"
            head += f" &{anchor}"
            group.anchored = True
        lines.append(head + comment(draw))
        if kind == "merge":
            lines.append(" " * indent + f"<<: *{anchor}")
        keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=4, unique=True))
        for key in keys:
            if draw(st.integers(0, 5)) == 0:
                lines.append(" " * indent + "# between keys")
            pad = " " * indent + f"{key}: "
            if scalar_anchor is not None and draw(st.integers(0, 3)) == 0:
                lines.append(pad + f"*{scalar_anchor}")
                group.keys.append(key)
                continue
            src = scalar_source(draw)
            own_anchor = scalar_anchor is None and draw(st.integers(0, 4)) == 0
            if own_anchor:
                scalar_anchor = f"s{gi}{key}"
                pad += f"&{scalar_anchor} "
            suf = comment(draw)
            editable = not own_anchor and not group.anchored
            leaves.append(Leaf([name, key], len(lines), pad, suf, editable))
            lines.append(pad + src + suf)
            group.keys.append(key)
        groups.append(group)
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["", "# trailing comment"])))
    return Doc(
        lines,
        draw(st.sampled_from(["\n", "\r\n"])),
        draw(st.booleans()),
        draw(st.booleans()),
        leaves,
        groups,
        last_updated,
    )


def _src_at(line: str, prefix: str) -> str:
    """The scalar that starts after prefix in a flow mapping line (up to , or })."""
    rest = line[len(prefix) :]
    m = re.match(r"'(?:[^']|'')*'|\"[^\"]*\"|[^,}]*", rest)
    assert m is not None
    return m.group()


def pyyaml(data: bytes) -> Any:
    """PyYAML's (YAML 1.1) reading of a file."""
    return yaml.safe_load(data.decode("utf-8-sig"))


def ruamel(data: bytes) -> Any:
    """ruamel.yaml's (YAML 1.2) reading of a file."""
    return YAML(typ="safe", pure=True).load(data.decode("utf-8-sig"))


def reads_as(got: Any, text: str) -> bool:
    """A value read back is the text given (or, written plain, the decimal integer it spells)."""
    return got == text or (DECIMAL.match(text) is not None and type(got) is int and got == int(text))


def put(data: Any, path: list[str], value: Any) -> None:
    """Set path in nested data (sequence indexes as digits)."""
    for seg in path[:-1]:
        data = data[int(seg)] if isinstance(data, list) else data[seg]
    last = path[-1]
    if isinstance(data, list):
        data[int(last)] = value
    else:
        data[last] = value


def value_at(data: Any, path: list[str]) -> Any:
    """The value at path in nested data."""
    for seg in path:
        data = data[int(seg)] if isinstance(data, list) else data[seg]
    return data


def leading_comments(lines: list[str]) -> int:
    """How many comment lines open the file."""
    n = 0
    while n < len(lines) and lines[n].lstrip(" \t").startswith("#"):
        n += 1
    return n


def check_lines(doc: Doc, new: bytes, same: dict[int, tuple[str, str] | None]) -> None:
    """Every line of the new file is the old one, but the Last updated line (inserted when missing) and the
    lines in `same` (prefix and suffix kept around a new scalar; None: any text)."""
    text = new.decode("utf-8")
    assert text.startswith("\ufeff") == doc.bom
    got = text.removeprefix("\ufeff").split(doc.eol)
    old = (doc.eol.join(doc.lines) + (doc.eol if doc.final else "")).split(doc.eol)
    if doc.last_updated is None:
        at = leading_comments(doc.lines)
        assert got[at] == "# Last updated: 2026-12-02"
        del got[at]
    else:
        assert got[doc.last_updated] == "# Last updated: 2026-12-02"
        got[doc.last_updated] = old[doc.last_updated]
    assert len(got) == len(old)
    for n, (a, b) in enumerate(zip(old, got, strict=True)):
        if n in same:
            kept = same[n]
            if kept is not None:
                pre, suf = kept
                assert b.startswith(pre) and b.endswith(suf) and len(b) >= len(pre) + len(suf)
        else:
            assert a == b, n


@SETTINGS
@given(doc=facts_doc(), pick=st.integers(0, 1000), text=value_text)
def test_set_changes_one_scalar_and_the_date(doc: Doc, pick: int, text: str) -> None:
    targets = [leaf for leaf in doc.leaves if leaf.editable]
    assume(targets)
    leaf = targets[pick % len(targets)]
    old = doc.data()
    before_py, before_ru = pyyaml(old), ruamel(old)
    key = F.join_path(leaf.path)
    edit = F.set_value(old, key, text, today=TODAY)
    if not edit.changed:
        assert edit.data == old
        assert reads_as(value_at(before_ru, leaf.path), text) or value_at(before_ru, leaf.path) == text
        return
    check_lines(doc, edit.data, {leaf.line: (leaf.prefix, leaf.suffix)})
    after_py, after_ru = pyyaml(edit.data), ruamel(edit.data)
    assert reads_as(value_at(after_py, leaf.path), text)
    assert reads_as(value_at(after_ru, leaf.path), text)
    for before, after in ((before_py, after_py), (before_ru, after_ru)):
        expected = copy.deepcopy(before)
        put(expected, leaf.path, value_at(after, leaf.path))
        assert after == expected


@SETTINGS
@given(doc=facts_doc(), pick=st.integers(0, 1000), text=value_text, new_key=st.sampled_from(["zip", "api.keys", "x"]))
def test_create_inserts_whole_lines(doc: Doc, pick: int, text: str, new_key: str) -> None:
    blocks = [g for g in doc.groups if g.block and not g.anchored]
    old = doc.data()
    if blocks and pick % 3:
        group = blocks[pick % len(blocks)]
        path = [group.name, new_key]
    else:
        assume("fresh" not in [g.name for g in doc.groups])
        path = ["fresh", new_key, "leaf"] if pick % 2 else ["fresh"]
    edit = F.set_value(old, F.join_path(path), text, today=TODAY, create=True)
    assert edit.changed
    new_lines = edit.data.decode("utf-8").removeprefix("\ufeff").split(doc.eol)
    old_lines = list(doc.lines) + ([""] if doc.final else [])
    # the old lines in order, with the new key's lines (and a Last updated line) inserted
    it = iter(new_lines)
    assert all(any(line == got for got in it) for line in old_lines if not line.startswith("# Last updated:"))
    inserted = len(new_lines) - len(old_lines) - (1 if doc.last_updated is None else 0)
    assert inserted == len(path) - (1 if len(path) == 2 and path[0] != "fresh" else 0)
    for reader in (pyyaml, ruamel):
        before, after = reader(old), reader(edit.data)
        assert reads_as(value_at(after, path), text)
        expected = copy.deepcopy(before) if isinstance(before, dict) else {}
        node = expected
        for seg in path[:-1]:
            node = node.setdefault(seg, {})
        node[path[-1]] = value_at(after, path)
        assert after == expected


@SETTINGS
@given(doc=facts_doc(), text=value_text)
def test_todo_add_then_done_round_trips(doc: Doc, text: str) -> None:
    assume("todos" not in [g.name for g in doc.groups])
    old = doc.data()
    added = F.todo_add(old, text, today=TODAY).data
    for reader in (pyyaml, ruamel):
        assert reads_as(reader(added)["todos"][-1], text)
    done = F.todo_done(added, "1", today=TODAY)
    assert done.removed == text
    assert pyyaml(done.data)["todos"] == [] and ruamel(done.data)["todos"] == []


@SETTINGS
@given(doc=facts_doc())
def test_get_reads_every_leaf_as_written(doc: Doc) -> None:
    data = doc.data()
    for leaf in doc.leaves:
        got = F.get(data, F.join_path(leaf.path))
        assert got["line"] == leaf.line + 1
        assert got["value"] == value_at(ruamel(data), leaf.path)
    assert F.findings(data) == []


@SETTINGS
@given(
    doc=facts_doc(),
    op=st.sampled_from(["set", "create", "raw", "add", "done", "touch"]),
    path=st.lists(st.sampled_from([*GROUPS, *KEYS, "0", "1", "<<", "todos", "a.b"]), min_size=1, max_size=3),
    text=value_text,
)
def test_any_edit_writes_readable_yaml_or_refuses_in_one_line(doc: Doc, op: str, path: list[str], text: str) -> None:
    """§8: whatever is asked of whatever file, an edit is written whole and readable, or refused in one line
    (never a traceback, never a partly written file)."""
    data = doc.data()
    key = F.join_path(path)
    try:
        if op in ("set", "create", "raw"):
            edit = F.set_value(data, key, text, today=TODAY, create=op == "create", raw=op == "raw")
        elif op == "add":
            edit = F.todo_add(data, text, today=TODAY)
        elif op == "done":
            edit = F.todo_done(data, text or "1", today=TODAY)
        else:
            edit = F.touch(data, today=TODAY)
    except MemboardError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    if edit.changed:
        pyyaml(edit.data), ruamel(edit.data)
        assert F.last_updated(edit.data) is not None
    else:
        assert edit.data == data
