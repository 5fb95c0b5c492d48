"""What search reads: a root's documents (row cells, snapshot sections, archived sessions) and file stats.

The search cache and the file scan both take their documents from here, so both see exactly
the same text and rank it the same way. A document is one row cell or one snapshot section,
so a match says where it is. Only the standard library and the index's line helpers are
imported (no mistletoe): `memboard search` must start fast.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from .clock import FORMAT, parse
from .ids import is_valid_id
from .index import FIELD_OF_COLUMN, IndexFile, line_body, split_cells, unescape
from .root import ARCHIVE, INDEX, SESSIONS

SESSION = "session"  # the document kind of sessions; typed notes will add "note"
LIVE, ARCHIVED = "live", "archived"
ROW, SNAPSHOT = "row", "snapshot"  # where a match is: a row's cell or a snapshot's section
TOP = "(top)"  # the section name of text before a snapshot's first `## ` heading

# Row cells that are searched, with the weight of a match in them (higher ranks first).
CELL_WEIGHTS = {
    "Session ID": 5,
    "Topic": 5,
    "Keywords": 4,
    "Summary": 3,
    "Agent Name": 1,
    "Referenced By": 1,
}
SECTION_WEIGHTS = {"current context": 3, "metadata": 1, TOP.casefold(): 1}
DEFAULT_SECTION_WEIGHT = 2
PLACE_ORDER = {ROW: 0, SNAPSHOT: 1}
SOURCE_RANK = {ROW: 0, SNAPSHOT: 1}  # whose Status/Agent/Updated At describe a session: its row first
PLACEHOLDERS = {"none", "- none", "-"}
TIME_RE = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")
FENCE_RE = re.compile(r" {0,3}(```|~~~)")
HEADING_RE = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)(.*)")


@dataclass(frozen=True)
class Doc:
    """One searchable text: a row cell or a snapshot section."""

    place: str
    section: str
    weight: int
    text: str


@dataclass
class Record:
    """What one source says about a session: an index row, a snapshot, an archived row or snapshot."""

    kind: str
    key: str
    state: str
    source: str
    path: str
    status: str = ""
    agent: str = ""
    topic: str = ""
    updated_at: str = ""
    docs: list[Doc] = field(default_factory=list)
    fingerprint: int = 0


@dataclass(frozen=True)
class SessionInfo:
    """A session's state and the attributes filters and ranking use."""

    kind: str
    key: str
    state: str
    status: str
    agent: str
    topic: str
    updated_at: str
    updated_sort: str


def text_of(data: bytes) -> str:
    """File bytes as text: bytes that are not UTF-8 become U+FFFD, a BOM is dropped."""
    text = data.decode("utf-8", "replace")
    return text[1:] if text.startswith("\ufeff") else text


def sort_time(value: str) -> str:
    """Updated At as sortable `YYYY-MM-DD HH:MM` text, or "" when it is not a time."""
    value = value.strip()
    if TIME_RE.fullmatch(value):
        return value
    when = parse(value)
    return when.strftime(FORMAT) if when else ""


def doc_order(doc: Doc, path: str) -> tuple:
    """Sort key of a session's matching documents: the first one is where the result points."""
    return (-doc.weight, PLACE_ORDER.get(doc.place, 9), path, doc.section, doc.text)


def resolve(kind: str, key: str, records: Iterable[tuple[str, str, str, str, str, str]]) -> SessionInfo | None:
    """A session's info from its records' (state, source, status, agent, topic, updated_at).

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
    return SessionInfo(kind, key, state, best[2], best[3], best[4], best[5], sort_time(best[5]))


# -- index rows ---------------------------------------------------------------------------


def table_of(data: bytes) -> tuple[tuple[str, ...], int, int]:
    """The board table's columns and the byte span of its row lines in index bytes."""
    index = IndexFile(data)
    start, end = index.row_span()
    return tuple(index.columns), start, end


def iter_lines(data: bytes, start: int, end: int) -> Iterator[bytes]:
    """The lines of data[start:end] without their `\\n` (streamed, no list of the whole file)."""
    pos = start
    while pos < end:
        nl = data.find(b"\n", pos, end)
        stop = end if nl < 0 else nl
        yield data[pos:stop]
        pos = stop + 1


def row_record(line: bytes, columns: tuple[str, ...], fingerprint: int = 0) -> Record | None:
    """The record of one index table line (None when it has no Session ID cell)."""
    cells = split_cells(line_body(line.decode("utf-8", "replace"))) or []
    values: dict[str, str] = {}
    for pos, column in enumerate(columns):
        if pos < len(cells) and column in FIELD_OF_COLUMN:
            values[column] = unescape(cells[pos]).strip()
    key = values.get("Session ID", "")
    if not key:
        return None
    docs = [Doc(ROW, col, weight, values[col]) for col, weight in CELL_WEIGHTS.items() if values.get(col, "-") != "-"]
    return Record(
        SESSION, key, LIVE, ROW, INDEX, values.get("Status", ""), values.get("Agent Name", ""), values.get("Topic", ""),
        values.get("Updated At", ""), docs, fingerprint,
    )


