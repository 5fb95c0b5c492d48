"""Large-file diffs (the anchored path of diff.unified_diff) are valid unified diffs; patches made from
bytes are the text patches' very bytes."""

from __future__ import annotations

import difflib
import random
import re

import pytest

from memboard.core.diff import LARGE, changed_line_numbers, file_patch, file_patch_bytes, unified_diff

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


PIECES = ["| a | idle |", "| b |", "\r", "\x85", "\u2028", "é", "記憶", "\\", " ", "x"]
BAD = [b"\xff", b"\xed\xb2\x80", b"\xc3", b"\x80"]  # bytes that are not UTF-8 (one a surrogate's encoding)


def some_bytes(rng: random.Random, n: int) -> bytes:
    """n lines of text and stray bytes, some ending in CRLF, the last one maybe without an ending."""
    out = []
    for _ in range(n):
        line = "".join(rng.choice(PIECES) for _ in range(rng.randrange(4))).encode("utf-8")
        if rng.random() < 0.2:
            line += rng.choice(BAD)
        out.append(line + rng.choice([b"\n", b"\n", b"\r\n"]))
    if out and rng.random() < 0.5:
        out[-1] = out[-1].rstrip(b"\r\n")
    return b"".join(out)


@pytest.mark.parametrize("size", [0, 3, 40, LARGE, 2 * LARGE])
@pytest.mark.parametrize("kind", ["modify", "create", "delete", "move"])
def test_a_patch_made_from_bytes_is_the_text_patch_encoded(kind, size):
    rng = random.Random(f"{kind}{size}")
    before = some_bytes(rng, size)
    lines = before.splitlines(keepends=True)
    after = b"".join(line for line in lines if rng.random() > 0.3) + some_bytes(rng, size // 10)
    old, new = (None, after) if kind == "create" else (before, None) if kind == "delete" else (before, after)
    for a, b in ((old, new), (old, old if kind in ("modify", "move") else new)):
        text = file_patch(kind, "sessions/x y.md", a, b, "archive/x/x.md" if kind == "move" else None)
        made = file_patch_bytes(kind, "sessions/x y.md", a, b, "archive/x/x.md" if kind == "move" else None)
        assert made == text.encode("utf-8", "surrogateescape")


def marked_positions(a: list[str], b: list[str], diff: str) -> tuple[list[int], list[int]]:
    """The positions in a of the lines a unified diff removes, and in b of those it adds."""
    gone: list[int] = []
    came: list[int] = []
    i = j = 0
    for line in diff.splitlines(keepends=True)[2:]:
        m = HUNK.match(line)
        if m:
            i = int(m.group(1)) - (1 if int(m.group(2) or 1) else 0)
            j = int(m.group(3)) - (1 if int(m.group(4) or 1) else 0)
        elif line.startswith(" "):
            i, j = i + 1, j + 1
        elif line.startswith("-"):
            gone.append(i)
            i += 1
        elif line.startswith("+"):
            came.append(j)
            j += 1
    return gone, came


@pytest.mark.parametrize("size", [40, LARGE * 2])
def test_changed_line_numbers_are_the_lines_the_exact_diff_marks(size):
    """The board's row preview pairs the lines the exact diff removes and adds (small and large inputs)."""
    rng = random.Random(size)
    a = [f"| row {i % (size // 3)} | {rng.randint(0, 3)} |\n" for i in range(size)]
    b = [line for line in a if rng.random() > 0.3]
    for _ in range(size // 10):
        b.insert(rng.randrange(len(b) + 1), f"| new {rng.randint(0, 50)} |\n")
    assert changed_line_numbers(a, b) == marked_positions(a, b, unified_diff(a, b, "a", "b"))


@pytest.mark.parametrize("seed", range(5))
def test_changed_line_numbers_match_the_exact_diff_where_lines_repeat_often(seed):
    """Over 200 lines with lines that repeat (blank lines, a `|` line), difflib's unified diff treats the
    most common ones as junk: the preview's pairing must match them the same way."""
    rng = random.Random(seed)
    a = [rng.choice(["\n", "|\n", f"| row {i} |\n", f"| row {i} |\n"]) for i in range(300)]
    b = list(a)
    for _ in range(6):
        at = rng.randrange(len(b))
        if rng.random() < 0.5:
            del b[at]
        else:
            b.insert(at, rng.choice(["\n", "|\n", "| new |\n"]))
    assert len(a) + len(b) <= LARGE
    assert changed_line_numbers(a, b) == marked_positions(a, b, unified_diff(a, b, "a", "b"))


@pytest.mark.parametrize("repeat", [False, True])
def test_a_local_edit_of_a_large_file_has_the_blocks_of_the_whole_files(repeat: bool) -> None:
    """archive deletes one row of a large index and edits its source's: the blocks found from the edit's middle
    are the ones matching the whole files finds (lines repeated in the kept ends never anchor the middle)."""
    from memboard.core import diff

    rng = random.Random(29)
    a = [f"| row {i} | {rng.random():.6f} |\n".encode() for i in range(6000)]
    if repeat:  # a blank line before the edit and in the kept start: it must not anchor the middle
        a[100] = a[3004] = a[5990] = b"\n"
    b = a[:3000] + [b"| row 3000 | edited |\n"] + a[3001:3005] + a[3006:]
    local = diff._local_blocks(a, b)
    assert local is not None
    assert local == diff._patience_blocks(a, b)
    assert patch([x.decode() for x in a], diff.unified_diff_bytes(a, b, "a", "b").decode()) == [x.decode() for x in b]
