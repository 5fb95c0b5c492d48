"""memory/lookup-index.md: seed 004's "I need to know X" → "go here" table, read, matched and resolved.

The lookup index is the agent's O(1) path: one table row names the exact file and section that holds
what it needs, so it reads those lines instead of searching. This module reads the table loosely (the
first two columns are the need and the target whatever their header says; other columns are kept), keeps
a row it cannot read (marked with its problem, never dropped), matches a query against the needs, resolves
a target to the text it names (facts.yaml lines exactly as written with their parsed value, a Markdown
section, a file, a folder's listing) and renders a new row. It imports no Markdown parser and loads the
YAML reader only to resolve a facts target: `memboard lookup` is a whole-process speed target.
"""

from __future__ import annotations

import itertools
import os
import re
from typing import Any, NamedTuple

LOOKUP_FILE = "memory/lookup-index.md"
HEADER = "| I need to know... | Go here |\n|---|---|\n"
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_ARROW = re.compile(r"\s*(?:→|->)\s*")
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
_OTHER = re.compile(r"[^\x00-\x7f]+")
FACTS_KIND, MARKDOWN_KIND, FILE_KIND, FOLDER_KIND = "facts", "markdown", "file", "folder"


class Target(NamedTuple):
    """One target of a row: a path (a folder when it ends in `/`) and an optional section."""

    path: str
    section: str | None
    text: str  # as written in the cell

    @property
    def folder(self) -> bool:
        """Whether the target names a folder (its path ends in `/`)."""
        return self.path.endswith("/")


class Row(NamedTuple):
    """A row of the table: its line (1-based), its cells, and its problem when memboard cannot read it."""

    line: int
    cells: tuple[str, ...]
    problem: str | None = None

    @property
    def need(self) -> str:
        """The first cell: what the row answers."""
        return self.cells[0] if self.cells else ""

    @property
    def target(self) -> str:
        """The second cell: where to go (as written, unescaped)."""
        return self.cells[1] if len(self.cells) > 1 else ""

    @property
    def targets(self) -> list[Target]:
        """The targets of the second cell (separated by `, `)."""
        return parse_targets(self.target)


class Index:
    """The table of lookup-index.md: its header cells, rows, and the line after which a new row goes.
    (Plain classes and named tuples here: `lookup` loads no dataclasses.)"""

    def __init__(self) -> None:
        """An index without a table."""
        self.header: tuple[str, ...] = ()
        self.header_line: int | None = None  # 1-based, None when the file holds no table
        self.rows: list[Row] = []
        self.last_line: int | None = None  # 1-based line of the table's last line (a new row goes after it)


def cell_spans(line: str) -> list[tuple[int, int]]:
    """The [start, end) of each cell's raw text in a table line (between unescaped `|`, outer space excluded)."""
    bounds: list[int] = []
    i = 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line):
            i += 2
            continue
        if line[i] == "|":
            bounds.append(i)
        i += 1
    stripped = line.strip()
    first = len(line) - len(line.lstrip())
    last = first + len(stripped)
    if not bounds or bounds[0] != first:
        bounds.insert(0, first - 1)
    if bounds[-1] != last - 1 or len(bounds) == 1:
        bounds.append(last)
    spans = []
    for a, b in itertools.pairwise(bounds):
        raw = line[a + 1 : b]
        lead = len(raw) - len(raw.lstrip())
        spans.append((a + 1 + lead, a + 1 + lead + len(raw.strip())))
    return spans


def split_cells(line: str) -> list[str]:
    """The cells of a table line: split at `|` not escaped by a backslash, each stripped and unescaped."""
    return [line[a:b].replace("\\|", "|") for a, b in cell_spans(line)]


def escape_cell(text: str) -> str:
    """A cell's text escaped for a table line: `|` as `\\|`, outer space trimmed."""
    return text.strip().replace("\\|", "\\\\|").replace("|", "\\|")