# -- snapshots and archived sessions ------------------------------------------------------


def sections(text: str) -> list[tuple[str, str]]:
    """A snapshot's `## ` sections as (name, body); text before the first one is TOP."""
    out: list[tuple[str, str]] = []
    name, body = TOP, list[str]()
    fence = ""
    for line in text.splitlines():
        m = FENCE_RE.match(line)
        if fence:
            if m and m.group(1) == fence:
                fence = ""
        elif m:
            fence = m.group(1)
        else:
            h = HEADING_RE.match(line)
            if h and len(h.group(1)) == 2:
                out.append((name, "\n".join(body).strip()))
                name, body = h.group(2).strip().rstrip("#").strip() or "##", []
                continue
        body.append(line)
    out.append((name, "\n".join(body).strip()))
    return out


def table_fields(body: str) -> dict[str, str]:
    """A `| Field | Value |` table as a dict (the first value of each field wins)."""
    out: dict[str, str] = {}
    for line in body.splitlines():
        cells = split_cells(line)
        if cells and len(cells) >= 2 and cells[0] != "Field" and not set(cells[0]) <= set("-: "):
            out.setdefault(unescape(cells[0]), unescape(cells[1]).strip())
    return out


def snapshot_record(data: bytes, key: str, state: str, path: str) -> Record:
    """The record of a snapshot file (live or archived): one document per section."""
    docs = []
    meta: dict[str, str] = {}
    for name, body in sections(text_of(data)):
        if name.casefold() == "metadata":
            meta = table_fields(body)
        if body and body.casefold() not in PLACEHOLDERS:
            docs.append(Doc(SNAPSHOT, name, SECTION_WEIGHTS.get(name.casefold(), DEFAULT_SECTION_WEIGHT), body))
    return Record(
        SESSION, key, state, SNAPSHOT, path, meta.get("Status", ""), meta.get("Agent Name", ""), meta.get("Topic", ""),
        meta.get("Updated At", ""), docs,
    )


def archived_row_record(data: bytes, key: str, path: str) -> Record:
    """The record of `archive/<id>/index.md`: its Metadata fields, searched like row cells."""
    meta: dict[str, str] = {}
    for name, body in sections(text_of(data)):
        if name.casefold() == "metadata":
            meta = table_fields(body)
            break
    docs = [Doc(ROW, col, weight, meta[col]) for col, weight in CELL_WEIGHTS.items() if meta.get(col, "-") != "-"]
    return Record(
        SESSION, key, ARCHIVED, ROW, path, meta.get("Original Status", ""), meta.get("Agent Name", ""), meta.get("Topic", ""),
        meta.get("Updated At", ""), docs,
    )


def file_record(root: str, path: str) -> Record | None:
    """The record of a listed file (None when its name is no Session ID, or it vanished or cannot be read)."""
    key = session_of(path)
    if key is None:
        return None
    try:
        with open(os.path.join(root, path), "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if path.startswith(SESSIONS):
        return snapshot_record(data, key, LIVE, path)
    if path.endswith("/index.md"):
        return archived_row_record(data, key, path)
    return snapshot_record(data, key, ARCHIVED, path)


# -- listing ------------------------------------------------------------------------------


def _regular(path: str) -> tuple[int, int] | None:
    """(size, mtime_ns) of a regular file that is not a symlink, else None."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None


def index_stat(root: str) -> tuple[int, int] | None:
    """(size, mtime_ns) of index.md, None when there is none."""
    return _regular(os.path.join(root, INDEX))


def listing(root: str) -> dict[str, tuple[int, int]]:
    """Every file search may read besides index.md, as relative path → (size, mtime_ns).

    That is `sessions/*.md` and `archive/*/index.md|session.md`; symlinks are skipped (they
    could lead out of the root). Each file is statted once and none is read, so an unchanged
    root is cheap to check; which names are Session IDs is decided when a file is read.
    """
    out: dict[str, tuple[int, int]] = {}
    try:
        with os.scandir(os.path.join(root, SESSIONS)) as it:
            for entry in it:
                if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    out[f"{SESSIONS}/{entry.name}"] = (st.st_size, st.st_mtime_ns)
    except OSError:
        pass
    try:
        with os.scandir(os.path.join(root, ARCHIVE)) as it:
            folders = [e.name for e in it if e.is_dir(follow_symlinks=False)]
    except OSError:
        folders = []
    base = os.path.join(root, ARCHIVE, "")
    lstat, regular = os.lstat, stat.S_ISREG
    for name in folders:
        for leaf in ("index.md", "session.md"):
            try:
                st = lstat(f"{base}{name}/{leaf}")
            except OSError:
                continue
            if regular(st.st_mode):
                out[f"{ARCHIVE}/{name}/{leaf}"] = (st.st_size, st.st_mtime_ns)
    return out


def session_of(path: str) -> str | None:
    """The Session ID a listed file belongs to (None when its name is not one)."""
    parts = path.split("/")
    key = parts[1][:-3] if parts[0] == SESSIONS else parts[1]
    return key if is_valid_id(key) else None
