"""Property tests for the index reader/writer: bytes survive, edits stay on their line."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.core.errors import Refused
from memboard.core.formats.index import COLUMNS, IndexFile
from memboard.core.formats.text import line_body
from tests.support.sizes import examples

SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
HEADER = "| " + " | ".join(COLUMNS) + " |"
SEP = "|" + "|".join("---" for _ in COLUMNS) + "|"

cell_text = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00"), max_size=30),  # type: ignore[arg-type]
    st.text(alphabet="ab |\\`\t-", max_size=12),  # pipes and backslashes, densely
)


def read_back(value: str) -> str:
    """What a written cell reads back as: trimmed, and a backslash right before a pipe keeps a
    space between them (the writer's documented way to keep `\\|` from escaping the pipe)."""
    return re.sub(r"\\(?=\|)", "\\\\ ", value.strip()) if "\\|" in value else value.strip()


agents = st.from_regex(r"[a-z][a-z0-9-]{0,10}[a-z0-9]", fullmatch=True)
statuses = st.sampled_from(["idle", "active", "stale"])
endings = st.sampled_from(["\n", "\r\n"])


@st.composite
def rows(draw, n: int):
    """n well-formed rows with distinct IDs and arbitrary cell text."""
    out = []
    for i in range(n):
        agent = draw(agents)
        sid = f"2026-05-{1 + i // 60:02d}-10{i % 60:02d}-{agent}"
        out.append(
            {
                "id": sid,
                "agent": agent,
                "topic": draw(cell_text),
                "summary": draw(cell_text),
                "keywords": draw(cell_text),
                "status": draw(statuses),
                "referenced_by": "-",
                "started_at": "2026-05-01 10:00",
                "updated_at": "2026-05-01 10:00",
            }
        )
    return out


@st.composite
def index_files(draw):
    """Index bytes: optional BOM, text around the table, mixed endings, rows built by the writer."""
    from memboard.core.formats.index import IndexEdit

    bom = draw(st.booleans())
    eol = draw(endings)
    before = draw(
        st.lists(
            st.text(
                alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="|\r\n`~\x00"), max_size=20
            ),
            max_size=3,
        )
    )
    after = draw(
        st.lists(
            st.text(
                alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n`~\x00"), max_size=20
            ),
            max_size=3,
        )
    )
    head = "".join(line + draw(endings) for line in before) + "\n"
    base = head + HEADER + eol + SEP + eol
    index = IndexFile(base.encode("utf-8"))
    edit = IndexEdit(index)
    for values in draw(rows(draw(st.integers(0, 6)))):
        edit.append(values)
    text = edit.to_text()
    tail = "".join(draw(endings) + line for line in after) if after else ""
    data = (("\ufeff" if bom else "") + text + tail).encode("utf-8")
    return data


# any bytes at all: invalid UTF-8, NUL, lone CRs, table-ish junk
junk_lines = st.one_of(
    st.binary(max_size=40),
    st.sampled_from([HEADER.encode(), SEP.encode(), b"| a | b |", b"```", b"|", b"\\|", b"\xff\xfe|x|"]),
)
any_bytes = st.lists(junk_lines, max_size=12).map(lambda ls: b"\n".join(ls))


@SETTINGS
@given(any_bytes)
def test_any_bytes_survive_read_then_write_unchanged(data):
    index = IndexFile(data)
    if index.conflict_lines:  # a `<<<<<<<` line: a conflicted index is never written, by design
        with pytest.raises(Refused):
            index.edit()
        return
    assert index.edit().to_bytes() == data


@SETTINGS
@given(index_files())
def test_generated_index_survives_read_then_write_unchanged(data):
    assert IndexFile(data).edit().to_bytes() == data


@SETTINGS
@given(index_files(), st.data())
def test_editing_one_row_changes_only_that_rows_line(data, draw):
    index = IndexFile(data)
    good = [r for r in index.rows if not r.problem]
    if not good:
        return
    row = draw.draw(st.sampled_from(good))
    field = draw.draw(st.sampled_from(["topic", "summary", "keywords", "status", "referenced_by", "updated_at"]))
    value = draw.draw(statuses if field == "status" else cell_text)
    new = IndexFile(index.edit().set_fields(row, {field: value}).to_bytes())
    assert len(new.lines) == len(index.lines)
    changed = [i for i, (a, b) in enumerate(zip(index.lines, new.lines)) if a != b]
    assert set(changed) <= {row.line}
    assert (
        new.lines[row.line].endswith("\r\n" if index.lines[row.line].endswith("\r\n") else "\n")
        or line_body(index.lines[row.line]) != index.lines[row.line]
    )
    again = new.find(row.id)
    assert len(again) == 1 and again[0].get(field) == read_back(value)
    assert new.bom == index.bom


@SETTINGS
@given(index_files(), st.data())
def test_appended_rows_read_back_with_the_values_written(data, draw):
    index = IndexFile(data)
    taken = index.ids()
    extra = [r for r in draw.draw(rows(3)) if r["id"] not in taken]
    fresh = []
    for values in extra:
        values = dict(values, id=values["id"].replace("2026-05", "2027-05"))
        fresh.append(values)
    edit = index.edit()
    for values in fresh:
        edit.append(values)
    out = edit.to_bytes()
    new = IndexFile(out)
    for values in fresh:
        found = new.find(values["id"])
        assert len(found) == 1 and found[0].problem is None
        for key, value in values.items():
            assert found[0].get(key) == read_back(value), key
    # every old line is still there, in order, byte for byte
    old_lines = [line_body(l) for l in index.lines]
    new_bodies = [line_body(l) for l in new.lines]
    it = iter(new_bodies)
    assert all(any(b == a for b in it) for a in old_lines)


@SETTINGS
@given(index_files(), st.data())
def test_deleting_a_row_removes_only_its_line(data, draw):
    index = IndexFile(data)
    if not index.rows:
        return
    row = draw.draw(st.sampled_from(index.rows))
    new = IndexFile(index.edit().delete(row).to_bytes())
    assert [l for i, l in enumerate(index.lines) if i != row.line] == new.lines


@SETTINGS
@given(index_files(), st.integers(0, 40))
def test_an_index_with_nul_bytes_is_never_rewritten(data, at):
    """NUL bytes mean UTF-16 or binary: memboard refuses to write rather than mix encodings."""
    import pytest

    from memboard.core.errors import Refused

    data = data[:at] + b"\x00" + data[at:]
    index = IndexFile(data)
    try:
        edit = index.edit()
    except Refused:
        return  # the NUL broke a header name: refused even earlier
    assert edit.to_bytes() == data  # nothing to change: no refusal, no rewrite
    with pytest.raises(Refused):
        index.edit().append({"id": "2027-01-01-0000-x", "status": "idle"}).to_bytes()


def parse_state(index: IndexFile) -> tuple:
    """What a read of index tells from outside: table, extent, rows (cells, line, problem), IDs and lookups."""
    rows = [(r, r.offset, r.id, r.status, r.values) for r in index.rows]
    return (index.header_line, index.columns, index.row_span(), index.table_end, index.problems, rows, index.lines)


grown_tails = st.lists(
    st.one_of(
        st.sampled_from(["| 2027-01-01-0000-x | x | t | s | k | idle | - | - | a | b |", "", "  ", "text", "```", "|"]),
        st.text(alphabet="ab |\\`\t-\r", max_size=12),
    ),
    min_size=1,
    max_size=4,
)


@settings(SETTINGS, max_examples=examples(600))
@given(st.one_of(index_files(), any_bytes), st.booleans(), grown_tails, endings, st.booleans())
def test_an_index_grown_from_a_prefix_reads_as_the_whole_file_read_afresh(data, cut, lines, eol, ended):
    """IndexFile(data + tail, grown_from=IndexFile(data)) scans only the tail (when data's table ran to its end),
    and reads exactly as IndexFile(data + tail): rows, extent, lines, every Session ID's rows. cut: data ends
    where its table does (the case a hook's append meets), else it may go on below the table."""
    if cut and IndexFile(data).has_table:
        data = data[: IndexFile(data).row_span()[1]]
    tail = (eol.join(lines) + (eol if ended else "")).encode("utf-8")
    before = IndexFile(data)
    before.find("2027-01-01-0000-x")  # (a look-up made before the growth)
    grown, fresh = IndexFile(data + tail, grown_from=before), IndexFile(data + tail)
    assert parse_state(grown) == parse_state(fresh)
    for sid in {r.id for r in fresh.rows} | {"2027-01-01-0000-x"}:
        assert IndexFile(data + tail, grown_from=before).find(sid) == fresh.find(sid)


def test_an_index_grown_from_a_table_that_ran_to_its_end_scans_only_the_tail():
    """The case the server meets (a hook appends a row): the growth is taken, and the rows read as afresh."""
    data = (HEADER + "\n" + SEP + "\n| 2026-05-01-1000-a | a | t | s | k | idle | - | - | x | y |\n").encode()
    tail = b"| 2026-05-01-1001-b | b | t | s | k | idle | - | - | x | y |\nnot a row\n"
    for more in (tail, b"text\n", b"  \n| row |\n", b"| row |", b"\r\n"):
        grown = IndexFile(data + more, grown_from=IndexFile(data))
        assert grown.grown and parse_state(grown) == parse_state(IndexFile(data + more))
    assert not IndexFile(data + b"x", grown_from=IndexFile(data + b"| unended")).grown  # the last line went on
