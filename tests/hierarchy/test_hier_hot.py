"""The hot cache's matchers (seed 004's `fact_in_hot` forms), pointers, token estimate and sections:
the API `hierarchy lint` and the migration proposal both read."""

from __future__ import annotations

import pytest

from memboard.core.hierarchy import hot

CASES = [
    ("Met on 2026-03-05.", "date", "2026-03-05"),
    ("Met on 2026/3/5.", "date", "2026/3/5"),
    ("Born March 5, 2026 here", "date", "March 5, 2026"),
    ("Born 5 March 2026 here", "date", "5 March 2026"),
    ("生于2026年3月5日", "date", "2026年3月5日"),
    ("- Email: kim.lee@example.com", "email", "kim.lee@example.com"),
    ("see https://example.org/a/b).", "url", "https://example.org/a/b"),
    ("lives in /a/b now", "path", "/a/b"),
    ("lives in ~/a now", "path", "~/a"),
    ("lives in C:\\a now", "path", "C:\\a"),
    ("lives in dir/file.ext now", "path", "dir/file.ext"),
    ("id 123e4567-e89b-12d3-a456-426614174000", "id", "123e4567-e89b-12d3-a456-426614174000"),
    ("account 1234567 here", "id", "1234567"),
    ("commit deadbeef01234 here", "id", "deadbeef01234"),
    ("ask before spending $50.", "amount", "$50"),
    ("it costs 50 USD", "amount", "50 USD"),
    ("it costs €5", "amount", "€5"),
    ("it costs ¥5", "amount", "¥5"),
    ("Book status: drafting", "status", "status:"),
    ("The book is in progress", "status", "in progress"),
    ("The deal is blocked", "status", "blocked"),
    ("The deal is paused", "status", "paused"),
    ("书稿进行中", "status", "进行中"),
    ("- [ ] call the bank", "todo", "- [ ]"),
    ("TODO call the bank", "todo", "TODO"),
    ("待办：打电话", "todo", "待办"),
]


@pytest.mark.parametrize(("line", "kind", "text"), CASES)
def test_every_listed_form_matches_with_its_span(line: str, kind: str, text: str) -> None:
    found = hot.line_facts(line)
    assert [(m.kind, m.text) for m in found] == [(kind, text)]
    start, end = found[0].span
    assert line[start:end] == text


def test_one_match_per_fact_left_to_right_without_overlap() -> None:
    line = "kim@example.com since 2026-03-05, see https://x.org/2026-03-05 and $50"
    kinds = [m.kind for m in hot.line_facts(line)]
    assert kinds == ["email", "date", "url", "amount"]


@pytest.mark.parametrize(
    "line",
    [
        "# Structured facts → memory/facts.yaml",
        "See memory/lookup-index.md for 2026-03-05",
        "Met on 2026-03-05 <!-- memboard-lint: allow -->",
    ],
)
def test_pointer_lines_and_allowed_lines_are_exempt(line: str) -> None:
    assert hot.line_facts(line) == []
    assert hot.line_number(line) is None


@pytest.mark.parametrize(
    ("line", "number"), [("Identity summary (2-3 lines)", "2"), ("Draw with DALL-E 3", "3"), ("plain prose", None)]
)
def test_a_bare_number_only_when_nothing_else_is_fact_like(line: str, number: str | None) -> None:
    m = hot.line_number(line)
    assert (m.text if m else None) == number
    assert hot.line_facts(line) == []


def test_prose_has_no_fact() -> None:
    for line in ["Sam feels like the one who got skipped.", "Use and/or wisely; TCP/IP is fine.", "Always be kind"]:
        assert hot.line_facts(line) == [], line


def test_pointers_and_tokens_and_sections() -> None:
    lines = hot.lines_of("\ufeff# Me\r\nhi\r\n## Projects\r\na\r\nb\r\nc\r\n# Structured facts → memory/facts.yaml\r\n")
    assert lines[0] == "# Me" and len(lines) == 7
    assert hot.pointers(lines) == {"facts": True, "lookup": False}
    assert [(s.heading, s.line, s.lines) for s in hot.sections(lines)] == [("# Me", 1, 2), ("## Projects", 3, 5)]
    assert hot.largest_sections(lines, 1)[0].heading == "## Projects"
    assert hot.estimate_tokens("abcdefgh") == 2
    assert hot.estimate_tokens("abcd中文字") == 4
    assert hot.estimate_tokens("abcde") == 2
