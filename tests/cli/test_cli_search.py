"""`memboard search`: what it finds, where it says the match is, filters, ranking, JSON and bad input."""

from __future__ import annotations

import json

import pytest

from tests.support.roots import row_line, snapshot_text

SID_A = "2026-05-30-0900-claude-code"
SID_B = "2026-05-31-0930-codex-cli"
SID_C = "2026-05-29-1100-cursor-main-agent"
JSON_KEYS = {
    "kind",
    "id",
    "state",
    "status",
    "agent",
    "topic",
    "updated_at",
    "where",
    "section",
    "path",
    "snippet",
    "spans",
    "marked",
    "score",
    "matches",
}


def hits(cli, *args: str) -> list[dict]:
    """Run `search --json` and return the parsed hits (the run must succeed)."""
    res = cli("search", *args, "--json")
    assert res.code == 0, res.err
    return json.loads(res.out)


def ids(cli, *args: str) -> list[str]:
    """The Session IDs a search returns, in rank order."""
    return [h["id"] for h in hits(cli, *args)]


@pytest.fixture
def sample(mem):
    """Three live sessions with rows and snapshots in Chinese and English."""
    mem.index(
        row_line(
            SID_A,
            topic="同步 Obsidian vault",
            summary="Moved the vault to wiki/tools/obsidian-sync.md",
            keywords="sync, vault",
            updated="2026-05-30 10:00",
        ),
        row_line(
            SID_B,
            status="stale",
            topic="Parser rewrite",
            summary="決定筆記同步流程，保留換行",
            keywords="parser",
            updated="2026-05-31 10:00",
        ),
        row_line(
            SID_C,
            topic="Release notes",
            summary='Drafted notes for Fix AND Ship (v2) -- see "quoted" text*',
            keywords="release",
            updated="2026-05-29 12:00",
        ),
    )
    mem.snapshot(SID_A, decisions=["Index snapshots with trigram tokens", "Keep CRLF endings"])
    mem.snapshot(SID_C, decisions=["Ship on Friday: NEAR(the release) window"])
    return mem


def test_row_cell_match_names_the_cell_and_marks_the_snippet(cli, sample):
    found = hits(cli, "obsidian-sync")
    assert [h["id"] for h in found] == [SID_A]
    hit = found[0]
    assert (hit["where"], hit["section"], hit["path"], hit["state"]) == ("row", "Summary", "index.md", "live")
    assert hit["marked"] == "Moved the vault to wiki/tools/«obsidian-sync».md"
    start, end = hit["spans"][0]
    assert hit["snippet"][start:end] == "obsidian-sync"
    plain = cli("search", "obsidian-sync")
    assert plain.code == 0
    assert SID_A in plain.out and "row › Summary" in plain.out and "«obsidian-sync»" in plain.out


def test_live_snapshot_section_match(cli, sample):
    found = hits(cli, "trigram")
    assert [(h["id"], h["where"], h["section"], h["path"]) for h in found] == [
        (SID_A, "snapshot", "Decisions", f"sessions/{SID_A}.md")
    ]
    assert "«trigram»" in found[0]["marked"]


def test_english_word_in_any_case(cli, sample):
    assert ids(cli, "OBSIDIAN") == [SID_A]
    assert ids(cli, "oBsIdIaN vAuLt") == [SID_A]


def test_two_character_chinese_word_anywhere_in_a_text(cli, sample, mem):
    # 同步 starts SID_A's Topic and sits inside SID_B's Summary
    assert sorted(ids(cli, "同步")) == sorted([SID_A, SID_B])
    # at the very end of a cell (no character after it) and as a one-character query
    mem.index(row_line(SID_A, topic="筆記同步", summary="x"), row_line(SID_B, topic="other", summary="記"))
    assert ids(cli, "同步") == [SID_A]
    assert sorted(ids(cli, "記")) == sorted([SID_A, SID_B])


def test_substring_of_an_id(cli, sample):
    found = hits(cli, "0930-codex")
    assert [h["id"] for h in found] == [SID_B]
    assert found[0]["section"] == "Session ID"
    assert found[0]["marked"] == "2026-05-31-«0930-codex»-cli"


def test_path_is_found_literally(cli, sample, mem):
    mem.snapshot(SID_B, text=snapshot_text(SID_B).replace("- app/core/index.py", "- wiki/tools/obsidian-sync.md"))
    found = hits(cli, "wiki/tools/obsidian-sync.md")
    assert {(h["id"], h["where"], h["section"]) for h in found} == {
        (SID_A, "row", "Summary"),
        (SID_B, "snapshot", "Files / Artifacts"),
    }


@pytest.mark.parametrize(
    "query",
    [
        '"quoted"',
        "text*",
        "Fix AND Ship",
        "-- see",
        "(v2)",
        "NEAR(the release)",
        "Friday: NEAR",
        '"quoted" text*',
        "*",
        "(",
        "NOT",
    ],
)
def test_query_syntax_characters_are_searched_literally(cli, sample, root, query):
    res = cli("search", "--json", "--root", str(root), "--", query, use_root=False)
    assert res.code == 0, res.err
    assert [h["id"] for h in json.loads(res.out)] == [SID_C]


def test_archived_session_is_found_in_its_snapshot_and_metadata(cli, sample):
    res = cli("archive", SID_C)
    assert res.code == 0, res.err
    found = hits(cli, "NEAR(the release)")
    assert [(h["id"], h["state"], h["where"], h["path"]) for h in found] == [
        (SID_C, "archived", "snapshot", f"archive/{SID_C}/session.md")
    ]
    row = hits(cli, "Drafted notes")
    assert [(h["id"], h["state"], h["where"], h["section"], h["path"], h["status"]) for h in row] == [
        (SID_C, "archived", "row", "Summary", f"archive/{SID_C}/index.md", "active")
    ]
    assert "archived row › Summary" in cli("search", "Drafted notes").out


