"""facts.yaml read at exact positions and edited byte for byte (issue 25 §2, §3): examples of each edit and
refusal; the property tests beside this file cover random files."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints

from memboard.core.errors import Refused, UsageError
from memboard.core.hierarchy import facts as F

TODAY = dt.date(2026, 12, 2)
SEED = (
    "\ufeff# memory/facts.yaml\r\n"
    "# Last updated: 2026-01-01\r\n"
    "contact: &contact\r\n"
    "  email: kim@x.com  # mail\r\n"
    "  phone: '555'\r\n"
    "identity:\r\n"
    "  <<: *contact\r\n"
    "  name: Kim\r\n"
    'paths: {"api.keys": ~/k, b: 2}\r\n'
    "todos:\r\n"
    "  - one\r\n"
    "  - two\r\n"
    "empty:\r\n"
).encode()


def lines(data: bytes) -> list[bytes]:
    """The file's lines, line ends kept."""
    return data.splitlines(keepends=True)


def changed_lines(old: bytes, new: bytes) -> list[tuple[bytes, bytes]]:
    """Pairs of lines that differ (same line count)."""
    a, b = lines(old), lines(new)
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def test_get_reports_value_line_source_comment_and_alias() -> None:
    got = F.get(SEED, "identity.email")
    assert got == {
        "key": "identity.email",
        "value": "kim@x.com",
        "line": 4,
        "source": "kim@x.com",
        "comment": "mail",
        "alias": "contact",
    }
    assert F.get(SEED, 'paths."api.keys"')["value"] == "~/k"
    assert F.get(SEED, "todos.1")["value"] == "two"
    assert F.get(SEED, "contact.phone")["source"] == "'555'"
    with pytest.raises(Refused):
        F.get(SEED, "identity.nope")


def test_set_changes_two_lines_and_quotes_what_readers_would_misread() -> None:
    new = F.set_value(SEED, "contact.email", "no", today=TODAY).data
    assert changed_lines(SEED, new) == [
        (b"# Last updated: 2026-01-01\r\n", b"# Last updated: 2026-12-02\r\n"),
        (b"  email: kim@x.com  # mail\r\n", b'  email: "no"  # mail\r\n'),
    ]
    assert new.startswith(b"\xef\xbb\xbf")
    assert yaml.safe_load(new.decode("utf-8-sig"))["identity"]["email"] == "no"


def test_set_keeps_a_single_quoted_style() -> None:
    new = F.set_value(SEED, "contact.phone", "it's", today=TODAY).data
    assert b"  phone: 'it''s'\r\n" in lines(new)


def test_same_value_is_nothing_to_change() -> None:
    edit = F.set_value(SEED, "identity.name", "Kim", today=TODAY)
    assert not edit.changed and edit.data == SEED


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("identity.email", "identity.email comes from *contact (line 7); edit &contact at line 3"),
        ("contact", "contact is a mapping; set one of its keys"),
        ("nokey", "no key nokey in memory/facts.yaml (pass --create to add it)"),
    ],
)
def test_refusals_are_one_line(key: str, message: str) -> None:
    with pytest.raises(Refused) as exc:
        F.set_value(SEED, key, "x", today=TODAY)
    assert str(exc.value) == message


def test_flow_parent_and_multiline_value() -> None:
    with pytest.raises(Refused, match="edit it by hand"):
        F.set_value(SEED, "paths.c", "1", today=TODAY, create=True)
    with pytest.raises(UsageError):
        F.set_value(SEED, "identity.name", "a\nb", today=TODAY)
    with pytest.raises(Refused, match="twice"):
        F.set_value(b"a: 1\na: 2\n", "a", "3", today=TODAY)
    with pytest.raises(Refused, match="not valid YAML"):
        F.set_value(b"a: [\n", "a", "3", today=TODAY)


def test_a_question_mark_in_a_flow_value_is_quoted_for_pyyaml() -> None:
    # PyYAML ends a plain scalar at "?" in flow context: {b: 0?} would not parse there (found by the properties)
    new = F.set_value(SEED, "paths.b", "0?", today=TODAY).data
    assert lines(new)[8] == b'paths: {"api.keys": ~/k, b: "0?"}\r\n'
    assert yaml.safe_load(new.decode("utf-8-sig"))["paths"]["b"] == "0?"


def test_create_inserts_lines_with_the_siblings_indentation() -> None:
    new = F.set_value(SEED, "identity.city", "Paris", today=TODAY, create=True).data
    assert lines(new)[8] == b"  city: Paris\r\n"
    assert len(lines(new)) == len(lines(SEED)) + 1
    deep = F.set_value(SEED, "new.deep.key", "1", today=TODAY, create=True).data
    assert deep.endswith(b"empty:\r\nnew:\r\n  deep:\r\n    key: 1\r\n")


def test_create_without_final_newline_keeps_none() -> None:
    new = F.set_value(b"# Last updated: 2026-01-01\na: 1", "b", "2", today=TODAY, create=True).data
    assert new == b"# Last updated: 2026-12-02\na: 1\nb: 2"


def test_last_updated_inserted_among_leading_comments() -> None:
    new = F.touch(b"# memory/facts.yaml\n# Structured\na: 1\n", today=TODAY).data
    assert new == b"# memory/facts.yaml\n# Structured\n# Last updated: 2026-12-02\na: 1\n"
    assert not F.touch(new, today=TODAY).changed


