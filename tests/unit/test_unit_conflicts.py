"""Merge-conflict markers as git writes them, and the names sync tools give conflict copies."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memboard.core.files.copies import original_stems
from memboard.core.formats.index import COLUMNS, IndexFile
from memboard.core.formats.markers import marker_lines

HEADER = "| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n"
ROW = "| 2026-05-01-1000-agent | agent | t | s | k | idle | - | 2026-05-01 10:00 | 2026-05-01 10:00 |\n"


@pytest.mark.parametrize(
    "text,lines",
    [
        ("a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n", [2, 4, 6]),
        ("<<<<<<< ours\r\nx\r\n||||||| base\r\nw\r\n=======\r\ny\r\n>>>>>>> theirs\r\n", [1, 3, 5, 7]),
        ("\ufeff<<<<<<<\nx\n=======\n>>>>>>>", [1, 3, 4]),  # a BOM, bare markers, no final newline
        ("x\n=======\ny\n>>>>>>> b\n", [2, 4]),  # half resolved: the start marker deleted
        ("Title\n=======\n\ntext\n", []),  # a setext heading underline alone
        ("<<<<<<<< eight\n========\n>>>>>>>>\n", [1, 2, 3]),  # conflict-marker-size=8: a block of eight
        ("<<<<<<<<< ours\n=======\nx\n=========\n>>>>>>>>> theirs\n", [1, 4, 5]),  # its own size only
        ("<<<<<<<< eight\ntext\n", []),  # a longer marker is text until its block closes
        ("<<<<<<<< arrows\n<<<<<<< HEAD\nx\n=======\n>>>>>>> b\n", [2, 4, 5]),  # and hides no block after it
        ("x\n=========\ny\n>>>>>>>>> b\n", [2, 4]),  # half resolved, longer markers
        ("Title\n=========\n\n>>>>>>>>> quoted\n", [2, 4]),
        ("Title\n==========\n\n>>>>>>>>> quoted\n", []),  # a longer close needs its own size before it
        ("<<<<<<<x\n>>>>>>>y\n", []),  # a marker is followed by a space or the line's end
        ("| a <<<<<<< b | ======= | >>>>>>> c |\n", []),  # inside cell text
        ("```\n<<<<<<< HEAD\n=======\n>>>>>>> b\n```\n", []),  # an example in a code fence
        ("~~~\n<<<<<<< HEAD\n~~~\n<<<<<<< HEAD\n=======\n>>>>>>> b\n", [4, 5, 6]),
    ],
)
def test_marker_lines_are_git_s(text, lines):
    assert marker_lines(text.encode("utf-8")) == lines


MARKERS = ["<<<<<<< HEAD\n", "||||||| base\n", "=======\n", ">>>>>>> laptop\n", "|||||||\n", "```\n", "Title\n"]
MARKERS += ["<<<<<<<<< ours\n", "=========\n", ">>>>>>>>> theirs\n"]  # conflict-marker-size=9


@given(
    st.lists(st.sampled_from([ROW, ROW, ROW, *MARKERS, "text\n", "\n"]), max_size=30),
    st.integers(min_value=0, max_value=30),
)
def test_the_index_finds_exactly_the_lines_a_whole_file_scan_finds(lines, at):
    """IndexFile skips the table's rows when it looks for markers; it must name the same lines."""
    at = min(at, len(lines))
    data = "".join(["# Memory Index\n\n", *lines[:at], HEADER, *lines[at:]]).encode("utf-8")
    assert IndexFile(data).conflict_lines == marker_lines(data)


@pytest.mark.parametrize(
    "stem,original,tool",
    [
        ("index.sync-conflict-20260531-101500-ABCDEF7", "index", "Syncthing"),
        ("index (Laptop's conflicted copy 2026-05-31)", "index", "Dropbox"),
        ("index (Laptop 的衝突複本 2026-05-31)", "index", "Dropbox"),
        ("index-DESKTOP-AB12CD3", "index", "OneDrive"),
        ("index 2", "index", "iCloud"),
        ("index (conflicted copy 2026-05-31 101500)", "index", "Nextcloud"),
        ("index (Conflicted copy MacBook 202605311015)", "index", "Obsidian Sync"),
        ("index (1)", "index", "Google Drive"),
        ("index_conflict-20260531-101500", "index", "ownCloud"),
    ],
)
def test_each_tool_s_naming_leads_back_to_the_original(stem, original, tool):
    assert (original, tool) in original_stems(stem)


def test_names_that_are_no_copy_lead_nowhere():
    assert original_stems("index") == [] and original_stems("notes (draft)") == []
