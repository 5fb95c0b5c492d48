"""doctor's note_metadata fix says exactly what `doctor --fix` writes into the note, cell by cell.

The fix text read `set Topic Key to K; set Status to active` whatever the fix wrote: it also added a missing
row at the table's end, or a whole Metadata table of `-` cells to a note without one, and said nothing of the
fields it leaves for a hand (the finding then stays after the fix). Each case here checks the words and the file
the fix leaves.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.doctor import doctor_findings

KEY = "tools/uv"


def note_text(cli, root: Path) -> str:
    """A well-formed note saved by memboard at notes/tools/uv.md."""
    res = cli(
        "note", "save", "--title", "Use uv", "--type", "decision", "--scope", "project", "--what", "We use uv.",
        "--topic-key", KEY,
    )  # fmt: skip
    assert res.code == 0, res.err
    return (root / "notes" / f"{KEY}.md").read_text(encoding="utf-8")


def cells(text: str) -> dict[str, str]:
    """The Metadata table's cells of a note's text."""
    found = dict(re.findall(r"^\| ([A-Z][A-Za-z ]+?) \| (.*?) \|$", text, flags=re.MULTILINE))
    found.pop("Field", None)  # (the header)
    return found


def metadata_fix(cli) -> str | None:
    """The fix of the one note_metadata finding of `doctor --json`."""
    found = [f for f in doctor_findings(cli("doctor", "--json")) if f["kind"] == "note_metadata"]
    assert len(found) == 1, found
    return found[0]["fix"]


CASES = {
    # name: (how the note's text is damaged, the fix's words, the cells the fix leaves changed)
    "wrong key, no status": (
        lambda t: t.replace(f"| Topic Key | {KEY} |", "| Topic Key | tools/other |").replace("| Status | active |", "| Status | |"),
        f"set Topic Key to {KEY}; set Status to active",
        {"Topic Key": KEY, "Status": "active"},
    ),
    "no Status row": (
        lambda t: t.replace("| Status | active |\n", ""),
        "add the Status row (active)",
        {"Status": "active"},
    ),
    "no Topic Key row, unknown Type": (
        lambda t: t.replace(f"| Topic Key | {KEY} |\n", "").replace("| Type | decision |", "| Type | opinion |"),
        f"add the Topic Key row ({KEY}); Type left for a hand",
        {"Topic Key": KEY},
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_the_fix_says_each_cell_it_writes_and_what_it_leaves(cli, root, case):
    damage, words, changed = CASES[case]
    path = root / "notes" / f"{KEY}.md"
    path.write_text(damage(note_text(cli, root)), encoding="utf-8")
    before = cells(path.read_text(encoding="utf-8"))
    assert metadata_fix(cli) == words
    cli("doctor", "--fix")
    after = cells(path.read_text(encoding="utf-8"))
    assert {name: value for name, value in after.items() if before.get(name) != value} == changed


def test_a_note_without_metadata_is_told_it_gets_a_whole_table(cli, root):
    path = root / "notes" / f"{KEY}.md"
    path.parent.mkdir(parents=True)
    path.write_text("# Use uv\n\nWe use uv.\n", encoding="utf-8")
    assert metadata_fix(cli) == (
        f"add a Metadata table: Topic Key {KEY}, Status active, every other field -; Title, Type, Scope left for a hand"
    )
    cli("doctor", "--fix")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Use uv\n\nWe use uv.\n")
    table = cells(text)
    assert {k: v for k, v in table.items() if v != "-"} == {"Topic Key": KEY, "Status": "active"}
    left = [f for f in json.loads(cli("doctor", "--json").out) if f["kind"] == "note_metadata"]
    assert [f["fix"] for f in left] == [None] and "no Title" in left[0]["message"]
