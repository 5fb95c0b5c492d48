"""Property tests of the document merges (Hypothesis): nothing of either version vanishes, the merge is
deterministic and idempotent, and merging a copy the original already holds changes nothing."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.core.formats.note import Note, read_note, render_note
from memboard.core.formats.snapshot import Snapshot, render_template, vanished
from memboard.core.formats.statements import Statements
from memboard.core.merge.documents import lost_by_section, merge_note, merge_snapshot
from tests.reliability import gfm
from tests.reliability.test_snapshot_markdown import (
    TEMPLATE_SECTIONS,
    assert_kept,
    is_placeholder,
    normalized,
    report,
    sections,
)
from tests.support.sizes import examples

SETTINGS = settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
SID = "2026-06-01-0930-cursor-main-agent"
LISTS = ("decisions", "files", "questions", "actions")
SECTION_OF = {
    "decisions": "Decisions",
    "files": "Files / Artifacts",
    "questions": "Open Questions",
    "actions": "Next Actions",
}
WORDS = ["Use SQLite", "Keep CRLF", "Ship on Friday", "Port 8080", "中文 決定", "x|y pipe", "`code` here", "#tag"]
TIMES = ["2026-06-01 10:00", "2026-06-01 10:00", "2026-06-01 11:00", "2026-06-02 09:00"]


@st.composite
def version(draw, base: dict[str, list[str]], tag: str) -> dict[str, list[str]]:
    """One machine's lists: each base item kept, marked, extended or dropped, and new items of its own."""
    out: dict[str, list[str]] = {}
    for name in LISTS:
        kept = []
        for item in base[name]:
            how = draw(st.sampled_from(["keep", "keep", "mark", "extend", "drop"]))
            if how == "mark":
                item = f"[{draw(st.sampled_from(['done', 'resolved', 'superseded']))}] {item}"
            elif how == "extend":
                item = f"{item}, {tag} says more"
            if how != "drop":
                kept.append(item)
        new = draw(st.lists(st.sampled_from(WORDS), max_size=2, unique=True))
        out[name] = kept + [f"{word} {tag}{i}" for i, word in enumerate(new)]
    return out


@st.composite
def two_versions(draw) -> tuple[bytes, bytes]:
    """A snapshot as two machines left it after working apart from one common version."""
    base: dict[str, list[str]] = {
        name: draw(st.lists(st.sampled_from(WORDS), max_size=3, unique=True)) for name in LISTS
    }
    sides = []
    for tag in ("o", "t"):
        lists = draw(version(base, tag))
        text = render_template(
            SID,
            "cursor-main-agent",
            draw(st.sampled_from(["T", "T", "Other"])),
            "2026-06-01 09:30",
            draw(st.sampled_from(TIMES)),
            status=draw(st.sampled_from(["active", "idle"])),
            **lists,
        )
        eol = draw(st.sampled_from(["\n", "\n", "\r\n"]))
        sides.append(text.replace("\n", eol).encode())
    return sides[0], sides[1]


@given(two_versions())
@SETTINGS
def test_no_item_of_either_version_vanishes_and_a_second_merge_changes_nothing(pair):
    ours, theirs = pair
    got = merge_snapshot(ours, theirs)
    assert not got.unparsed
    text = got.data.decode()
    assert vanished(ours.decode(), text) == [] and vanished(theirs.decode(), text) == []
    assert lost_by_section(Snapshot(ours), Snapshot(text)) == lost_by_section(Snapshot(theirs), Snapshot(text)) == []
    assert merge_snapshot(ours, theirs) == got  # deterministic
    assert merge_snapshot(got.data, theirs).data == got.data  # idempotent
    assert merge_snapshot(got.data, ours).data == got.data  # ours is contained in it: a no-op
    assert [s.name for s in Snapshot(got.data).sections] == [s.name for s in Snapshot(ours).sections]
    assert text.count("\r\n") in (0, text.count("\n"))


