"""`lookup QUERY` (issue 25 §3): the table read loosely, the matching rule, and each kind of target resolved
(facts group and key, Markdown section, file, folder, relative to the workspace's parent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FACTS = (
    "# memory/facts.yaml\n"
    "# Last updated: 2026-05-30\n"
    "identity:\n"
    "  name: Kim\n"
    "  email: kim@example.com  # work\n"
    "\n"
    "# paths below\n"
    "paths:\n"
    "  books: ~/books\n"
)
INDEX = (
    "# Lookup\n"
    "\n"
    "| Need | Where | Notes |\n"
    "|:--|--|--|\n"
    "| Kim's identity | memory/facts.yaml → identity | the basics |\n"
    "| Kim's email address | memory/facts.yaml -> identity.email | |\n"
    "| book plan | memory/project-book.md → Plan |\n"
    "| book everything | memory/project-book.md |\n"
    "| research notes | book-research/ |\n"
    "| 书的进度 | memory/project-book.md → Plan, memory/facts.yaml → paths |\n"
    "| broken row |\n"
    "| pipes \\| inside | memory/project-book.md |\n"
)
BOOK = "# Book\n\n## Plan\nwrite it\n### Detail\nchapter 1\n## Other\nnot this\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace beside a book-research folder (the seed's example of a target beside the workspace)."""
    w = tmp_path / "workspace"
    (w / "memory").mkdir(parents=True)
    (w / "MEMORY.md").write_text("# Me\n")
    (w / "memory" / "facts.yaml").write_text(FACTS)
    (w / "memory" / "lookup-index.md").write_text(INDEX)
    (w / "memory" / "project-book.md").write_text(BOOK)
    (tmp_path / "book-research" / "sources").mkdir(parents=True)
    (tmp_path / "book-research" / "notes.md").write_text("n\n")
    return w


def look(cli, ws: Path, *words: str) -> dict:
    """lookup --json's answer."""
    r = cli("lookup", *words, "--workspace", str(ws), "--json", use_root=False)
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_a_facts_group_resolves_to_its_lines_as_written_and_its_value(cli, ws):
    a = look(cli, ws, "identity")
    assert (a["row"], a["kind"], a["path"], a["section"]) == (5, "facts", "memory/facts.yaml", "identity")
    assert a["text"] == "identity:\n  name: Kim\n  email: kim@example.com  # work\n"
    assert a["value"] == {"name": "Kim", "email": "kim@example.com"}
    assert a["missing"] is None


def test_a_facts_key_path_behind_an_ascii_arrow(cli, ws):
    a = look(cli, ws, "EMAIL")
    assert (a["section"], a["text"], a["value"]) == (
        "identity.email",
        "  email: kim@example.com  # work\n",
        "kim@example.com",
    )


def test_a_markdown_section_runs_to_the_next_heading_of_its_level_or_higher(cli, ws):
    a = look(cli, ws, "book", "plan")
    assert (a["kind"], a["text"]) == ("markdown", "## Plan\nwrite it\n### Detail\nchapter 1\n")


def test_a_file_resolves_to_its_text_and_a_folder_beside_the_workspace_to_its_listing(cli, ws):
    assert look(cli, ws, "everything")["text"] == BOOK
    a = look(cli, ws, "research")
    assert (a["kind"], a["text"]) == ("folder", "notes.md\nsources/\n")


def test_cjk_queries_match_as_substrings_and_every_target_is_resolved(cli, ws):
    a = look(cli, ws, "进度")
    assert a["need"] == "书的进度"
    assert [t["kind"] for t in a["targets"]] == ["markdown", "facts"]
    assert a["targets"][1]["value"] == {"books": "~/books"}


def test_every_word_must_match_and_fewest_other_words_win(cli, ws):
    r = cli("lookup", "book", "--all", "--workspace", str(ws), "--json", use_root=False)
    assert [a["row"] for a in json.loads(r.out)] == [7, 8]  # both two words; file order
    assert look(cli, ws, "kim's")["row"] == 5  # "Kim's identity" has fewer other words than the e-mail row
    r = cli("lookup", "book", "zebra", "--workspace", str(ws), use_root=False)
    assert (r.code, r.err.strip()) == (1, 'memboard: no lookup row matches "book zebra"')


def test_text_output_prints_the_row_then_the_resolved_text(cli, ws):
    r = cli("lookup", "book", "plan", "--workspace", str(ws), use_root=False)
    assert r.code == 0
    assert r.out.splitlines()[0] == "book plan → memory/project-book.md → Plan  (lookup-index.md line 7)"
    assert r.out.endswith("## Plan\nwrite it\n### Detail\nchapter 1\n")


