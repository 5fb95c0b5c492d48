"""What the MCP server keeps of what it parsed: index.md and every note's metadata, keyed by the files' stamps.

An agent calls session_context and mem_context at the start of work and after each context reset;
at 10k notes and 100k rows, reading and parsing everything again on each call cost one to two
seconds. A server lives as long as its agent's session, so it keeps what it read, and on each
call looks at the files again and reads only those that changed:

- index.md is kept as read (its bytes and the lazily parsed `IndexFile`, whose look-ups by ID
  are kept too); any change reads it again (whole: a 21 MB file in a few ms, as only the bytes
  tell that nothing before an append changed). When the kept bytes begin the file read (an
  append), the table's header and extent are taken from the kept index and only the added
  bytes are scanned, and the look-ups of IDs those bytes do not name are kept (at 100k rows
  about 25 ms less per call after an append); any other change (a row rewritten in place, a
  file truncated or replaced) finds the table's extent anew, parsing no row until one is asked for.
- each note's metadata is kept by its path; each call lists notes/ and takes every note file's
  `lstat` (10k stats), and a note whose stamp changed is read and parsed again alone; when a few
  changed, came or went (or cannot be read), each view before leaves the kept orders and each view
  after enters them by a binary search (at 10k notes about 10 ms less than sorting them again), and
  the note set keeps the note_context answers the change provably leaves as they were
  (context.carried: 12-15 ms less right after a change). A note whose bytes changed but whose
  metadata did not (its text edited) keeps its kept view: nothing the answers show changed.

A file's stamp is what continues.py keys its record by: device, inode, size, mtime_ns and
ctime_ns (a save by rename gives a new inode, a write a new mtime and ctime, an mtime set back
with utime a new ctime). A stamp can lie when the file changed within its clock's resolution of
the read (a same-size rewrite in the same tick): so, as git's racy rule and the continues-from
record have it, a kept answer is trusted on its stamp alone only when the file had not changed
for AGED_NS when it was read, on the clock of its file system (fsclock, measured in local state
only: nothing is written in the root); any other kept answer is checked against the file's
bytes on each call (read again, compared with the bytes kept for it) until it is. Where the
stamps do not tell (Windows, where ctime is the creation time) nothing is trusted on its stamp.

The kept answers serve reads only. Every tool that writes plans through `execute`, which reads
the files afresh under the root's lock with today's checks (settled reads, verification):
nothing kept here is ever the base of a change. What it costs in memory is one index.md's bytes
(about 21 MB at 100k rows) and, per note, its metadata (about 1.5 KB: 15 MB at 10k notes);
`kept_for` keeps one set per memory root the server serves (one).
"""

from __future__ import annotations

import bisect
import os
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import Unreadable
from ..core.files import fsclock
from ..core.files.continues import STAMPS_TELL, Stamp, aged, stamp_of
from ..core.files.copies import copied_note
from ..core.files.root import MemoryRoot
from ..core.formats.collector import paused
from ..core.formats.index import IndexFile, Row
from ..core.formats.layout import INDEX, NOTES
from ..core.formats.note import note_from_cells, quick_cells
from ..core.ops.notes.store import note_stats, note_view, read_listed, unreadable_view
from ..core.results import NoteView
from .context import Change, NoteSet, carried, newest_key, note_set

PATCHED = 64  # notes changed on one call that are moved into the kept order (more: it is sorted again)


class KeptIndex(IndexFile):
    """An index.md as the server keeps it: an IndexFile whose look-ups by Session ID are kept with it."""

    def __init__(self, data: bytes, grown_from: KeptIndex | None = None):
        """Parse data as IndexFile does (lazily), no look-up made yet; grown_from: the kept index of a prefix of data
        (rows appended to it), whose table's extent and look-ups of IDs the appended bytes do not hold carry over."""
        super().__init__(data, grown_from=grown_from)
        self.looked_up: dict[str, list[Row]] = {}
        self.guard = threading.Lock()
        if grown_from is not None and self.grown:  # (every row of grown_from is a row of this table, unchanged)
            tail = len(grown_from.data)
            with grown_from.guard:
                kept = dict(grown_from.looked_up)
            self.looked_up = {sid: rows for sid, rows in kept.items() if data.find(sid.encode(), tail) < 0}

    def find(self, session_id: str) -> list[Row]:
        """IndexFile.find, kept per ID (a new list each time: callers may change theirs)."""
        with self.guard:
            rows = self.looked_up.get(session_id)
        if rows is None:
            rows = super().find(session_id)
            with self.guard:
                self.looked_up[session_id] = rows
        return list(rows)


