"""The preview's exact diff as drawn: the words of paired lines that differ are emphasised in an ordinary
diff, and not in one too large to compare pair by pair (it took seconds at 100k rows)."""

from __future__ import annotations

import pytest

from memboard.board import changes
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


def _index(rows: list[tuple[str, str, str]]) -> bytes:
    """A small index.md with these (id, status, topic) rows."""
    head = (
        "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n"
    )
    lines = [
        f"| {sid} | codex | {topic} | s | k | {status} | - | 2026-05-01 10:00 | 2026-05-01 10:00 |\n"
        for sid, status, topic in rows
    ]
    return (
        "# Memory Index\n\n" + head + "|---|---|---|---|---|---|---|---|---|\n" + "".join(lines) + "\nNotes\n"
    ).encode()


@pytest.mark.parametrize("few", [0, 10_000])
def test_changed_rows_read_on_their_own_or_among_all_rows_say_the_same(monkeypatch, few):
    """A few changed rows are read on their own (a one-row update of a 100k index paired them in 1.4 s);
    many are picked from all the rows: both ways say the same."""
    monkeypatch.setattr(changes, "FEW_ROWS", few)
    ids = [f"2026-05-01-{n:04d}-codex" for n in range(30)]
    before = _index([(sid, "active", f"topic {n}") for n, sid in enumerate(ids)])
    after = _index(
        [(sid, "stale" if n % 3 == 0 else "active", f"topic {n}") for n, sid in enumerate(ids) if n % 5]
        + [("2026-05-02-0000-codex", "active", "new")]
    )
    found, other = changes.row_changes(before, after)
    assert other == 0
    assert [(c.session_id, c.kind, [(f.column, f.before, f.after) for f in c.fields]) for c in found] == [
        *(
            (sid, "removed" if n % 5 == 0 else "changed", [] if n % 5 == 0 else [("Status", "active", "stale")])
            for n, sid in enumerate(ids)
            if n % 5 == 0 or n % 3 == 0
        ),
        ("2026-05-02-0000-codex", "added", []),
    ]
