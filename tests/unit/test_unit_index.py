"""The index reader/writer: parsing, escaping, byte-preserving edits, line endings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memboard.core.formats.index import COLUMNS, IndexFile, format_refs, parse_refs
from memboard.core.formats.text import escape, split_cells, unescape
from tests.support.sizes import examples

SID = "2026-05-31-0900-cursor-main-agent"
SID2 = "2026-05-31-1000-claude-agent"
HEADER = "| " + " | ".join(COLUMNS) + " |"
SEP = "|---|---|---|---|---|---|---|---|---|"


def row(sid=SID, status="active", refs="-", topic="T"):
    """A table line."""
    return f"| {sid} | {sid[16:]} | {topic} | S | K | {status} | {refs} | 2026-05-31 09:00 | 2026-05-31 09:00 |"


def make(*rows, eol="\n", pre="", post=""):
    """Index bytes."""
    return (pre + eol.join([HEADER, SEP, *rows]) + eol + post).encode("utf-8")


VALUES = dict(
    id=SID2,
    agent="claude-agent",
    topic="t",
    summary="s",
    keywords="k",
    status="idle",
    referenced_by="-",
    started_at="2026-06-01 09:30",
    updated_at="2026-06-01 09:30",
)


def test_split_cells_basic_and_escaped():
    assert split_cells("| a | b |") == ["a", "b"]
    assert split_cells("| a \\| b | c |") == ["a \\| b", "c"]
    assert split_cells("a | b") is None
    assert split_cells("| a | b") == ["a", "b"]
    assert split_cells("| a |  |") == ["a", ""]


def test_escape_round_trip_and_one_line():
    for value in ["a|b", "a\\|b", "end\\", "多行\n文字", "x | y | z"]:
        raw = escape(value)
        assert "\n" not in raw
        cells = split_cells(f"| {raw} | other |")
        assert cells is not None and len(cells) == 2
    assert unescape(escape("a|b")) == "a|b"
    assert escape("line1\nline2") == "line1 line2"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00"), max_size=40))  # type: ignore[arg-type]
@settings(max_examples=examples(200), deadline=None)
def test_escaped_value_stays_in_one_cell(value):
    raw = escape(value)
    cells = split_cells(f"| {raw} | z |")
    assert cells is not None and len(cells) == 2 and cells[1] == "z"
    assert unescape(cells[0]) == " ".join(value.split(" ")).strip() or "\\" in value


def test_parse_finds_table_after_preamble_and_ignores_code_fences():
    data = ("# T\n\n```\n" + HEADER + "\n" + SEP + "\n```\n\n" + HEADER + "\n" + SEP + "\n" + row() + "\n").encode()
    idx = IndexFile(data)
    assert idx.header_line == 7 and [r.id for r in idx.rows] == [SID]


def test_rows_remember_lines_and_problems():
    idx = IndexFile(
        make(row(), "| x | y |", row(SID2, status="closed"), "| not-an-id | a | b | c | d | active | - | e | f |")
    )
    assert [r.line for r in idx.rows] == [2, 3, 4, 5]
    assert idx.rows[0].problem is None
    assert "2 cells" in idx.rows[1].problem
    assert "Status" in idx.rows[2].problem
    assert "Session ID" in idx.rows[3].problem


def test_refs_parse_and_format():
    assert parse_refs("-") == [] and parse_refs("") == [] and parse_refs(" a, b ,c ") == ["a", "b", "c"]
    assert format_refs([]) == "-" and format_refs(["a", "b"]) == "a, b"


def test_set_fields_rewrites_only_that_line():
    data = make(row(), row(SID2), pre="# pre\n\n", post="\ntrailer\n")
    idx = IndexFile(data)
    out = idx.edit().set_fields(idx.rows[1], {"status": "stale"}).to_bytes()
    assert out == data.replace(row(SID2).encode(), row(SID2, status="stale").encode())


def test_set_fields_no_change_keeps_bytes_even_with_odd_spacing():
    line = f"|{SID}|cursor-main-agent|T|S|K|active|-|2026-05-31 09:00|2026-05-31 09:00|"
    data = make(line)
    idx = IndexFile(data)
    assert idx.edit().set_fields(idx.rows[0], {"status": "active"}).to_bytes() == data


def test_delete_removes_only_that_line():
    data = make(row(), row(SID2), eol="\r\n")
    idx = IndexFile(data)
    assert idx.edit().delete(idx.rows[0]).to_bytes() == make(row(SID2), eol="\r\n")


def test_append_follows_crlf_and_keeps_bom():
    data = b"\xef\xbb\xbf" + make(row(), eol="\r\n")
    idx = IndexFile(data)
    out = idx.edit().append(VALUES).to_bytes()
    assert out.startswith(data) and out.endswith(b"\r\n") and out.count(b"\r\n") == data.count(b"\r\n") + 1
    assert b"\n" not in out.replace(b"\r\n", b"")


def test_append_to_file_without_trailing_newline():
    data = make(row()).rstrip(b"\n")
    out = IndexFile(data).edit().append(VALUES).to_bytes()
    assert out.startswith(data + b"\n| " + SID2.encode())


def test_append_after_last_row_was_deleted_without_newline():
    data = make(row(), row(SID2)).rstrip(b"\n")
    idx = IndexFile(data)
    out = idx.edit().delete(idx.rows[1]).append(dict(VALUES, id="2026-06-01-0930-x")).to_bytes()
    lines = out.decode().splitlines()
    assert lines[-2] == row() and lines[-1].startswith("| 2026-06-01-0930-x |")


def test_append_fills_unknown_columns_with_empty_cells():
    header = HEADER + " Notes |"
    data = (header + "\n|---|---|---|---|---|---|---|---|---|---|\n").encode()
    out = IndexFile(data).edit().append(VALUES).to_bytes().decode()
    assert out.splitlines()[-1].endswith("| 2026-06-01 09:30 | 2026-06-01 09:30 |  |")


def test_invalid_utf8_bytes_survive():
    data = make(row()) + b"\xff\xfe odd bytes\n"
    idx = IndexFile(data)
    out = idx.edit().set_fields(idx.rows[0], {"status": "stale"}).to_bytes()
    assert out.endswith(b"\xff\xfe odd bytes\n")


def test_empty_index_gets_a_table():
    out = IndexFile.empty().edit().append(VALUES).to_bytes().decode()
    assert out.splitlines()[:2] == [HEADER, SEP]


@given(
    st.lists(st.sampled_from(["\n", "\r\n"]), min_size=1, max_size=1),
    st.text(max_size=30).filter(lambda t: "|" not in t),
)
@settings(max_examples=examples(50), deadline=None)
def test_untouched_bytes_round_trip(eols, noise):
    eol = eols[0]
    data = make(row(), pre=noise.replace("\n", eol) + eol, post=eol + noise, eol=eol)
    idx = IndexFile(data)
    assert idx.edit().to_bytes() == data


CELL_TEXT = st.text(alphabet=list("ab |\\`*中文-:"), max_size=12)


@given(
    st.lists(CELL_TEXT, min_size=1, max_size=4),
    st.integers(min_value=0, max_value=3),
    CELL_TEXT,
    st.sampled_from(["topic", "summary", "keywords"]),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
@settings(max_examples=examples(300), deadline=None)
def test_set_fields_round_trips_any_value_and_touches_one_line(topics, pick, value, field, eol, bom):
    lines = []
    for n, topic in enumerate(topics):
        sid = f"2026-05-31-09{n:02d}-agent"
        lines.append(f"| {sid} | agent | {escape(topic)} | S | K | active | - | 2026-05-31 09:00 | 2026-05-31 09:00 |")
    data = (b"\xef\xbb\xbf" if bom else b"") + make(*lines, eol=eol, pre="intro" + eol + eol, post=eol + "end" + eol)
    idx = IndexFile(data)
    assert [r.problem for r in idx.rows] == [None] * len(topics)
    target = idx.rows[pick % len(topics)]
    out = idx.edit().set_fields(target, {field: value}).to_bytes()
    again = IndexFile(out)
    assert [r.problem for r in again.rows] == [None] * len(topics)
    got = again.rows[pick % len(topics)].get(field)

    # a backslash right before a pipe (or at the end) gets a space, so the pipe stays escaped
    def norm(text):
        return text.strip().replace("\\ |", "\\|").rstrip()

    assert norm(got) == norm(value)
    old_lines, new_lines = data.split(b"\n"), out.split(b"\n")
    assert len(old_lines) == len(new_lines)
    assert sum(a != b for a, b in zip(old_lines, new_lines)) <= 1


@given(
    st.integers(min_value=0, max_value=4),
    st.sets(st.integers(min_value=0, max_value=3)),
    st.integers(min_value=0, max_value=2),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.booleans(),
)
@settings(max_examples=examples(300), deadline=None)
def test_delete_and_append_keep_order_endings_and_frame(n_rows, doomed, n_new, eol, trailer, final_eol):
    ids = [f"2026-05-31-09{n:02d}-agent" for n in range(n_rows)]
    data = make(
        *[row(sid) for sid in ids], eol=eol, pre="# I" + eol + eol, post=(eol + "after" + eol) if trailer else ""
    )
    if not final_eol and data.endswith(eol.encode()):
        data = data[: -len(eol)]
    idx = IndexFile(data)
    edit = idx.edit()
    for k in sorted(doomed):
        if k < n_rows:
            edit.delete(idx.rows[k])
    new_ids = [f"2026-06-01-09{n:02d}-new" for n in range(n_new)]
    for sid in new_ids:
        edit.append(dict(VALUES, id=sid))
    out = edit.to_bytes()
    again = IndexFile(out)
    kept = [sid for k, sid in enumerate(ids) if k not in doomed]
    assert [r.id for r in again.rows] == kept + new_ids
    assert all(r.problem is None for r in again.rows)
    text = out.decode()
    assert text.startswith("# I" + eol + eol + HEADER + eol + SEP)
    if eol == "\r\n":
        assert "\n" not in text.replace("\r\n", "")
    if trailer:
        assert text.rstrip("\r\n").endswith(eol + "after")


def test_a_parsed_index_is_freed_without_the_cyclic_collector():
    """An IndexFile and its rows go as soon as no one holds them (commands run with the collector off)."""
    import gc
    import weakref

    collecting = gc.isenabled()
    gc.disable()
    try:
        index = IndexFile(make(row(), row(SID2, "idle"), "| a \\| b | x |"))
        assert len(index.rows) == 3 and index.rows[2].problem
        gone = weakref.ref(index)
        del index
        assert gone() is None
    finally:
        if collecting:
            gc.enable()


def test_each_row_reads_the_rows_once_and_knows_their_ids_and_count():
    """A pass over rows kept by no one (organize at 1M rows) learns what ids() and row_count() say, as rows does."""
    data = make(row(), row(SID2, "idle"), row(SID), "| not a row |", post="after\n")
    streamed = IndexFile(data)
    seen = list(streamed.each_row())
    listed = IndexFile(data)
    assert seen == listed.rows
    assert streamed.ids() == listed.ids() == {SID, SID2, "not a row"}
    assert streamed.row_count() == len(listed.rows) == 4


def test_rows_set_once_keep_their_new_line_and_refuse_a_second_set():
    """set_each(once=True) keeps no pending cells (400k rows marked stale at 1M rows): the edit is the same, and
    setting such a row again is refused rather than started from its old cells."""
    import pytest

    data = make(row(), row(SID2, "active", topic="U"))
    index = IndexFile(data)
    kept, once = index.edit(), index.edit()
    kept.set_each(index.rows, {"status": "stale"})
    once.set_each(index.rows, {"status": "stale"}, once=True)
    assert once.to_bytes() == kept.to_bytes()
    with pytest.raises(ValueError):
        once.set_fields(index.rows[0], {"topic": "V"})