@dataclass
class Kept:
    """One kept answer: the file's stamp when it was read, whether that stamp alone can be trusted, the bytes
    (kept only while it cannot, to compare with), and what was parsed."""

    stamp: Stamp
    trusted: bool
    data: bytes | None
    value: object


@dataclass
class Parsed:
    """What the server keeps of one memory root (see the module's docstring); safe to use from several threads."""

    path: Path
    index: Kept | None = None
    notes: dict[str, Kept] = field(default_factory=dict)
    ordered: NoteSet | None = None  # the notes of the last call
    views: dict[str, NoteView | None] = field(default_factory=dict)  # its view of each file listed (None: a copy)
    guard: threading.Lock = field(default_factory=threading.Lock)
    reads: int = 0  # files read since the server started (what a test of "reads only what changed" counts)

    def index_file(self, root: MemoryRoot) -> IndexFile:
        """index.md as it is now: the kept one while its stamp holds (and can be trusted), else read again."""
        path = root.abs(INDEX)
        before = _stat(path)
        with self.guard:
            kept = self.index
        if kept is not None and before is not None and kept.trusted and kept.stamp == stamp_of(before):
            return kept.value  # type: ignore[return-value]
        at = _fs_now(before, path)
        data = root.read(INDEX)  # (the errors of every read: a folder, an unreadable file)
        self.reads += 1
        if data is None:
            with self.guard:
                self.index = None
            return IndexFile(b"")
        index = _index_of(data, kept.value if kept is not None else None)
        after = _stat(path)
        entry = _entry(before, after, at, data, index, len(data))
        if entry is not None:
            entry.data = None  # (the index holds its bytes: compared there)
        with self.guard:
            self.index = entry
        return index

    def note_set(self, root: MemoryRoot) -> NoteSet:
        """Every note's metadata, as list_notes gives it (sorted by ID, sync-conflict copies left out, a note that
        cannot be read listed as unreadable), and newest first: kept ones whose stamp holds, the others read again
        (the set is derived from the last one when a few notes changed, came or went: see _derived)."""
        with paused():  # (see _note_set)
            return self._note_set(root)

    def _note_set(self, root: MemoryRoot) -> NoteSet:
        """note_set's work, with the cyclic collector off: the 10k stats and pairs of a listing live until it ends,
        so each collection pass on the way moved them up to the oldest generation, and every fifth to eighth call
        ran a full pass over the server's objects (68-103 ms of CPU); freed here, they are never moved up."""
        with self.guard:
            known, ordered, views = dict(self.notes), self.ordered, self.views
        fresh: dict[str, Kept] = {}
        read: dict[str, NoteView | None] = {}  # the notes read again on this call
        stats = note_stats(root, ordered=False)
        for rel, st in stats:
            kept = known.get(rel)
            if kept is not None and st is not None and kept.trusted and kept.stamp == stamp_of(st):
                fresh[rel] = kept
            else:
                read[rel] = self._read_note(root, rel, st, kept, views.get(rel), fresh)
        changes = _changes(views, read, fresh, len(stats))
        if ordered is None or changes:
            derived = _derived(ordered, changes)
            if derived is None:  # (the first call, or too many changes: listed and sorted again)
                listed = [read[rel] if rel in read else fresh[rel].value for rel in sorted(fresh.keys() | read.keys())]
                derived = note_set([view for view in listed if isinstance(view, NoteView)])
            ordered = derived
            views = {rel: entry.value for rel, entry in fresh.items()}  # type: ignore[misc]
            views.update(read)
        with self.guard:
            self.notes, self.ordered, self.views = fresh, ordered, views
        return ordered

    def _read_note(
        self,
        root: MemoryRoot,
        rel: str,
        st: os.stat_result | None,
        kept: Kept | None,
        last: NoteView | None,
        fresh: dict[str, Kept],
    ) -> NoteView | None:
        """A note read again (its view, None for a copy or a file gone; last, the view of the last call, when the view
        is equal to it: what tells an unchanged note from a changed one), kept in fresh when its stamp can be."""
        path = os.path.join(root.path, rel)
        note_id = rel[len(NOTES) + 1 : -3]
        at = _fs_now(st, path)
        view: NoteView | None
        try:
            data = read_listed(root, rel)
        except Unreadable as exc:
            view = unreadable_view(note_id, exc)
            return last if view == last else view  # (never kept: read again on the next call)
        self.reads += 1
        if data is None:
            return None
        if kept is not None and kept.data == data:
            view = kept.value  # type: ignore[assignment]
        else:
            note = note_from_cells(quick_cells(data))
            view = None if copied_note(note_id, note.topic_key) else note_view(note_id, note)
        if view is not None and view == last:  # (other bytes, the same metadata: a note's text changed)
            view = last
        entry = _entry(st, _stat(path, follow=False), at, data, view, len(data))
        if entry is not None:
            fresh[rel] = entry
        return view


