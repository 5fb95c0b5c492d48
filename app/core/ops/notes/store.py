"""Reading the notes of a root: one note by ID or topic key, every note's metadata, their revisions."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from functools import lru_cache

from ...errors import MemboardError, Refused, Unreadable, UsageError
from ...files import notewalk, revisions
from ...files.copies import copied_note, note_copy
from ...files.regular import read_regular, why
from ...files.root import MemoryRoot
from ...formats.layout import NOTES
from ...formats.note import STATUSES, Note, decoded, note_from_cells, problems_of, quick_cells, read_note
from ...formats.topic import SCOPES, TYPES, check_choice, check_note_id, note_id_of, note_path
from ...results import NoteDetail, NoteView

MAX_DEPTH = 12  # folders below notes/ that are looked into (a topic key has at most 10 segments)
BY_HANDLE = notewalk.BY_HANDLE  # (here too, so that a test can take the scandir walk)


@dataclass(frozen=True)
class NoteFilters:
    """What narrows a list of notes (None: any)."""

    type: str | None = None
    scope: str | None = None
    project: str | None = None
    status: str | None = None
    session: str | None = None

    def checked(self) -> NoteFilters:
        """self, or a one-line UsageError for an unknown type, scope or status."""
        if self.type is not None:
            check_choice(self.type, TYPES, "note type")
        if self.scope is not None:
            check_choice(self.scope, SCOPES, "scope")
        if self.status is not None:
            check_choice(self.status, STATUSES, "note status")
        return self

    def passes(self, view: NoteView) -> bool:
        """Whether a note passes every filter."""
        wanted = (
            (self.type, view.type),
            (self.scope, view.scope),
            (self.project, view.project),
            (self.status, view.status),
            (self.session, view.session),
        )
        return all(want is None or want == have for want, have in wanted)


def _clean(text: str) -> str:
    """Text safe to print or dump as JSON: bytes that were not UTF-8 become U+FFFD."""
    return text if text.isascii() else text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def note_view(note_id: str, note: Note) -> NoteView:
    """A note's metadata as the views show it (note_id is a valid note ID)."""
    problems = problems_of(note, note_id)
    return NoteView(
        id=note_id,
        path=f"{NOTES}/{note_id}.md",
        title=_clean(note.title),
        type=_clean(note.type),
        scope=_clean(note.scope),
        topic_key=_clean(note.topic_key),
        status=_clean(note.status),
        supersedes=[_clean(x) for x in note.supersedes],
        superseded_by=[_clean(x) for x in note.superseded_by],
        project=_clean(note.project),
        session=_clean(note.session),
        created=_clean(note.created),
        updated=_clean(note.updated),
        problem="; ".join(problems) or None,
    )


def note_files(root: MemoryRoot) -> list[str]:
    """Every note file of the root (`notes/<id>.md`, sorted; symlinks and names that are no note ID left out)."""
    return [rel for rel, _st in note_stats(root)]


def note_stats(root: MemoryRoot, ordered: bool = True) -> list[tuple[str, os.stat_result | None]]:
    """Every note file of the root as note_files lists it, with the `lstat` that told it is no symlink (None when
    that failed: the file went, or cannot be looked at; reading it says which), for a caller that keeps what it read
    by the files' stamps. Folders are walked as os.walk walks them (symlinks to folders not followed, a folder that
    cannot be listed left out), at most MAX_DEPTH + 1 levels below notes/; ordered=False: in no particular order."""
    base = root.abs(NOTES)
    found: list[tuple[str, os.stat_result | None]] = []
    if base.is_symlink() or not base.is_dir():
        return found
    if not (BY_HANDLE and _by_handle(str(base), found)):
        found.clear()
        _visit_notes(str(base), NOTES, 0, found)
    if ordered:
        found.sort(key=lambda pair: pair[0])
    return found


def _by_handle(base: str, found: list[tuple[str, os.stat_result | None]]) -> bool:
    """_visit_notes(base, NOTES, 0, found) through files/notewalk.py, the walk search's stats take too (each folder
    through its own handle: 10k notes in 45 ms of CPU, not 49); whether it could (anything failing, a name gone or a
    folder that cannot be opened, leaves it to _visit_notes, whose words those are)."""
    walked: dict[str, os.stat_result] = {}
    try:
        notewalk.walk_notes(base, NOTES, MAX_DEPTH + 1, walked)  # (os.walk's depth: notes/ and its folders are 0)
    except OSError:
        return False
    names = _names_note
    found.extend((rel, st) for rel, st in walked.items() if names(rel))
    return True


def _visit_notes(folder: str, prefix: str, level: int, found: list[tuple[str, os.stat_result | None]]) -> None:
    """Add the note files under folder (level folders below notes/; their paths start with prefix) to found."""
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    subfolders = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            if not entry.is_symlink():
                subfolders.append((entry.name, entry.path))
            continue
        rel = f"{prefix}/{entry.name}"
        if not _names_note(rel):
            continue
        try:
            st: os.stat_result | None = entry.stat(follow_symlinks=False)
        except OSError:  # (as os.path.islink: not a symlink as far as can be told)
            st = None
        if st is None or not stat.S_ISLNK(st.st_mode):
            found.append((rel, st))
    if max(level - 1, 0) < MAX_DEPTH:  # (os.walk's depth: notes/ and its folders are both 0)
        for name, path in sorted(subfolders):
            _visit_notes(path, f"{prefix}/{name}", level + 1, found)