@given(two_versions())
@SETTINGS
def test_every_item_one_machine_added_is_there_once_after_a_three_way_merge(pair):
    ours, theirs = pair
    base = render_template(SID, "cursor-main-agent", "T", "2026-06-01 09:30", "2026-06-01 09:30").encode()
    got = merge_snapshot(ours, theirs, base)
    assert not got.unparsed
    text = got.data.decode()
    assert vanished(ours.decode(), text) == [] and vanished(theirs.decode(), text) == []
    assert merge_snapshot(ours, base, base).data == ours and merge_snapshot(base, theirs, base).data == theirs


@given(sections("o"), sections("n"), st.booleans(), st.sampled_from(["\n", "\r\n"]))
@SETTINGS
def test_markdown_heavy_sections_of_both_versions_are_kept_as_github_reads_them(old_bodies, new_bodies, extends, eol):
    """The oracle is cmark-gfm: every section and item of ours as it was, every item of theirs there."""
    if extends:  # the copy holds the original's items and more (the other machine worked on)
        new_bodies = {
            name: old_bodies[name] + "\n\n" + body if name in old_bodies else body for name, body in new_bodies.items()
        }
    ours = with_bodies(old_bodies, "2026-06-01 09:30").replace("\n", eol)
    theirs = with_bodies(new_bodies, "2026-06-01 09:30")
    got = merge_snapshot(ours.encode(), theirs.encode())
    after = got.data.decode()
    assert not got.unparsed, report(ours, theirs, after)
    assert_kept(ours, after, theirs, report(ours, theirs, after))
    assert merge_snapshot(got.data, theirs.encode()).data == got.data, report(ours, theirs, after)
    assert merge_snapshot(got.data, ours.encode()).data == got.data, report(ours, theirs, after)


def with_bodies(bodies: dict[str, str], updated: str) -> str:
    """The template with these sections' bodies in place of its defaults (other sections added at the end)."""
    text = render_template(SID, "cursor-main-agent", "T", "2026-06-01 09:30", updated)
    for name, body in bodies.items():
        default = "Summarize what has happened in this agent session so far." if name == "Current Context" else "- None"
        if f"## {name}\n\n{default}\n" in text:
            text = text.replace(f"## {name}\n\n{default}\n", f"## {name}\n\n{body}\n", 1)
        else:
            text += f"\n## {name}\n\n{body}\n"
    return text


STATEMENTS = ["Use Postgres.", "- Keep CRLF", "- 中文 決定", "Ports are 8080 and 8081.", "- x|y", "1. First step"]
NOTE_SECTIONS = ("what", "why", "where", "learned")


@st.composite
def two_notes(draw) -> tuple[bytes, bytes]:
    """A note as two machines saved it: statements of their own beside the common ones."""
    common = {name: draw(st.lists(st.sampled_from(STATEMENTS), max_size=2, unique=True)) for name in NOTE_SECTIONS}
    out = []
    for tag in ("o", "t"):
        bodies = {}
        for name in NOTE_SECTIONS:
            own = [f"{s} {tag}{i}" for i, s in enumerate(draw(st.lists(st.sampled_from(STATEMENTS), max_size=2)))]
            bodies[name] = "\n\n".join(common[name] + own)
        note = Note(
            title=draw(st.sampled_from(["Pick a store", "Pick a store", "Pick the store"])),
            type="decision",
            scope="project",
            topic_key="memory/store",
            supersedes=tuple(draw(st.lists(st.sampled_from(["a/b", "c/d"]), max_size=2, unique=True))),
            updated=draw(st.sampled_from(TIMES)),
            **bodies,  # type: ignore[arg-type]
        )
        eol = draw(st.sampled_from(["\n", "\n", "\r\n"]))
        out.append(render_note(note).replace("\n", eol).encode())
    return out[0], out[1]


@given(two_notes())
@SETTINGS
def test_no_statement_of_either_note_vanishes_and_a_second_merge_changes_nothing(pair):
    ours, theirs = pair
    got = merge_note(ours, theirs)
    assert not got.unparsed
    merged = read_note(got.data)
    for data in pair:
        note = read_note(data)
        for name in NOTE_SECTIONS:
            now = Statements(merged_statements(getattr(merged, name)))
            assert all(now.keeps(s) for s in merged_statements(getattr(note, name))), name
    assert set(merged.supersedes) == set(read_note(ours).supersedes) | set(read_note(theirs).supersedes)
    assert merge_note(ours, theirs) == got
    text = got.data.decode()
    assert text.count("\r\n") == (text.count("\n") if ours.count(b"\r\n") else 0)
    assert merge_note(got.data, theirs).data == got.data
    assert merge_note(got.data, ours).data == got.data