def test_a_missing_target_or_section_is_reported_not_hidden(cli, ws):
    (ws / "memory" / "lookup-index.md").write_text(
        INDEX + "| gone | memory/gone.md |\n| lost | memory/project-book.md → Nope |\n"
    )
    assert look(cli, ws, "gone")["missing"] == "memory/gone.md does not exist"
    assert "Nope" in look(cli, ws, "lost")["missing"]
    r = cli("lookup", "gone", "--workspace", str(ws), use_root=False)
    assert "! memory/gone.md" in r.out


def test_a_target_that_cannot_be_read_names_the_file_and_why_and_the_other_targets_still_show(cli, ws):
    (ws / "memory" / "loop.yaml").symlink_to("loop.yaml")  # a symlink loop: there, yet no read succeeds
    (ws / "memory" / "lookup-index.md").write_text(
        INDEX + "| looped | memory/loop.yaml → a, memory/project-book.md |\n"
    )
    got = look(cli, ws, "looped")
    assert got["missing"] == "memory/loop.yaml cannot be read: too many levels of symbolic links"
    assert got["targets"][1]["missing"] is None and got["targets"][1]["text"] == BOOK
    r = cli("lookup", "looped", "--workspace", str(ws), use_root=False)
    assert r.code == 0 and "! memory/loop.yaml → a: memory/loop.yaml cannot be read" in r.out and r.err == ""


def test_escaped_pipes_and_unreadable_rows_are_kept(cli, ws):
    assert look(cli, ws, "pipes", "inside")["need"] == "pipes | inside"
    r = cli("hierarchy", "show", "--workspace", str(ws), "--json", use_root=False)
    assert json.loads(r.out)["warm"]["lookup"]["rows"] == 8  # the broken row counted, not dropped


def test_no_lookup_file_and_no_workspace_refuse_in_one_line(cli, tmp_path):
    r = cli("lookup", "x", "--workspace", str(tmp_path), use_root=False)
    assert r.code == 1 and len(r.err.strip().splitlines()) == 1


def test_text_output_of_a_facts_group_is_the_lines_the_json_gives(cli, ws):
    text = cli("lookup", "identity", "--workspace", str(ws), use_root=False).out
    assert text.split("\n", 2)[2] == look(cli, ws, "identity")["text"]
    (ws / "memory" / "facts.yaml").write_text("---\n" + FACTS)  # no longer read from the text alone
    assert cli("lookup", "identity", "--workspace", str(ws), use_root=False).out == text


def test_the_lookup_table_is_found_by_its_header_after_another_table(cli, ws):
    other = "| Date | Event |\n|---|---|\n| 2026-01-01 | start |\n\n"
    (ws / "memory" / "lookup-index.md").write_text("# Lookup\n\n" + other + INDEX.split("\n", 2)[2])
    assert look(cli, ws, "book", "plan")["row"] == 11
    r = cli("lookup", "start", "--workspace", str(ws), use_root=False)
    assert r.code == 1


@pytest.mark.parametrize("target", ["/etc/hostname", "../../etc/hostname", "~/x", "memory/../../book-research/"])
def test_a_target_outside_the_workspace_and_its_parent_is_never_read(cli, ws, target):
    (ws / "memory" / "lookup-index.md").write_text(f"| Need | Go |\n|---|---|\n| outside | {target} |\n")
    a = look(cli, ws, "outside")
    assert a["text"] is None and a["missing"]


def test_crlf_and_bom_files_resolve_the_same_lines(cli, ws):
    (ws / "memory" / "lookup-index.md").write_bytes(b"\xef\xbb\xbf" + INDEX.replace("\n", "\r\n").encode())
    (ws / "memory" / "facts.yaml").write_bytes(b"\xef\xbb\xbf" + FACTS.replace("\n", "\r\n").encode())
    (ws / "memory" / "project-book.md").write_bytes(BOOK.replace("\n", "\r\n").encode())
    a = look(cli, ws, "identity")
    assert a["text"] == "identity:\n  name: Kim\n  email: kim@example.com  # work\n"
    text = cli("lookup", "identity", "--workspace", str(ws), use_root=False).out
    assert text.split("\n", 2)[2] == a["text"]
    assert look(cli, ws, "book", "plan")["text"] == "## Plan\nwrite it\n### Detail\nchapter 1\n"
    r = cli("lookup", "book", "--all", "--workspace", str(ws), use_root=False)
    assert r.out.count("(lookup-index.md line ") == 2


def test_lookup_as_a_process_prints_its_answer_and_exit_status(cli_process, ws):
    r = cli_process("lookup", "book", "plan", "--workspace", str(ws), use_root=False)
    assert (r.code, r.out.splitlines()[-1]) == (0, "chapter 1")
    r = cli_process("lookup", "zebra", "--workspace", str(ws), use_root=False)
    assert (r.code, r.out, r.err) == (1, "", 'memboard: no lookup row matches "zebra"\n')