def _index_of(data: bytes, kept: object) -> KeptIndex:
    """The kept index when data is its bytes, one grown from it when data only adds bytes after them (an append:
    only those are looked at again), else data parsed anew."""
    if not isinstance(kept, KeptIndex):
        return KeptIndex(data)
    return kept if kept.data == data else KeptIndex(data, grown_from=kept)  # (grown only when kept's bytes begin it)


def _changes(
    views: dict[str, NoteView | None], read: dict[str, NoteView | None], fresh: dict[str, Kept], listed: int
) -> list[Change]:
    """What changed since the last call, whose view of each file listed was views: each note read again whose view is
    not the last one (before, after), and each file gone (listed: the files listed now, each one kept in fresh, all
    listed last time, or read again)."""
    changes: list[Change] = []
    came = 0
    for rel, view in read.items():
        if rel not in views:
            came += 1
            if view is not None:
                changes.append((None, view))
        elif view is not views[rel]:
            changes.append((views[rel], view))
    if listed - came != len(views):  # (some went)
        changes += [(v, None) for rel, v in views.items() if v is not None and rel not in fresh and rel not in read]
    return changes


def _derived(ordered: NoteSet | None, changes: list[Change]) -> NoteSet | None:
    """ordered after the changes: each view before taken out of both orders and each view after put in by a binary
    search (instead of 10k views sorted again), and the answers the changes leave as they were (context.carried);
    None when there are too many to patch."""
    if ordered is None or len(changes) > PATCHED:
        return None
    listed, newest = list(ordered.listed), list(ordered.newest)
    for old, view in changes:
        for views, place, kept in ((listed, _by_path, True), (newest, _by_newest, False)):
            if isinstance(old, NoteView) and (kept or not old.unreadable):
                at = place(views, old)
                if at >= len(views) or views[at] is not old:
                    return None  # (not where the order puts it: sorted again)
                del views[at]
            if isinstance(view, NoteView) and (kept or not view.unreadable):
                views.insert(place(views, view), view)
    return NoteSet(listed, newest, carried(ordered.answers, changes))


def _by_path(views: list[NoteView], view: NoteView) -> int:
    """Where view goes in views sorted by path (as list_notes lists them)."""
    return bisect.bisect_left(views, view.path, key=lambda v: v.path)


def _by_newest(views: list[NoteView], view: NoteView) -> int:
    """Where view goes in views sorted newest first, then by ID (by newest_key, as context.note_set sorts them)."""
    return bisect.bisect_left(views, newest_key(view), key=newest_key)


def _stat(path: str | os.PathLike[str], follow: bool = True) -> os.stat_result | None:
    """The file's stat (lstat unless follow), None when it cannot be had."""
    try:
        return os.stat(path, follow_symlinks=follow)
    except (OSError, ValueError):
        return None


def _fs_now(st: os.stat_result | None, path: str | os.PathLike[str]) -> int | None:
    """Now on the clock of the file system holding path (st: its stat), None where that clock cannot be had (then
    no stamp is trusted: see fsclock, measured in local state only, as reads write nothing in the root)."""
    if st is None or not STAMPS_TELL:
        return None
    offset = fsclock.offset(st.st_dev, path, beside=False)
    return None if offset is None else time.time_ns() + offset


def _entry(
    before: os.stat_result | None, after: os.stat_result | None, at: int | None, data: bytes, value: object, size: int
) -> Kept | None:
    """What to keep of a read of a regular file stamped before (just before the read, at on its clock) and after
    (right after it): nothing when the file changed meanwhile; the bytes too while its stamp alone is not trusted."""
    if before is None or after is None or not stat.S_ISREG(after.st_mode):
        return None
    stamp = stamp_of(before)
    if stamp != stamp_of(after) or size != after.st_size:
        return None
    trusted = at is not None and aged(stamp, at)
    return Kept(stamp, trusted, None if trusted else data, value)


_parsed: dict[str, Parsed] = {}
_parsed_guard = threading.Lock()


def kept_for(path: Path) -> Parsed:
    """What the server keeps of the memory root at path (one per root, shared by every tool set)."""
    with _parsed_guard:
        return _parsed.setdefault(str(path), Parsed(path))