def merged_statements(body: str) -> list[str]:
    """A section's statements (its blocks, each list item on its own)."""
    doc = Snapshot(f"## S\n\n{body}\n")
    return [it.text.strip() for it in doc.items("S")]


@given(sections("b"), sections("o"), sections("t"), st.sampled_from(["\n", "\r\n"]))
@SETTINGS
def test_three_way_keeps_the_common_items_and_every_item_either_side_added(common, mine, other, eol):
    """With git's common ancestor: what both kept is there once, what each added is there as cmark-gfm reads it."""

    def grown(extra: dict[str, str]) -> dict[str, str]:
        out = dict(common)
        for name, body in extra.items():
            out[name] = out[name] + "\n\n" + body if name in out else body
        return out

    base = with_bodies(common, "2026-06-01 09:30")
    ours = with_bodies(grown(mine), "2026-06-01 09:30").replace("\n", eol)
    theirs = with_bodies(grown(other), "2026-06-01 09:30")
    got = merge_snapshot(ours.encode(), theirs.encode(), base.encode())
    after = got.data.decode()
    assert not got.unparsed, report(ours, theirs, after)
    units = {name: [units_of(text, name) for text in (base, ours, theirs, after)] for name in TEMPLATE_SECTIONS}
    for name, (was, mine_now, theirs_now, merged) in units.items():
        for unit in (mine_now - was) | (theirs_now - was) | (was & mine_now & theirs_now):
            assert unit in merged, f"{name}: {unit} lost\n" + report(ours, theirs, after)
    assert merge_snapshot(got.data, theirs.encode(), base.encode()).data == got.data, report(ours, theirs, after)


def units_of(text: str, name: str) -> set[tuple[str, str, str]]:
    """The items of a section (the first of that name) as cmark-gfm reads them, placeholders left out."""
    for sec in gfm.read(text)[1][1:]:
        if sec.name == name:
            return {(u.kind, u.html, normalized(u)) for u in sec.units if not is_placeholder(u)}
    return set()


@st.composite
def three_notes(draw) -> tuple[bytes, bytes, bytes, dict[str, set[str]]]:
    """A note's common ancestor and two machines' saves of it (each may drop common statements and add
    its own), with the statements each section must hold after the merge."""
    common = {name: draw(st.lists(st.sampled_from(STATEMENTS), max_size=3, unique=True)) for name in NOTE_SECTIONS}
    texts, kept = [], {name: set(common[name]) for name in NOTE_SECTIONS}
    added: dict[str, set[str]] = {name: set() for name in NOTE_SECTIONS}
    for tag in ("o", "t"):
        bodies = {}
        for name in NOTE_SECTIONS:
            keep = [s for s in common[name] if draw(st.booleans())]
            kept[name] &= set(keep)  # a common statement one side dropped stays dropped
            own = [f"{s} {tag}{i}" for i, s in enumerate(draw(st.lists(st.sampled_from(STATEMENTS), max_size=2)))]
            added[name] |= set(own)
            bodies[name] = "\n\n".join(keep + own)
        texts.append(render_note(Note("Pick a store", "decision", "project", "memory/store", **bodies)).encode())  # type: ignore[arg-type]
    ancestor = Note("Pick a store", "decision", "project", "memory/store").with_changes(
        **{n: "\n\n".join(common[n]) for n in NOTE_SECTIONS}
    )
    base = render_note(ancestor).encode()
    return base, texts[0], texts[1], {name: kept[name] | added[name] for name in NOTE_SECTIONS}


@given(three_notes())
@SETTINGS
def test_three_way_notes_keep_what_both_kept_and_what_each_added_and_drop_what_one_dropped(case):
    base, ours, theirs, kept = case
    got = merge_note(ours, theirs, base)
    merged = read_note(got.data)
    for name in NOTE_SECTIONS:
        assert set(merged_statements(getattr(merged, name))) == kept[name], name
