"""What search works on: documents, records and sessions, how they rank, and the files' stats.

A document is one row cell, one snapshot section or one field or section of a note, so a match
says where it is; a record is what one source (an index row, a snapshot, an archived row or
snapshot, a note file) says about a session or a note (both are "sessions" of the cache, told
apart by their kind). The cache and the file scan share these types and rules (parse.py reads
the files into them), so both rank alike. This module imports nothing heavy, not even
`dataclasses`: a search on an unchanged root needs only it, SQLite and the stats.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from typing import NamedTuple

from ..files.notewalk import NOTES_DEPTH, EarlyWalk, walk_notes
from ..files.regular import why
from ..formats.clock import FORMAT, parse
from ..formats.ids import is_valid_id
from ..formats.layout import ARCHIVE, INDEX, NOTES, SESSIONS
from ..formats.topic import note_id_of

SESSION, NOTE = "session", "note"  # the kinds of what search finds: sessions and typed notes
KINDS = (SESSION, NOTE)
LIVE, ARCHIVED = "live", "archived"
ROW, SNAPSHOT = "row", "snapshot"  # where a match is: a row's cell or a snapshot's section (a note's: NOTE)
TOP = "(top)"  # the section name of text before a snapshot's first `## ` heading
MAX_NOTE_DEPTH = NOTES_DEPTH  # folders below notes/ that are listed (a topic key has at most 10 segments)

PLACE_ORDER = {ROW: 0, NOTE: 0, SNAPSHOT: 1}
SOURCE_RANK = {ROW: 0, NOTE: 0, SNAPSHOT: 1}  # whose Status/Agent/Updated At describe a session: its row first
TIME_RE = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class Doc(NamedTuple):
    """One searchable text: a row cell or a snapshot section."""

    place: str
    section: str
    weight: int
    text: str


class Record(NamedTuple):
    """What one source says about a session: an index row, a snapshot, an archived row or snapshot."""

    kind: str
    key: str
    state: str
    source: str
    path: str
    status: str
    agent: str
    topic: str
    updated_at: str
    docs: list[Doc]
    fingerprint: int = 0
    note_type: str = ""  # a note's Type, Scope and Project ("" for sessions)
    scope: str = ""
    project: str = ""


class SessionInfo(NamedTuple):
    """A session's (or a note's) state and the attributes filters and ranking use."""

    kind: str
    key: str
    state: str
    status: str
    agent: str
    topic: str  # a note's Title
    updated_at: str
    updated_sort: str
    note_type: str = ""
    scope: str = ""
    project: str = ""


Facts = tuple[
    str, str, str, str, str, str, str, str, str
]  # state, source, status, agent, topic, updated_at, type, scope, project


def fold(name: str) -> str:
    """A section name compared without ASCII case (as SQLite's NOCASE does)."""
    return name.translate(ASCII_LOWER)


def sort_time(value: str) -> str:
    """Updated At as sortable `YYYY-MM-DD HH:MM` text, or "" when it is not a time."""
    value = value.strip()
    if TIME_RE.fullmatch(value):
        return value
    when = parse(value)
    return when.strftime(FORMAT) if when else ""


def doc_order(doc: Doc, path: str) -> tuple[int, int, str, str, str]:
    """Sort key of a session's matching documents: the first one is where the result points."""
    return (-doc.weight, PLACE_ORDER.get(doc.place, 9), path, doc.section, doc.text)


def facts(rec: Record) -> Facts:
    """What resolve() needs of a record."""
    return (
        rec.state,
        rec.source,
        rec.status,
        rec.agent,
        rec.topic,
        rec.updated_at,
        rec.note_type,
        rec.scope,
        rec.project,
    )


def resolve(kind: str, key: str, records: Iterable[Facts]) -> SessionInfo | None:
    """A session's info from its records' facts (see Facts).

    A session is live when any live source knows it. Its attributes come from its row (the
    index row, or the archived row) before its snapshot; among equals, the latest update.
    """
    items = list(records)
    if not items:
        return None
    state = LIVE if any(r[0] == LIVE for r in items) else ARCHIVED
    mine = [r for r in items if r[0] == state]
    rank = min(SOURCE_RANK.get(r[1], 9) for r in mine)
    best = max((r for r in mine if SOURCE_RANK.get(r[1], 9) == rank), key=lambda r: (sort_time(r[5]), r[2], r[3], r[4]))
    return SessionInfo(
        kind, key, state, best[2], best[3], best[4], best[5], sort_time(best[5]), best[6], best[7], best[8]
    )


def _regular(path: str) -> tuple[int, int] | None:
    """(size, mtime_ns) of a file that is no symlink nor folder (a FIFO, a socket or a device too: its read, which
    never opens it, says it cannot be read), else None."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns) if _a_file(st.st_mode) else None


def _a_file(mode: int) -> bool:
    """Whether a listed entry is one search reads: anything but a folder or a symlink (which could lead out of the
    root). A FIFO, socket or device is listed too, so that it is named as a file that could not be read."""
    return not (stat.S_ISDIR(mode) or stat.S_ISLNK(mode))


def index_stat(root: str) -> tuple[int, int] | None:
    """(size, mtime_ns) of index.md, None when there is none."""
    return _regular(os.path.join(root, INDEX))


def note_listing(
    root: str, unlisted: dict[str, str] | None = None, early: EarlyWalk | None = None
) -> dict[str, tuple[int, int]]:
    """The part of listing() under notes/: all a search of notes alone depends on (early: see listing)."""
    out: dict[str, tuple[int, int]] = {}
    notes = os.path.join(root, NOTES)
    if not os.path.islink(notes):
        _note_files(notes, NOTES, out, {} if unlisted is None else unlisted, early)
    return out


def others_listing(root: str, unlisted: dict[str, str] | None = None) -> dict[str, tuple[int, int]]:
    """The part of listing() outside notes/ (sessions/*.md and the archive's files), without a look at the notes:
    what a search that cannot find a note depends on, besides index.md."""
    out: dict[str, tuple[int, int]] = {}
    gaps: dict[str, str] = {} if unlisted is None else unlisted
    sessions, archive = os.path.join(root, SESSIONS), os.path.join(root, ARCHIVE)
    try:
        if os.path.islink(sessions):
            raise NotADirectoryError(sessions)
        _session_files(sessions, out)
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as exc:
        gaps[f"{SESSIONS}/"] = why(exc)
    folders: list[str] = []
    try:
        if os.path.islink(archive):
            raise NotADirectoryError(archive)
        with os.scandir(archive) as it:
            folders = [e.name for e in it if e.is_dir(follow_symlinks=False)]
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as exc:
        gaps[f"{ARCHIVE}/"] = why(exc)
    if folders:
        _archive_files(archive, folders, out, gaps)
    return out


def listing(
    root: str, unlisted: dict[str, str] | None = None, early: EarlyWalk | None = None
) -> dict[str, tuple[int, int]]:
    """Every file search may read besides index.md, as relative path → (size, mtime_ns).

    That is `sessions/*.md`, `archive/*/index.md|session.md` and `notes/**/*.md`; symlinks (these
    folders too) are skipped, as they could lead out of the root, and so are folders; a FIFO, socket or
    device is listed (never opened: its read names it as a file that could not be read). Each file is
    statted once and none is read, so an unchanged root is cheap to check; which names are Session IDs
    is decided when a file is read. A folder that is there but cannot be listed goes to unlisted
    (`folder/` -> why, in words): what it holds is unknown, never nothing. early: the notes' stamps taken by
    find since the process started (notewalk.take_early of notes/), used when it succeeded.
    """
    gaps: dict[str, str] = {} if unlisted is None else unlisted
    out = others_listing(root, gaps)
    notes = os.path.join(root, NOTES)
    if not os.path.islink(notes):
        _note_files(notes, NOTES, out, gaps, early)
    return out


def _note_files(
    folder: str, rel: str, out: dict[str, tuple[int, int]], gaps: dict[str, str], early: EarlyWalk | None
) -> None:
    """Add the stats of the `*.md` files in a notes folder and, down to MAX_NOTE_DEPTH, its subfolders': the walk
    `note list` takes too (files/notewalk.py: symlinks skipped, a FIFO, socket or device named `*.md` listed, as
    listing() says, a name gone meanwhile left out, a folder that cannot be listed or looked into to gaps), or the
    same stamps as early's child took them (where it failed in any way, the walk here)."""
    found = None if early is None or early.rel != rel else early.stamps()
    if found is None:
        walk_notes(folder, rel, MAX_NOTE_DEPTH, {}, gaps, out)
    else:
        out.update(found)


def _session_files(sessions: str, out: dict[str, tuple[int, int]]) -> None:
    """Add the stats of sessions/*.md (through the folder's own handle where the OS allows: fewer path lookups)."""
    fd = os.open(sessions, os.O_RDONLY) if os.scandir in os.supports_fd else None
    try:
        with os.scandir(sessions if fd is None else fd) as it:
            for entry in it:
                if entry.name.endswith(".md") and not entry.is_symlink() and not entry.is_dir(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    out[f"{SESSIONS}/{entry.name}"] = (st.st_size, st.st_mtime_ns)
    finally:
        if fd is not None:
            os.close(fd)


def _archive_files(archive: str, folders: list[str], out: dict[str, tuple[int, int]], gaps: dict[str, str]) -> None:
    """Add the stats of each archive folder's index.md and session.md (paths relative to the archive's own handle;
    a folder that cannot be looked into goes to gaps)."""
    try:
        # lstat is stat without following: Python lists stat, never lstat, among the calls that take dir_fd
        fd = os.open(archive, os.O_RDONLY) if os.stat in os.supports_dir_fd else None
    except FileNotFoundError:
        return
    except OSError as exc:
        gaps[f"{ARCHIVE}/"] = why(exc)
        return
    prefix = "" if fd is not None else os.path.join(archive, "")
    lstat, regular = os.lstat, _a_file
    try:
        for name in folders:
            for leaf in ("index.md", "session.md"):
                try:
                    st = lstat(f"{prefix}{name}/{leaf}", dir_fd=fd)
                except (FileNotFoundError, NotADirectoryError):
                    continue
                except OSError as exc:
                    gaps[f"{ARCHIVE}/{name}/"] = why(exc)
                    break
                if regular(st.st_mode):
                    out[f"{ARCHIVE}/{name}/{leaf}"] = (st.st_size, st.st_mtime_ns)
    finally:
        if fd is not None:
            os.close(fd)


def source_of(path: str) -> tuple[str, str] | None:
    """The (kind, key) a listed file belongs to: a session's ID or a note's (None when its name is neither)."""
    parts = path.split("/")
    if parts[0] == NOTES:
        note_id = note_id_of(path)
        return (NOTE, note_id) if note_id is not None else None
    key = parts[1][:-3] if parts[0] == SESSIONS else parts[1]
    return (SESSION, key) if is_valid_id(key) else None
