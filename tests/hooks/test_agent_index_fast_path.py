"""The index's lazy fast paths (table extent by scanning, ID lookup, append splice) agree with a full parse."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memboard.core.errors import Refused
from memboard.core.formats.index import IndexFile
from memboard.core.formats.text import is_separator, line_body, line_ending, split_cells, split_lines, unescape
from tests.support.sizes import examples

HEADER = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |"
SEP = "|---|---|---|---|---|---|---|---|---|"
SID = "2026-06-01-0930-claude-main-agent"
ROW = f"| {SID} | claude-main-agent | 未設定 | s | k | idle | - | 2026-06-01 09:30 | 2026-06-01 09:30 |"
FRAGMENTS = [
    HEADER,
    SEP,
    ROW,
    ROW.replace("idle", "active"),
    ROW.replace(SID, SID + "-2"),
    f"| 2026-06-01-0931-x | x | a \\| b | s | k | idle | {SID} | t | t |",
    "| broken | row |",
    "|",
    "text",
    "",
    "   ",
    "```",
    "~~~",
    "# Memory Index",
    "  | indented | table |",
    "\u3000| wide space |",
    "\xa0| nbsp |",
    "\x1c| fs |",
    "a\u2028b",
    "x\x85y",
    "| Session ID |",
    "\udcff| invalid byte |",
    "\u2003 \u3000| em and wide |",
    "\udce3\udc80| torn wide space |",
    "\u200b| zero width |",
]
ENDINGS = ["\n", "\r\n", "\r", "", "\r\r\n"]


def reference_split(text: str) -> list[str]:
    """The original split: on \\n only."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def reference_extent(lines: list[str]) -> tuple[int | None, int]:
    """The original line-by-line search for the header and the table's end."""
    fence = None
    n = len(lines)
    for i in range(n):
        body = line_body(lines[i])
        stripped = body.lstrip()
        if fence:
            if stripped.startswith(fence):
                fence = None
            continue
        if stripped.startswith("```") or stripped.startswith("~~~"):
            fence = stripped[:3]
            continue
        if stripped.startswith("|") and i + 1 < n:
            cells = split_cells(body)
            if cells and "Session ID" in [unescape(c) for c in cells]:
                sep = split_cells(line_body(lines[i + 1]))
                if sep is not None and is_separator(sep):
                    j = i + 2
                    while j < n and split_cells(line_body(lines[j])) is not None:
                        j += 1
                    return i, j
    return None, n


ROWISH = [
    ROW,
    ROW.replace("idle", "active"),
    ROW.replace(SID, SID + "-2"),
    FRAGMENTS[5],
    "| broken | row |",
    "|",
    "  | indented | table |",
    "\u3000| wide space |",
    "\xa0| nbsp |",
    "\x1c| fs |",
    "text",
    "",
    "   ",
    "\udcff| invalid byte |",
    "\u2003 \u3000| em and wide |",
    "\udce3\udc80| torn wide space |",
    "\u200b| zero width |",
]
lines_of = lambda pool, n: st.lists(st.tuples(st.sampled_from(pool), st.sampled_from(ENDINGS)), max_size=n)


def reference_eol(lines: list[str], header: int | None, end: int) -> str:
    """The original choice of line ending: the table's last line, its header, the file's first line."""
    candidates = [lines[end - 1], lines[header]] if header is not None else []
    for line in candidates + lines[:1]:
        if line_ending(line):
            return line_ending(line)
    return "\n"


texts = st.builds(
    lambda bom, before, table, head_end, sep_end, rows, after: (
        ("\ufeff" if bom else "")
        + "".join(f + e for f, e in before)
        + ((HEADER + head_end + SEP + sep_end) if table else "")
        + "".join(f + e for f, e in rows)
        + "".join(f + e for f, e in after)
    ),
    st.booleans(),
    lines_of(FRAGMENTS, 5),
    st.booleans(),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.sampled_from(ENDINGS),
    lines_of(ROWISH, 8),
    lines_of(FRAGMENTS, 4),
)


@settings(max_examples=examples(400), deadline=None)
@given(texts)
def test_fast_paths_match_a_full_parse(text):
    data = text.encode("utf-8", "surrogateescape")  # lone surrogates stand for bytes that are not UTF-8
    text = data.decode("utf-8", "surrogateescape")
    assert split_lines(text) == reference_split(text)
    lazy = IndexFile(data)
    full = IndexFile(data)
    lines = full.lines
    _ = full.rows  # parsed: find() takes the plain path on this one
    body = text[1:] if text.startswith("\ufeff") else text
    assert lines == reference_split(body)
    assert (lazy.header_line, lazy.table_end) == reference_extent(lines)
    for sid in (SID, SID + "-2", "2026-06-01-0931-x", "broken", "nope"):
        assert lazy.find(sid) == full.find(sid)
        assert [r.values for r in lazy.find(sid)] == [r.values for r in full.find(sid)]
    assert lazy.eol() == reference_eol(lines, *reference_extent(lines))

    def outcome(make):
        """The appended bytes, or the refusal (a table lacking protocol columns is refused)."""
        try:
            return make()
        except Refused as exc:
            return ("refused", str(exc))

    def slow():
        slow_edit = full.edit().append({"id": "2026-06-02-1000-codex-main-agent", "topic": "a|b"})
        if lines:
            slow_edit.replace[0] = lines[0]  # a no-op replacement forces the line-by-line rendering
        return slow_edit.to_bytes()

    fast = outcome(
        lambda: IndexFile(data).edit().append({"id": "2026-06-02-1000-codex-main-agent", "topic": "a|b"}).to_bytes()
    )
    assert fast == outcome(slow)
    if isinstance(fast, bytes):
        assert fast.startswith(b"\xef\xbb\xbf") == text.startswith("\ufeff")


def test_the_byte_level_whitespace_set_is_what_str_strip_removes():
    from memboard.core.formats.index import WHITESPACE

    every = {chr(c) for c in range(0x110000) if chr(c).isspace()}
    assert set(WHITESPACE) == every - {"\n"}
