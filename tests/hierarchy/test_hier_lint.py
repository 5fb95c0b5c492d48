"""`hierarchy lint` (issue 25 §3): every finding kind of the table, each with a workspace that has it, its
severity and JSON shape, --strict's exit status, and a clean workspace with no finding at all."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

CLEAN_HOT = (
    "# Identity\n"
    "I help Kim write.\n"
    "\n"
    "## Rules\n"
    "- Always ask before spending money.\n"
    "\n"
    "# Structured facts → memory/facts.yaml\n"
    "# Find anything → memory/lookup-index.md\n"
)
CLEAN_FACTS = (
    "# memory/facts.yaml\n"
    "# Structured factual data — directly addressable, token-efficient\n"
    "# Last updated: 2026-05-30\n"
    "identity:\n"
    "  name: Kim\n"
    "projects:\n"
    "  book:\n"
    "    file: memory/project-book.md\n"
)
CLEAN_INDEX = (
    "| I need to know... | Go here |\n"
    "|---|---|\n"
    "| who Kim is | memory/facts.yaml → identity |\n"
    "| projects | memory/facts.yaml → projects |\n"
    "| the book | memory/project-book.md → Plan |\n"
)


def make(ws: Path, hot: str = CLEAN_HOT, facts: str | bytes = CLEAN_FACTS, index: str = CLEAN_INDEX) -> Path:
    """A workspace with the three warm files and one project file."""
    (ws / "memory").mkdir(parents=True, exist_ok=True)
    (ws / "MEMORY.md").write_text(hot, encoding="utf-8", newline="")
    data = facts if isinstance(facts, bytes) else facts.encode()
    (ws / "memory" / "facts.yaml").write_bytes(data)
    (ws / "memory" / "lookup-index.md").write_text(index, encoding="utf-8", newline="")
    (ws / "memory" / "project-book.md").write_text("# Book\n\n## Plan\nwrite it\n", encoding="utf-8")
    return ws


def lint(cli, ws: Path, *extra: str) -> list[dict]:
    """lint --json's findings."""
    r = cli("hierarchy", "lint", "--workspace", str(ws), "--json", *extra, use_root=False)
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_a_clean_workspace_has_no_finding(cli, tmp_path):
    assert lint(cli, make(tmp_path)) == []
    r = cli("hierarchy", "lint", "--workspace", str(tmp_path), "--strict", use_root=False)
    assert (r.code, r.out) == (0, "no findings\n")


def _long(ws: Path) -> None:
    make(ws, hot=CLEAN_HOT + "## Story\n" + "".join("line of the story\n" for _ in range(80)))


def _tokens(ws: Path) -> None:
    make(ws, hot=CLEAN_HOT + "## Story\n" + ("word " * 900) + "\n" + "很长的故事" * 100 + "\n")


def _hot_fact(ws: Path) -> None:
    make(ws, hot=CLEAN_HOT + "- Email: kim.lee@example.com\n")


def _number(ws: Path) -> None:
    make(ws, hot=CLEAN_HOT + "Identity summary (2-3 lines)\n")


def _pointers(ws: Path) -> None:
    make(ws, hot="# Identity\nI help Kim write.\n")


def _invalid(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS + "bad: [unclosed\n")


def _duplicate(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS + "identity:\n  name: Sam\n")


def _tab(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS + "misc:\n\tx: 1\n")


def _not_utf8(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS.encode() + b"misc:\n  x: \xff\n")


def _multiline(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS + "  notes: |\n    one\n    two\n")


def _prose(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS + "  mood: Kim is happy. The book goes well.\n")


def _no_date(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS.replace("# Last updated: 2026-05-30\n", ""))


def _bad_date(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS.replace("2026-05-30", "2026-13-45"))


def _future(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS.replace("2026-05-30", "2027-01-01"))


def _stale(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS.replace("2026-05-30", "2026-01-01"))
    (ws / "memory" / "2026-05-20.md").write_text("# 2026-05-20\n\nwork\n")


def _secret(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS + "  key: sk-proj-" + "a1B2c3D4e5F6g7H8i9J0" * 2 + "\n")


def _project_missing(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS + "  ghost:\n    file: memory/project-ghost.md\n")


def _project_unlisted(ws: Path) -> None:
    make(ws, index=CLEAN_INDEX + "| the garden | memory/project-garden.md |\n")
    (ws / "memory" / "project-garden.md").write_text("# Garden\n")


def _lookup_project(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS + "  garden:\n    file: memory/project-garden.md\n")
    (ws / "memory" / "project-garden.md").write_text("# Garden\n")


def _lookup_group(ws: Path) -> None:
    make(ws, facts=CLEAN_FACTS + "paths:\n  books: ~/books\n")


def _broken_target(ws: Path) -> None:
    make(ws, index=CLEAN_INDEX + "| nothing | memory/none.md |\n")


def _broken_section(ws: Path) -> None:
    make(
        ws, index=CLEAN_INDEX + "| the end | memory/project-book.md → Epilogue |\n| mail | memory/facts.yaml → mail |\n"
    )


