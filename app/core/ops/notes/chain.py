"""Supersede chains of notes: the notes one note replaced (Supersedes) and those that replaced it
(Superseded By), followed both ways like the reference chains of sessions.

A link counts when either note writes it: one that only one side records is marked with the note
whose file holds it (doctor's `note_one_sided_link`), a link to a note that does not exist is
marked missing, a note met again further down the same path is marked as a cycle and not
followed. Reading only: `note_chain` walks the metadata a caller already holds (the board's
notes; `list_notes` reads them from a root).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NamedTuple

from ...results import NoteView

Direction = Literal["older", "newer"]
NoteState = Literal["note", "missing"]
MAX_DEPTH = 64  # notes below one another that are listed; a longer chain ends in a node marked `more`


class NoteChainNode(NamedTuple):
    """A note in a supersede chain, with the notes one more step away in the same direction."""

    id: str
    state: NoteState
    title: str | None
    type: str | None
    status: str | None
    only_on: str | None = None  # the link to its parent is written in this note's file only
    cycle: bool = False  # it already appears above: its children are not repeated
    more: bool = False  # the chain goes on past MAX_DEPTH (not listed)
    children: tuple[NoteChainNode, ...] = ()


class NoteChainView(NamedTuple):
    """A note's supersede chain: the notes it replaced (older) and those that replaced it (newer)."""

    id: str
    title: str
    type: str
    status: str
    supersedes: tuple[NoteChainNode, ...]
    superseded_by: tuple[NoteChainNode, ...]


class NoteGraph:
    """The supersede links of a set of notes, as each note writes them and as the others do."""

    def __init__(self, views: Mapping[str, NoteView]) -> None:
        """Index views (note ID -> metadata) both ways."""
        self.views = views
        self.named_older: dict[str, list[str]] = {}  # note -> notes that list it under Superseded By
        self.named_newer: dict[str, list[str]] = {}  # note -> notes that list it under Supersedes
        for note_id, view in views.items():
            for newer in view.superseded_by:
                self.named_older.setdefault(newer, []).append(note_id)
            for older in view.supersedes:
                self.named_newer.setdefault(older, []).append(note_id)

    def links(self, note_id: str, direction: Direction) -> list[str]:
        """The notes one step away: those note_id's file names first, then those naming it."""
        view = self.views.get(note_id)
        own = list(view.supersedes if direction == "older" else view.superseded_by) if view else []
        others = (self.named_older if direction == "older" else self.named_newer).get(note_id, [])
        return list(dict.fromkeys(own + sorted(others)))

    def only_on(self, parent: str, child: str, direction: Direction) -> str | None:
        """Which of the two files alone records the link between parent and child (None: both do)."""
        mine, theirs = self.views.get(parent), self.views.get(child)
        if mine is None or theirs is None:
            return None
        said_here = child in (mine.supersedes if direction == "older" else mine.superseded_by)
        said_there = parent in (theirs.superseded_by if direction == "older" else theirs.supersedes)
        if said_here and said_there:
            return None
        return parent if said_here else child

    def node(self, note_id: str, direction: Direction, path: tuple[str, ...]) -> NoteChainNode:
        """A chain node with its children in one direction, cycles and depth bounded."""
        view = self.views.get(note_id)
        state: NoteState = "note" if view is not None else "missing"
        base = NoteChainNode(
            note_id, state, view.title if view else None, view.type if view else None, view.status if view else None
        )
        if note_id in path:
            return base._replace(cycle=True)
        path = (*path, note_id)
        ahead = self.links(note_id, direction) if view is not None else []
        if ahead and len(path) > MAX_DEPTH:
            return base._replace(more=True)
        children = tuple(
            self.node(other, direction, path)._replace(only_on=self.only_on(note_id, other, direction))
            for other in ahead
        )
        return base._replace(children=children)


def note_chain(views: Mapping[str, NoteView], note_id: str) -> NoteChainView:
    """note_id's chain over views (note ID -> metadata); a KeyError when it is not among them."""
    me = views[note_id]
    graph = NoteGraph(views)
    older = graph.node(note_id, "older", ())
    newer = graph.node(note_id, "newer", ())
    return NoteChainView(note_id, me.title, me.type, me.status, older.children, newer.children)
