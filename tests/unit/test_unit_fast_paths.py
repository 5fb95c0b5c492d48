"""Fast paths of the readers agree with the plain readings they stand in for.

Each fast path (row cells split at pipes, Session IDs checked against a remembered calendar,
protocol timestamps read without strptime, cells escaped without a character loop, one-line
values taken for paragraphs without the Markdown reader, index edits spliced into the bytes)
is compared here with the plain reading it replaces, on inputs built to hit both sides.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.core.files.settle import CHUNK, read_seen
from memboard.core.formats import clock
from memboard.core.formats.ids import is_valid_id
from memboard.core.formats.index import COLUMNS, FIELD_OF_COLUMN, STATUSES, IndexFile
from memboard.core.formats.snapshot import _reads_as_paragraph, read_blocks
from memboard.core.formats.text import escape, line_body, split_cells, unescape
from tests.support.sizes import examples

SETTINGS = settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
HEADER = "| " + " | ".join(COLUMNS) + " |"
SEP = "|" + "|".join("---" for _ in COLUMNS) + "|"
PLAIN_ID_RE = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})-([0-9]{2})([0-9]{2})-([a-z0-9](?:[a-z0-9-]*[a-z0-9])?)", re.ASCII
)


def plain_split_cells(body: str) -> list[str] | None:
    """split_cells read one character at a time (a backslash escapes the next character)."""
    s = body.strip()
    if not s.startswith("|"):
        return None
    s = s[1:]
    cells, buf, i, ended_with_pipe = [], [], 0, False
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s):
            buf.append(s[i : i + 2])
            i += 2
            ended_with_pipe = False
            continue
        if ch == "|":
            cells.append("".join(buf).strip())
            buf, ended_with_pipe = [], True
        else:
            buf.append(ch)
            if not ch.isspace():
                ended_with_pipe = False
        i += 1
    rest = "".join(buf).strip()
    if rest or not ended_with_pipe:
        cells.append(rest)
    return cells


def plain_is_valid_id(value: str) -> bool:
    """A Session ID checked by its pattern and by building its datetime."""
    if len(value) > 120 or not value.isascii():
        return False
    m = PLAIN_ID_RE.fullmatch(value)
    if not m:
        return False
    try:
        year, month, day, hour, minute = (int(g) for g in m.groups()[:5])
        datetime(year, month, day, hour, minute)
    except ValueError:
        return False
    return True


def plain_row(columns: list[str], line: str) -> tuple[tuple[str, ...], dict[str, str], str | None]:
    """A row's cells, values and problem as the cell-by-cell reading gives them."""
    cells = plain_split_cells(line_body(line)) or []
    values = {}
    for pos, c in enumerate(columns):
        if c in FIELD_OF_COLUMN and pos < len(cells):
            values[FIELD_OF_COLUMN[c]] = unescape(cells[pos])
    problem = None
    if len(cells) != len(columns):
        problem = f"has {len(cells)} cells, the header has {len(columns)}"
    else:
        sid = values.get("id", "")
        if not sid.isascii():
            problem = "Session ID has characters outside ASCII (fullwidth or other Unicode digits?); IDs are ASCII"
        elif not plain_is_valid_id(sid):
            problem = "Session ID is not of the form YYYY-MM-DD-HHMM-agent-name"
        elif values.get("status") not in STATUSES:
            problem = f"Status {values.get('status')!r} is not idle, active or stale"
    return tuple(cells), values, problem


ids = st.one_of(
    st.from_regex(r"20[0-9]{2}-[01][0-9]-[0-3][0-9]-[0-2][0-9][0-6][0-9]-[a-z0-9-]{1,8}", fullmatch=True),
    st.sampled_from(
        [
            "2026-02-29-1000-a",
            "2024-02-29-1000-a",
            "0000-01-01-0000-a",
            "2026-13-01-0000-a",
            "2026-01-01-2400-a",
            "2026-01-01-0060-a",
            "２026-01-01-1000-a",
            "2026-01-01-1000-a-",
            "x" * 130,
        ]
    ),
)
cells = st.one_of(
    st.text(alphabet="ab |\\ \t\u3000-", max_size=10), st.sampled_from(list(STATUSES) + ["closed", ""]), ids
)


