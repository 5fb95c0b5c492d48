"""The preview's exact diff as drawn: the words of paired lines that differ are emphasised in an ordinary
diff, and not in one too large to compare pair by pair (it took seconds at 100k rows)."""

from __future__ import annotations

from memboard.board.planview import EMPHASIS_LINES, diff_lines


def paired_diff(pairs: int) -> str:
    """A diff replacing `pairs` lines, each changing one word."""
    removed = [f"-| row {i} | active |" for i in range(pairs)]
    added = [f"+| row {i} | stale |" for i in range(pairs)]
    return "\n".join(["--- a/index.md", "+++ b/index.md", f"@@ -1,{pairs} +1,{pairs} @@", *removed, *added]) + "\n"


def test_paired_lines_show_the_word_that_changed():
    lines = diff_lines(paired_diff(3))
    removed = [line for line in lines if line.kind == "removed"]
    first = removed[0]
    assert [first.text[a:b] for a, b, _ in first.spans] == ["active"]


def test_a_diff_too_large_to_compare_pair_by_pair_is_drawn_without_emphasis():
    lines = diff_lines(paired_diff(EMPHASIS_LINES // 2 + 1))
    assert len(lines) == 3 + EMPHASIS_LINES + 2
    assert not any(line.spans for line in lines)
