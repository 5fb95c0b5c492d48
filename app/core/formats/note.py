"""Typed notes (seed 001): `notes/<topic/key>.md`, one Markdown file per topic key.

A note file is a title heading, a `## Metadata` table of fields, then the sections What, Why,
Where and Learned:

    # Choose Trilium as the AI-Context source of truth

    ## Metadata

    | Field | Value |
    |---|---|
    | Title | Choose Trilium as the AI-Context source of truth |
    | Type | decision |
    | Scope | project |
    | Topic Key | memory/ai-context-runtime |
    | Status | active |
    | Supersedes | - |
    | Superseded By | - |
    | Project | ai-context |
    | Session | 2026-06-01-0930-cursor-main-agent |
    | Created | 2026-06-01 09:30 |
    | Updated | 2026-06-01 09:30 |

    ## What

    Trilium notes are the source of truth.

    ## Why
    ...

`render_note` writes a new note exactly in that form; `read_note` reads any note file back
into `Note` values; `write_note` turns an existing file into one holding new values by editing
only the lines that change (the heading, the metadata rows, a section's body), so unknown
lines, unknown metadata rows and unknown sections, CRLF line ends and a BOM survive. Every
written note is read back before it is returned: text that would not read back as written (a
`## ` heading inside What, a code block left open) is refused with one line, never written.
`statements` splits a note's sections into the statements the conflict policy compares (statements.py
says when a new text keeps one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from functools import lru_cache

from ..errors import UsageError
from . import statements as kept
from .ids import is_valid_id
from .snapshot import Section, Snapshot, set_metadata
from .text import BOM, decode, encode, escape, line_body, line_ending, split_cells, split_lines, unescape
from .topic import SCOPES, TYPES, is_topic_key, split_note_id

STATUSES = ("active", "superseded")
SECTIONS = ("What", "Why", "Where", "Learned")
FIELDS = (
    "Title",
    "Type",
    "Scope",
    "Topic Key",
    "Status",
    "Supersedes",
    "Superseded By",
    "Project",
    "Session",
    "Created",
    "Updated",
)
NONE = "-"
MAX_TITLE = 200
MAX_PROJECT = 100
ATTRIBUTE_OF_FIELD = {
    "Title": "title",
    "Type": "type",
    "Scope": "scope",
    "Topic Key": "topic_key",
    "Status": "status",
    "Supersedes": "supersedes",
    "Superseded By": "superseded_by",
    "Project": "project",
    "Session": "session",
    "Created": "created",
    "Updated": "updated",
}
ATTRIBUTE_OF_SECTION = {"What": "what", "Why": "why", "Where": "where", "Learned": "learned"}
Range = tuple[int, int, list[str]]  # lines [start, end) replaced by these
FENCE_RE = re.compile(r" {0,3}(```|~~~)")
H2_RE = re.compile(r" {0,3}##(?:[ \t]+|$)(.*)")


@dataclass(frozen=True)
class NoteDraft:
    """What a caller saves (seed 001's mem_save): title, type, scope, the four texts, and optionally
    the topic key (derived from scope, type and title when None), a project and a Session ID."""

    title: str
    type: str
    scope: str
    what: str = ""
    why: str = ""
    where: str = ""
    learned: str = ""
    topic_key: str | None = None
    project: str | None = None
    session: str | None = None


@dataclass(frozen=True)
class Note:
    """A note's values as its file holds them (lists of note IDs for the links, "" for an empty field)."""

    title: str
    type: str
    scope: str
    topic_key: str
    status: str = "active"
    supersedes: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    project: str = ""
    session: str = ""
    created: str = ""
    updated: str = ""
    what: str = ""
    why: str = ""
    where: str = ""
    learned: str = ""

    def cells(self) -> dict[str, str]:
        """The metadata table's values, field by field, as they are written (`-` for nothing)."""
        out = {}
        for name in FIELDS:
            value = getattr(self, ATTRIBUTE_OF_FIELD[name])
            text = ", ".join(value) if isinstance(value, tuple) else value
            out[name] = text or NONE
        return out

    def bodies(self) -> dict[str, str]:
        """The four sections' texts by section name."""
        return {name: getattr(self, attr) for name, attr in ATTRIBUTE_OF_SECTION.items()}

    def with_changes(self, **changes: object) -> Note:
        """A copy with some values changed."""
        return replace(self, **changes)  # type: ignore[arg-type]


def one_line(value: str | None, what: str, limit: int) -> str:
    """A one-line metadata value: white space folded; NUL bytes, surrogates and over-long values refused."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise UsageError(f"{what} must be text")
    if "\x00" in value or any("\ud800" <= ch <= "\udfff" for ch in value):
        raise UsageError(f"{what} holds a NUL byte or text that is not UTF-8")
    text = " ".join(value.split())
    if len(text) > limit:
        raise UsageError(f"{what} is too long ({len(text)} characters; at most {limit})")
    return text


def normalize_body(value: str | None, what: str) -> str:
    """A section's text as a note holds it: line ends as `\\n`, blank lines at either end dropped."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise UsageError(f"{what} must be text")
    if "\x00" in value or any("\ud800" <= ch <= "\udfff" for ch in value):
        raise UsageError(f"{what} holds a NUL byte or text that is not UTF-8")
    lines = value.replace("\r\n", "\n").split("\n")
    while lines and not lines[0].strip(" \t"):
        lines.pop(0)
    while lines and not lines[-1].strip(" \t"):
        lines.pop()
    return "\n".join(lines)


def parse_links(cell: str) -> tuple[str, ...]:
    """A Supersedes / Superseded By cell as note IDs (`-` or empty: none)."""
    out: list[str] = []
    for part in cell.split(","):
        value = part.strip().strip("`")
        if value and value != NONE and value not in out:
            out.append(value)
    return tuple(out)


def _cell_value(cell: str | None) -> str:
    """A metadata cell's value ("" for a missing cell or `-`)."""
    value = (cell or "").strip()
    return "" if value == NONE else value


def note_from_cells(meta: dict[str, str], bodies: dict[str, str] | None = None) -> Note:
    """Note values from metadata cells (and section texts)."""
    values: dict[str, object] = {}
    for name, attr in ATTRIBUTE_OF_FIELD.items():
        cell = meta.get(name)
        values[attr] = parse_links(cell or "") if attr in ("supersedes", "superseded_by") else _cell_value(cell)
    for name, attr in ATTRIBUTE_OF_SECTION.items():
        values[attr] = (bodies or {}).get(name, "")
    return Note(**values)  # type: ignore[arg-type]


def problems_of(note: Note, note_id: str | None = None) -> list[str]:
    """What is wrong with a note's values (empty when nothing is): unknown type, scope or status, a
    missing title, a topic key that is not the file's, a Session field that names no session."""
    out = []
    if not note.title:
        out.append("no Title")
    if note.type not in TYPES:
        out.append(f"Type {note.type or '(none)'!r} is not one of {', '.join(TYPES)}")
    if note.scope not in SCOPES:
        out.append(f"Scope {note.scope or '(none)'!r} is not one of {', '.join(SCOPES)}")
    if note.status not in STATUSES:
        out.append(f"Status {note.status or '(none)'!r} is not active or superseded")
    split = split_note_id(note_id) if note_id is not None else None
    if split is not None and split[0] != note.topic_key:
        out.append(f"Topic Key {note.topic_key or '(none)'!r} is not the file's topic {split[0]!r}")
    elif split is None and not is_topic_key(note.topic_key):
        out.append(f"Topic Key {note.topic_key or '(none)'!r} is not a topic key")
    if note.session and not is_valid_id(note.session):
        out.append(f"Session {note.session!r} is not a Session ID")
    return out


# -- reading -------------------------------------------------------------------------------


def _body_lines(doc: Snapshot, name: str) -> tuple[int, int] | None:
    """The line range of a section's body, blank lines at either end left out (None: no such section)."""
    sec = doc.section(name)
    if sec is None:
        return None
    start, end = sec.start, sec.end
    while start < end and not line_body(doc.lines[start]).strip(" \t"):
        start += 1
    while end > start and not line_body(doc.lines[end - 1]).strip(" \t"):
        end -= 1
    return start, end


def body_of(doc: Snapshot, name: str) -> str:
    """A section's text ("" when the section is missing or empty), lines joined by `\\n`."""
    span = _body_lines(doc, name)
    if span is None:
        return ""
    return "\n".join(line_body(line) for line in doc.lines[span[0] : span[1]])


def read_note(data: bytes | str) -> Note:
    """A note file's values (fields it lacks are empty)."""
    return _parsed(data)[1]


@lru_cache(maxsize=2)  # a save reads the note it writes over, then edits it (write_note): one parse for both
def _parsed(data: bytes | str) -> tuple[Snapshot, Note]:
    """A note file parsed (read only: the Snapshot is shared) and its values."""
    doc = Snapshot(data)
    return doc, note_from_cells(doc.metadata(), {name: body_of(doc, name) for name in SECTIONS})


def quick_cells(data: bytes) -> dict[str, str]:
    """The metadata table of a note file, read by a line scan (no Markdown parser: listing many notes
    stays quick). Code fences are skipped; the table is the first one under `## Metadata`."""
    start = data.find(b"## Metadata")
    end = data.find(b"\n## ", start + 1) if start >= 0 else -1
    if end > 0 and b"```" not in data[:end] and b"~~~" not in data[:end]:
        data = data[:end]  # the table ends before the next section: the rest need not be read
    text = data.decode("utf-8", "replace")
    out: dict[str, str] = {}
    inside = False
    fence = ""
    for line in text.splitlines():
        m = FENCE_RE.match(line)
        if fence:
            if m and m.group(1) == fence:
                fence = ""
            continue
        if m:
            fence = m.group(1)
            continue
        h = H2_RE.match(line)
        if h:
            if inside:
                break
            inside = h.group(1).strip().rstrip("#").strip().casefold() == "metadata"
            continue
        if inside:
            cells = split_cells(line)
            if cells and len(cells) >= 2 and cells[0] != "Field" and not set(cells[0]) <= set("-: "):
                out.setdefault(unescape(cells[0]), unescape(cells[1]).strip())
    return out


# -- writing -------------------------------------------------------------------------------


def render_note(note: Note) -> str:
    """A new note file, exactly in memboard's form (see the module's docstring)."""
    head = [f"# {note.title}", "", "## Metadata", "", "| Field | Value |", "|---|---|"]
    head += [f"| {name} | {escape(value)} |" for name, value in note.cells().items()]
    parts = ["\n".join(head) + "\n"]
    for name, body in note.bodies().items():
        parts.append(f"## {name}\n" + (f"\n{body}\n" if body else ""))
    return "\n".join(parts)


def _splice_body(text: str, name: str, body: str) -> str:
    """text with section name's body replaced by body (a missing section is added in the sections' order)."""
    doc = Snapshot(text)
    lines, eol = list(doc.lines), doc.eol()
    new = [line + eol for line in body.split("\n")] if body else []
    sec = doc.section(name)
    if sec is None:
        later = SECTIONS[SECTIONS.index(name) + 1 :]
        at = next((s.heading for s in doc.sections if s.name in later), len(lines))
        block = [f"## {name}{eol}"] + ([eol] + new if new else [])
        if at < len(lines):
            block.append(eol)
        if lines and not line_ending(lines[-1]):
            lines[-1] += eol
        if at > 0 and line_body(lines[at - 1]).strip(" \t"):
            block.insert(0, eol)
        lines[at:at] = block
        return "".join(lines)
    start, end = sec.start, sec.end
    if start > 0 and not line_ending(lines[start - 1]):
        lines[start - 1] += eol
    region = ([eol] + new if new else []) + ([eol] if end < len(lines) else [])
    lines[start:end] = region
    return "".join(lines)


def _title_line(lines: list[str], title: str) -> int | None:
    """The line of the `# title` heading before the first section, if any."""
    for i, line in enumerate(lines):
        body = line_body(line)
        if body.startswith("## "):
            break
        if body.startswith("# ") and body[2:].strip().rstrip("#").strip() == title:
            return i
    return None


def _retitle(text: str, old_title: str, new_title: str) -> str:
    """text with its `# old_title` heading (before the first section) saying new_title."""
    lines = split_lines(text)
    at = _title_line(lines, old_title)
    if at is not None:
        lines[at] = f"# {new_title}" + line_ending(lines[at])
    return "".join(lines)


def write_note(old: bytes | None, note: Note) -> bytes:
    """The bytes of a note file holding note: rendered anew, or old edited where its values differ.

    Refuses (UsageError, nothing written) a value that would not read back as written.
    """
    if old is None:
        data = encode(render_note(note))
    else:
        doc, was = _parsed(old)
        text = _edited(doc, was, note)
        if text is None:
            text = _edited_section_by_section(doc, was, note)
        data = (BOM.encode("utf-8") if doc.bom else b"") + encode(text)
    _check_reads_back(data, note)
    return data


def _changed_sections(was: Note, note: Note) -> list[str]:
    """The sections whose text note changes."""
    return [name for name, body in note.bodies().items() if body != getattr(was, ATTRIBUTE_OF_SECTION[name])]


def _edited(doc: Snapshot, was: Note, note: Note) -> str | None:
    """doc's text holding note's values, every edit made on doc's lines from its one parse (a note of
    100k statements is parsed once, not once per edit); None when a section or the Metadata table
    is missing, which _edited_section_by_section places."""
    meta = doc.section("Metadata")
    changed = [(name, doc.section(name)) for name in _changed_sections(was, note)]
    placed = [(name, sec) for name, sec in changed if sec is not None]
    if meta is None or len(placed) < len(changed):
        return None
    lines, eol = list(doc.lines), doc.eol()
    if was.title != note.title and doc.title == was.title:
        at = _title_line(lines, was.title)
        if at is not None:
            lines[at] = f"# {note.title}" + line_ending(lines[at])
    ranges: list[Range] = [_metadata_rows(doc, lines, meta, note.cells(), eol)]
    for name, sec in placed:
        if sec.start > 0 and not line_ending(lines[sec.start - 1]):
            lines[sec.start - 1] += eol
        body = note.bodies()[name]
        new = [line + eol for line in body.split("\n")] if body else []
        ranges.append((sec.start, sec.end, ([eol] + new if new else []) + ([eol] if sec.end < len(lines) else [])))
    for start, end, region in sorted(ranges, key=lambda r: r[0], reverse=True):
        lines[start:end] = region
    return "".join(lines)


def _metadata_rows(doc: Snapshot, lines: list[str], meta: Section, cells: dict[str, str], eol: str) -> Range:
    """Set the Metadata table's values in lines (as set_metadata does), row by row; the rows to add after
    its last row, as a range to insert."""
    seen = set()
    last_row = None
    for i in doc.table_lines(meta):
        row = split_cells(line_body(lines[i]))
        if not row or len(row) < 2:
            continue
        last_row = i
        name = unescape(row[0])
        if name in cells:
            seen.add(name)
            if unescape(row[1]) != cells[name]:
                row[1] = escape(cells[name])
                lines[i] = "| " + " | ".join(row) + " |" + (line_ending(lines[i]) or "")
    missing = [k for k in cells if k not in seen]
    if not missing or last_row is None:
        return (0, 0, [])
    if not line_ending(lines[last_row]):
        lines[last_row] += eol
    return (last_row + 1, last_row + 1, [f"| {k} | {escape(cells[k])} |{eol}" for k in missing])


def _edited_section_by_section(doc: Snapshot, was: Note, note: Note) -> str:
    """doc's text holding note's values, each edit made on the text the one before it leaves (a missing
    section is added in the sections' order, a missing Metadata table before the first section)."""
    text = doc.text()
    if was.title != note.title and doc.title == was.title:
        text = _retitle(text, was.title, note.title)
    text = set_metadata(text, note.cells())
    for name, body in note.bodies().items():
        if body != body_of(Snapshot(text), name):
            text = _splice_body(text, name, body)
    return text


def _check_reads_back(data: bytes, note: Note) -> None:
    """Refuse a note whose file would not read back with the same values."""
    got = read_note(data)
    if got == note:
        return
    for f in fields(Note):
        if getattr(got, f.name) != getattr(note, f.name):
            what = f.name.replace("_", " ")
            raise UsageError(
                f"{what} would not read back as written: a '## ' heading, a line of '---' or '===' under text, or a "
                f"code block left open in it would break the note's sections; change that line; nothing written",
                says_written=True,
            )


def decoded(data: bytes) -> str:
    """A note file's text for showing (bytes that are not UTF-8 as U+FFFD, no BOM)."""
    text = decode(data).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text[1:] if text.startswith(BOM) else text


# -- statements ----------------------------------------------------------------------------


def statements(note: Note) -> list[str]:
    """The statements of a note: each top-level block (each list item) of What, Why, Where and Learned,
    as written, each once (placeholders such as `None` are no statement)."""
    return list(_statements_of(note.what, note.why, note.where, note.learned))


@lru_cache(maxsize=4)  # a save compares the same two notes several times (dropped, added, the checks after)
def _statements_of(*bodies: str) -> tuple[str, ...]:
    """The statements of the four sections' texts, in order, each once."""
    out: dict[str, None] = {}
    for name, body in zip(SECTIONS, bodies, strict=True):
        if not body:
            continue
        doc = Snapshot(f"## {name}\n\n{body}\n")
        for item in doc.items(name):
            text = item.text.strip()
            if text:
                out.setdefault(text)
    return tuple(out)


def dropped_statements(old: Note, new: Note) -> list[str]:
    """The statements of old that new no longer makes (see statements.py): what a save would drop or change."""
    return kept.dropped(statements(old), statements(new))


def added_statements(old: Note | None, new: Note) -> list[str]:
    """The statements of new that old did not make."""
    return kept.added(statements(old) if old is not None else None, statements(new))
