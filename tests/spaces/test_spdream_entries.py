"""history.md / research.md entries (issue 24 §3): every byte is the preamble's or one entry's, at its exact range."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.core.formats.text import encode
from memboard.core.spaces.entries import line_end, parse, parse_bytes
from tests.support.sizes import examples

SETTINGS = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])

free_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),  # type: ignore[arg-type]
    max_size=20,
).filter(lambda s: not s.lstrip(" ").startswith(("```", "~~~", "### ")) and not s.startswith("\ufeff"))
tricky_line = st.sampled_from(
    ["### not a heading in a fence", "###", "#### deeper", "- 研究主题：x", "", "> ### quoted"]
)


@st.composite
def fence(draw: st.DrawFn) -> list[str]:
    """A closed fence holding lines that would start entries outside it."""
    mark = draw(st.sampled_from(["```", "~~~", "````", "~~~~"]))
    inner = draw(st.lists(st.one_of(free_text, st.just("### 2026-01-01 10:00 [context: x]"), tricky_line), max_size=4))
    other = "~~~" if mark[0] == "`" else "```"  # the other kind never closes it
    closer = mark + draw(st.sampled_from(["", mark[0], " "]))
    return [mark + draw(st.sampled_from(["", "py", " text"])), *inner, other, closer]


body_block = st.one_of(
    free_text.map(lambda s: [s]), tricky_line.filter(lambda s: not s.startswith("### ")).map(lambda s: [s]), fence()
)


@st.composite
def entry_lines(draw: st.DrawFn) -> list[str]:
    """One entry's lines: a heading then body lines, fields and fences."""
    time = draw(st.sampled_from(["2026-11-30 14:05", "2026-01-02 03:04", "bad time", "2026-13-40 99:99"]))
    context = draw(st.sampled_from(["", " [context: main@当前路线]", " [context: fork-1]"]))
    lines = [f"### {time}{context}"]
    for block in draw(st.lists(body_block, max_size=5)):
        lines.extend(block)
    return lines


@st.composite
def document(draw: st.DrawFn) -> tuple[str, str, list[str]]:
    """A file, its expected preamble and expected entries (identical entries repeated on purpose)."""
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    preamble_lines = ["# 会话记忆历史", ""]
    for block in draw(
        st.lists(st.one_of(body_block, st.just(["### YYYY-MM-DD HH:MM [context: main]", "- 触发原因："])), max_size=4)
    ):
        preamble_lines.extend(block)
    entries: list[list[str]] = draw(st.lists(entry_lines(), max_size=6))
    repeat: bool = draw(st.booleans())
    if entries and repeat:
        entries.append(list(draw(st.sampled_from(entries))))  # an identical entry
        entries.insert(draw(st.integers(0, len(entries))), list(entries[0]))
    with_bom: bool = draw(st.booleans())
    bom = "\ufeff" if with_bom else ""
    if bom and draw(st.booleans()):
        preamble_lines = []  # the first line after the BOM is a heading
    pieces = [[line + newline for line in preamble_lines]] + [[line + newline for line in e] for e in entries]
    if draw(st.booleans()):  # no final newline
        for piece in reversed(pieces):
            if piece:
                piece[-1] = piece[-1][: -len(newline)]
                break
    preamble = bom + "".join(pieces[0])
    texts = ["".join(p) for p in pieces[1:]]
    return preamble + "".join(texts), preamble, texts


@SETTINGS
@given(document())
def test_preamble_and_entries_are_the_file_at_their_exact_ranges(doc: tuple[str, str, list[str]]) -> None:
    text, preamble, texts = doc
    parsed = parse(text)
    assert parsed.preamble == preamble
    assert [e.text for e in parsed.entries] == texts
    assert parsed.join() == text
    data = encode(text)
    for e in parsed.entries:
        assert text[e.start : e.end] == e.text
        assert data[e.byte_start : e.byte_end] == e.data
    assert parse_bytes(data).entries == parsed.entries


def test_an_unclosed_fence_runs_to_the_end_of_the_file() -> None:
    text = "# h\n\n### 2026-01-01 10:00\n```\n### 2026-01-02 10:00\n"
    assert [e.text for e in parse(text).entries] == ["### 2026-01-01 10:00\n```\n### 2026-01-02 10:00\n"]


def test_a_backtick_fence_with_a_backtick_in_its_info_is_not_a_fence() -> None:
    text = "```a`b\n### 2026-01-01 10:00\nx"
    assert [e.text for e in parse(text).entries] == ["### 2026-01-01 10:00\nx"]


def test_heading_time_context_and_fields_read_as_the_skill_reads_them() -> None:
    text = (
        "\ufeff# 研究记录\r\n\r\n### YYYY-MM-DD HH:MM [context: fork-1]\r\n- 研究主题：\r\n\r\n"
        "### 2026-11-30 14:05 [context: main@当前路线]\r\n- 研究主题： FTS5 \r\n- 是否有效:no\r\n"
        "- 是否有效：partial\r\n  - 下一步：deeper\r\n"
    )
    doc = parse(text)
    assert doc.bom and doc.newline == "\r\n"
    assert doc.preamble.endswith("- 研究主题：\r\n\r\n")
    (entry,) = doc.entries
    assert (entry.time, entry.context, entry.heading) == (
        "2026-11-30 14:05",
        "main@当前路线",
        "2026-11-30 14:05 [context: main@当前路线]",
    )
    assert entry.field("研究主题") == "FTS5"
    assert entry.field("是否有效") == "partial"  # the last one wins, as in the skill's dict
    assert entry.field("下一步") == "deeper"  # the skill strips the line before matching
    assert entry.field("missing") is None
    assert entry.when() is not None and entry.when().hour == 14  # type: ignore[union-attr]


def test_a_heading_without_a_real_time_is_still_an_entry() -> None:
    (entry,) = parse("### 2026-13-40 99:99 x\n").entries
    assert entry.time == "2026-13-40 99:99" and entry.when() is None


def test_line_end_of_a_text_without_one_is_lf() -> None:
    assert line_end("abc") == "\n" and line_end("a\r\nb\n") == "\r\n" and line_end("\r\n") == "\r\n"


def test_invalid_utf8_survives_at_its_byte_range() -> None:
    data = b"pre\n### 2026-01-01 10:00\n\xff\xfe\n### 2026-01-01 10:01\n"
    doc = parse_bytes(data)
    assert [data[e.byte_start : e.byte_end] for e in doc.entries] == [
        b"### 2026-01-01 10:00\n\xff\xfe\n",
        b"### 2026-01-01 10:01\n",
    ]
