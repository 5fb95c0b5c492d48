"""A patch made from an index edit's own lines (IndexEdit.rewrite, diff.rewritten) is byte for byte the patch
found by comparing the two files' lines, whatever the rows and the text around the table hold."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.core import diff
from memboard.core.diff import byte_lines, file_patch_bytes, rewritten
from memboard.core.formats.index import COLUMNS, IndexFile, Rewrite
from tests.support.sizes import examples

HEADER = "| " + " | ".join(COLUMNS) + " |\n|" + "|".join("---" for _ in COLUMNS) + "|\n"
IDS = [f"2026-01-0{d}-1{m}00-agent-{k}" for d in range(1, 4) for m in range(10) for k in ("a", "b-c")]


def row(sid: str, status: str, summary: str = "did things", refs: str = "-") -> str:
    """One table line of the protocol's columns."""
    return f"| {sid} | agent | topic | {summary} | k | {status} | {refs} | 2026-01-01 10:00 | 2026-01-01 10:00 |\n"


plain_line = st.sampled_from(["\n", "# Memory Index\n", "notes\n", "<!-- kept -->\n", "| a | b |\n"])
odd_line = st.sampled_from(
    [
        HEADER.splitlines(keepends=True)[0],
        HEADER.splitlines(keepends=True)[1],
        row(IDS[0], "idle"),  # a row's very line outside the table (in a note, say)
        row(IDS[1], "stale"),
    ]
)
around_line = st.one_of(plain_line, plain_line, plain_line, odd_line)
cell = st.sampled_from(["did things", "a \\| b", "ends \\", "x|y", "  ", "長い要約", "\\\\|"])


@st.composite
def index_and_edit(draw: st.DrawFn) -> tuple[bytes, list[tuple[int, str, str]]]:
    """An index (text around a table of rows, some IDs repeated, some cells escaped) and edits of its rows."""
    before = draw(st.lists(around_line, max_size=6))
    after = draw(st.lists(around_line, max_size=6))
    n = draw(st.integers(1, 14))
    ids = draw(st.lists(st.sampled_from(IDS), min_size=n, max_size=n, unique=draw(st.integers(0, 3)) > 0))
    statuses = draw(st.lists(st.sampled_from(["idle", "active", "stale", "odd"]), min_size=n, max_size=n))
    summaries = draw(st.lists(cell, min_size=n, max_size=n))
    lines = [row(sid, status, summary) for sid, status, summary in zip(ids, statuses, summaries)]
    if draw(st.booleans()):
        lines[-1] = lines[-1].rstrip("\n")  # the file may end without a newline
        after = []
    text = "".join(before) + ("\n" if before else "") + HEADER + "".join(lines) + "".join(after)
    edits = draw(
        st.lists(
            st.tuples(
                st.integers(0, n - 1),
                st.sampled_from(["delete", "status", "summary"] * 5 + ["id"]),
                st.sampled_from(["stale", "active", "a | b", "ends \\", "x"]),
            ),
            max_size=8,
        )
    )
    return text.encode(), edits


def edited(data: bytes, edits: list[tuple[int, str, str]]) -> tuple[bytes, object]:
    """The edit's new bytes and its Rewrite (or None)."""
    index = IndexFile(data)
    edit = index.edit()
    for k, what, value in edits if index.rows else []:  # (the table found may be one in the text before)
        target = index.rows[k % len(index.rows)]
        if what == "delete":
            edit.delete(target)
        elif target.problem:
            continue  # (no writer sets the fields of a row it cannot read)
        elif what == "id":
            edit.set_fields(target, {"id": IDS[len(value) % len(IDS)]})
        else:
            edit.set_fields(target, {what: value})
    return edit.to_bytes(), edit.rewrite()


