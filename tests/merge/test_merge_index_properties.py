"""merge_index's properties over generated versions of index.md: no row of either version is lost, rows
only in the copy come byte for byte in its order after ours', the merge is deterministic and idempotent,
and its result is still a table (the conflict block changes no row of it)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.core.formats.clock import parse as parse_time
from memboard.core.formats.index import IndexFile, parse_refs
from memboard.core.merge.index import merge_index
from tests.merge.index_rows import HEADER, SEP, A, B, C, index, row
from tests.support.sizes import examples

D = "2026-05-31-1200-gemini-other"
IDS = [A, B, C, D]
TIMES = ["2026-05-31 09:00", "2026-05-31 10:00", "2026-06-01 08:30", "not a time"]
MALFORMED = [
    f"| {C} | codex-helper | T |",  # too few cells
    "| 2026-13-99-9999-x | x | T | S | K | idle | - | a | b |",  # not an ID
    f"| {D} | gemini-other | T | S | K | closed | - | {TIMES[0]} | {TIMES[0]} |",  # not a status
]

cells = st.sampled_from(["T", "S", "a \\| b", "多语言", "x"])


@st.composite
def lines(draw: st.DrawFn) -> str:
    """A table line: mostly a well-formed row of one of a few sessions, sometimes a malformed one."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(MALFORMED))
    sid = draw(st.sampled_from(IDS))
    agent = sid[16:] if draw(st.integers(0, 7)) else "someone-else"
    started = TIMES[0] if draw(st.integers(0, 7)) else TIMES[1]
    refs = draw(st.lists(st.sampled_from(IDS), max_size=2, unique=True))
    values = [
        sid,
        agent,
        draw(cells),
        draw(cells),
        draw(cells),
        draw(st.sampled_from(["idle", "active", "stale"])),
        ", ".join(refs) or "-",
        started,
        draw(st.sampled_from(TIMES)),
    ]
    pad = draw(st.sampled_from([" ", "  "]))
    return "|" + "|".join(pad + v + pad for v in values) + "|"