def test_todo_add_and_done() -> None:
    added = F.todo_add(SEED, "three: 3", today=TODAY).data
    assert lines(added)[12] == b'  - "three: 3"\r\n'
    done = F.todo_done(added, "1", today=TODAY)
    assert done.removed == "one" and b"  - one\r\n" not in lines(done.data)
    by_text = F.todo_done(SEED, "two", today=TODAY)
    assert by_text.removed == "two"
    only = F.todo_done(by_text.data, "one", today=TODAY).data
    assert yaml.safe_load(only.decode("utf-8-sig"))["todos"] == []
    created = F.todo_add(b"# Last updated: 2026-01-01\na: 1\n", "x", today=TODAY).data
    assert created == b"# Last updated: 2026-12-02\na: 1\ntodos:\n  - x\n"


def test_lint_findings() -> None:
    assert [f.kind for f in F.findings(b"a: |\n  x\n")] == ["facts_multiline"]
    assert [(f.kind, f.line) for f in F.findings(b"a: 1\na: 2\n")] == [("facts_invalid", 2)]
    assert F.findings(b"\xff")[0].kind == "facts_invalid"
    assert any("tab" in f.message for f in F.findings(b"a:\n\tb: 1\n"))
    bad = F.findings(b"a: [\n")[0]
    assert bad.kind == "facts_invalid" and bad.line == 2
    stamp = F.last_updated(SEED)
    assert stamp is not None and stamp.line == 2 and stamp.date == dt.date(2026, 1, 1)


@pytest.mark.parametrize("text", ["no", "on", "3.10", "2026-01-05", "~", "@x", "a: b", "y", "0x1F", "007", "1_000"])
def test_ambiguous_values_are_quoted(text: str) -> None:
    assert F.render(text).startswith('"')


@pytest.mark.parametrize("text", ["hello world", "42", "中文", "kim@x.com"])
def test_plain_values(text: str) -> None:
    assert F.render(text) == text


def test_a_scalar_that_would_not_read_back_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The verification is no formality: a wrong rendering is caught by parsing again, never written."""
    monkeypatch.setattr(F, "render", lambda text, *a, **k: "x: y")
    with pytest.raises(Refused, match="would not read back"):
        F.set_value(SEED, "identity.name", "x: y", today=TODAY)
    monkeypatch.setattr(F, "render", lambda text, *a, **k: "no")
    with pytest.raises(Refused, match="every YAML reader"):
        F.set_value(SEED, "identity.name", "no", today=TODAY)


def test_the_part_parsed_again_must_hold_the_changed_data_only() -> None:
    facts = F.parse(SEED)
    spans = F._top_spans(facts)
    assert spans is not None
    text = facts.text
    other = text.replace("  name: Kim", "  name: Kam")  # a change the edit did not ask for
    with pytest.raises(Refused, match="change other data"):
        F._verify_part(facts, other, text.index("  name: Kim"), spans)
    anchor = text.replace("&contact", "&other")  # the alias after it would name no anchor
    with pytest.raises(Refused):
        F._verify_part(facts, anchor, text.index("&contact"), spans)
    F._verify_part(facts, text, text.index("  name: Kim"), spans)  # no change: holds


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("todos:\n  []\nx: 1\n", "todos:\n  - new\nx: 1\n"),
        ("todos: []  # none yet\nx: 1\n", "todos:  # none yet\n  - new\nx: 1\n"),
        ("todos: []", "todos:\n  - new"),
        ("todos:\nx: 1\n", "todos:\n  - new\nx: 1\n"),
    ],
)
def test_todo_add_to_an_empty_list(before: str, after: str) -> None:
    """The `[]` todo done leaves behind (or no value at all) takes the next todo."""
    head = "# Last updated: 2026-12-02\n"
    assert F.todo_add((head + before).encode(), "new", today=TODAY).data == (head + after).encode()


def test_done_then_add_round_trip() -> None:
    one = b"# Last updated: 2026-12-02\ntodos:\n  - a\n"
    empty = F.todo_done(one, "1", today=TODAY).data
    assert empty == b"# Last updated: 2026-12-02\ntodos:\n  []\n"
    assert F.todo_add(empty, "a", today=TODAY).data == one


def test_an_alias_value_names_its_anchor() -> None:
    data = b"# Last updated: 2026-01-01\nbase: &b kim\nother: *b\nempty:\nnext: 1\n"
    with pytest.raises(Refused) as exc:
        F.set_value(data, "other", "x", today=TODAY)
    assert str(exc.value) == "other comes from *b (line 3); edit &b at line 2"
    assert F.get(data, "other")["alias"] == "b" and F.get(data, "other")["value"] == "kim"
    assert F.get(data, "empty")["line"] == 4 and F.get(data, "empty")["value"] is None
    set_empty = F.set_value(data, "empty", "now", today=TODAY).data
    assert set_empty == b"# Last updated: 2026-12-02\nbase: &b kim\nother: *b\nempty: now\nnext: 1\n"
    anchored = F.set_value(data, "base", "lee", today=TODAY).data  # the anchor's own scalar: its alias follows
    assert anchored == b"# Last updated: 2026-12-02\nbase: &b lee\nother: *b\nempty:\nnext: 1\n"


def test_a_tagged_scalar_is_left_to_the_hand() -> None:
    with pytest.raises(Refused, match="has the tag !!int \\(line 1\\)"):
        F.set_value(b"a: !!int 42\n", "a", "abc", today=TODAY)