@pytest.fixture
def every_file_is_large(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every input takes the large-file path, where the patch is made from the rewrite when it can be."""
    monkeypatch.setattr(diff, "LARGE", 0)


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index_and_edit())
def test_a_patch_made_from_the_rewrite_is_the_compared_patch(every_file_is_large: None, case) -> None:
    data, edits = case
    after, rewrite = edited(data, edits)
    compared = file_patch_bytes("modify", "index.md", data, after)
    assert file_patch_bytes("modify", "index.md", data, after, rewrite=rewrite) == compared  # type: ignore[arg-type]
    if rewrite is not None:
        made = rewritten(byte_lines(data), rewrite)  # type: ignore[arg-type]
        if made is not None:
            assert made[0] == byte_lines(after)
            assert made[1] == diff._anchored_blocks(byte_lines(data), byte_lines(after))


def test_an_organize_like_edit_of_a_large_index_is_made_from_its_rewrite() -> None:
    """The ordinary case takes the quick way (the test above would pass if no rewrite were ever used)."""
    rows = [row(f"2026-01-01-1000-agent-{k}", "active" if k % 3 else "idle") for k in range(3000)]
    data = ("# Memory Index\n\nOne row per session.\n\n" + HEADER + "".join(rows) + "\n<!-- notes -->\n").encode()
    index = IndexFile(data)
    edit = index.edit()
    for k, r in enumerate(index.rows):
        if k % 3 == 0:
            edit.delete(r)
        elif k % 3 == 1:
            edit.set_fields(r, {"status": "stale"})
    after = edit.to_bytes()
    rewrite = edit.rewrite()
    assert rewrite is not None
    made = rewritten(byte_lines(data), rewrite)
    assert made is not None
    assert made[0] == byte_lines(after)
    assert made[1] == diff._anchored_blocks(byte_lines(data), byte_lines(after))
    assert file_patch_bytes("modify", "index.md", data, after, rewrite=rewrite) == file_patch_bytes(
        "modify", "index.md", data, after
    )


def test_no_rewrite_is_offered_when_two_rows_share_an_id() -> None:
    data = (HEADER + row(IDS[0], "active") + row(IDS[0], "idle") + row(IDS[1], "active")).encode()
    index = IndexFile(data)
    edit = index.edit()
    edit.set_fields(index.rows[2], {"status": "stale"})
    assert edit.rewrite() is None


def test_no_rewrite_is_offered_when_a_line_outside_the_table_reads_as_one_of_its_rows() -> None:
    data = ("```\n" + row(IDS[1], "idle") + "```\n\n" + HEADER + row(IDS[1], "active")).encode()
    index = IndexFile(data)
    edit = index.edit()
    edit.set_fields(index.rows[0], {"status": "stale"})
    assert edit.rewrite() is None


@pytest.mark.parametrize(
    ("lines", "rewrite"),
    [
        # the region's first line removed beside a repeated line: difflib pairs the repeats otherwise
        ([b"x\n", b"r\n", b"x\n", b"x\n"], Rewrite(1, 2, {1: ""})),
        # its last lines rewritten beside repeated lines, too many of them for difflib to compare the stretch
        (
            [b"h\n"] + [b"r%d\n" % k for k in range(600)] + [b"x\n", b"x\n"],
            Rewrite(1, 601, {k: f"n{k}\n" for k in range(1, 601)}),
        ),
    ],
)
def test_no_quick_patch_where_the_lines_beside_the_region_repeat(
    every_file_is_large: None, lines: list[bytes], rewrite: Rewrite
) -> None:
    assert rewritten(lines, rewrite) is None


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index_and_edit())
def test_a_patch_cut_from_the_file_is_the_one_compared_from_its_lines(every_file_is_large: None, case) -> None:
    """diff.rewrite_pieces (no list of the file's lines: a 1M-row preview) says what comparing the lines says."""
    data, edits = case
    after, rewrite = edited(data, edits)
    if rewrite is None:
        return
    pieces = diff.rewrite_pieces(data, rewrite, "a/index.md", "b/index.md")  # type: ignore[arg-type]
    if pieces is not None:
        assert b"".join(pieces) == diff.unified_diff_bytes(
            byte_lines(data), byte_lines(after), "a/index.md", "b/index.md"
        )


def test_an_organize_like_edit_is_cut_from_the_file_without_its_lines() -> None:
    """The ordinary large edit takes that way: rows deleted and rewritten, text around the table, a last line
    without an ending."""
    rows = [row(f"2026-01-01-1000-agent-{k}", "active" if k % 3 else "idle") for k in range(3000)]
    data = ("# Memory Index\n\n" + HEADER + "".join(rows) + "\n<!-- notes -->").encode()
    index = IndexFile(data)
    edit = index.edit()
    for k, r in enumerate(index.each_row()):
        if k % 3 == 0:
            edit.delete(r)
        elif k % 7 == 1:
            edit.set_fields(r, {"status": "stale"})
    after = edit.to_bytes()
    rewrite = edit.rewrite()
    assert rewrite is not None and rewrite.starts
    pieces = diff.rewrite_pieces(data, rewrite, "a/index.md", "b/index.md")
    assert pieces is not None
    assert b"".join(pieces) == diff.unified_diff_bytes(byte_lines(data), byte_lines(after), "a/index.md", "b/index.md")


def test_a_rewrite_whose_starts_are_no_lines_of_the_file_is_made_from_the_lines(every_file_is_large: None) -> None:
    data = (HEADER + row(IDS[0], "active") + row(IDS[1], "active")).encode()
    index = IndexFile(data)
    edit = index.edit()
    edit.set_fields(index.rows[1], {"status": "stale"})
    rewrite = edit.rewrite()
    assert rewrite is not None and rewrite.starts
    shifted = Rewrite(rewrite.lo, rewrite.hi, rewrite.lines, {k: v + 1 for k, v in rewrite.starts.items() if v})
    assert diff.rewrite_pieces(data, shifted, "a/index.md", "b/index.md") is None
    assert file_patch_bytes("modify", "index.md", data, edit.to_bytes(), rewrite=shifted) == file_patch_bytes(
        "modify", "index.md", data, edit.to_bytes()
    )