@lru_cache(maxsize=1 << 16)
def _names_note(rel: str) -> bool:
    """Whether the path rel names a note (kept per path: a server lists 10k notes on each call)."""
    return note_id_of(rel) is not None


def resolve_note(ref: str) -> str:
    """The note ID a caller names (a topic key or a note ID; a path `notes/<id>.md` is taken too)."""
    if isinstance(ref, str) and ref.startswith(f"{NOTES}/") and ref.endswith(".md"):
        ref = ref[len(NOTES) + 1 : -3]
    return check_note_id(ref)


def load_note(root: MemoryRoot, ref: str) -> tuple[str, bytes, Note]:
    """(note ID, file bytes, values) of a note; Refused when it does not exist or ref names a sync-conflict copy
    of a note (a copy is never taken for a note)."""
    try:
        note_id = resolve_note(ref)
    except UsageError:
        refuse_copy(root, ref)  # (a copy's name is rarely a note ID: `<key>.sync-conflict-…-ABCDEF7`)
        raise
    data = root.read(note_path(note_id))
    if data is None:
        refuse_copy(root, ref)  # (rclone's `<key>.md..path1` is a note ID too, of no note)
        raise Refused(f"unknown note {note_id}: no {note_path(note_id)}")
    refuse_copy(root, ref, data)  # (rclone's `<key>.conflict1` is one)
    return note_id, data, read_note(data)


def refuse_copy(root: MemoryRoot, ref: str, data: bytes | None = None) -> None:
    """Refused, saying which note it copies and what merges it, when ref (a note ID or `notes/…` path; data: the
    file's bytes when read already) names a sync tool's conflict copy of a note."""
    rel = ref if ref.startswith(f"{NOTES}/") else f"{NOTES}/{ref}"
    if not rel.endswith(".md") and ".md.." not in rel:
        rel += ".md"
    if data is None:
        if any(part in ("", ".", "..") for part in rel.split("/")):
            return
        try:
            data = root.read(rel)
        except (OSError, MemboardError):  # (a name memboard cannot read: the caller's own error stands)
            return
    copy = note_copy(rel, data) if data is not None else None
    if copy is None:
        return
    of = copy.original[len(NOTES) + 1 : -3]
    raise Refused(
        f"{rel} is a sync-conflict copy of the note {of} ({copy.tool} naming), not a note: `memboard doctor --fix` "
        f"merges it into {copy.original}; `memboard note show {of}` shows the note"
    )


def read_listed(root: MemoryRoot, rel: str) -> bytes | None:
    """A file note_files listed (not a symlink, in folders that are not: it is inside the root), None when gone;
    Unreadable when it cannot be read (a FIFO, a socket or a device is never opened, nor a symlink put there since)."""
    try:
        return read_regular(os.path.join(root.path, rel), follow=False)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise Unreadable(rel, why(exc)) from None


def unreadable_view(note_id: str, exc: Unreadable) -> NoteView:
    """A note that could not be read, as the views show it: its ID and path, nothing else known, and why."""
    return NoteView(
        note_id, exc.rel, "", "", "", "", "", [], [], "", "", "", "", problem=str(exc), unreadable=exc.reason
    )


def list_notes(root: MemoryRoot, filters: NoteFilters | None = None) -> list[NoteView]:
    """Every note's metadata (sorted by ID), read without a Markdown parser (sync-conflict copies of notes left out);
    filters narrow it. A note that cannot be read is listed whatever the filters (they cannot tell), as
    `unreadable_view` shows it: never left out."""
    filters = (filters or NoteFilters()).checked()
    out = []
    for rel in note_files(root):
        note_id = rel[len(NOTES) + 1 : -3]
        try:
            data = read_listed(root, rel)
        except Unreadable as exc:
            out.append(unreadable_view(note_id, exc))
            continue
        if data is None:
            continue
        note = note_from_cells(quick_cells(data))
        if copied_note(note_id, note.topic_key):  # a sync tool's conflict copy of a note (doctor names it)
            continue
        view = note_view(note_id, note)
        if filters.passes(view):
            out.append(view)
    return out


def show_note(root: MemoryRoot, ref: str) -> NoteDetail:
    """One note: metadata, texts, the file's text, how many revisions local state keeps and the newest that differs."""
    note_id, data, note = load_note(root, ref)
    kept = revisions.note_revisions(root, note_id)
    previous = next((rev for rev in reversed(kept) if rev != data), None)
    return NoteDetail(
        note=note_view(note_id, note),
        what=_clean(note.what),
        why=_clean(note.why),
        where=_clean(note.where),
        learned=_clean(note.learned),
        text=decoded(data),
        revisions=len(kept),
        previous=decoded(previous) if previous is not None else None,
    )


def taken_ids(root: MemoryRoot, key: str) -> set[str]:
    """The note IDs of a topic's earlier notes that exist (`<key>~<n>`)."""
    folder, _, leaf = f"{NOTES}/{key}".rpartition("/")
    prefix = f"{leaf}~"
    names = root.listdir(folder)
    parent = key.rpartition("/")[0]
    return {f"{parent}/{n[:-3]}" if parent else n[:-3] for n in names if n.startswith(prefix) and n.endswith(".md")}
