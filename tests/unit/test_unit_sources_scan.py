"""Continues From read by a line scan agrees with the Markdown reader (blocks.py on mistletoe).

The scan (core/formats/sources.py) serves organize, archive, doctor and chains without loading
a Markdown library. Wherever it answers, its answer must be the reader's; where a snapshot holds
something it does not follow, it must say so (None) and the reader answers instead.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.core.formats.snapshot import Snapshot, render_template
from memboard.core.formats.sources import continues_from, scan_sources
from tests.support.sizes import examples

A, B, C = "2026-01-02-0304-agent-a", "2025-12-31-2359-b", "2026-03-01-1200-c"


def agree(text: str) -> list[str]:
    """The scan's answer, checked to exist and to be the reader's."""
    found = scan_sources(text)
    assert found is not None, "the scan gave up on a snapshot it should read"
    assert found == Snapshot(text).continues_from()
    return found


def template(continues: str, before: str = "- None") -> str:
    """A snapshot in the seed's template whose Decisions and Continues From hold the given text."""
    text = render_template(A, "agent-a", "T", "2026-01-02 03:04", "2026-01-02 03:04", "ctx")
    text = text.replace("## Decisions\n\n- None", "## Decisions\n\n" + before)
    return text.replace("## Continues From\n\n- None", "## Continues From\n\n" + continues)