def test_json_shape(cli, sample):
    found = hits(cli, "vault")
    assert len(found) == 1
    hit = found[0]
    assert set(hit) == JSON_KEYS
    assert hit["kind"] == "session" and hit["id"] == SID_A
    assert (hit["status"], hit["agent"], hit["topic"], hit["updated_at"]) == (
        "active",
        "claude-code",
        "同步 Obsidian vault",
        "2026-05-30 10:00",
    )
    assert (hit["where"], hit["section"]) == ("row", "Topic")
    assert hit["matches"] == 3  # Topic, Keywords, Summary
    assert hit["score"] == 5 * 1000 + 3
    rebuilt = (
        "".join(
            f"{hit['snippet'][prev:a]}«{hit['snippet'][a:b]}»"
            for prev, (a, b) in zip([0] + [s[1] for s in hit["spans"]], hit["spans"])
        )
        + hit["snippet"][hit["spans"][-1][1] :]
    )
    assert rebuilt == hit["marked"]


def test_no_matches_is_exit_0_with_a_note(cli, sample):
    res = cli("search", "nothing like this")
    assert (res.code, res.out, res.err.strip()) == (0, "", "no matches")
    res = cli("search", "nothing like this", "--json")
    assert (res.code, json.loads(res.out)) == (0, [])


# -- ranking and filters ------------------------------------------------------------------


def test_ranking_by_place_then_matches_then_recency(cli, mem):
    old, new, newer = "2026-05-01-0800-claude-code", "2026-05-02-0800-claude-code", "2026-05-03-0800-codex-cli"
    snap_only = "2026-05-04-0800-codex-cli"
    mem.index(
        row_line(old, topic="lockfile", updated="2026-05-01 08:00"),
        row_line(new, topic="lockfile", updated="2026-05-20 08:00"),
        row_line(newer, summary="about the lockfile", updated="2026-05-28 08:00"),
        row_line(snap_only, updated="2026-05-30 08:00"),
    )
    mem.snapshot(snap_only, decisions=["Use a lockfile"])
    mem.snapshot(old, decisions=["The lockfile lives in state"])
    # old: Topic + snapshot (2 matches) beats new: Topic only; both beat a Summary; a snapshot section is last
    assert ids(cli, "lockfile") == [old, new, newer, snap_only]
    mem.snapshot(new, decisions=["lockfile too"])
    assert ids(cli, "lockfile") == [new, old, newer, snap_only]  # now a tie on place and count: recent first


def test_status_agent_state_and_limit_filters(cli, sample):
    assert sorted(ids(cli, "同步")) == sorted([SID_A, SID_B])
    assert ids(cli, "同步", "--status", "stale") == [SID_B]
    assert ids(cli, "同步", "--agent", "claude-code") == [SID_A]
    assert ids(cli, "同步", "--live", "--status", "active") == [SID_A]
    assert ids(cli, "同步", "--archived") == []
    assert len(ids(cli, "2026-05", "--limit", "2")) == 2
    assert cli("archive", SID_A).code == 0
    assert ids(cli, "同步", "--archived") == [SID_A]
    assert ids(cli, "同步", "--live") == [SID_B]


def test_since_and_until_filter_on_updated_at(cli, sample):
    assert sorted(ids(cli, "2026-05", "--since", "2026-05-30 10:00")) == [SID_A, SID_B]
    assert ids(cli, "2026-05", "--since", "2026-05-30T10:01") == [SID_B]
    assert sorted(ids(cli, "2026-05", "--until", "2026-05-30")) == [SID_C, SID_A]  # a date alone: its whole day
    assert ids(cli, "2026-05", "--since", "2026-05-30", "--until", "2026-05-30") == [SID_A]


def test_section_filter(cli, sample):
    assert ids(cli, "同步", "--section", "summary") == [SID_B]
    assert ids(cli, "同步", "--section", "Topic") == [SID_A]
    found = hits(cli, "Keep", "--section", "Decisions")
    assert [(h["id"], h["section"]) for h in found] == [(SID_A, "Decisions")]
    assert ids(cli, "trigram", "--section", "Open Questions") == []


# -- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        [""],
        ["   "],
        ["x" * 1001],
        ["x", "--limit", "0"],
        ["x", "--limit", "many"],
        ["x", "--since", "yesterday"],
        ["x", "--status", "closed"],
        ["x", "--live", "--archived"],
        ["x", "--section", " "],
    ],
)
def test_bad_input_is_a_one_line_usage_error(cli, sample, args):
    res = cli("search", *args)
    assert res.code == 2, (res.out, res.err)
    assert len(res.err.strip().splitlines()) == 1
    assert "Traceback" not in res.err and res.out == ""


def test_longest_query_is_accepted(cli, sample):
    res = cli("search", "x" * 1000)
    assert res.code == 0 and res.err.strip() == "no matches"


def test_syntax_option_takes_fts5_expressions(cli, sample):
    assert sorted(ids(cli, "--syntax", "trigram OR parser")) == sorted([SID_A, SID_B])
    assert ids(cli, "--syntax", '"Fix AND Ship"') == [SID_C]
    res = cli("search", "--syntax", 'AND "unbalanced')
    assert res.code == 2
    assert res.err.startswith("memboard: bad query expression") and len(res.err.strip().splitlines()) == 1


def test_search_needs_an_existing_root(cli, tmp_path):
    res = cli("search", "x", "--root", str(tmp_path / "missing"), use_root=False)
    assert res.code == 2 and "does not exist" in res.err
