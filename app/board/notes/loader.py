"""Reading notes for the board: file signatures for the watcher, the notes' metadata, and the pane's
view of one note (its sections and its change since the previous revision), made printable.

No Textual here: the notes screen calls these from worker threads and posts the results back.
Notes are read with the store's own readers (memboard.core.ops.notes.store); nothing is written.
"""

from __future__ import annotations

import difflib
import os
import time
from dataclasses import dataclass, field

from memboard.widgets.panes import FieldChange, NoteChange, NotePaneView, SectionDiff
from memboard.widgets.rows import printable, printable_view

from ...core.errors import MemboardError, Unreadable
from ...core.files import fsclock
from ...core.files.copies import copied_note
from ...core.files.root import MemoryRoot
from ...core.formats.layout import NOTES
from ...core.formats.note import FIELDS, SECTIONS, Note, dropped_statements, note_from_cells, quick_cells, read_note
from ...core.formats.topic import note_id_of, note_path
from ...core.ops.notes.store import MAX_DEPTH, note_view, read_listed, show_note, unreadable_view
from ...core.results import NoteDetail, NoteView
from ..loader import FileWatch, Signature

FIRST_SCREEN = 80  # notes read before the first paint; the rest follow in the same worker
SWEEP = 4  # polls in which every note file of an unchanged folder is looked at once
RECENT_NS = 2_000_000_000  # a folder changed this recently is looked at whole: timestamps are coarse


@dataclass
class Folder:
    """One folder under notes/ as the last poll listed it: its mtime, its note files and subfolders."""

    mtime: int
    notes: list[tuple[str, str]]  # (note ID, path)
    subfolders: list[tuple[str, str]]  # (path, the prefix of the note IDs inside)


@dataclass
class NoteWatch(FileWatch):
    """Signatures of every note file, compared on each poll: the board's file watch over notes/.

    `snapshots` holds note ID -> signature here; `index` the notes folder's. Names that are no note
    ID, symlinks and folders deeper than a topic key can reach are left out, as the store's own
    listing leaves them out. A save by rename (memboard's, an agent's, most editors') changes its
    folder: a folder that changed (or changed within RECENT_NS, where a coarse clock could hide a
    second change) is listed again and its files looked at on this poll; in the other folders one
    file in SWEEP is looked at per poll, so an edit in place shows within SWEEP polls while a poll
    of 10k notes costs a quarter of their stat calls.
    """

    valid: dict[str, bool] = field(default_factory=dict)
    folders: dict[str, Folder] = field(default_factory=dict)
    polls: int = 0

    def scan(self) -> tuple[Signature | None, dict[str, Signature]]:
        """The notes folder's signature and every note file's (mtime_ns, size) by note ID."""
        base = self.root.path / NOTES
        found: dict[str, Signature] = {}
        folders: dict[str, Folder] = {}
        self.polls += 1
        if not base.is_symlink() and base.is_dir():
            self._visit(str(base), "", 0, found, folders)
        self.folders = folders
        top = folders.get(str(base))
        return ((top.mtime, 0) if top is not None else None), found

    def changes(self) -> tuple[bool, set[str]]:
        """Whether the notes folder changed and which notes did (added, modified or removed)."""
        index, notes = self.scan()
        folder_changed = index != self.index
        before, self.index, self.snapshots = self.snapshots, index, notes
        if notes == before:
            return folder_changed, set()
        return folder_changed, {key for key in notes.keys() | before.keys() if notes.get(key) != before.get(key)}

    def _visit(
        self, path: str, prefix: str, depth: int, found: dict[str, Signature], folders: dict[str, Folder]
    ) -> None:
        """Add the note files under path (their IDs start with prefix) to found, its folders to folders."""
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            return
        mtime = st.st_mtime_ns
        known_folder = self.folders.get(path)
        fresh = known_folder is None or known_folder.mtime != mtime or self._recent(st, path)
        folder = self._list(path, prefix, mtime, depth) if fresh else known_folder
        if folder is None:
            return
        folders[path] = folder
        seen = self.snapshots
        for number, (note_id, file) in enumerate(folder.notes):
            known = seen.get(note_id)
            if known is not None and not fresh and (number + self.polls) % SWEEP:
                found[note_id] = known
                continue
            try:
                st = os.stat(file, follow_symlinks=False)
            except OSError:
                continue
            found[note_id] = (st.st_mtime_ns, st.st_size)
        for sub, sub_prefix in folder.subfolders:
            self._visit(sub, sub_prefix, depth + 1, found, folders)

    def _recent(self, st: os.stat_result, path: str) -> bool:
        """Whether the folder at path (its stat st) changed within RECENT_NS, on the clock of its file system (see
        core/files/fsclock.py: measured in local state only, as nothing is written here; where that clock cannot be
        had, every folder is recent)."""
        offset = fsclock.offset(st.st_dev, path, beside=False)
        return offset is None or time.time_ns() + offset - st.st_mtime_ns < RECENT_NS

    def _list(self, path: str, prefix: str, mtime: int, depth: int) -> Folder | None:
        """A folder's note files and subfolders as they are now (None when it cannot be read)."""
        notes: list[tuple[str, str]] = []
        subfolders: list[tuple[str, str]] = []
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    name = entry.name
                    if entry.is_dir(follow_symlinks=False):
                        if depth < MAX_DEPTH:
                            subfolders.append((entry.path, f"{prefix}{name}/"))
                    elif name.endswith(".md") and entry.is_file(follow_symlinks=False):
                        note_id = f"{prefix}{name[:-3]}"
                        if self._is_note(note_id):
                            notes.append((note_id, entry.path))
        except OSError:
            return None
        return Folder(mtime, notes, subfolders)

    def _is_note(self, note_id: str) -> bool:
        """Whether a file name under notes/ names a note (remembered: the same names come back each poll)."""
        known = self.valid.get(note_id)
        if known is None:
            known = self.valid[note_id] = note_id_of(f"{NOTES}/{note_id}.md") == note_id
        return known


