"""A run of whole lines removed from a large file (archive's one-row delete) gets its patch from the bytes around
the run (diff._deletion_hunk): the very bytes the line-by-line diff gives, whatever the lines around it hold."""

from __future__ import annotations

import random

import pytest

from memboard.core import diff
from memboard.core.diff import LARGE, file_patch_bytes

ROWS = LARGE  # lines of the large file: the two sides together are over LARGE


def _lines(rng: random.Random, dup: bool) -> list[bytes]:
    """A large file's lines: mostly distinct rows, and (dup) runs of equal lines and repeated blank lines."""
    out = [f"| 2026-05-01-{i:04d}-a | t | s | active |\n".encode() for i in range(ROWS)]
    if dup:
        for at in rng.sample(range(ROWS), ROWS // 20):
            out[at] = rng.choice([b"\n", b"| same |\n", b"x\r\n"])
    return out


def _both_ways(monkeypatch, before: bytes, after: bytes) -> tuple[bytes, bytes]:
    """The patch as file_patch_bytes makes it, and as the line-by-line diff alone makes it."""
    fast = file_patch_bytes("modify", "index.md", before, after)
    with monkeypatch.context() as m:
        m.setattr(diff, "_deletion_hunk", lambda _before, _after: None)
        slow = file_patch_bytes("modify", "index.md", before, after)
    return fast, slow


@pytest.mark.parametrize("seed", range(21))
def test_deletion_patch_is_the_line_diffs_bytes(monkeypatch, seed) -> None:
    """Deleting 1-3 lines anywhere (first, last, beside equal lines, in a file with no final newline): the same
    patch bytes as the line-by-line diff."""
    rng = random.Random(seed)
    lines = _lines(rng, dup=seed % 2 == 1)
    if seed % 3 == 0:
        lines[-1] = lines[-1].rstrip(b"\n")
    at = [0, 1, ROWS - 1, ROWS - 2, rng.randrange(ROWS), rng.randrange(ROWS), 3][seed % 7]
    size = 1 + seed % 3
    if seed % 4 == 2:  # the run removed is one of equal lines beside it
        lines[at : at + size + 1] = [lines[at]] * (size + 1)
    before = b"".join(lines)
    after = b"".join(lines[:at] + lines[at + size :])
    fast, slow = _both_ways(monkeypatch, before, after)
    assert fast == slow
    body = fast.split(b" @@\n", 1)[1].splitlines(keepends=True)
    assert sum(line.startswith(b"-") for line in body) == min(size, len(lines) - at)


def test_a_usual_row_delete_takes_the_bytes_path(monkeypatch) -> None:
    """One distinct row removed from the middle of a large index: _deletion_hunk makes the patch (and it is the
    line diff's)."""
    lines = _lines(random.Random(1), dup=False)
    before, after = b"".join(lines), b"".join(lines[:500] + lines[501:])
    assert diff._deletion_hunk(before, after) is not None
    fast, slow = _both_ways(monkeypatch, before, after)
    assert fast == slow and b"\n-| 2026-05-01-0500-a" in fast


def test_not_a_deletion_is_left_to_the_lines() -> None:
    """A changed line, an added one, or a cut inside a line: no hunk from the bytes."""
    lines = _lines(random.Random(2), dup=False)
    before = b"".join(lines)
    assert diff._deletion_hunk(before, b"".join(lines[:9] + [b"other\n"] + lines[10:])) is None
    assert diff._deletion_hunk(before, before + b"more\n") is None
    assert diff._deletion_hunk(before, before[:100] + before[105:]) is None
    # two short lines replaced by one of their length: as long as a removal, and no removal
    short = lines[:50] + [b"ab\n", b"cd\n"] + lines[50:]
    assert diff._deletion_hunk(b"".join(short), b"".join(lines[:50] + [b"zz\n"] + lines[50:])) is None