def _lines(text: str) -> list[str]:
    """The lines of text without line ends and BOM."""
    text = text.removeprefix("\ufeff")
    lines = re.split(r"\r\n|\n|\r", text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


_NEED_HEADER = re.compile(r"need|know|look|question|what|topic|想|需要|查", re.IGNORECASE)
_GO_HEADER = re.compile(r"go|where|target|file|location|path|see|去|位置|文件", re.IGNORECASE)


def parse_index(text: str) -> Index:
    """The lookup table of lookup-index.md (a header line, a delimiter line, then its rows): the first table
    whose header names a need and a place loosely ("I need to know..." / "Go here", "Need" / "Where", ...),
    else the first table."""
    lines = _lines(text)
    out = Index()
    tables = [
        k
        for k in range(len(lines) - 1)
        if lines[k].lstrip().startswith("|") and _SEPARATOR.match(lines[k + 1]) and "-" in lines[k + 1]
    ]
    if not tables:
        return out
    i = tables[0]
    for k in tables:
        head = split_cells(lines[k])
        if len(head) >= 2 and _NEED_HEADER.search(head[0]) and _GO_HEADER.search(head[1]):
            i = k
            break
    out.header = tuple(split_cells(lines[i]))
    out.header_line = i + 1
    out.last_line = i + 2
    j = i + 2
    while j < len(lines) and lines[j].lstrip().startswith("|"):
        cells = tuple(split_cells(lines[j]))
        problem = None
        if len(cells) < 2:
            problem = "fewer than two cells"
        elif not cells[0]:
            problem = "no need in the first cell"
        elif not parse_targets(cells[1]):
            problem = "no target in the second cell"
        out.rows.append(Row(j + 1, cells, problem))
        out.last_line = j + 1
        j += 1
    return out


def _strip_code(text: str) -> str:
    """text without surrounding backticks."""
    t = text.strip()
    if len(t) >= 2 and t.startswith("`") and t.endswith("`"):
        t = t[1:-1].strip()
    return t


def parse_targets(cell: str) -> list[Target]:
    """The targets of a cell: `path`, `path → section` (or `->`), `folder/`, separated by `, `."""
    out: list[Target] = []
    for part in cell.split(", "):
        raw = part.strip()
        if not raw:
            continue
        pieces = _ARROW.split(_strip_code(raw), maxsplit=1)
        path = _strip_code(pieces[0])
        section = _strip_code(pieces[1]) if len(pieces) > 1 else None
        if not path:
            continue
        out.append(Target(path, section or None, raw))
    return out


def _need_words(text: str) -> tuple[list[str], list[str]]:
    """The ASCII words (lowercased) and the runs of other text (casefolded) of a need or query."""
    folded = text.casefold()
    return _ASCII_WORD.findall(folded), _OTHER.findall(folded)


def matches(rows: list[Row], query: str) -> list[Row]:
    """The rows whose need holds every word of query (ASCII words ignoring case, other text as substrings),
    best first: fewest other words, then file order."""
    words, others = _need_words(query)
    if not words and not others:
        return []
    scored: list[tuple[int, int, Row]] = []
    for row in rows:
        if row.problem is not None and not row.need:
            continue
        need = row.need.casefold()
        have, runs = _need_words(need)
        if not all(w in have for w in words) or not all(o in need for o in others):
            continue
        extra = sum(1 for w in have if w not in words)
        extra += max(0, sum(len(r) for r in runs) - sum(len(o) for o in others))
        scored.append((extra, row.line, row))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [t[2] for t in scored]


def locate(workspace: str, path: str) -> str | None:
    """The existing file or folder a target path names: relative to the workspace, else to its parent (None for
    an absolute path, `~` or `..`: lookup reads nothing outside those two folders)."""
    rel = path.rstrip("/") or path
    if os.path.isabs(rel) or rel.startswith("~") or ".." in rel.replace("\\", "/").split("/"):
        return None  # a target names a place in the workspace or beside it, never elsewhere
    for base in (workspace, os.path.dirname(os.path.abspath(workspace))):
        full = os.path.join(base, rel)
        if os.path.lexists(full):
            return full
    return None


class Resolved(NamedTuple):
    """What a target names: its kind, the path as found, the section, the text, a parsed value, what is missing."""

    kind: str
    path: str
    section: str | None
    text: str | None = None
    value: Any = None
    missing: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The JSON keys of one resolved target."""
        return {
            "kind": self.kind,
            "path": self.path,
            "section": self.section,
            "text": self.text,
            "value": self.value,
            "missing": self.missing,
        }


def _read(full: str) -> str:
    """A file's text (UTF-8, undecodable bytes replaced), BOM dropped."""
    with open(full, "rb") as f:
        return f.read().decode("utf-8", "replace").removeprefix("\ufeff")


def _is_facts(path: str) -> bool:
    """Whether a target path is a YAML facts file."""
    return path.endswith((".yaml", ".yml"))


def resolve(workspace: str, target: Target, want_value: bool = True) -> Resolved:
    """Resolve one target against the workspace (read only)."""
    full = locate(workspace, target.path)
    section = target.section
    if full is None:
        kind = FOLDER_KIND if target.folder else FACTS_KIND if _is_facts(target.path) and section else FILE_KIND
        if section and target.path.endswith(".md"):
            kind = MARKDOWN_KIND
        return Resolved(kind, target.path, section, missing=f"{target.path} does not exist")
    try:
        if os.path.isdir(full):
            names = sorted(os.listdir(full))
            listing = "".join(n + ("/" if os.path.isdir(os.path.join(full, n)) else "") + "\n" for n in names)
            return Resolved(FOLDER_KIND, target.path, section, listing)
        if target.folder:
            return Resolved(FOLDER_KIND, target.path, section, missing=f"{target.path} is not a folder")
        text = _read(full)
    except OSError as exc:  # the row's other targets are still shown; this one says why it is not
        why = (exc.strerror or str(exc)).lower()
        kind = FOLDER_KIND if target.folder else FACTS_KIND if _is_facts(target.path) and section else FILE_KIND
        return Resolved(kind, target.path, section, missing=f"{target.path} cannot be read: {why}")
    if section is None:
        return Resolved(FILE_KIND, target.path, None, text)
    if _is_facts(target.path):
        return resolve_facts(text, target.path, section, want_value)
    return resolve_markdown(text, target.path, section)


def section_key(text: str) -> str:
    """A heading's text compared loosely: without leading `#`s, outer space, case."""
    return text.strip().lstrip("#").strip().casefold()


def markdown_sections(text: str) -> list[tuple[int, int, str]]:
    """The headings of a Markdown text outside fenced code: (0-based line, level, text)."""
    # lazy: only the targets that need it
    from .hot import (
        headings,
        lines_of,
    )

    return headings(lines_of(text))


def resolve_markdown(text: str, path: str, section: str) -> Resolved:
    """A Markdown section: from the heading whose text is section to the next heading of the same or higher level."""
    # lazy: only the targets that need it
    from .hot import lines_of

    lines = lines_of(text)
    marks = markdown_sections(text)
    want = section_key(section)
    for k, (i, level, head) in enumerate(marks):
        if head == section.strip() or section_key(head) == want:
            end = len(lines)
            for j, lv, _ in marks[k + 1 :]:
                if lv <= level:
                    end = j
                    break
            return Resolved(MARKDOWN_KIND, path, section, "".join(line + "\n" for line in lines[i:end]))
    return Resolved(MARKDOWN_KIND, path, section, missing=f"no heading {section!r} in {path}")


def split_key_path(key: str) -> list[str]:
    """A key path's parts (`paths."api.keys"` is two), as the facts reader splits it."""
    # lazy: only the targets that need it
    from .facts import split_path

    try:
        return split_path(key)
    except ValueError:
        return [key]


_BLOCK_ROOT_UNSAFE = re.compile(r"^(?:---|\.\.\.|%|\?|\[|\{|-|\t)", re.MULTILINE)


def group_lines(text: str, group: str) -> str | None:
    """A top-level group's lines as written, read from the text alone (None when the text is not a plain block
    mapping at its top, where every line at column 0 is a key or a comment, or holds no such key once)."""
    body = text.removeprefix("\ufeff")
    if _BLOCK_ROOT_UNSAFE.search(body):
        return None
    lines = body.replace("\r\n", "\n").split("\n")
    key = re.compile(
        r"^(?:" + re.escape(group) + r"|\"" + re.escape(group) + r"\"|'" + re.escape(group) + r"')[ \t]*:(?:[ \t]|$)"
    )
    starts = [i for i, line in enumerate(lines) if key.match(line)]
    if len(starts) != 1:
        return None
    first = starts[0]
    end = first + 1
    while end < len(lines) and (not lines[end] or lines[end][0] in " #"):
        end += 1
    while end - 1 > first and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return "".join(line + "\n" for line in lines[first:end])


def resolve_facts(text: str, path: str, section: str, want_value: bool = True) -> Resolved:
    """A facts group or key: its lines exactly as written (line ends as LF), and its parsed value (when
    want_value; a top-level group's lines alone are read from the text, without the YAML reader)."""
    if not want_value and re.fullmatch(r"[A-Za-z0-9_-]+", section):
        chunk = group_lines(text, section)
        if chunk is not None:
            return Resolved(FACTS_KIND, path, section, chunk)
    from . import facts  # lazy: only a facts target needs the YAML reader

    try:
        parsed = facts.read(text.encode("utf-8"))
    except facts.FactsInvalid as exc:
        return Resolved(FACTS_KIND, path, section, missing=f"{path} cannot be read: {exc}")
    found = facts.lookup(parsed, split_key_path(section))
    if found.node is None:
        return Resolved(FACTS_KIND, path, section, missing=f"no key {section!r} in {path}")
    node = found.node
    start = found.key.start if found.key is not None else node.start
    first = parsed.lines.line_of(start)
    last = parsed.lines.line_of(max(node.start, node.end - 1))
    chunk = "".join(parsed.lines.content(n) + "\n" for n in range(first, last + 1))
    value = facts.construct(node) if want_value else None
    return Resolved(FACTS_KIND, path, section, chunk, value)


def row_line(need: str, target: str, columns: int = 2) -> str:
    """A new row's line (no line end): the escaped need and target, empty cells for the other columns."""
    cells = [escape_cell(need), escape_cell(target)] + [""] * max(0, columns - 2)
    return "| " + " | ".join(cells) + " |"


def append_row(text: str, need: str, target: str) -> str:
    """lookup-index.md's text with a row appended after the table's last line (a table made when none),
    in the file's line ends, every other character unchanged."""
    index = parse_index(text)
    eol = "\r\n" if "\r\n" in text else "\n"
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom) :]
    if index.last_line is None:
        sep = "" if not body or body.endswith(("\n", "\r")) else eol
        gap = eol if body.strip() else ""
        header = HEADER.replace("\n", eol)
        return bom + body + sep + gap + header + row_line(need, target) + eol
    parts = re.split(r"(?<=\n)|(?<=\r)(?!\n)", body)
    parts = [p for p in parts if p]
    at = index.last_line  # insert after this many lines
    before = "".join(parts[:at])
    if before and not before.endswith(("\n", "\r")):
        before += eol
    return bom + before + row_line(need, target, len(index.header)) + eol + "".join(parts[at:])


def rewrite_target_cell(line: str, old: str, new: str) -> str:
    """A row's line with each target path old in its second cell replaced by new, every other character kept."""
    spans = cell_spans(line)
    if len(spans) < 2:
        return line
    a, b = spans[1]
    targets = []
    changed = False
    for t in parse_targets(line[a:b].replace("\\|", "|")):
        if t.path == old:
            targets.append(new + (f" → {t.section}" if t.section else ""))
            changed = True
        else:
            targets.append(t.text)
    if not changed:
        return line
    return line[:a] + escape_cell(", ".join(targets)) + line[b:]
