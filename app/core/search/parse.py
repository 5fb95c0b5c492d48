"""Reading a root's files into search records: index rows, snapshot sections, archived sessions, notes.

Rows are read line by line from index.md's bytes (only the table's extent is parsed), and
snapshots are split into `## ` sections by a line scan that skips fenced code: no mistletoe,
so building or refreshing the search cache stays quick. Text that is not UTF-8 is read with
U+FFFD in place of the bad bytes, so the rest of it is still found.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator

from ..errors import Unreadable
from ..files.copies import copied_note, copied_session, note_topic_key
from ..files.regular import read_regular, why
from ..formats.index import FIELD_OF_COLUMN, IndexFile
from ..formats.layout import INDEX, SESSIONS
from ..formats.text import line_body, split_cells, unescape
from .docs import ARCHIVED, LIVE, NOTE, ROW, SESSION, SNAPSHOT, TOP, Doc, Record, source_of

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
# A note's fields and sections, with their weights (other sections of a note weigh 2).
NOTE_FIELD_WEIGHTS = {"Title": 5, "Topic Key": 5}
NOTE_SECTION_WEIGHTS = {"what": 3, "metadata": 1, TOP.casefold(): 1}
DEFAULT_SECTION_WEIGHT = 2
PLACEHOLDERS = {"none", "- none", "-"}
FENCE_RE = re.compile(r" {0,3}(```|~~~)")
HEADING_RE = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)(.*)")
MARKS = frozenset("`~# ")  # what a line that FENCE_RE or HEADING_RE matches starts with
TABLE_RULE = frozenset("-: ")  # the characters of a table's rule line (`|---|:--|`)
ODD_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")  # what str.splitlines() breaks at besides \n
MARK_LINE = re.compile("^[`~# ].*", re.MULTILINE)  # a line that may be a fence or a heading (see MARKS)


def text_of(data: bytes) -> str:
    """File bytes as text: bytes that are not UTF-8 become U+FFFD, a BOM is dropped."""
    text = data.decode("utf-8", "replace")
    return text[1:] if text.startswith("\ufeff") else text


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


def row_values(line: bytes, columns: tuple[str, ...]) -> list[str]:
    """The values of one index table line's searched cells (CELL_WEIGHTS' order), then its Status and Updated At;
    "" where a cell is absent (the first, the Session ID, too when the line is no table line)."""
    text = line.decode("utf-8", "replace")
    plan = _PLANS.get(columns) or _plan(columns)
    if "\\" in text:
        if "\\\\" in text or "\0" in text:  # (a run of backslashes, or a NUL: the careful split)
            cells = split_cells(line_body(text)) or []
            n = len(cells)
            return [unescape(cells[pos]).strip() if pos < n else "" for pos in plan]
        # each backslash stands alone, so each `\|` is an escaped pipe (held as NUL while the line is split) and
        # every other pipe a cell's edge: split_cells' cells, unescaped (a third of root b's rows: 2x faster)
        body = text.strip().replace("\\|", "\0")
        cells = body[1:].split("|") if body.startswith("|") else []
        n = len(cells)
        return [cells[pos].strip().replace("\0", "|") if pos < n else "" for pos in plan]
    body = text.strip()  # no backslash, so no escaped pipe: the cells are the pieces between pipes, as split_cells'
    cells = body[1:].split("|") if body.startswith("|") else []
    n = len(cells)
    return [cells[pos].strip() if pos < n else "" for pos in plan]


def row_record(line: bytes, columns: tuple[str, ...], fingerprint: int = 0) -> Record | None:
    """The record of one index table line (None when it has no Session ID cell)."""
    values = row_values(line, columns)
    return values_record(values, fingerprint) if values[0] else None


def values_record(values: list[str], fingerprint: int = 0) -> Record:
    """The record of an index line from its row_values, which hold a Session ID."""
    key = values[0]
    docs = [Doc(ROW, col, weight, values[i]) for i, (col, weight) in enumerate(_CELLS) if values[i] not in ("", "-")]
    return Record(SESSION, key, LIVE, ROW, INDEX, values[-2], values[4], values[1], values[-1], docs, fingerprint)


_CELLS = tuple(CELL_WEIGHTS.items())
_PLANS: dict[tuple[str, ...], list[int]] = {}


def _plan(columns: tuple[str, ...]) -> list[int]:
    """Where row_record finds its cells in a line of these columns: the position of each of CELL_WEIGHTS' columns,
    then Status and Updated At (the last of a column named twice; past the end when absent: read as "")."""
    where = {column: pos for pos, column in enumerate(columns) if column in FIELD_OF_COLUMN}
    plan = [where.get(column, len(columns) + 1 << 20) for column in (*CELL_WEIGHTS, "Status", "Updated At")]
    _PLANS[columns] = plan
    return plan


# -- snapshots and archived sessions ------------------------------------------------------


def sections(text: str) -> list[tuple[str, str]]:
    """A snapshot's `## ` sections as (name, body); text before the first one is TOP."""
    if ODD_BREAKS.search(text) is None:  # (every file memboard writes: its lines end in \n alone)
        return _sections_sliced(text)
    return _sections_lines(text)