TRICKY = {
    "plain list": (template(f"- {B}\n- `{C}` the parser work\n- `{A}`, a backtick then a comma is no ID"), [B, C]),
    "bold and trailing comma": (template(f"- **{B}**\n- {C},\n* {B}"), [B, C]),
    "heading and ID in a backtick fence before the section": (
        template(f"- {C}", before=f"```md\n## Continues From\n\n- {B}\n```"),
        [C],
    ),
    "tilde fence inside the section": (template(f"~~~\n- {B}\n## Next\n~~~\n- {C}"), [C]),
    "a longer fence holds a shorter one": (template(f"````\n```\n- {B}\n```\n````\n- {C}"), [C]),
    "a longer line closes a fence": (template(f"```\n- {B}\n`````  \n- {C}"), [C]),
    "fence opened by its info string": (template(f"```{B}\ncode\n```\n- {C}"), [B, C]),
    "unclosed fence runs to the end": (template(f"- {B}\n```\n## Superseded / Resolved\n- {C}"), [B]),
    "setext heading": (template("").replace("## Continues From\n", f"Continues From\n---\n\n- {B}\n"), [B]),
    "ID on a paragraph's second line is prose": (template(f"Some words\n{B} is mentioned"), []),
    "paragraph starting with an ID": (template(f"{B} because it was first"), [B]),
    "nested list items are not items": (template(f"- {B}\n  - {C}\n  lazy words\n- {A}"), [B, A]),
    "lazy line of a list item": (template(f"- note\n{B} is lazy text"), []),
    "ordered list and a loose list": (template(f"1. {B}\n\n2) {C}"), [B, C]),
    "indented code is an item": (template(f"    {B}\n\n- {C}"), [B, C]),
    "table in the section": (template(f"| a | b |\n|---|---|\n{B}\n\n- {C}"), [C]),
    "quote in the section": (template(f"> {B}\n> more\n\n- {C}"), [C]),
    "thematic breaks and headings below": (template(f"- {B}\n\n***\n### {C}\n# {C}\n- {C}"), [B, C]),
    "the first of two sections counts": (template(f"- {B}") + f"\n## continues from\n\n- {C}\n", [B]),
    "CRLF and a byte order mark": ("\ufeff" + template(f"- {B}\n- {C}").replace("\n", "\r\n"), [B, C]),
    "not a date": (template("- 2026-02-30-1010-bad\n- 2026-02-28-1010-good"), ["2026-02-28-1010-good"]),
    "ideographic spaces are text": (template(f"\u3000- {B}\n-\u3000{C}\n- {A}\u3000x"), [B, A]),
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_the_scan_reads_tricky_snapshots_as_the_markdown_reader(name):
    text, want = TRICKY[name]
    assert agree(text) == want


@pytest.mark.parametrize(
    "body",
    [
        f"<div>\n- {B}\n</div>\n- {C}",  # HTML blocks are left to the reader
        f"[{B}]: /url\n- {C}",  # a link reference definition
        f"- {B}\n\t- {C}",  # a tab in the structure
        f"> quote\n{B} lazy",  # a lazy line after a quote
        f"- item\n  ```\n{B}",  # a lazy line after a fence inside an item
    ],
)
def test_what_the_scan_does_not_follow_goes_to_the_reader(body):
    text = template(body)
    assert scan_sources(text) is None
    assert continues_from(text) == Snapshot(text).continues_from()
    assert continues_from(text.encode("utf-8")) == Snapshot(text).continues_from()


def test_the_scan_loads_no_markdown_library():
    code = (
        "import sys\n"
        "from memboard.core.formats.sources import continues_from\n"
        f"assert continues_from({template(f'- {B}')!r}.encode()) == [{B!r}]\n"
        "assert 'mistletoe' not in sys.modules, 'mistletoe was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


IDS = [A, B, "2026-02-30-1010-bad"]
PIECES = [
    "## Continues From",
    "## continues from ##",
    "## Decisions",
    "# Session: x",
    "### Continues From",
    "Continues From",
    "---",
    "===",
    "- - -",
    "***",
    "```",
    "~~~",
    "````",
    "```py",
    "  ```",
    "    ```",
    "~~~ `x`",
    "",
    " ",
    "    ",
    "- ",
    "-",
    "1. ",
    "2) ",
    "* ",
    "+ ",
    "  - ",
    "   - ",
    "    - ",
    "10. ",
    "- [x] ",
    "> ",
    ">",
    "  > ",
    "| a | b |",
    "|---|---|",
    "|---|",
    "a | b",
    "<div>",
    "</div>",
    "[x]: /u",
    "\t",
    "\u3000",
    "text",
    "None",
    "**",
    "`",
    "\\",
    "#",
    "## ",
    "  ",
    "      ",
]
line = st.lists(st.sampled_from(PIECES + IDS + [" ", ",", " note"]), max_size=4).map("".join)
heading = st.sampled_from(["## Continues From", "Continues From\n---", "  ## Continues From #", "## continues from"])
documents = st.one_of(
    st.lists(line, max_size=25).map("\n".join),
    st.tuples(st.lists(line, max_size=8), heading, st.lists(line, max_size=12), st.lists(line, max_size=4)).map(
        lambda t: "\n".join([*t[0], t[1], *t[2], "## Next", *t[3]])
    ),
)


@settings(max_examples=examples(600), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.sampled_from(["\n", "\r\n"]))
def test_wherever_the_scan_answers_it_is_the_readers_answer(text, eol):
    text = text.replace("\n", eol)
    found = scan_sources(text)
    assert found is None or found == Snapshot(text).continues_from()


@pytest.mark.parametrize(
    "before",
    [
        "[a link]: https://example.com\n\n- More",  # the whole scan gives up on a link definition
        "- note\n  ## Continues From\n\n  - " + C,  # a heading inside a list item is not the section
        "Continues From\n---\n\n- " + C,  # a setext heading before the ATX one is the section
        "<div>\n\n## Continues From\n\n- " + C + "\n</div>",  # HTML before it: the whole scan answers
    ],
)
def test_only_the_section_is_scanned_when_nothing_before_it_can_hide_its_heading(before):
    """Most snapshots hold no fence, HTML or setext heading before Continues From: then only the section is
    scanned, and the answer is still the reader's (a third of organize's look at 3,000 snapshots)."""
    text = template(f"- {B}", before=before)
    assert scan_sources(text) in (None, Snapshot(text).continues_from())
    assert continues_from(text) == Snapshot(text).continues_from()
    if before.startswith("["):
        assert scan_sources(text) == [B]  # answered where the whole scan gave up
