"""The notes an agent is shown when it starts work (mem_context, session_context): its session's own, then related active ones.

A session's own notes are those whose Session is its ID (any status: they are its record). The
related notes are active notes, nearest first: those its snapshot names (`notes/<id>.md` or a
topic key with a `/`), those saved by the sessions it continues from or that continue from it,
those of its project (or of the projects of its own notes), then the `global` ones, which apply
everywhere; newest Updated first within each. With neither a session nor a project, every
active note is related, newest first. Each note is its metadata as `memboard note list --json`
shows it (no texts: mem_get reads one whole). A note file that cannot be read is named under
`unreadable` (path -> why), never left out without a word.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from typing import NamedTuple

from ..core.files.root import MemoryRoot
from ..core.formats.layout import NOTES
from ..core.ops.notes import list_notes
from ..core.results import NoteView
from ..service.output import note_json
from .answers import JSON

CONTEXT_LIMIT = 20
ANSWERS_KEPT = 16  # note_context answers kept per note set (more: forgotten, worked out again)
TOKEN_RE = re.compile(r"[A-Za-z0-9._~/-]+")
NAMED, LINKED, PROJECT, GLOBAL = range(4)


def named_notes(text: str) -> set[str]:
    """The note IDs a text may name: tokens with a `/`, as they are and without `notes/` and `.md`."""
    found = set()
    for token in TOKEN_RE.findall(text or ""):
        token = token.strip("./")
        if "/" not in token:
            continue
        found.add(token)
        if token.startswith(f"{NOTES}/"):
            token = token[len(NOTES) + 1 :]
        found.add(token.removesuffix(".md"))
    return found


# Updated's UTF-8 bytes turned upside down: byte b becomes 0xF7 - b (UTF-8 holds no byte above 0xF4), so that
# ascending order of the turned bytes, ended by 0xFF (above every turned byte), is descending order of the text;
# the ID's own UTF-8 bytes after that end (UTF-8 bytes compare as the text does) break ties, ascending.
_DOWN = bytes(range(0xF7, -1, -1)) + bytes(8)


def newest_key(view: NoteView) -> bytes:
    """The key of the newest-first order (ascending): Updated descending as text compares, then ID ascending."""
    down = view.updated.encode("utf-8", "surrogatepass").translate(_DOWN)
    return down + b"\xff" + view.id.encode("utf-8", "surrogatepass")


def _newest_first(views: Iterable[NoteView]) -> list[NoteView]:
    """Views sorted by Updated, newest first (then by ID): by newest_key."""
    return sorted(views, key=newest_key)


class NoteSet(NamedTuple):
    """Every note's metadata as list_notes gives it, and the readable notes newest first (as _newest_first sorts);
    answers: note_context's answers from these very views, by its arguments (a set kept.py derives from another
    after a few notes changed starts with those of the other's answers that `carried` proves the change leaves as
    they were, every other answer worked out again)."""

    listed: list[NoteView]
    newest: list[NoteView]
    answers: dict[tuple[object, ...], Answer]


class Answer(NamedTuple):
    """One kept note_context answer and what it was worked out with, which tells whether a changed note can move it:
    last is the rank (nearness, newest_key) of the last related note shown when `limit` were shown, else None."""

    json: JSON
    session_id: str | None
    project: str | None
    mine: frozenset[str]
    projects: frozenset[str]
    sessions: frozenset[str]
    named: frozenset[str]
    last: tuple[int, bytes] | None


def note_set(views: list[NoteView]) -> NoteSet:
    """The set of notes list_notes gave as views."""
    return NoteSet(views, _newest_first(v for v in views if not v.unreadable), {})


Change = tuple[NoteView | None, NoteView | None]  # one note file's view before and after (None: not a note there)


def carried(answers: dict[tuple[object, ...], Answer], changes: list[Change]) -> dict[tuple[object, ...], Answer]:
    """The answers that the changes leave as they were (see _carried), for the note set the changes made."""
    out = {}
    for key, answer in dict(answers).items():  # (a copy: another call may be adding to answers)
        moved = _carried(answer, changes)
        if moved is not None:
            out[key] = moved
    return out


def _carried(answer: Answer, changes: list[Change]) -> Answer | None:
    """answer after the changes when no version of a changed note (before or after) is unreadable, the session's own,
    or a related note ranked at or before the last one shown: what it shows is then the same, and only `total` (and
    `omitted`) count the related notes that came or went; None when it must be worked out again."""
    total = answer.json["total"]
    anywhere = not (answer.session_id or answer.project)
    for before, after in changes:
        for view, sign in ((before, -1), (after, 1)):
            if view is None:
                continue
            if view.unreadable or (answer.session_id and view.session == answer.session_id):
                return None
            if view.status != "active":
                continue
            near = _nearness(view, answer.named, answer.sessions, answer.projects, anywhere)
            if near is None:
                continue
            if answer.last is None or (near, newest_key(view)) <= answer.last:
                return None
            total += sign
    shown = len(answer.json["related"])
    return answer._replace(json={**answer.json, "total": total, "omitted": total - shown})


def _nearness(
    view: NoteView, named: frozenset[str], sessions: frozenset[str], projects: frozenset[str], anywhere: bool
) -> int | None:
    """How near a note is to the work (NAMED first), None when it is not related (anywhere: neither a session nor a
    project was given, so every note is)."""
    if view.id in named:
        return NAMED
    if view.session and view.session in sessions:
        return LINKED
    if view.project and view.project in projects:
        return PROJECT
    if view.scope == "global" or anywhere:
        return GLOBAL
    return None


def note_context(
    root: MemoryRoot,
    session_id: str | None = None,
    project: str | None = None,
    linked: Iterable[str] = (),
    text: str = "",
    limit: int = CONTEXT_LIMIT,
    notes: NoteSet | None = None,
) -> JSON:
    """The session's own notes and the related active ones (see the module's docstring), at most limit of those;
    `total` counts the related notes, `omitted` those left out, and `unreadable` names each note file that could not
    be read, with why (it may be the session's own or a related one: nobody can tell). notes: the root's notes as
    note_set gives them (None: read them now)."""
    if notes is None:
        notes = note_set(list_notes(root))
    links = tuple(linked)
    key = (session_id, project, links, text, limit)
    answer = notes.answers.get(key)
    if answer is None:
        answer = _context(notes, session_id, project, frozenset(links), text, limit)
        if len(notes.answers) >= ANSWERS_KEPT:
            notes.answers.clear()
        notes.answers[key] = answer
    return copy.deepcopy(answer.json)  # (callers may change theirs)


def _context(
    notes: NoteSet, session_id: str | None, project: str | None, sessions: frozenset[str], text: str, limit: int
) -> Answer:
    """note_context's answer from notes, worked out."""
    unreadable = {v.path: v.unreadable for v in notes.listed if v.unreadable}
    views = notes.newest
    own = [v for v in views if session_id and v.session == session_id]
    mine = frozenset(v.id for v in own)
    projects = frozenset(p for p in [project, *(v.project for v in own)] if p)
    named = frozenset(named_notes(text))
    anywhere = not (session_id or project)
    ranked = [
        (near, v)
        for v in views
        if v.status == "active" and v.id not in mine
        for near in [_nearness(v, named, sessions, projects, anywhere)]
        if near is not None
    ]
    ranked.sort(key=lambda pair: pair[0])  # (stable: newest first within each nearness)
    related = [v for _near, v in ranked]
    shown = related[:limit]
    json = {
        "session": [note_json(v) for v in own],
        "related": [note_json(v) for v in shown],
        "total": len(related),
        "omitted": len(related) - len(shown),
        "unreadable": unreadable,
    }
    last = None
    if shown and len(shown) == limit:
        near, end = ranked[limit - 1]
        last = (near, newest_key(end))
    return Answer(json, session_id, project, mine, projects, sessions, named, last)
