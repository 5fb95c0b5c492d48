"""The cold layer's pure part (issue 24 §4 "archive"): moved ranges plus kept ranges are the original entries,
byte for byte; topics move whole; a half-done move is found and finished; another writer's entries survive."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from memboard.core.spaces import archive as A
from memboard.core.spaces import cold
from memboard.core.spaces.entries import parse
from tests.spaces.test_spdream_entries import SETTINGS, document, fence


@st.composite
def research_file(draw: st.DrawFn) -> str:
    """A research.md: topics in two contexts, fields closing some, fences, identical entries, CRLF, no final newline."""
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines = ["# 研究记录", ""]
    count = draw(st.integers(0, 8))
    made: list[list[str]] = []
    for _ in range(count):
        if made and draw(st.integers(0, 4)) == 0:
            made.append(list(draw(st.sampled_from(made))))
            continue
        ctx = draw(st.sampled_from(["main", "fork-1"]))
        entry = [f"### 2026-11-30 14:0{draw(st.integers(0, 9))} [context: {ctx}]"]
        entry.append(f"- 研究主题：{draw(st.sampled_from(['FTS5', 'trigram', '']))}")
        entry.append(f"- 是否有效：{draw(st.sampled_from(['yes', 'no', 'partial', 'unknown', 'No ']))}")
        entry.append(f"- 是否并入主线：{draw(st.sampled_from(['yes', 'no', 'YES']))}")
        if draw(st.booleans()):
            entry.extend(draw(fence()))
        made.append(entry)
    for entry in made:
        lines.extend(entry)
    text = newline.join(lines)
    with_end: bool = draw(st.booleans())
    return text + newline if with_end else text


def _check_partition(text: str, move: A.Move | None) -> None:
    doc = parse(text)
    if move is None:
        return
    moved = [e.text for e in move.moved]
    kept = [e.text for e in move.kept]
    # each original entry is exactly one of moved or kept, in order
    it_m, it_k = iter(moved), iter(kept)
    chosen = {e.start for e in move.moved}
    for e in doc.entries:
        assert e.text == (next(it_m) if e.start in chosen else next(it_k))
    assert move.source_after == doc.preamble + "".join(kept)
    assert move.archive_after.endswith("".join(moved))


@SETTINGS
@given(document(), st.integers(0, 8), st.one_of(st.none(), st.sampled_from(["", "# old\n", "# old\r\n### x\r\nend"])))
def test_history_moved_and_kept_ranges_are_the_original_entries(
    doc: tuple[str, str, list[str]], keep: int, old: str | None
) -> None:
    text = doc[0]
    parsed = parse(text)
    move = A.plan_move(A.HISTORY, text, A.history_moving(parsed, keep), old)
    _check_partition(text, move)
    if move is not None:
        assert len(move.kept) == min(keep, len(parsed.entries))
        assert sorted(e.text for e in move.moved + move.kept) == sorted(e.text for e in parsed.entries)
        head = A.HISTORY_ARCHIVE_HEADER.replace("\n", parsed.newline) + parsed.newline if old is None else old
        if old and not old.endswith("\n"):
            head += "\r\n"
        assert move.archive_after == head + "".join(e.text for e in move.moved)


@SETTINGS
@given(research_file())
def test_research_topics_move_whole_and_ranges_partition_the_file(text: str) -> None:
    parsed = parse(text)
    move = A.plan_move(A.RESEARCH, text, A.research_moving(parsed), None)
    _check_partition(text, move)
    moved_keys = {(e.context, e.field("研究主题")) for e in (move.moved if move else ())}
    for e in move.kept if move else parsed.entries:
        assert (e.context, e.field("研究主题")) not in moved_keys  # never a topic split
    for t in A.topics(parsed):
        latest = parsed.entries[t.indexes[-1]]
        assert t.closed == A.closes(latest)


@SETTINGS
@given(research_file())
def test_a_crash_between_the_writes_is_found_and_finished(text: str) -> None:
    parsed = parse(text)
    move = A.plan_move(A.RESEARCH, text, A.research_moving(parsed), None)
    if move is None:
        return
    moved = [e.text for e in move.moved]
    record = {
        "count": len(moved),
        "archive_sha": cold.text_sha(move.archive_after),
        "after_sha": cold.text_sha(move.source_after),
    }
    # crashed: the archive written, the source not; its journal names the archive's tail
    assert cold.journal_pending(record, parsed, move.archive_after) == moved
    assert A.remove_ranges(parsed, moved) == move.source_after
    # finished: nothing pending, identical entries on both sides included
    assert cold.journal_pending(record, parse(move.source_after), move.archive_after) == []
    # the archive changed since (not the one the journal wrote): nothing taken for half-done
    assert cold.journal_pending(record, parsed, move.archive_after + "x") == []


def test_topic_moves_whole_when_its_latest_entry_closes_it() -> None:
    text = (
        "# r\n\n### 2026-01-01 10:00 [context: main]\n- 研究主题：A\n- 是否有效：unknown\n- 是否并入主线：no\n"
        "### 2026-01-01 10:01 [context: fork]\n- 研究主题：A\n- 是否有效：no\n"
        "### 2026-01-01 10:02 [context: main]\n- 研究主题：A\n- 是否并入主线：yes\n"
        "### 2026-01-01 10:03 [context: main]\n- 研究主题：B\n- 是否有效：no\n"
        "### 2026-01-01 10:04 [context: main]\n- 研究主题：B\n- 是否有效：partial\n"
    )
    doc = parse(text)
    assert A.research_moving(doc) == [0, 1, 2]  # main/A closed by its latest; fork/A closed; main/B reopened


def test_removal_beside_a_writer_keeps_what_it_appended_and_stops_when_a_range_changed() -> None:
    entry = "### 2026-01-01 10:00\n- a\n"
    fresh = "# h\n\n" + entry + "### 2026-01-01 10:01\n- b\n\n### 2026-01-02 09:00\n- new\n"
    assert A.remove_ranges(fresh, [entry]) == "# h\n\n### 2026-01-01 10:01\n- b\n\n### 2026-01-02 09:00\n- new\n"
    assert A.remove_ranges(fresh.replace("- a", "- A"), [entry]) is None
    # an entry that ended the file without a line end, then another writer appended after it
    last = "### 2026-01-01 10:00\n- a"
    assert A.remove_ranges("# h\n\n" + last + "\n\n### 2026-01-02 09:00\n- new\n", [last]) == (
        "# h\n\n\n\n### 2026-01-02 09:00\n- new\n"
    )


def test_identical_entries_are_two_entries() -> None:
    entry = "### 2026-01-01 10:00\n- same\n"
    text = "# h\n\n" + entry * 3
    move = A.plan_move(A.HISTORY, text, A.history_moving(parse(text), 1), None)
    assert move is not None and len(move.moved) == 2 and move.source_after == "# h\n\n" + entry
    assert move.archive_after.count(entry) == 2


def test_a_new_archive_starts_with_the_skills_header_in_the_sources_line_ends() -> None:
    text = "# h\r\n\r\n### 2026-01-01 10:00\r\n- a\r\n### 2026-01-01 10:01\r\n"
    move = A.plan_move(A.HISTORY, text, [0], None)
    assert move is not None
    assert move.archive_after == (
        "# 会话记忆历史归档\r\n\r\n这是 dream 之后转冷的旧条目。除非用户明确要求查看归档，否则默认不要读取这里。\r\n\r\n"
        "### 2026-01-01 10:00\r\n- a\r\n"
    )


def test_dream_snapshots_older_than_the_keep_days_move_by_month_never_over_a_file() -> None:
    now = datetime(2026, 12, 2, tzinfo=UTC)
    old = datetime(2026, 9, 1, tzinfo=UTC)
    snaps = [
        ("20261001T101010+0000-p-1234abcd.md", now),  # the name's time wins over the modification time
        ("20261130T101010+0000-p-1234abcd.md", now),
        ("hand.md", old),
    ]
    taken = {"2026-10": {"20261001T101010+0000-p-1234abcd.md", "20261001T101010+0000-p-1234abcd-1.md"}}
    assert A.dream_moves(snaps, taken, now, 30) == [
        ("dreams/20261001T101010+0000-p-1234abcd.md", "archive/dreams/2026-10/20261001T101010+0000-p-1234abcd-2.md"),
        ("dreams/hand.md", "archive/dreams/2026-09/hand.md"),
    ]