@st.composite
def versions(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """Two versions of one index.md (same line endings, BOM and text around the table, or not)."""
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    bom = draw(st.booleans())
    final = draw(st.booleans())
    out = []
    for _ in range(2):
        rows = draw(st.lists(lines(), max_size=6))
        pre = draw(st.sampled_from(["", "# Memory" + eol + eol, "# Other" + eol + eol]))
        post = draw(st.sampled_from(["", eol + "notes" + eol]))
        text = pre + eol.join([HEADER, SEP, *rows]) + (eol if final or post else "") + post
        out.append((("\ufeff" if bom else "") + text).encode())
    return out[0], out[1]


def table(data: bytes) -> list[str]:
    """The table's lines as written (without endings)."""
    parsed = IndexFile(data)
    return [parsed.locate(r)[0].rstrip("\r\n") for r in parsed.rows]


def cells_of(line: str) -> tuple[str, ...]:
    """A line's cells as the index reads them (spacing aside)."""
    return IndexFile(f"{HEADER}\n{SEP}\n{line}\n".encode()).rows[0].raw_cells


def distinct(lines_: list[str]) -> list[str]:
    """Lines with the same cells once, the first kept."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for line in lines_:
        if cells_of(line) not in seen:
            seen.add(cells_of(line))
            out.append(line)
    return out


PROPERTY = settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(versions())
def test_no_row_of_either_version_is_lost_and_rows_only_in_the_copy_come_byte_for_byte_after_ours(pair):
    ours, theirs = pair
    merged = merge_index(ours, theirs)
    assert not merged.unparsed
    got, mine, other = table(merged.data), table(ours), table(theirs)
    ids = {IndexFile(merged.data).rows[i].id for i in range(len(got))}
    assert {r.id for r in IndexFile(ours).rows} | {r.id for r in IndexFile(theirs).rows} <= ids
    assert [IndexFile(merged.data).rows[i].id for i in range(len(mine))] == [r.id for r in IndexFile(ours).rows]
    assert got[: len(mine)] == [
        line for line, was in zip(got, mine, strict=False) if cells_of(line)[0] == cells_of(was)[0]
    ]
    only_ours = {r.id for r in IndexFile(ours).rows} - {r.id for r in IndexFile(theirs).rows}
    assert [line for line in got if cells_of(line)[0] in only_ours] == [
        line for line in mine if cells_of(line)[0] in only_ours
    ]
    new_ids = {r.id for r in IndexFile(theirs).rows} - {r.id for r in IndexFile(ours).rows}
    only_theirs = distinct([line for line, r in zip(other, IndexFile(theirs).rows, strict=True) if r.id in new_ids])
    assert [line for line in got[len(mine) :] if cells_of(line)[0] in new_ids] == only_theirs
    # a line of a session written on several lines, or malformed, is never merged: each line of either is there
    kept = {cells_of(line) for line in got}
    for version in (ours, theirs):
        parsed = IndexFile(version)
        for r in parsed.rows:
            if r.problem or len(parsed.find(r.id)) > 1:
                assert r.raw_cells in kept


@PROPERTY
@given(versions())
def test_the_merge_is_deterministic_idempotent_and_still_a_table(pair):
    ours, theirs = pair
    merged = merge_index(ours, theirs)
    assert merge_index(bytes(ours), bytes(theirs)) == merged
    again = merge_index(merged.data, theirs)
    assert again.data == merged.data and again.added == 0 and again.cells == 0
    parsed = IndexFile(merged.data)
    assert parsed.has_table and not parsed.conflict_lines and not parsed.outside
    assert parsed.bom == IndexFile(ours).bom and merged.data.endswith(b"\n") == ours.endswith(b"\n")
    assert len(parsed.rows) == len(table(ours)) + merged.added - sum(1 for _ in merged.held_back)
    assert merge_index(ours, theirs, prefer="ours").data == merged.data
    theirs_way = merge_index(ours, theirs, prefer="theirs")
    assert theirs_way.open == () and table(merge_index(theirs_way.data, theirs, prefer="theirs").data) == table(
        theirs_way.data
    )


@PROPERTY
@given(versions())
def test_the_conflict_block_changes_no_row_of_the_table(pair):
    ours, theirs = pair
    plain = merge_index(ours, theirs)
    marked = merge_index(ours, theirs, marker_size=7)
    assert table(marked.data) == table(plain.data) and marked.open == plain.open
    assert bool(IndexFile(marked.data).conflict_lines) == bool(plain.open)
    assert marked.data.count(b"<<<<<<< ours") == (1 if plain.open else 0)


@PROPERTY
@given(versions(), st.lists(lines(), max_size=6))
def test_three_way_keeps_every_row_added_since_the_ancestor_and_is_idempotent(pair, base_rows):
    ours, theirs = pair
    base = ("\n".join([HEADER, SEP, *base_rows]) + "\n").encode()
    merged = merge_index(ours, theirs, base)
    assert not merged.unparsed
    assert merge_index(ours, theirs, base) == merged
    assert merge_index(merged.data, theirs, base).data == merged.data
    was = {r.raw_cells for r in IndexFile(base).rows}
    kept = {r.raw_cells for r in IndexFile(merged.data).rows}
    ids = {r.id for r in IndexFile(merged.data).rows}
    for version in (ours, theirs):
        for r in IndexFile(version).rows:
            if r.raw_cells not in was:  # changed or added since the ancestor: never dropped
                assert r.id in ids
                if r.problem:
                    assert r.raw_cells in kept
    assert IndexFile(merged.data).has_table


junk = st.lists(
    st.one_of(
        lines(),
        st.sampled_from([HEADER, SEP, "", "text", "<<<<<<< ours", "=======", ">>>>>>> theirs", "```", "| a |"]),
        st.binary(max_size=12).map(lambda b: b.decode("utf-8", "surrogateescape")),
    ),
    max_size=10,
)


@PROPERTY
@given(junk, junk, st.one_of(st.none(), junk))
def test_any_bytes_merge_without_an_error_and_an_unreadable_version_leaves_ours(a, b, c):
    ours, theirs = ("\n".join(a).encode("utf-8", "surrogateescape"), "\n".join(b).encode("utf-8", "surrogateescape"))
    base = None if c is None else "\n".join(c).encode("utf-8", "surrogateescape")
    merged = merge_index(ours, theirs, base)
    if merged.unparsed:
        assert merged.data == ours
    elif IndexFile(ours).has_table:
        assert IndexFile(merged.data).columns == IndexFile(ours).columns
        assert merge_index(merged.data, theirs, base).data == merged.data


ACTIONS = st.sampled_from(["keep", "delete", "summary", "refs"])


@PROPERTY
@given(st.integers(0, 6), st.lists(st.tuples(ACTIONS, ACTIONS), min_size=6, max_size=6), st.integers(0, 2))
def test_three_way_takes_each_sides_own_change_and_keeps_a_deletion_only_of_an_unchanged_row(n, actions, added):
    sids = [f"2026-05-31-09{i:02d}-agent-{i}" for i in range(n)]
    base = [row(sid) for sid in sids]
    sides: list[list[str]] = [[], []]
    for sid, acts in zip(sids, actions, strict=False):
        for side, act in enumerate(acts):
            if act == "keep":
                sides[side].append(row(sid))
            elif act == "summary":
                sides[side].append(row(sid, summary=f"side {side}"))
            elif act == "refs":
                sides[side].append(row(sid, refs=f"2026-05-31-1000-ref-{side}"))
    for side in range(2):
        sides[side] += [row(f"2026-06-01-10{side}{i}-new-{side}") for i in range(added)]
    merged = merge_index(index(*sides[0]), index(*sides[1]), index(*base))
    got = {r.id: r for r in IndexFile(merged.data).rows}
    for sid, (mine, other) in zip(sids, actions, strict=False):
        if "delete" in (mine, other) and {mine, other} <= {"keep", "delete"}:
            assert sid not in got  # deleted on one side, unchanged (or deleted) on the other
            continue
        assert sid in got
        summary, refs = got[sid].get("summary"), got[sid].refs
        if mine == "summary":
            assert summary == "side 0"
        elif other == "summary":
            assert summary == "side 1"
        else:
            assert summary == "S"
        assert refs == [f"2026-05-31-1000-ref-{side}" for side, act in enumerate((mine, other)) if act == "refs"]
        assert [c.column for c in merged.open if c.id == sid] == (["Summary"] if mine == other == "summary" else [])
    for side in range(2):
        for i in range(added):
            assert f"2026-06-01-10{side}{i}-new-{side}" in got
    assert len(got) == len(IndexFile(merged.data).rows)


@PROPERTY
@given(versions())
def test_the_rules_decide_a_row_the_same_way_whichever_version_is_ours(pair):
    ours, theirs = pair
    one, other = merge_index(ours, theirs), merge_index(theirs, ours)
    if one.open or other.open or one.collisions or other.collisions:
        return
    a, b = IndexFile(one.data), IndexFile(other.data)
    assert a.ids() == b.ids()
    for sid in a.ids():
        rows_a, rows_b = a.find(sid), b.find(sid)
        if len(rows_a) == len(rows_b) == 1 and rows_a[0].problem is None:
            va, vb = rows_a[0].values, rows_b[0].values
            assert set(parse_refs(va.pop("referenced_by"))) == set(parse_refs(vb.pop("referenced_by")))
            va_times = (parse_time(va.pop("updated_at")), parse_time(va.pop("started_at")))
            vb_times = (parse_time(vb.pop("updated_at")), parse_time(vb.pop("started_at")))
            assert va == vb and va_times == vb_times