def _malformed(ws: Path) -> None:
    make(ws, index=CLEAN_INDEX + "| only one cell |\n")


def _migration(ws: Path) -> None:
    hot = CLEAN_HOT + "- Email: kim.lee@example.com <!-- memboard-lint: allow -->\n"
    make(ws, hot=hot)
    (ws / "memory" / "migrations").mkdir()
    (ws / "memory" / "migrations" / "2026-05-30-plan.yaml").write_text(
        "date: 2026-05-30\nlines:\n"
        '  - {n: 9, text: "- Email: kim.lee@example.com <!-- memboard-lint: allow -->", to: facts, '
        "key: identity.email, value: kim.lee@example.com}\n"
        '  - {n: 1, text: "# Identity", to: keep}\n'
    )


KINDS: list[tuple[str, str, Callable[[Path], None]]] = [
    ("hot_too_long", "error", _long),
    ("hot_too_many_tokens", "warn", _tokens),
    ("fact_in_hot", "warn", _hot_fact),
    ("number_in_hot", "info", _number),
    ("hot_missing_pointers", "warn", _pointers),
    ("facts_invalid", "error", _invalid),
    ("facts_invalid", "error", _duplicate),
    ("facts_invalid", "error", _tab),
    ("facts_invalid", "error", _not_utf8),
    ("facts_multiline", "error", _multiline),
    ("facts_prose", "warn", _prose),
    ("facts_no_date", "warn", _no_date),
    ("facts_bad_date", "warn", _bad_date),
    ("facts_bad_date", "warn", _future),
    ("facts_stale", "warn", _stale),
    ("facts_secret", "error", _secret),
    ("project_missing_file", "error", _project_missing),
    ("project_unlisted", "warn", _project_unlisted),
    ("lookup_missing_project", "error", _lookup_project),
    ("lookup_missing_group", "warn", _lookup_group),
    ("lookup_broken_target", "error", _broken_target),
    ("lookup_broken_section", "error", _broken_section),
    ("lookup_malformed_row", "warn", _malformed),
    ("migration_incomplete", "error", _migration),
]


@pytest.mark.parametrize(("kind", "severity", "setup"), KINDS, ids=[f"{k}-{f.__name__}" for k, _, f in KINDS])
def test_every_kind_is_found_with_its_severity(cli, tmp_path, kind, severity, setup):
    setup(tmp_path)
    found = lint(cli, tmp_path)
    assert kind in {f["kind"] for f in found}, found
    for f in found:
        assert set(f) == {"kind", "severity", "path", "line", "span", "message", "fix"}
        if f["kind"] == kind:
            assert f["severity"] == severity
    strict = cli("hierarchy", "lint", "--workspace", str(tmp_path), "--strict", use_root=False)
    assert strict.code == (0 if severity == "info" and all(f["severity"] == "info" for f in found) else 1)
    assert cli("hierarchy", "lint", "--workspace", str(tmp_path), use_root=False).code == 0


def test_fact_in_hot_gives_one_finding_per_match_with_its_span(cli, tmp_path):
    make(tmp_path, hot=CLEAN_HOT + "Met kim@example.com on 2026-03-05 <!-- not the mark\n")
    found = [f for f in lint(cli, tmp_path) if f["kind"] == "fact_in_hot"]
    line = (CLEAN_HOT + "Met kim@example.com on 2026-03-05 <!-- not the mark\n").splitlines()[found[0]["line"] - 1]
    assert [line[slice(*f["span"])] for f in found] == ["kim@example.com", "2026-03-05"]


def test_the_allow_mark_and_pointer_lines_are_exempt(cli, tmp_path):
    make(tmp_path, hot=CLEAN_HOT + "Met on 2026-03-05 <!-- memboard-lint: allow -->\nSee memory/facts.yaml for 2026\n")
    assert lint(cli, tmp_path) == []


def test_hot_too_long_names_the_largest_sections_and_follows_the_config(cli, tmp_path):
    _long(tmp_path)
    found = [f for f in lint(cli, tmp_path) if f["kind"] == "hot_too_long"]
    assert "## Story (81 lines)" in found[0]["message"]
    assert cli("config", "set", "hot_max_lines", "200", use_root=False).code == 0
    assert [f for f in lint(cli, tmp_path) if f["kind"] == "hot_too_long"] == []


def test_lint_never_writes(cli, tmp_path):
    _stale(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    lint(cli, tmp_path)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(
    "text",
    [
        CLEAN_FACTS,
        CLEAN_FACTS + "  notes: |\n    one\n    two\n",
        'a: "multi\n  line"\nb: &x {c: "d\n e"}\nf: *x\ng: [1, "two\n  lines"]\nh: >\n  z\n',
        "a:\n  b: plain\n    continued\n",
    ],
)
def test_lint_reads_the_facts_findings_the_facts_reader_gives(text):
    from memboard.core.hierarchy import facts
    from memboard.core.hierarchy.lint import _parsed_findings

    data = text.encode()
    assert _parsed_findings(facts.read(data)) == facts.findings(data)
