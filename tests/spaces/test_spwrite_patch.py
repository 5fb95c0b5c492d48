"""The patch of an append to a large file (a 1 MB history.md gaining one entry): made without indexing every
line, it is the very patch the anchored matching makes, and `git apply` of it gives the new bytes."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memboard.core import diff
from memboard.core.diff import byte_lines

POOL = [b"### 2026-01-01 00:00 [context: x]", b"- a", b"- b", b"", b"> q", b"- c\r"]


def _file(rng: random.Random, count: int, unique_every: int, final_newline: bool) -> bytes:
    lines = [rng.choice(POOL) for _ in range(count)]
    out = [line + b" %d" % n if unique_every and n % unique_every == 0 else line for n, line in enumerate(lines)]
    data = b"\n".join(out)
    return data + b"\n" if final_newline and data else data


def _append(before: bytes, rng: random.Random, count: int) -> bytes:
    return before + (b"" if before.endswith(b"\n") else b"\n") + _file(rng, count, 0, True)


@settings(max_examples=30)
@given(st.integers(0, 2**32), st.integers(1, 7), st.booleans(), st.integers(1, 30))
def test_an_appends_patch_is_the_anchored_one(seed, unique_every, final_newline, added):
    rng = random.Random(seed)
    before = _file(rng, diff.LARGE // 2 + rng.randrange(40), unique_every, final_newline)
    after = _append(before, rng, added)
    a, b = byte_lines(before), byte_lines(after)
    fast = diff._appended_blocks(a, b)
    assert fast is not None
    assert diff.unified_diff_bytes(a, b, "a/x", "b/x", fast) == diff.unified_diff_bytes(
        a, b, "a/x", "b/x", _anchored_without_the_append_path(a, b)
    )


def _anchored_without_the_append_path(a, b):
    real = diff._appended_blocks
    diff._appended_blocks = lambda a, b: None
    try:
        return diff._anchored_blocks(a, b)
    finally:
        diff._appended_blocks = real


def test_other_edits_are_not_taken_for_appends():
    a = byte_lines(b"x\ny\nz\n")
    assert diff._appended_blocks(a, byte_lines(b"x\nY\nz\nw\n")) is None
    assert diff._appended_blocks(a, byte_lines(b"x\ny\n")) is None
    assert diff._appended_blocks([], byte_lines(b"x\n")) is None


@pytest.mark.parametrize("unique_every", [0, 3])
def test_git_apply_of_a_large_append_gives_the_new_bytes(tmp_path: Path, unique_every):
    rng = random.Random(7)
    before = _file(rng, 3000, unique_every, False)  # (no line found once: the anchored matching finds nothing)
    after = _append(before, rng, 12)
    (tmp_path / "h.md").write_bytes(before)
    patch = diff.file_patch_bytes("modify", "h.md", before, after)
    assert len(patch) < 2000  # the added lines and their context, never the whole file
    subprocess.run(["git", "-C", str(tmp_path), "apply", "-"], input=patch, check=True, capture_output=True)
    assert (tmp_path / "h.md").read_bytes() == after
