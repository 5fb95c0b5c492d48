"""What a same-cell conflict through memboard's git merge driver leaves, read and decided as a user meets it
(issue 26 §5): a row the driver's block shows both versions of is listed once (the table's); markers longer
than seven characters (the `conflict-marker-size` attribute, which git passes to the driver) are found,
refused and resolved like seven-character ones; a note's Title decided for theirs renames its `# heading`."""

from __future__ import annotations

import json

from tests.support.gitclones import Clone, git_home, needs_git
from tests.sync.test_git_driver_merge import NOTE, S1, _note, clones

pytestmark = needs_git
__all__ = ["clones", "git_home"]  # (fixtures these tests use)


def _same_summary(a: Clone, b: Clone) -> None:
    """Both clones change S1's Summary in the same minute; a pulls b: the merge stops on an open cell."""
    assert b.mb("update", S1, "--summary", "B's summary", now="2026-06-01 11:00").code == 0
    b.commit("b: S1's summary")
    assert a.mb("update", S1, "--summary", "A's summary", now="2026-06-01 11:00").code == 0
    a.commit("a: S1's summary")
    assert a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False).returncode != 0


def test_a_row_the_driver_s_block_holds_is_listed_once_with_the_table_s_values(clones):
    a, b = clones
    _same_summary(a, b)
    assert "<<<<<<< ours" in a.index()
    rows = a.rows()
    assert [row["id"] for row in rows].count(S1) == 1, [row["id"] for row in rows]
    assert next(row for row in rows if row["id"] == S1)["summary"] == "A's summary"


def test_markers_of_git_s_conflict_marker_size_are_found_refused_and_resolved(clones):
    a, b = clones
    for one in (a, b):  # both clones ask git for 11-character markers in memboard's files
        with (one.root / ".gitattributes").open("a", encoding="utf-8") as out:
            out.write("index.md conflict-marker-size=11\nsessions/*.md conflict-marker-size=11\n")
        one.commit("longer conflict markers")
    b.git("pull", "-q", "--no-rebase", "--no-edit", str(a.top), "main", check=False)
    _same_summary(a, b)
    assert "\n" + "<" * 11 + " ours\n" in a.index() and "\n<<<<<<< ours" not in a.index()
    found = json.loads(a.mb("doctor", "--json").out)
    assert found[0]["kind"] == "index_conflict_markers", found
    refused = a.mb("register", "--agent", "late")
    assert refused.code == 1 and "memboard resolve --prefer ours|theirs" in refused.err
    ran = a.mb("resolve", "--prefer", "theirs")
    assert ran.code == 0, ran.err
    assert "<<<<<<<" not in a.index() and ">>>>>>>" not in a.index()
    assert {row["id"]: row for row in a.rows()}[S1]["summary"] == "B's summary"
    assert [f["kind"] for f in json.loads(a.mb("doctor", "--json").out)] == []


def test_resolve_prefer_theirs_of_a_note_s_title_renames_its_heading(clones):
    a, b = clones
    for one, title in ((b, "Cache from B"), (a, "Cache from A")):
        argv = _note("Keep the cache in memory.")
        argv[argv.index("--title") + 1] = title
        assert one.mb(*argv, now="2026-06-01 11:00").code == 0, one.mb(*argv).err
        one.commit(f"the note's title: {title}")
    assert a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False).returncode != 0
    path = a.root / "notes" / f"{NOTE}.md"
    assert "<<<<<<< ours" in path.read_text(encoding="utf-8")
    ran = a.mb("resolve", NOTE, "--prefer", "theirs")
    assert ran.code == 0, ran.err
    text = path.read_text(encoding="utf-8")
    assert "<<<<<<<" not in text and "| Title | Cache from B |" in text
    assert "# Cache from B\n" in text and "Cache from A" not in text, text
    shown = json.loads(a.mb("note", "show", NOTE, "--json").out)
    assert shown["note"]["title"] == "Cache from B", shown
