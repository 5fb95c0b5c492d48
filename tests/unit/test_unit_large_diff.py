"""Large-file diffs (the anchored path of diff.unified_diff) are valid unified diffs."""

from __future__ import annotations

import difflib
import random
import re

import pytest

from memboard.core.diff import LARGE, unified_diff

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def patch(a: list[str], diff: str) -> list[str]:
    """Apply a unified diff to a, checking every context and removed line against a."""
    out: list[str] = []
    i = 0
    lines = diff.splitlines(keepends=True)
    assert not lines or (lines[0].startswith("--- ") and lines[1].startswith("+++ "))
    for line in lines[2:]:
        if line.startswith("@@"):
            m = HUNK.match(line)
            assert m, line
            start, count = int(m.group(1)), int(m.group(2) or 1)
            begin = start - 1 if count else start
            assert begin >= i, "hunks must not overlap or go backwards"
            out.extend(a[i:begin])
            i = begin
        elif line.startswith("-"):
            assert a[i] == line[1:]
            i += 1
        elif line.startswith("+"):
            out.append(line[1:])
        else:
            assert line.startswith(" ") and a[i] == line[1:]
            out.append(a[i])
            i += 1
    out.extend(a[i:])
    return out


def rows(n: int) -> list[str]:
    """An index-like file: unique rows, with repeated blank and text lines around them."""
    return (
        ["# Memory\n", "\n"]
        + [f"| 2026-01-01-{k:05d}-agent | idle | - |\n" for k in range(n)]
        + ["\n", "notes\n", "\n"]
    )


@pytest.mark.parametrize("seed", range(4))
def test_scattered_edits_of_a_large_file_patch_back_exactly(seed):
    rng = random.Random(seed)
    a = rows(3 * LARGE)
    b = []
    for line in a:
        roll = rng.random()
        if roll < 0.25:
            continue  # deleted
        b.append(line.replace("idle", "stale") if roll < 0.35 else line)
        if roll > 0.995:
            b.append("| inserted | row |\n")
    b.insert(rng.randrange(len(b)), "\n")  # a repeated line added
    diff = unified_diff(a, b, "a/index.md", "b/index.md")
    assert diff.startswith("--- a/index.md\n+++ b/index.md\n@@ ")
    assert patch(a, diff) == b


def test_every_other_row_deleted_patches_back():
    a = rows(2 * LARGE)
    b = [line for k, line in enumerate(a) if k % 2 or not line.startswith("| 2026")]
    assert patch(a, unified_diff(a, b, "a/x", "b/x")) == b


def test_identical_large_inputs_give_no_diff():
    a = rows(3 * LARGE)
    assert unified_diff(a, list(a), "a/x", "b/x") == ""


def test_small_inputs_use_difflib_unchanged():
    a = [f"{k}\n" for k in range(200)]
    b = a[:50] + ["changed\n"] + a[60:150] + a[151:]
    assert unified_diff(a, b, "a/x", "b/x") == "".join(difflib.unified_diff(a, b, "a/x", "b/x", n=3))