def _marked(line: str, fence: str) -> tuple[str, str | None]:
    """What a line that can be a fence or a heading does, fence being the one open before it: the fence open after
    it ("" for none) and the name of the `## ` section it starts (None when it starts none)."""
    m = FENCE_RE.match(line)
    if fence:
        return ("" if m and m.group(1) == fence else fence), None
    if m:
        return m.group(1), None
    h = HEADING_RE.match(line)
    if h and len(h.group(1)) == 2:
        return "", h.group(2).strip().rstrip("#").strip() or "##"
    return "", None


def _sections_lines(text: str) -> list[tuple[str, str]]:
    """sections(), line by line (any line break str.splitlines() knows)."""
    out: list[tuple[str, str]] = []
    name, body = TOP, list[str]()
    fence = ""
    for line in text.splitlines():
        if line[:1] not in MARKS:  # (most lines: neither a fence nor a heading can start so)
            body.append(line)
            continue
        fence, heading = _marked(line, fence)
        if heading is not None:
            out.append((name, "\n".join(body).strip()))
            name, body = heading, []
            continue
        body.append(line)
    out.append((name, "\n".join(body).strip()))
    return out


def _sections_sliced(text: str) -> list[tuple[str, str]]:
    """sections() of a text whose only line break is \\n: only the lines that can be a fence or a heading are looked
    at, and each body is the text between two headings, sliced (what joining its lines with \\n makes, but for the
    trailing line breaks that strip() drops)."""
    out: list[tuple[str, str]] = []
    name, start, fence = TOP, 0, ""
    for mark in MARK_LINE.finditer(text):
        fence, heading = _marked(mark.group(), fence)
        if heading is not None:
            out.append((name, text[start : mark.start()].strip()))
            name, start = heading, mark.end() + 1
    out.append((name, text[start:].strip()))
    return out


def table_fields(body: str) -> dict[str, str]:
    """A `| Field | Value |` table as a dict (the first value of each field wins)."""
    out: dict[str, str] = {}
    for line in body.splitlines():
        text = line.strip()
        if not text.startswith("|"):
            continue  # (no table line: split_cells' None)
        if "\\" in text:
            cells = split_cells(text) or []
            if len(cells) >= 2:
                field = cells[0].strip()
                if field != "Field" and not set(field) <= TABLE_RULE:
                    out.setdefault(unescape(field), unescape(cells[1]).strip())
            continue
        # no backslash, so no escaped pipe: split_cells' first two cells (a third piece holds the rest, which
        # matters only when it is empty: the line's closing pipe), and nothing to unescape
        cells = text[1:].split("|", 2)
        if len(cells) == 2 and not cells[1].strip():
            continue  # (`| a |`: one cell)
        if len(cells) >= 2:
            field = cells[0].strip()
            if field != "Field" and field.strip("-: "):  # (not the rule line: TABLE_RULE's characters alone)
                out.setdefault(field, cells[1].strip())
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
        SESSION,
        key,
        state,
        SNAPSHOT,
        path,
        meta.get("Status", ""),
        meta.get("Agent Name", ""),
        meta.get("Topic", ""),
        meta.get("Updated At", ""),
        docs,
    )


