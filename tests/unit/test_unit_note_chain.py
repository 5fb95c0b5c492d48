"""Supersede chains of notes over their metadata: both directions, one-sided links, missing notes, cycles."""

from __future__ import annotations

from memboard.core.ops.notes.chain import MAX_DEPTH, NoteChainNode, note_chain
from memboard.core.results import NoteView


def view(
    note_id: str, supersedes: tuple[str, ...] = (), superseded_by: tuple[str, ...] = (), status: str = "active"
) -> NoteView:
    """A note's metadata with these links."""
    return NoteView(
        note_id,
        f"notes/{note_id}.md",
        f"title of {note_id}",
        "preference",
        "global",
        note_id,
        status,
        list(supersedes),
        list(superseded_by),
        "",
        "",
        "2026-05-01 09:00",
        "2026-05-01 09:00",
    )


def by_id(*views: NoteView) -> dict[str, NoteView]:
    """Note ID -> metadata."""
    return {v.id: v for v in views}


def ids(nodes: tuple[NoteChainNode, ...]) -> list[str]:
    """The IDs of nodes, in order."""
    return [n.id for n in nodes]


def test_links_written_on_both_sides_are_followed_both_ways():
    notes = by_id(
        view("a~1", superseded_by=("a~2",), status="superseded"),
        view("a~2", supersedes=("a~1",), superseded_by=("a",), status="superseded"),
        view("a", supersedes=("a~2",)),
    )
    chain = note_chain(notes, "a~2")
    assert ids(chain.supersedes) == ["a~1"] and ids(chain.superseded_by) == ["a"]
    assert chain.supersedes[0].only_on is None and chain.superseded_by[0].only_on is None
    top = note_chain(notes, "a")
    assert ids(top.supersedes) == ["a~2"] and ids(top.supersedes[0].children) == ["a~1"]
    assert top.superseded_by == () and top.status == "active"


def test_a_link_written_on_one_note_only_is_found_from_either_side_and_says_where():
    notes = by_id(view("old", superseded_by=("new",), status="superseded"), view("new"))
    assert note_chain(notes, "old").superseded_by[0].only_on == "old"
    from_new = note_chain(notes, "new").supersedes
    assert ids(from_new) == ["old"] and from_new[0].only_on == "old"
    notes = by_id(view("old"), view("new", supersedes=("old",)))
    assert note_chain(notes, "old").superseded_by[0].only_on == "new"


def test_a_link_to_a_missing_note_is_marked_missing():
    chain = note_chain(by_id(view("a", supersedes=("gone",))), "a")
    [gone] = chain.supersedes
    assert gone.state == "missing" and gone.title is None and gone.only_on is None and gone.children == ()


def test_a_cycle_is_marked_and_not_followed_again():
    notes = by_id(view("a", superseded_by=("b",)), view("b", supersedes=("a",), superseded_by=("a",)))
    chain = note_chain(notes, "a")
    [b] = chain.superseded_by
    [again] = b.children
    assert again.id == "a" and again.cycle and again.children == ()


def test_a_long_chain_stops_at_max_depth_and_says_it_goes_on():
    count = MAX_DEPTH + 10
    notes = by_id(
        *(view(f"k~{i}", superseded_by=(f"k~{i + 1}",), supersedes=(f"k~{i - 1}",) if i else ()) for i in range(count))
    )
    node = note_chain(notes, "k~0").superseded_by[0]
    depth = 1
    while node.children:
        node, depth = node.children[0], depth + 1
    assert node.more and depth < count