@SETTINGS
@given(
    st.lists(st.one_of(ids, cells), min_size=0, max_size=11),
    st.sampled_from(["", " ", "  "]),
    st.sampled_from(["\n", "\r\n", "", " \n"]),
    st.booleans(),
)
def test_rows_read_at_pipes_are_the_cell_by_cell_reading(parts, pad, ending, closed):
    line = "| " + f"{pad}|{pad}".join(parts) + (" |" if closed else "") + ending
    line = line if line.startswith("|") else "|" + line
    data = ("\n".join([HEADER, SEP]) + "\n" + line).encode("utf-8")
    index = IndexFile(data)
    rows = index.rows
    assert len(rows) == 1
    want_cells, want_values, want_problem = plain_row(list(COLUMNS), line)
    got = rows[0]
    assert (got.raw_cells, got.values, got.problem) == (want_cells, want_values, want_problem)
    assert (got.id, got.status) == (want_values.get("id", ""), want_values.get("status", ""))
    assert [r.raw_cells for r in IndexFile(data).iter_rows()] == [want_cells]
    assert {name: got.get(name) for name in FIELD_OF_COLUMN.values()} == {
        name: want_values.get(name, "") for name in FIELD_OF_COLUMN.values()
    }
    assert_lean_is_kept(data)


def assert_lean_is_kept(data: bytes) -> None:
    """The rows of a lean IndexFile (doctor's: cells split again from the line when asked) read as those that keep
    their cells: the same cells, values, fields, ID, Status and problem, and they compare equal."""
    kept, lean = IndexFile(data).rows, IndexFile(data, lean=True).rows
    assert [(r.raw_cells, r.values, r.id, r.status, r.problem, r.line, r.offset) for r in lean] == [
        (r.raw_cells, r.values, r.id, r.status, r.problem, r.line, r.offset) for r in kept
    ]
    names = [*FIELD_OF_COLUMN.values(), "nothing"]
    assert [[r.get(n) for n in names] for r in lean] == [[r.get(n) for n in names] for r in kept]
    assert lean == kept and [hash(r) for r in lean] == [hash(r) for r in kept]


def test_rows_under_a_header_with_repeated_and_unknown_columns():
    columns = ["Session ID", "Topic", "Extra", *COLUMNS[1:], "Topic"]
    head = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n"
    line = "| 2026-05-31-0900-a | first | x | a | T | S | K | idle | - | s | u | last |\n"
    short = "| 2026-05-31-0901-a | first | x |\n"
    index = IndexFile((head + line + short).encode("utf-8"))
    for row, text in zip(index.rows, (line, short)):
        want_cells, want_values, want_problem = plain_row(columns, text)
        assert (row.raw_cells, row.values, row.problem) == (want_cells, want_values, want_problem)
    assert index.rows[0].get("topic") == "last" and index.rows[1].get("topic") == "first"


@SETTINGS
@given(st.text(alphabet="|\\ a\tx\u3000\r", max_size=24))
def test_split_cells_is_the_character_by_character_reading(body):
    assert split_cells(body) == plain_split_cells(body)


@SETTINGS
@given(st.one_of(ids, st.text(max_size=20)))
def test_session_ids_are_checked_as_by_their_datetime(value):
    assert is_valid_id(value) == plain_is_valid_id(value)


