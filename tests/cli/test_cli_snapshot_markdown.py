"""Snapshot text that looks like the template or like Markdown structure (issue 9, part 2).

Each case is read back the way GitHub reads it (cmark-gfm, tests/reliability/gfm.py): the
sections a snapshot has, and the items in them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.reliability import gfm
from tests.support.doctor import needing
from tests.support.roots import idle_line, row_line, snapshot_text

SID = "2026-05-31-0900-cursor-main-agent"
SRC = "2026-05-30-0800-claude-agent"
TEMPLATE_SECTIONS = [
    "Metadata",
    "Current Context",
    "Decisions",
    "Files / Artifacts",
    "Open Questions",
    "Next Actions",
    "Continues From",
    "Superseded / Resolved",
]
APP = Path(__file__).resolve().parents[2]


def registered(cli, *args: str, **kw) -> str:
    """Register a session manually; its ID."""
    res = cli("register", "--manual", *args, **kw)
    assert res.code == 0, res.err
    found = re.search(r"Session ID is: (\S+)", res.out)
    assert found, res.out
    return found.group(1)


def texts(snapshot: str, section: str) -> list[str]:
    """The items of a section as GitHub reads them (their source text)."""
    return [u.text for u in gfm.units_of(snapshot, section)]


def shown(snapshot: str, section: str) -> list[str]:
    """The items of a section as GitHub shows them (their rendering)."""
    return [u.html for u in gfm.units_of(snapshot, section)]


# -- a placeholder is the template's exact text ------------------------------------------


def test_summary_beginning_like_the_template_instruction_is_kept(cli, root, mem):
    first = "Summarize what has happened in this agent session so far: the parser drops CRLF."
    sid = registered(cli, "--topic", "Parser", "--summary", first)
    assert cli("update", sid, "--summary", "Fixed the CRLF case.").code == 0
    assert texts(mem.snap(sid), "Current Context") == [first, "Fixed the CRLF case."]


def test_items_beginning_with_list_are_real_items(cli, root, mem):
    mem.index(row_line(SID))
    mem.snapshot(SID)
    given = (
        "## Decisions\n\n- List decisions already made: keep the index a plain table.\n\n"
        "## Files / Artifacts\n\n- List files, folders: app/core/index.py holds the parser.\n"
    )
    assert cli("update", SID, "--snapshot", "-", input=given).code == 0
    assert (
        cli(
            "update",
            SID,
            "--snapshot",
            "-",
            input="## Decisions\n\n- Use filelock.\n\n## Files / Artifacts\n\n- README.md\n",
        ).code
        == 0
    )
    snap = mem.snap(SID)
    assert "- List decisions already made: keep the index a plain table." in texts(snap, "Decisions")
    assert "- Use filelock." in texts(snap, "Decisions")
    assert "- List files, folders: app/core/index.py holds the parser." in texts(snap, "Files / Artifacts")
    exact = snap.replace(
        "## Open Questions\n\n- Should X happen?", "## Open Questions\n\n- List unresolved questions, or write `None`."
    )
    (root / "sessions" / f"{SID}.md").write_text(exact, encoding="utf-8")  # the template's own line: a placeholder
    assert cli("update", SID, "--snapshot", "-", input="## Open Questions\n\n- Who reviews?\n").code == 0
    assert texts(mem.snap(SID), "Open Questions") == ["- Who reviews?"]


# -- a Summary that would start a block --------------------------------------------------


@pytest.mark.parametrize(
    "summary", ["```python x", "~~~", "# Title", "- item", "> quoted", "1. first", "<!-- note", "---"]
)
def test_a_summary_that_would_start_a_block_stays_one_paragraph(cli, root, mem, summary):
    sid = registered(cli, "--topic", "T", f"--summary={summary}")
    snap = mem.snap(sid)
    assert gfm.section_names(snap) == TEMPLATE_SECTIONS
    assert shown(snap, "Current Context") == [f"<p>{summary}</p>"]  # one paragraph showing the Summary
    assert mem.rows(cli)[sid]["summary"] == summary  # the index keeps the value as given


def test_continue_after_a_fenced_summary_completes(cli, root, mem):
    src = registered(cli, "--topic", "Source")
    sid = registered(cli, "--topic", "T", "--summary", "```python x")
    res = cli("continue", src, "--as", sid)
    assert res.code == 0, res.err
    assert texts(mem.snap(sid), "Continues From") == [f"- {src}"]
    assert mem.rows(cli)[src]["referenced_by"] == [sid]
    assert cli("doctor").out == "no problems found\n"


def test_update_summary_with_a_fence_keeps_the_sections_after_it(cli, root, mem):
    mem.index(row_line(SID))
    mem.snapshot(SID)
    assert cli("update", SID, "--summary", "```js console.log(1)").code == 0
    snap = mem.snap(SID)
    assert gfm.section_names(snap) == TEMPLATE_SECTIONS
    assert shown(snap, "Current Context")[-1] == "<p>```js console.log(1)</p>"
    assert texts(snap, "Continues From") == ["- None"]


def test_doctor_recreates_a_snapshot_from_a_fenced_summary_whole(cli, root, mem):
    mem.index(row_line(SID, summary="```bash make test"))
    assert cli("doctor", "--fix").code == 0
    assert gfm.section_names(mem.snap(SID)) == TEMPLATE_SECTIONS
    assert cli("doctor").out == "no problems found\n"


# -- snapshots an earlier memboard broke, doctor convergence -----------------------------

OPENERS = ["```python x", "~~~", "````", "   ```"]


def broken(sid: str, opener: str) -> str:
    """A snapshot whose Current Context starts with a raw fence (as earlier memboard wrote a
    fenced Summary): GitHub reads everything after it as code."""
    return snapshot_text(sid).replace("Worked on the thing.", opener)


@pytest.mark.parametrize("opener", OPENERS)
def test_continue_completes_on_a_snapshot_swallowed_by_a_fence(cli, root, mem, opener):
    mem.index(row_line(SID), row_line(SRC))
    mem.snapshot(SRC)
    mem.snapshot(SID, broken(SID, opener))
    assert gfm.section_names(mem.snap(SID)) == ["Metadata", "Current Context"]
    res = cli("continue", SRC, "--as", SID)
    assert res.code == 0, res.err
    snap = mem.snap(SID)
    assert gfm.section_names(snap) == ["Metadata", "Current Context", "Continues From"]
    assert texts(snap, "Continues From") == [f"- {SRC}"]
    unstamped = snap.replace("| Updated At | 2026-06-01 09:30 |", "| Updated At | 2026-05-31 09:00 |")
    assert unstamped.startswith(broken(SID, opener))  # the earlier text is all still there, then the additions
    assert cli("doctor").out == "no problems found\n"


@pytest.mark.parametrize("opener", OPENERS)
def test_doctor_fix_converges_on_a_snapshot_swallowed_by_a_fence(cli, root, mem, opener):
    mem.index(row_line(SID), row_line(SRC, refs=SID))  # the source lists SID; SID's snapshot cannot show it
    mem.snapshot(SRC)
    mem.snapshot(SID, broken(SID, opener))
    first = cli("doctor")
    assert "its Continues From lacks" in first.out and "fix: add" in first.out
    assert cli("doctor", "--fix").code == 0
    fixed = mem.snap(SID)
    assert texts(fixed, "Continues From") == [f"- {SRC}"]
    assert cli("doctor").out == "no problems found\n"
    assert cli("doctor", "--fix").code == 0 and mem.snap(SID) == fixed
    assert fixed.count("## Continues From") == 2  # the template's (inside the code) and the real one


def test_doctor_offers_no_fix_it_cannot_make_and_converges(cli, root, mem):
    """A snapshot that ends inside an HTML comment that is never closed: nothing can be added
    after it without changing it, so doctor says so and offers no fix (a second run is the same)."""
    mem.index(row_line(SID), row_line(SRC, refs=SID))
    mem.snapshot(SRC)
    mem.snapshot(SID, broken(SID, "<!-- draft"))
    before = mem.snap(SID)
    report = cli("doctor").out
    assert "its Continues From lacks" in report and "fix:" not in report
    assert needing(cli("doctor", "--fix")) == 1  # the one-sided link it cannot repair
    assert mem.snap(SID) == before and cli("doctor").out == report
    res = cli("continue", SRC, "--as", SID)
    assert res.code == 1 and "never closed" in res.err and "nothing written" in res.err
    assert len(res.err.strip().splitlines()) == 1 and mem.snap(SID) == before


# -- blocks inside sections --------------------------------------------------------------


def test_update_snapshot_keeps_a_fenced_block_as_code(cli, root, mem):
    mem.index(row_line(SID))
    mem.snapshot(SID)
    given = "## Decisions\n\n- Use A.\n\n```\n## not a heading\n- not an item\n```\n\n## Next Actions\n\n- Ship.\n"
    res = cli("update", SID, "--snapshot", "-", input=given)
    assert res.code == 0 and res.err == "", res.err
    snap = mem.snap(SID)
    assert gfm.section_names(snap) == TEMPLATE_SECTIONS
    assert "<pre><code>## not a heading\n- not an item</code></pre>" in shown(snap, "Decisions")
    assert "- Ship." in texts(snap, "Next Actions") and "- ```" not in snap


@pytest.mark.parametrize(
    "given",
    [
        "## Decisions\n\n- Use B.\n\n    indented code\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        "## Current Context\n\n<div>\n## in html\n</div>\n\n1. one\n2. two\n   - nested\n\n#hashtag line\n",
        "## Open Questions\n\n~~~~\n```\n## inside\n~~~~\n\n- Why?\n",
        "## Next Actions\n\n    ## indented heading text\n\n- Ship.\n",
    ],
)
def test_markdown_in_sections_never_ends_in_a_traceback(cli, root, mem, given):
    mem.index(row_line(SID))
    mem.snapshot(SID)
    res = cli("update", SID, "--snapshot", "-", input=given)
    assert res.code == 0 and res.err == "", res.err
    snap = mem.snap(SID)
    assert gfm.section_names(snap) == TEMPLATE_SECTIONS
    name = given.split("\n", 1)[0][3:]
    for unit in gfm.units_of(given, name):
        assert unit.html in shown(snap, name)


def test_snapshot_input_with_an_html_block_never_closed_is_refused(cli, root, mem):
    mem.index(row_line(SID))
    mem.snapshot(SID)
    before = mem.snap(SID)
    res = cli("update", SID, "--snapshot", "-", input="## Decisions\n\n<!-- draft\n\n- Use A.\n")
    assert res.code == 2 and "never closed" in res.err and len(res.err.strip().splitlines()) == 1
    assert mem.snap(SID) == before


def test_register_manual_snapshot_keeps_code_in_its_section(cli, root, mem):
    given = (
        "## Decisions\n\n- Use A.\n\n```\n## Continues From\n- 2026-01-01-0000-x\n```\n\n"
        "## Next Actions\n\n1. first\n2. second\n"
    )
    sid = registered(cli, "--topic", "T", "--snapshot", "-", input=given)
    snap = mem.snap(sid)
    assert gfm.section_names(snap) == TEMPLATE_SECTIONS
    assert shown(snap, "Decisions") == [
        "<li>Use A.</li>",
        "<pre><code>## Continues From\n- 2026-01-01-0000-x</code></pre>",
    ]
    assert texts(snap, "Continues From") == ["- None"]
    assert texts(snap, "Next Actions") == ["1. first", "2. second"]


def test_organize_sees_a_source_listed_after_code_in_continues_from(cli, root, mem):
    """A `#` line inside a code block does not end the Continues From section."""
    mem.index(idle_line(SRC), row_line(SID))
    text = snapshot_text(SID).replace(
        "## Continues From\n\n- None", f"## Continues From\n\n```\n# see below\n```\n\n- {SRC}"
    )
    mem.snapshot(SID, text)
    res = cli("organize", "--json")
    assert res.code == 0 and SRC in res.out.split('"protected"', 1)[1].split("]", 1)[0]
    assert SRC in mem.read_index()