def read_views(root: MemoryRoot, ids: list[str]) -> dict[str, NoteView | None]:
    """The metadata of these notes, read without a Markdown parser (None for a note gone meanwhile, or a sync tool's
    conflict copy of a note: no note of its own; a note that cannot be read is shown with its problem, never left
    out)."""
    out: dict[str, NoteView | None] = {}
    for note_id in ids:
        try:
            data = read_listed(root, note_path(note_id))
        except Unreadable as exc:
            out[note_id] = unreadable_view(note_id, exc)
            continue
        note = note_from_cells(quick_cells(data)) if data is not None else None
        copy = note is not None and copied_note(note_id, note.topic_key)  # (a sync tool's conflict copy: no note)
        out[note_id] = note_view(note_id, note) if note is not None and not copy else None
    return out


def _section_diff(name: str, before: str, after: str) -> SectionDiff | None:
    """The changed lines of one section (difflib, one line of context), None when it did not change."""
    if before == after:
        return None
    lines = [
        line
        for line in difflib.unified_diff(before.split("\n"), after.split("\n"), lineterm="", n=1)
        if not line.startswith(("---", "+++", "@@")) and line.strip() not in ("", "+", "-")
    ]
    return SectionDiff(name, lines) if lines else None


def note_change(previous: Note, current: Note) -> NoteChange:
    """How current differs from previous: metadata fields, sections, and the statements it left out (all of it
    printable)."""
    before, after = previous.cells(), current.cells()
    fields = tuple(
        FieldChange(name, printable(before[name]), printable(after[name]))
        for name in FIELDS
        if before[name] != after[name]
    )
    old, new = previous.bodies(), current.bodies()
    sections = tuple(
        SectionDiff(d.name, [printable(line) for line in d.lines])
        for d in (_section_diff(name, old[name], new[name]) for name in SECTIONS)
        if d is not None
    )
    return NoteChange(fields, sections, tuple(printable(s) for s in dropped_statements(previous, current)))


def note_body(detail: NoteDetail) -> str:
    """The four sections as one Markdown text for the pane (an empty one says so)."""
    texts = {"What": detail.what, "Why": detail.why, "Where": detail.where, "Learned": detail.learned}
    return "\n\n".join(f"## {name}\n\n{texts[name].strip() or '*(empty)*'}" for name in SECTIONS) + "\n"


def load_note_pane(root: MemoryRoot, note_id: str) -> NotePaneView:
    """One note for the pane: metadata, sections, and its change since the newest revision that differs."""
    try:
        detail = show_note(root, note_id)
    except MemboardError as exc:
        return NotePaneView(note_id, None, "", 0, None, str(exc))
    change = None
    if detail.previous is not None:
        change = note_change(read_note(detail.previous), read_note(detail.text))
    return NotePaneView(note_id, printable_view(detail.note), printable(note_body(detail)), detail.revisions, change)