def plain_parse(text: str) -> datetime | None:
    """A timestamp read by strptime's `YYYY-MM-DD HH:MM` first, then as ISO 8601 (a `Z` for UTC)."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        return datetime.strptime(text, clock.FORMAT)
    except ValueError:
        pass
    try:
        value = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    return value.astimezone().replace(tzinfo=None) if value.tzinfo is not None else value


@SETTINGS
@given(
    st.one_of(
        st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}", fullmatch=True),
        st.from_regex(
            r"[0-9+ _٣]{4}-[0-9 ]{1,2}-[0-9]{2}[ T]{1,2}[0-9]{1,2}:[0-9+]{2}(:[0-9]{2})?(Z|[+-][0-9]{2}:[0-9]{2})?",
            fullmatch=True,
        ),
        st.sampled_from(
            [
                "2026-02-29 10:00",
                "2024-02-29 10:00",
                "0000-01-01 00:00",
                "2026-01-01 24:00",
                "2026-1-01 10:00",
                "+026-01-01 10:00",
                "2_26-01-01 10:00",
                "2026-01-01 10:+5",
                " 2026-01-01 10:00 ",
                "20260101",
                "2026-01-01T10:00Z",
                "2026-01-01Z",
                "2026-W01-1",
                "2026-01-01  10:00",
                "２026-01-01 10:00",
            ]
        ),
    )
)
def test_timestamps_are_read_as_strptime_then_iso_8601_read_them(text):
    assert clock.parse(text) == plain_parse(text)


@SETTINGS
@given(st.text(alphabet="ab |\\\r\n\t\u3000", max_size=16))
def test_cells_without_pipes_are_escaped_as_with_them(value):
    out, folded = [], " ".join(value.replace("\r", " ").replace("\n", " ").split(" ")).strip()
    for ch in folded:
        if ch == "|":
            if out and out[-1].endswith("\\"):
                out.append(" ")
            out.append("\\|")
        else:
            out.append(ch)
    text = "".join(out)
    assert escape(value) == (text + " " if text.endswith("\\") else text)


@SETTINGS
@given(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_categories=("Cs", "Zl", "Zp", "Cc")), min_size=1, max_size=12),
        st.from_regex(r"[0-9١]{1,11}[.)]? ?x?", fullmatch=True),
    )
    .map(lambda s: " ".join(s.split()))
    .filter(bool)
)
def test_one_line_values_are_paragraphs_as_the_markdown_reader_says(text):
    blocks = read_blocks([text + "\n"])
    assert _reads_as_paragraph(text) == (len(blocks) == 1 and blocks[0].kind == "para")


def table(n: int) -> bytes:
    """An index of n rows, one of them with an escaped pipe, CRLF on one, no final newline."""
    pipe, cr = " \\| x", "\r"
    rows = [
        f"| 2026-05-31-{i // 60:02d}{i % 60:02d}-a | a | T{i} | S{pipe if i == 3 else ''} | K | "
        f"{STATUSES[i % 3]} | - | 2026-05-31 09:00 | 2026-05-31 09:00 |{cr if i == 5 else ''}"
        for i in range(n)
    ]
    return ("\ufeffpre\n\n" + HEADER + "\n" + SEP + "\n" + "\n".join(rows)).encode("utf-8")


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 11), st.sampled_from(["delete", "stale", "topic", "same"])), max_size=8))
def test_edits_spliced_into_the_bytes_are_the_edits_of_the_line_list(ops):
    data = table(12)
    fast, slow = IndexFile(data), IndexFile(data)
    fast_edit, slow_edit = fast.edit(), slow.edit()
    for k, op in ops:
        for edit, row in ((fast_edit, fast.rows[k]), (slow_edit, replace(slow.rows[k], offset=-1))):
            if op == "delete":
                edit.delete(row)
            elif op == "stale":
                edit.set_fields(row, {"status": "stale"})
            elif op == "topic":
                edit.set_fields(row, {"topic": "new | topic"})
            else:
                edit.set_fields(row, {"topic": row.get("topic")})
    assert fast_edit.to_bytes() == slow_edit.to_bytes()
    assert (fast_edit._patched() is not None) == bool(fast_edit.replace)
    assert slow_edit._patched() is None


@SETTINGS
@given(st.text(max_size=20), st.text(max_size=30), st.lists(st.sampled_from(["2026-05-31-0900-a", "x"]), max_size=2))
def test_a_snapshot_made_from_a_row_is_the_template_filled_in(topic, context, continues):
    from memboard.core.formats import snapshot

    try:
        made = snapshot.render_template(
            "2026-05-31-0900-a", "a", topic, "s", "u", context, "active", continues=continues
        )
    except Exception as exc:  # a context that cannot be one line of text is refused the same way both times
        made = repr(exc)
    try:
        want = snapshot.TEMPLATE.format(
            id="2026-05-31-0900-a",
            agent="a",
            topic=escape(topic),
            status="active",
            started="s",
            updated="u",
            context=snapshot.safe_line(context) or snapshot.CONTEXT_INSTRUCTION,
            decisions="- None",
            files="- None",
            questions="- None",
            actions="- None",
            continues=snapshot._bullets(continues, "- None"),
            superseded="- None",
        )
    except Exception as exc:
        want = repr(exc)
    assert made == want


@SETTINGS
@given(
    st.sampled_from(["\n", "\r\n", "\r\r\n", "", "\r"]),
    st.sampled_from(["|a|", "| a |", "|  a  |"]),
    st.sampled_from(["active", "stale"]),
)
def test_a_row_set_in_place_is_rewritten_only_when_its_line_changes(ending, spacing, status):
    row_text = f"| 2026-05-31-0900-a | a | T | S | K | {status} | - | s | u |"
    if spacing != "| a |":
        row_text = row_text.replace("| a |", spacing, 1)
    data = (HEADER + "\n" + SEP + "\n" + row_text + ending).encode("utf-8")
    fast, slow = IndexFile(data), IndexFile(data)
    fast_edit, slow_edit = fast.edit(), slow.edit()
    fast_edit.set_fields(fast.rows[0], {"status": "stale"})
    slow_edit.set_fields(replace(slow.rows[0], offset=-1), {"status": "stale"})
    assert fast_edit.replace == slow_edit.replace
    assert fast_edit.to_bytes() == slow_edit.to_bytes()


BIG = bytes(range(256)) * (CHUNK // 128) + b"| tail |\n"  # two chunks and a bit


@pytest.mark.parametrize(
    "on_disk",
    [BIG, BIG[:-2] + b"X\n", b"X" + BIG[1:], BIG + b"more\n", BIG[:-1], BIG[: CHUNK + 1], b"", None],
    ids=[
        "same",
        "last chunk differs",
        "first byte differs",
        "longer",
        "shorter",
        "cut after a chunk",
        "empty",
        "absent",
    ],
)
def test_a_read_compared_with_the_bytes_it_should_hold_is_the_plain_read(tmp_path, on_disk):
    """read_seen(path, expect) reads what read_seen(path) reads; when the file holds exactly expect, its data is
    expect itself (no copy of a large file is made)."""
    path = tmp_path / "index.md"
    if on_disk is not None:
        path.write_bytes(on_disk)
    for expect in (BIG, b""):
        compared, plain = read_seen(path, expect), read_seen(path)
        assert (compared.data, compared.sig, compared.steady) == (plain.data, plain.sig, plain.steady)
        assert (compared.data is expect) == (on_disk == expect)


FOUND = "2026-05-31-0900-cursor-main-agent"
# lines that hold the ID's text without being its row: other cells (escaped pipes around it, several times in a
# line), malformed rows (too few cells, a bad Status, the ID with a suffix), prose, and the ID's own row
QUOTING = [
    f"| 2026-05-31-1000-a | a | follow-up of {FOUND} | s | k | active | - | 2026-05-31 09:00 | 2026-05-31 09:00 |",
    f"| 2026-05-31-1001-b | b | t | `a \\| {FOUND} \\| b` | {FOUND} | idle | {FOUND} | 2026-05-31 09:00 | x |",
    f"| {FOUND} | too | few | cells |",
    f"| {FOUND} | a | t | s | k | closed | - | 2026-05-31 09:00 | 2026-05-31 09:00 |",
    f"| {FOUND}-2 | a | t | s | k | active | - | 2026-05-31 09:00 | 2026-05-31 09:00 |",
    f"| {FOUND}\\| | a | t | s | k | active | - | 2026-05-31 09:00 | 2026-05-31 09:00 |",
    f"| {FOUND} | a | t | s | k | active | - | 2026-05-31 09:00 | 2026-05-31 09:00 |",
    "| 2026-05-31-1002-c | c | t | s | k | stale | - | 2026-05-31 09:00 | 2026-05-31 09:00 |",
    f"|{FOUND}|a|t|s|k|active|-|2026-05-31 09:00|2026-05-31 09:00|",
]


@SETTINGS
@given(
    st.lists(st.integers(0, len(QUOTING) - 1), max_size=14),
    st.sampled_from(["", f"Notes on {FOUND}\n\n", f"| {FOUND} | not | the | table |\n\n"]),
    st.sampled_from(["", f"\nSee {FOUND} above.\n", f"\n| {FOUND} | a | t |\n"]),
    st.sampled_from(["\n", "\r\n"]),
)
def test_a_row_found_by_its_id_is_the_row_a_full_read_finds(picks, pre, post, eol):
    """find() reads only the lines that hold the ID's text, counting line numbers on from the last such line;
    it finds the very rows (lines, offsets, cells, problems) a read of every row finds, wherever else the text is."""
    body = eol.join([HEADER, SEP, *(QUOTING[i] for i in picks)]) + eol
    data = (pre.replace("\n", eol) + body + post.replace("\n", eol)).encode("utf-8")
    full = IndexFile(data)
    expected = [(r.line, r.offset, r.raw_cells, r.problem) for r in full.rows if r.id == FOUND]
    found = IndexFile(data).find(FOUND)
    assert [(r.line, r.offset, r.raw_cells, r.problem) for r in found] == expected
    lines = data.decode("utf-8").splitlines(keepends=True)
    assert all(lines[r.line].startswith(("| " + FOUND, "|" + FOUND)) for r in found)


def test_the_punctuation_table_is_unicode_s_and_mistletoe_runs_with_it():
    """mistletoe's core_tokens gets its punctuation set from the table (no scan of every code point at import):
    the set is the one mistletoe computes, and the module is mistletoe's own, run with it handed in."""
    import subprocess
    import sys
    import unicodedata

    from memboard.core.formats.mdimport import HANDED_IN, unicode_punctuation

    computed = {chr(i) for i in range(sys.maxunicode + 1) if unicodedata.category(chr(i)).startswith("P")}
    assert unicode_punctuation() == computed
    probe = (
        "import sys, unicodedata; import memboard.core.formats.blocks; "
        "ct = sys.modules['mistletoe.core_tokens']; import mistletoe.span_token as st; "
        f"print(int({HANDED_IN!r} in vars(ct)), len(ct.punctuation), int(st.core_tokens is ct), ct.__file__)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    ascii_marks = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
    assert out[:3] == ["1", str(len(ascii_marks | computed)), "1"] and out[3].endswith("core_tokens.py")
    assert read_blocks(["# a\n", "\n", "- b \\| c\n", "  *d*\n"])[1].kind == "list"


@pytest.mark.parametrize("summary", ["a \\| b", "\\|", "x \\|\\| y", "ends \\\\| split", "nul \0 \\| kept", "tail\\"])
def test_rows_with_escaped_pipes_are_read_at_their_pipes_as_cell_by_cell(summary):
    """A third of a real root's Summaries may hold `\\|`: such rows are read in one step (not cell by cell), with
    the cells, values and problem of the plain reading; a double backslash or a NUL still goes cell by cell."""
    line = f"| 2026-05-31-0900-a | a | T | {summary} | K | active | - | s | u |\n"
    index = IndexFile(("\n".join([HEADER, SEP]) + "\n" + line).encode("utf-8"))
    (row,) = index.rows
    want_cells, want_values, want_problem = plain_row(list(COLUMNS), line)
    assert (row.raw_cells, row.values, row.problem) == (want_cells, want_values, want_problem)
    one_step = "\\\\" not in summary and "\0" not in summary and len(want_cells) == len(COLUMNS)
    assert (row.known is None) == one_step
    assert_lean_is_kept(index.data)
    (lean,) = IndexFile(index.data, lean=True).rows
    assert (lean.kept is None) == one_step  # (a row read one step keeps no cells in a lean index)


@pytest.mark.parametrize(
    "body",
    [
        b"| 2026-05-31-0900-a | a\xff | T\xe2\x82 | s \\| t\xc3 | K | active | - | s | u |",
        b"|\xe3\x80\x802026-05-31-0900-a\xe3\x80\x80| a | T | \\|\xc2\xa0 | K |\xc2\x85stale | - | s | u |",
        b"| 2026-05-31-0900-a | a | T | \\| | K | idle | 2026-05-31-0901-b, \\|x | s | u",
        b"| 2026-05-31-0900-a | a | T | x | K | active | - | s | u | \\| |",
        b"|2026-05-31-0900-a|a|T|\\|\\||K|active|-|s|u|",
    ],
)
@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b""])
def test_lean_rows_read_bytes_that_are_no_utf_8_and_unicode_spaces_as_kept_rows(body, ending):
    """A lean row's cell split off its line in bytes is the cell the reader decoded and split (invalid UTF-8 kept by
    surrogateescape, Unicode spaces stripped, escaped pipes at a cell's edge)."""
    data = (
        ("\n".join([HEADER, SEP]) + "\n").encode("utf-8")
        + body
        + ending
        + b"| 2026-05-31-0902-c | a | T | x | K | idle | - | s | u |\n"
    )
    assert_lean_is_kept(data)
