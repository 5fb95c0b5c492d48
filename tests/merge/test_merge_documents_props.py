"""Property tests of the document merges (Hypothesis): nothing of either version vanishes, the merge is
deterministic and idempotent, and merging a copy the original already holds changes nothing."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.core.formats.note import Note, read_note, render_note
from memboard.core.formats.snapshot import Snapshot, render_template, vanished
from memboard.core.formats.statements import Statements
from memboard.core.merge.documents import merge_note, merge_snapshot
from tests.reliability.test_snapshot_markdown import assert_kept, report, sections
from tests.support.sizes import examples

SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
        eol = draw(st.sampled_from(["\n", "\n", "\r\n"])) if tag == "o" else "\n"
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
        out.append(render_note(note).encode())
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
    assert merge_note(got.data, theirs).data == got.data
    assert merge_note(got.data, ours).data == got.data


def merged_statements(body: str) -> list[str]:
    """A section's statements (its blocks, each list item on its own)."""
    doc = Snapshot(f"## S\n\n{body}\n")
    return [it.text.strip() for it in doc.items("S")]