def archived_row_record(data: bytes, key: str, path: str) -> Record:
    """The record of `archive/<id>/index.md`: its Metadata fields, searched like row cells."""
    meta: dict[str, str] = {}
    for name, body in sections(text_of(data)):
        if name.casefold() == "metadata":
            meta = table_fields(body)
            break
    docs = [
        Doc(ROW, col, weight, meta[col]) for col, weight in CELL_WEIGHTS.items() if meta.get(col, "") not in ("", "-")
    ]
    return Record(
        SESSION,
        key,
        ARCHIVED,
        ROW,
        path,
        meta.get("Original Status", ""),
        meta.get("Agent Name", ""),
        meta.get("Topic", ""),
        meta.get("Updated At", ""),
        docs,
    )


def read_file(root: str, path: str) -> bytes | None:
    """A file's bytes, None when it is missing; an OSError when it cannot be read (regular.NotRegular for a symlink,
    which could lead out of the root, and for a FIFO, socket or device, none of which is ever opened)."""
    try:
        return read_regular(os.path.join(root, path), follow=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


def read_index(root: str) -> bytes:
    """index.md's bytes (empty when there is none); Unreadable (one line: search refuses) when it cannot be read."""
    try:
        return read_file(root, INDEX) or b""
    except OSError as exc:
        raise Unreadable(INDEX, why(exc)) from None


def note_record(data: bytes, key: str, path: str) -> Record:
    """The record of a note file: its Title and Topic Key, then one document per section (the title
    heading alone before them is no document of its own: the Title is)."""
    meta: dict[str, str] = {}
    parts = sections(text_of(data))
    for name, body in parts:
        if name.casefold() == "metadata":
            meta = table_fields(body)
            break
    title = meta.get("Title", "")
    docs = [
        Doc(NOTE, name, weight, meta[name])
        for name, weight in NOTE_FIELD_WEIGHTS.items()
        if meta.get(name, "") not in ("", "-")
    ]
    for name, body in parts:
        if name == TOP and body.lstrip("#").strip() in ("", title):
            continue
        if body and body.casefold() not in PLACEHOLDERS:
            docs.append(Doc(NOTE, name, NOTE_SECTION_WEIGHTS.get(name.casefold(), DEFAULT_SECTION_WEIGHT), body))
    cell = {k: ("" if v == "-" else v) for k, v in meta.items()}
    return Record(
        NOTE,
        key,
        LIVE,
        NOTE,
        path,
        cell.get("Status", ""),
        "",
        title,
        cell.get("Updated", ""),
        docs,
        0,
        cell.get("Type", ""),
        cell.get("Scope", ""),
        cell.get("Project", ""),
    )


def file_record(root: str, path: str, source: tuple[str, str] | None = None) -> Record | None:
    """The record of a listed file (None when it names no session or note, or it vanished); an OSError when it
    cannot be read (see read_file: the caller names it). source: its source_of(path), when the caller has it."""
    source = source or source_of(path)
    data = read_file(root, path) if source is not None else None
    if source is None or data is None:
        return None
    kind, key = source
    if kind == NOTE:
        # (a note whose Topic Key is its own ID, as most are, is no copy: copied_note's None without its look-ups)
        named = note_topic_key(data)
        if named != key and copied_note(key, named):  # a sync tool's conflict copy of a note: no note of its own
            return None
        return note_record(data, key, path)
    if path.startswith(SESSIONS):
        if copied_session(key, data):  # a OneDrive copy `<id>-<COMPUTER>.md` (named like a session): no session
            return None
        return snapshot_record(data, key, LIVE, path)
    if path.endswith("/index.md"):
        return archived_row_record(data, key, path)
    return snapshot_record(data, key, ARCHIVED, path)


def records(
    root: str, paths: Iterable[str], unreadable: dict[str, str], source: tuple[str, str] | None = None
) -> Iterator[tuple[str, Record | None]]:
    """Each listed path with its record (None: it names no session or note, or vanished); a path that cannot be
    read is noted in unreadable (path -> why, in words) and left out, never taken for an empty file. source: every
    path's source_of, when the caller has it (each is found from its path otherwise)."""
    for path in paths:
        try:
            rec = file_record(root, path, source)
        except OSError as exc:
            unreadable[path] = why(exc)
            continue
        yield path, rec


# -- listing ------------------------------------------------------------------------------
