"""Session snapshots (`sessions/<id>.md`): the seed's template, section parsing and merging.

Structure comes from the top-level Markdown blocks as GitHub reads them (`blocks.py`, on
mistletoe): `## ` headings are sections, and each top-level block of a section is an item (a
list gives one item per list item). Edits are made on the original lines and move whole
blocks, so everything memboard does not mean to change survives, and every block keeps its
text and its structure: a block is only ever re-indented as a whole, an indented code block
that would join the block before it is written fenced, and a one-line value that would start
a block (a fence, a heading, a list…) gets a backslash before its first mark.
The merge follows the seed's Snapshot Merge Policy: the old snapshot is the base, new items
are added section by section, and no old item vanishes — it stays, or the new text marks it
`[superseded]`, `[resolved]` or `[done]`. Each merge is checked before it is written; one that
would not keep every earlier item and section is refused, never written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING

from ..errors import Refused, UsageError
from .ids import is_valid_id
from .text import (
    BOM,
    BOM_BYTES,
    CLOSING_FENCE_RE,
    decode,
    encode,
    escape,
    line_body,
    line_ending,
    split_cells,
    split_lines,
    strip_columns,
    unescape,
)

MARKERS = ("[superseded]", "[resolved]", "[done]")
MARKER_RE = re.compile(r"\[(superseded|resolved|done)\]", re.IGNORECASE)
# GitHub's white space is the space and the tab (a line ending aside): other characters Python
# takes for white space (U+00A0, U+2000-U+200A, U+3000, a form feed...) are text to it, so they
# do not end a list mark, and keys keep them (`-\u3000x` is a paragraph, not the item `- x`).
LIST_MARK_RE = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
SPACES_RE = re.compile(r"[ \t]+")
SPACE_AND_EOL = " \t\r\n"
CONTINUES_RE = re.compile(rb"continues from", re.I)
ID_BYTES_RE = re.compile(rb"\d{4}-\d{2}-\d{2}-\d{4}-[a-z0-9]")
BULLET_RE = re.compile(r"^ {0,3}[-*+][ \t]+")
ORDERED_LEAD_RE = re.compile(r"^\d{1,9}(?=[.)])")
QUOTE_LINE_RE = re.compile(r"^ {0,3}>")
PLAIN_START_RE = re.compile(r"[^\W_]")  # a letter or digit (any script): no Markdown block starts with one
ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

CONTEXT_INSTRUCTION = "Summarize what has happened in this agent session so far."
# The template's own text: an item that is exactly one of these (after a bullet) holds nothing.
PLACEHOLDERS = frozenset(
    {
        "None",
        "`None`",
        CONTEXT_INSTRUCTION,
        "List decisions already made.",
        "List files, folders, hooks, skills, or wiki pages created or changed.",
        "List unresolved questions, or write `None`.",
        "List likely next steps, or write `None`.",
        "List source Memory Session IDs this session continues from, or write `None`.",
        "List replaced decisions, resolved questions, or completed/abandoned actions, or write `None`.",
    }
)
# Blocks whose identity is their whole text (code by its content), not their first line.
LITERAL_KINDS = frozenset({"fence", "indented", "html", "table", "def", "hr"})
SECTION_ORDER = (
    "Metadata",
    "Current Context",
    "Decisions",
    "Files / Artifacts",
    "Open Questions",
    "Next Actions",
    "Continues From",
    "Superseded / Resolved",
)

TEMPLATE = """# Session: {id}

## Metadata

| Field | Value |
|---|---|
| Session ID | {id} |
| Agent Name | {agent} |
| Topic | {topic} |
| Status | {status} |
| Started At | {started} |
| Updated At | {updated} |

## Current Context

{context}

## Decisions

{decisions}

## Files / Artifacts

{files}

## Open Questions

{questions}

## Next Actions

{actions}

## Continues From

{continues}

## Superseded / Resolved

{superseded}
"""


def _with_empty_sections(template: str) -> str:
    """The template with `- None` already in the sections a snapshot made from a row leaves empty."""
    for name in ("decisions", "files", "questions", "actions", "superseded"):
        template = template.replace("{" + name + "}", "- None")
    return template


BARE_TEMPLATE = _with_empty_sections(TEMPLATE)

if TYPE_CHECKING:
    from .blocks import Block


KEPT_READING = 256 * 1024  # characters: the longest text whose reading read_blocks keeps


def read_blocks(lines: list[str]) -> list[Block]:
    """The top-level Markdown blocks of lines, as GitHub reads them (see blocks.py).

    The reading depends on the lines alone, and a plan reads the same snapshot text several times (an update: the
    old text, the merged one, the checks of both, the text read back after the write), so the last few readings
    are kept by their lines (texts up to KEPT_READING characters: a long-lived board keeps no large one); a Block is
    frozen, and each caller gets its own list."""
    if sum(map(len, lines)) > KEPT_READING:
        from .blocks import read_blocks as read  # lazy: as in _read_blocks

        return read(lines)
    return list(_read_blocks(tuple(lines)))


@lru_cache(maxsize=16)
def _read_blocks(lines: tuple[str, ...]) -> tuple[Block, ...]:
    """read_blocks, kept by the lines."""
    # lazy: mistletoe takes about 110 ms to import, and `list` and the hook parse no snapshot
    from .blocks import read_blocks as read

    return tuple(read(list(lines)))


def _reads_as_paragraph(text: str) -> bool:
    """Whether one line on its own is read as a single paragraph."""
    if PLAIN_START_RE.match(text) and not ORDERED_LEAD_RE.match(text):
        return True  # it starts with a letter or digit (not a numbered list's `1.`): no block starts so
    blocks = read_blocks([text + "\n"])
    return len(blocks) == 1 and blocks[0].kind == "para"


@lru_cache(maxsize=4096)  # the same Summary on many rows (doctor writes a snapshot for each of 57k rows at 100k)
def safe_line(value: str) -> str:
    """A one-line value as text that reads as one paragraph (or list item content).

    A value that would start another block — a code fence, a heading, a list, a quote, an
    HTML block, a thematic break, a link definition — gets a backslash before its first mark
    (`\\```js` shows as "```js"), so it cannot swallow or split the sections after it.
    """
    text = " ".join(value.split())
    if not text or _reads_as_paragraph(text):
        return text
    ordered = ORDERED_LEAD_RE.match(text)
    if ordered:
        escaped = text[: ordered.end()] + "\\" + text[ordered.end() :]
    elif text[0] in ESCAPABLE:
        escaped = "\\" + text
    else:
        escaped = text
    if not _reads_as_paragraph(escaped):
        raise UsageError(f"cannot write {text[:60]!r} as one line of text in a snapshot")
    return escaped


def _bullets(items: list[str] | None, default: str) -> str:
    """A Markdown bullet list, or the template's default text."""
    if not items:
        return default
    return "\n".join(f"- {safe_line(item)}" for item in items)


def render_template(
    session_id: str,
    agent: str,
    topic: str,
    started: str,
    updated: str,
    context: str = "",
    status: str = "active",
    decisions: list[str] | None = None,
    files: list[str] | None = None,
    questions: list[str] | None = None,
    actions: list[str] | None = None,
    continues: list[str] | None = None,
    superseded: list[str] | None = None,
) -> str:
    """A new snapshot exactly in the seed's template, filled with the given values."""
    if not (decisions or files or questions or actions or superseded):  # (doctor: 58k of them at 100k rows)
        return BARE_TEMPLATE.format(
            id=session_id,
            agent=agent,
            topic=escape(topic),
            status=status,
            started=started,
            updated=updated,
            context=safe_line(context) or CONTEXT_INSTRUCTION,
            continues=_bullets(continues, "- None"),
        )
    return TEMPLATE.format(
        id=session_id,
        agent=agent,
        topic=escape(topic),
        status=status,
        started=started,
        updated=updated,
        context=safe_line(context) or CONTEXT_INSTRUCTION,
        decisions=_bullets(decisions, "- None"),
        files=_bullets(files, "- None"),
        questions=_bullets(questions, "- None"),
        actions=_bullets(actions, "- None"),
        continues=_bullets(continues, "- None"),
        superseded=_bullets(superseded, "- None"),
    )


def text_of(data: bytes) -> str:
    """A snapshot file's text as `Snapshot(data).text()` has it (its BOM dropped), without parsing it."""
    text = decode(data)
    return text[1:] if text.startswith(BOM) else text


def with_text(data: bytes, text: str) -> bytes:
    """The bytes of a snapshot file that held data and now holds text (its BOM kept), as `Snapshot.to_bytes`."""
    return encode((BOM if data.startswith(BOM_BYTES) else "") + text)


def lists_an_id(data: bytes) -> bool:
    """Cheap pre-check: whether anything ID-like follows the first mention of Continues From
    (skips parsing snapshots whose Continues From is `- None`). It may say yes wrongly, never no
    wrongly: a `#` line inside a code block does not end the section here."""
    first = CONTINUES_RE.search(data)
    return first is not None and ID_BYTES_RE.search(data, first.end()) is not None


def require_sections(text: str) -> None:
    """Refuse snapshot input that has no `## ` sections (it cannot be merged by section)."""
    snap = Snapshot(text)
    if not snap.sections:
        raise UsageError("snapshot input has no '## ' sections; use the template of the protocol")


def item_key(text: str) -> str:
    """What identifies an item across revisions: its first line without list marks and markers
    (its whole text when the first line holds no letter or digit, like a lone code fence)."""
    lines = text.strip(SPACE_AND_EOL).split("\n")
    key = _line_key(lines[0])
    if any(ch.isalnum() for ch in key):
        return key
    return "\n".join(k for k in (_line_key(line) for line in lines) if k)


def _line_key(line: str) -> str:
    """One line as a key: list marks and markers dropped, spaces folded, case folded."""
    line = LIST_MARK_RE.sub("", line)
    line = MARKER_RE.sub("", line).replace("~~", "")
    return _folded(line).strip(" .;:-").casefold()


def _folded(line: str) -> str:
    """A line with its runs of spaces and tabs as one space, none at either end (GitHub's white space only)."""
    return SPACES_RE.sub(" ", line.strip(SPACE_AND_EOL))


def is_marked(text: str) -> bool:
    """Whether an item carries `[superseded]`, `[resolved]` or `[done]`."""
    return MARKER_RE.search(text) is not None


def is_placeholder(text: str) -> bool:
    """Whether an item is exactly the template's `None` or one of its instruction lines."""
    body = BULLET_RE.sub("", text.strip(), count=1)
    return " ".join(body.split()) in PLACEHOLDERS


def listed_id(text: str) -> str:
    """The Session ID a Continues From item names: its first word, list mark and backticks removed."""
    key = LIST_MARK_RE.sub("", text.strip().split("\n", 1)[0]).strip()
    words = key.split()
    return words[0].strip("`*[]").rstrip(",.;:") if words else ""


@dataclass
class Item:
    """One item of a section: a top-level block (or one list item), as original lines.

    kind is the block's kind (`li` for a list item, `para`, `fence`, `indented`, `html`,
    `table`, `quote`, `heading`, `hr`, `def`, `setext`); a list item also knows its marker
    (indent, leader, prepend: the column its content starts at) and whether its list is loose;
    `open` marks a fence or HTML block that is never closed (it runs to the end of the file),
    `closer` is the line that would close it.
    """

    start: int
    end: int
    text: str
    kind: str = "para"
    code: str | None = None
    indent: int = 0
    leader: str = ""
    prepend: int = 0
    loose: bool = False
    open: bool = False
    closer: str = ""

    @property
    def key(self) -> str:
        """The item's identity (code blocks: their language and content, whatever their fences)."""
        if self.code is not None:
            return self.code
        if self.kind in LITERAL_KINDS:
            return self.kind + "\x00" + "\n".join(_folded(line) for line in self.text.strip(SPACE_AND_EOL).splitlines())
        return item_key(self.text)

    @property
    def sig(self) -> str:
        """Which list a list item can join: its bullet, or its number's delimiter."""
        if self.kind != "li":
            return ""
        return self.leader if len(self.leader) == 1 else "0" + self.leader[-1]


@dataclass
class Section:
    """A `## ` section: heading line, body line range and its items."""

    name: str
    heading: int
    start: int
    end: int
    items: list[Item] = field(default_factory=list)


def _code_key(block: Block, lines: list[str]) -> str | None:
    """A code block's identity: language and code (fenced and indented forms agree)."""
    if block.kind not in ("fence", "indented"):
        return None
    lang = block.result[1][3] if block.kind == "fence" else ""
    body = [line.rstrip() for line in code_lines(block, lines)]
    while body and not body[-1]:
        body.pop()
    return "code\x00" + lang + "\x00" + "\n".join(body)


def code_lines(block: Block, lines: list[str]) -> list[str]:
    """The code of a fenced or indented code block, from its lines (without line endings)."""
    if block.kind == "indented":
        return [strip_columns(line_body(line), 4) for line in lines[block.start : block.end]]
    end = block.end if block.open else block.end - 1
    return [strip_columns(line_body(line), block.result[1][0]) for line in lines[block.start + 1 : end]]


class Snapshot:
    """A parsed snapshot file, editable line by line."""

    def __init__(self, data: bytes | str):
        """Parse snapshot bytes or text."""
        text = data if isinstance(data, str) else decode(data)
        self.bom = text.startswith(BOM)
        if self.bom:
            text = text[1:]
        self.lines = split_lines(text)
        self.sections: list[Section] = []
        self.title: str | None = None
        self.open_end: Item | None = None  # a fence or HTML block that runs to the end of the file
        self._parse()

    def _parse(self) -> None:
        """Locate headings and items from the top-level blocks (see blocks.py)."""
        current: Section | None = None
        for block in read_blocks([line_body(line) + "\n" for line in self.lines]):
            level = _heading_level(block)
            if level == 1 and self.title is None and current is None:
                self.title = self._heading_text(block)
            elif level == 2:
                if current:
                    current.end = block.start
                current = Section(self._heading_text(block), block.start, block.end, len(self.lines))
                self.sections.append(current)
            else:
                items = self._items_of(block)
                if items and items[-1].open:
                    self.open_end = items[-1]
                if current is not None:
                    current.items += items

    def _heading_text(self, block: Block) -> str:
        """A heading's text: ATX marks removed, setext lines joined."""
        if block.kind == "heading":
            return line_body(self.lines[block.start]).strip().lstrip("#").strip().rstrip("#").strip()
        return " ".join(line_body(line).strip() for line in self.lines[block.start : block.end - 1])

    def _items_of(self, block: Block) -> list[Item]:
        """The items one top-level block contributes (none for a blank indented block)."""
        start = self._skip_blank(block.start, block.end)
        end = self._trim(start, block.end)
        if _blank(self.lines[start]):
            return []
        if block.kind == "list":
            starts = [match[4] - 1 for match in block.result] + [end]
            out = []
            for j, (_, indent, prepend, leader, _) in enumerate(block.result):
                s, e = starts[j], self._trim(starts[j], starts[j + 1])
                out.append(Item(s, e, "".join(self.lines[s:e]), "li", None, indent, leader, prepend))
            loose = any(a.end < b.start for a, b in pairwise(out))  # blank lines between items
            for it in out:
                it.loose = loose
            return out
        item = Item(start, end, "".join(self.lines[start:end]), block.kind, _code_key(block, self.lines))
        if block.open:
            item.open, item.closer = True, block.closer
        return [item]

    def _trim(self, start: int, end: int) -> int:
        """Move end back over blank lines, not before start + 1."""
        while end > start + 1 and _blank(self.lines[end - 1]):
            end -= 1
        return end

    def _skip_blank(self, start: int, end: int) -> int:
        """Move start forward over blank lines, not past end - 1."""
        while start < end - 1 and _blank(self.lines[start]):
            start += 1
        return start

    def section(self, name: str) -> Section | None:
        """The first section with this name (case-insensitive)."""
        wanted = name.casefold()
        for sec in self.sections:
            if sec.name.casefold() == wanted:
                return sec
        return None

    def text(self) -> str:
        """The snapshot text (without BOM)."""
        return "".join(self.lines)

    def to_bytes(self, text: str | None = None) -> bytes:
        """The snapshot's bytes, its BOM kept; with text, the bytes of that new text with this file's BOM."""
        return encode((BOM if self.bom else "") + (self.text() if text is None else text))

    def eol(self) -> str:
        """The file's line ending."""
        for line in self.lines:
            ending = line_ending(line)
            if ending:
                return ending
        return "\n"

    # -- reading ----------------------------------------------------------------------

    def table_lines(self, sec: Section) -> list[int]:
        """Line numbers of a section's table and paragraph items (where Metadata rows live)."""
        return [i for it in sec.items if it.kind in ("table", "para") for i in range(it.start, it.end)]

    def metadata(self) -> dict[str, str]:
        """The Metadata table as Field → Value."""
        sec = self.section("Metadata")
        out: dict[str, str] = {}
        if not sec:
            return out
        for i in self.table_lines(sec):
            cells = split_cells(line_body(self.lines[i]))
            if cells and len(cells) >= 2 and cells[0] not in ("Field",) and not set(cells[0]) <= set("-: "):
                out[unescape(cells[0])] = unescape(cells[1])
        return out

    def items(self, name: str) -> list[Item]:
        """Real items (not placeholders) of a section."""
        sec = self.section(name)
        return [it for it in sec.items if not is_placeholder(it.text)] if sec else []

    def continues_from(self) -> list[str]:
        """Session IDs listed under Continues From."""
        out = []
        for it in self.items("Continues From"):
            token = listed_id(it.text)
            if is_valid_id(token) and token not in out:
                out.append(token)
        return out

    def all_keys(self) -> set[str]:
        """Keys of every item in every section."""
        return {it.key for sec in self.sections for it in sec.items}


def _blank(line: str) -> bool:
    """Whether a line is blank as GitHub reads it: nothing but spaces and tabs (a form feed or
    an ideographic space is text)."""
    return not line.strip(" \t\r\n")


def _heading_level(block: Block) -> int:
    """1 or 2 for a top-level heading of that level (ATX or setext), else 0."""
    if block.kind == "heading":
        return int(block.result[0])
    if block.kind == "setext":
        return int(block.result.level)
    return 0


# -- placing blocks ---------------------------------------------------------------------


@dataclass
class Piece:
    """A block to write into a section: its lines (no line endings, not indented) and kind.

    For a list item, sig says which list it can join, prepend is its content column and loose
    whether its own list had blank lines between items.
    """

    lines: list[str]
    kind: str
    key: str
    sig: str = ""
    prepend: int = 0
    loose: bool = False


def _dedent(line: str, n: int) -> str:
    """line with up to n leading spaces removed."""
    stripped = line.lstrip(" ")
    return line[min(n, len(line) - len(stripped)) :]


def _piece(item: Item, snap: Snapshot) -> Piece:
    """An item of another snapshot as a piece: moved to column 0, an open fence closed.

    A code fence that is never closed ends at the end of its file, which is where it ends
    here too: the closing line keeps it from swallowing what follows it in its new place.
    An HTML block that is never closed cannot be closed without changing it: refused.
    """
    lines = [line_body(line) for line in snap.lines[item.start : item.end]]
    if item.kind == "fence":
        lines = _refenced(lines)
    elif item.kind != "indented":
        lines = _to_column_0(lines, item.kind)
    if item.open and item.kind != "fence":
        raise UsageError(
            f"snapshot input line {item.start + 1}: an HTML block opened there is never closed "
            f"(it would swallow everything after it); close it with {item.closer!r}"
        )
    return Piece(lines, item.kind, item.key, item.sig, item.prepend - item.indent, item.loose)


def _to_column_0(lines: list[str], kind: str) -> list[str]:
    """A block's lines with its first line at column 0 (a top-level block may start 1-3 spaces in),
    read as before. A list item moves as a whole (its content keeps its column relative to its
    marker) unless that makes a line start a block of its own; a quote moves its `>` lines;
    any other block moves its first line only (the lines after it read the same wherever it starts)."""
    lead = min(3, len(lines[0]) - len(lines[0].lstrip(" ")))
    if not lead:
        return lines
    if kind == "li":
        moved = [_dedent(line, lead) for line in lines]
        blocks = read_blocks([line + "\n" for line in moved])
        return moved if len(blocks) == 1 and blocks[0].kind == "list" and len(blocks[0].result) == 1 else lines
    if kind == "quote":
        return [_dedent(line, lead) if QUOTE_LINE_RE.match(line) else line for line in lines]
    return [_dedent(lines[0], lead), *lines[1:]]


def _refenced(lines: list[str]) -> list[str]:
    """A fenced code block's lines at column 0 with the same code: its code as GitHub reads it,
    its fence made longer if a line of code would now close it, and a closing line if it had none."""
    block = read_blocks([line + "\n" for line in lines])[0]
    content = code_lines(block, lines)
    leader = block.result[1][1]
    opener = lines[0].lstrip(" ")
    closers = [len(m.group(1)) for m in map(CLOSING_FENCE_RE.match, content) if m and m.group(1)[0] == leader[0]]
    length = max([len(leader) - 1, *closers]) + 1
    if length > len(leader):
        opener = leader[0] * length + opener[len(leader) :]
    closing = lines[-1].lstrip(" ") if not block.open and length == len(leader) else leader[0] * length
    return [opener, *content, closing]


def _value_piece(value: str, bullet: bool) -> Piece:
    """A one-line value as a list item (`- value`) or a paragraph."""
    text = safe_line(value)
    if bullet:
        return Piece([f"- {text}"], "li", item_key(text), "-", 2)
    return Piece([text], "para", item_key(text))


def _fenced(piece: Piece) -> Piece:
    """An indented code block written as a fenced one (same code), so it cannot join the block
    before it (a list item, or another indented code block)."""
    body = code_lines(read_blocks([line + "\n" for line in piece.lines])[0], piece.lines)
    ticks = max([len(run) for line in body for run in re.findall(r"`+", line)] + [2]) + 1
    fence = "`" * ticks
    return Piece([fence, *body, fence], "fence", piece.key)


@dataclass
class _State:
    """What the last written block was, for the separator before the next one."""

    kind: str
    sig: str
    loose: bool


def _layout(state: _State | None, pieces: list[Piece]) -> list[str]:
    """Lines that write pieces after a block in state (or first in a section, when None).

    Blocks are separated by a blank line; a list item joins the list before it when it has the
    same marker, without a blank line unless that list is loose.
    """
    out: list[str] = []
    for piece in pieces:
        if piece.kind == "indented" and state is not None and state.kind in ("li", "indented"):
            piece = _fenced(piece)
        joins = state is not None and piece.kind == "li" and state.kind == "li" and piece.sig == state.sig
        if state is not None and (not joins or state.loose):
            out.append("")
        out += piece.lines
        state = _State(piece.kind, piece.sig, state.loose if joins and state else piece.loose)
    return out


def _closing(item: Item | None) -> list[str]:
    """The line that closes an open fence at the end of the file before anything is written
    after it (the fence's reading does not change: it ran to the end and still ends there)."""
    if item is None or not item.open:
        return []
    if item.kind == "fence":
        return [item.closer]
    raise Refused(
        f"the snapshot ends inside an HTML block opened on line {item.start + 1} that is never closed; "
        f"close it (with {item.closer!r}) by hand, then retry; nothing written",
        says_written=True,
    )


def _splice(lines: list[str], start: int, end: int, body: list[str], eol: str, keep_open_end: bool = False) -> str:
    """Replace lines[start:end] with body (lines without endings); a blank line keeps the body
    apart from the non-blank line after it."""
    if start > 0 and not line_ending(lines[start - 1]):
        lines[start - 1] += eol
    new = [line + eol for line in body]
    if end < len(lines) and not _blank(lines[end]) and body and not _blank(body[-1]):
        new.append(eol)
    elif end == len(lines) and keep_open_end and new:
        new[-1] = new[-1][: -len(eol)]
    lines[start:end] = new
    return "".join(lines)


def _place(snap: Snapshot, name: str, pieces: list[Piece]) -> str:
    """The text with pieces written into section name: after its last real item, in place of
    its placeholders, or as the section's first items; a missing section is created."""
    sec = snap.section(name)
    if sec is None:
        return _append_section(snap, name, pieces)
    lines, eol = list(snap.lines), snap.eol()
    real = [it for it in sec.items if not is_placeholder(it.text)]
    holders = [it for it in sec.items if is_placeholder(it.text)]
    if real:
        last = real[-1]
        at = len(lines) if last.open else last.end
        return _splice(lines, at, at, _closing(last) + _layout(_State(last.kind, last.sig, last.loose), pieces), eol)
    if holders:
        ending = line_ending(lines[holders[-1].end - 1])
        return _splice(lines, holders[0].start, holders[-1].end, _layout(None, pieces), eol, keep_open_end=not ending)
    return _splice(lines, sec.start, sec.start, [""] + _layout(None, pieces), eol)


def _append_section(snap: Snapshot, name: str, pieces: list[Piece]) -> str:
    """Insert a new section before the next section in template order (or at the end)."""
    block = [f"## {name}", "", *_layout(None, pieces), ""]
    at = len(snap.lines)
    if name in SECTION_ORDER:
        later = SECTION_ORDER[SECTION_ORDER.index(name) + 1 :]
        for sec in snap.sections:
            if sec.name in later:
                at = sec.heading
                break
    return _insert_block(snap, at, block)


def _insert_block(snap: Snapshot, at: int, block: list[str]) -> str:
    """Insert a section block (lines without endings, ending in a blank line) before line `at`,
    after a blank line; at the end of the file it drops its own trailing blank line (and
    first closes a fence left open there)."""
    lines, eol = list(snap.lines), snap.eol()
    if at == len(lines):
        block = _closing(snap.open_end) + [""] + block[:-1]
        if lines and not line_ending(lines[-1]):
            lines[-1] += eol
        if lines and _blank(lines[-1]) and not snap.open_end:
            block = block[1:]
        if not lines:
            block = block[1:]
    elif at > 0 and not _blank(lines[at - 1]):
        block = [""] + block
    return _splice(lines, at, at, block, eol)


# -- edits ------------------------------------------------------------------------------


def set_metadata(text: str, changes: dict[str, str]) -> str:
    """Change Metadata table values (adding missing fields) without touching other lines."""
    snap = Snapshot(text)
    sec = snap.section("Metadata")
    lines = list(snap.lines)
    eol = snap.eol()
    if sec is None:  # a hand-written snapshot without Metadata gets the template's table
        rows = [f"| {k} | {escape(v)} |" for k, v in changes.items()]
        block = ["## Metadata", "", "| Field | Value |", "|---|---|", *rows, ""]
        at = snap.sections[0].heading if snap.sections else len(lines)
        return _insert_block(snap, at, block)
    seen = set()
    last_row = None
    for i in snap.table_lines(sec):
        cells = split_cells(line_body(lines[i]))
        if not cells or len(cells) < 2:
            continue
        last_row = i
        name = unescape(cells[0])
        if name in changes:
            seen.add(name)
            if unescape(cells[1]) != changes[name]:
                cells[1] = escape(changes[name])
                lines[i] = "| " + " | ".join(cells) + " |" + (line_ending(lines[i]) or "")
    missing = [k for k in changes if k not in seen]
    if missing and last_row is not None:
        if not line_ending(lines[last_row]):
            lines[last_row] += eol
        add = [f"| {k} | {escape(changes[k])} |{eol}" for k in missing]
        lines[last_row + 1 : last_row + 1] = add
    return "".join(lines)


def add_items(text: str, section: str, new_items: list[str], bullet: bool = True, dedupe: bool = True) -> str:
    """Add one-line values to a section (after its last item), replacing a `None` placeholder.

    Each value becomes a list item (bullet) or a paragraph, written so that it reads as one
    (see safe_line). Values whose key is already present in the section are not added again
    (unless dedupe is False). A missing section is created in the template's order.
    """
    snap = Snapshot(text)
    sec = snap.section(section)
    existing = {it.key for it in sec.items} if sec else set()
    pieces: list[Piece] = []
    for value in new_items:
        piece = _value_piece(value, bullet)
        if piece.key and (not dedupe or (piece.key not in existing and piece.key not in {p.key for p in pieces})):
            pieces.append(piece)
    if not pieces:
        return text
    new_text = _place(snap, section, pieces)
    _verify(text, new_text, {section: {p.key for p in pieces}}, set())
    return new_text


def remove_items(text: str, section: str, keys: set[str]) -> str:
    """Remove items whose key is in keys from a section; an emptied section gets `- None`."""
    snap = Snapshot(text)
    sec = snap.section(section)
    if not sec:
        return text
    eol = snap.eol()
    lines = list(snap.lines)
    doomed = [it for it in sec.items if it.key in keys]
    if not doomed:
        return text
    remaining = [it for it in sec.items if it.key not in keys and not is_placeholder(it.text)]
    for it in reversed(doomed):
        ending = line_ending(lines[it.end - 1])
        del lines[it.start : it.end]
        if not remaining and it is doomed[0]:
            lines[it.start : it.start] = ["- None" + (ending or eol)]
    new_text = "".join(lines)
    _check_kept(snap, Snapshot(new_text), {(sec.name.casefold(), it.text) for it in doomed})
    return new_text


# -- merging ----------------------------------------------------------------------------


@dataclass
class MergeResult:
    """The merged snapshot text and what the merge did."""

    text: str
    added: list[tuple[str, str]]
    marked: list[tuple[str, str]]
    carried: list[tuple[str, str]]


@dataclass
class _SectionPlan:
    """What merging one section of the new text does to the old one."""

    add: list[Piece] = field(default_factory=list)
    replace: list[tuple[Item, Piece]] = field(default_factory=list)


def merge(old_text: str, new_text: str) -> MergeResult:
    """Merge a proposed snapshot into the existing one by section; no old item is lost.

    The old snapshot is the base. For every section of the new text: an item whose key the
    old section has is kept (or replaced by the new wording when the new one adds a
    `[superseded]`/`[resolved]`/`[done]` marker, or keeps every old line and adds more); one
    with the same first line that says something else is added beside it; other new items are
    appended. Old items the new text left out are carried over unchanged and reported as
    `carried`. Metadata is not merged here (the caller sets its fields). A merge that would not
    keep every earlier section and item as it was is refused (Refused), never returned.
    """
    new = Snapshot(new_text.replace("\r\n", "\n"))  # new lines take the old file's line ending
    text = old_text
    added: list[tuple[str, str]] = []
    marked: list[tuple[str, str]] = []
    expected: dict[str, set[str]] = {}
    replaced: set[tuple[str, str]] = set()
    for nsec in new.sections:
        if nsec.name.casefold() == "metadata":
            continue
        old = Snapshot(text)
        plan = _plan_section(old, new, nsec, added, marked)
        expected.setdefault(nsec.name, set()).update(p.key for p in plan.add)
        expected[nsec.name].update(p.key for _, p in plan.replace)
        replaced.update((nsec.name.casefold(), prev.text) for prev, _ in plan.replace)
        text = _apply_section(old, nsec.name, plan)
    new_keys = new.all_keys()
    carried = [
        (sec.name, it.text.rstrip("\r\n"))
        for sec in Snapshot(old_text).sections
        if sec.name.casefold() != "metadata"
        for it in sec.items
        if not is_placeholder(it.text) and it.key not in new_keys
    ]
    _verify(old_text, text, expected, replaced)
    return MergeResult(text, added, marked, carried)


def _plan_section(
    old: Snapshot, new: Snapshot, nsec: Section, added: list[tuple[str, str]], marked: list[tuple[str, str]]
) -> _SectionPlan:
    """Sort the new section's items into additions and replacements of old items."""
    osec = old.section(nsec.name)
    old_by_key: dict[str, Item] = {}
    said: set[tuple[str, str]] = set()  # every old item as written: one key may name several
    for old_item in osec.items if osec else []:
        if not is_placeholder(old_item.text):
            old_by_key[old_item.key] = old_item
            said.add(_said(old_item))
    plan = _SectionPlan()
    queued: set[tuple[str, ...]] = set()
    for it in nsec.items:
        if is_placeholder(it.text):
            continue
        body = it.text.rstrip("\r\n")
        piece = _piece(it, new)
        prev = old_by_key.get(it.key)
        if prev is not None and _said(it) in said:
            continue  # a repeat of an old item as written (maybe not the last one of its key): it is there
        if prev is None:
            if tuple(piece.lines) not in queued:  # only an exact repeat within the new text is dropped
                queued.add(tuple(piece.lines))
                plan.add.append(piece)
                added.append((nsec.name, body))
            continue
        if it.kind in LITERAL_KINDS:
            continue  # the same code, table or HTML is there already
        if is_marked(body) and not is_marked(prev.text):
            (plan.replace.append((prev, piece)) if _replaceable(prev, piece) else plan.add.append(piece))
            marked.append((nsec.name, body))
        elif extends(prev.text, body):  # same item, more said: take the longer text, lose nothing
            (plan.replace.append((prev, piece)) if _replaceable(prev, piece) else plan.add.append(piece))
            added.append((nsec.name, body))
        elif not is_marked(body) and has_new_lines(prev.text, body):  # same first line, new facts
            plan.add.append(piece)
            added.append((nsec.name, body))
    return plan


def _said(item: Item) -> tuple[str, str]:
    """An item as written: its kind and its text, whatever its line endings."""
    return item.kind, item.text.replace("\r\n", "\n").rstrip("\n")


def _replaceable(prev: Item, piece: Piece) -> bool:
    """Whether piece can take prev's place as the same kind of block: a list item written with
    prev's own marker (so its list stays one list) when its content column matches or it is one
    line; a one-line list item and a one-line paragraph take each other's form."""
    line = _one_line_text(piece)
    if prev.kind == "li":
        if "\t" in prev.text[: prev.prepend]:
            return False
        same_column = piece.kind == "li" and piece.prepend == prev.prepend - prev.indent
        return same_column or (line is not None and _reads_as_paragraph(line))
    if prev.kind == "para" and line is not None:
        return _reads_as_paragraph(line)
    return piece.kind == prev.kind and prev.kind in ("para", "quote", "heading")


def _one_line_text(piece: Piece) -> str | None:
    """The text of a one-line paragraph or list item (without its marker), else None."""
    if len(piece.lines) != 1 or piece.kind not in ("para", "li"):
        return None
    return piece.lines[0][piece.prepend :] if piece.kind == "li" else piece.lines[0]


def _replacement_lines(prev: Item, piece: Piece) -> list[str]:
    """piece's lines in prev's place: prev's indentation, and prev's marker for a list item."""
    pad = " " * prev.indent
    text = _one_line_text(piece)
    rest = [line if _blank(line) else pad + line for line in piece.lines[1:]]
    if prev.kind == "li":
        return [prev.text[: prev.prepend] + (text if text is not None else piece.lines[0][piece.prepend :]), *rest]
    if prev.kind == "para" and text is not None:
        return [text]
    return [pad + piece.lines[0], *rest]


def _apply_section(old: Snapshot, name: str, plan: _SectionPlan) -> str:
    """The old text with a section's replacements and additions made."""
    if plan.replace:
        lines, eol = list(old.lines), old.eol()
        for prev, piece in sorted(plan.replace, key=lambda pair: -pair[0].start):
            ending = line_ending(lines[prev.end - 1])
            new_lines = [line + eol for line in _replacement_lines(prev, piece)]
            new_lines[-1] = new_lines[-1][: -len(eol)] + ending
            lines[prev.start : prev.end] = new_lines
        old = Snapshot("".join(lines))
    return _place(old, name, plan.add) if plan.add else old.text()


def _verify(old_text: str, new_text: str, expected: dict[str, set[str]], replaced: set[tuple[str, str]]) -> None:
    """Refuse (one line, nothing written) an edit that would lose or change an earlier item or
    section, or that did not place the items it meant to add."""
    lost = vanished(old_text, new_text)
    if lost:
        raise Refused(
            f"the merge would drop {len(lost)} earlier item(s), e.g. {lost[0][1][:60]!r}; nothing written",
            says_written=True,
        )
    new = _check_kept(Snapshot(old_text), Snapshot(new_text), replaced)
    for name, keys in expected.items():
        sec = new.section(name)
        missing = keys - ({it.key for it in sec.items} if sec else set())
        if missing:
            raise Refused(
                f"cannot write the new items of {name} without changing the snapshot's structure; nothing written",
                says_written=True,
            )


def _check_kept(old: Snapshot, new: Snapshot, replaced: set[tuple[str, str]]) -> Snapshot:
    """Refuse unless every section of old is in new, in order, with each of its items (but the
    placeholders and the replaced ones) reading the same; returns new."""
    later = iter(new.sections)
    for osec in old.sections:
        nsec = next((s for s in later if s.name.casefold() == osec.name.casefold()), None)
        if nsec is None:
            raise Refused("the merge would change the snapshot's sections; nothing written", says_written=True)
        kept = {_identity(it) for it in nsec.items}
        for it in osec.items:
            if is_placeholder(it.text) or (osec.name.casefold(), it.text) in replaced:
                continue
            if _identity(it) not in kept:
                raise Refused(
                    f"the merge would change the earlier item {it.text.strip()[:60]!r} in {osec.name}; nothing written",
                    says_written=True,
                )
    return new


def _identity(item: Item) -> tuple[str, str]:
    """What must stay the same of an earlier item: its kind and text (code: its content)."""
    return item.kind, item.key if item.kind in LITERAL_KINDS else item.text.rstrip("\r\n")


def extends(old_item: str, new_item: str) -> bool:
    """Whether new_item keeps every line of old_item and adds more (a safe replacement)."""
    old_lines = _said_lines(old_item)
    new_lines = _said_lines(new_item)
    return len(new_lines) > len(old_lines) and all(line in new_lines for line in old_lines)


def has_new_lines(old_item: str, new_item: str) -> bool:
    """Whether new_item says something (a line) that old_item does not."""
    old_lines = set(_said_lines(old_item))
    return any(line not in old_lines for line in _said_lines(new_item))


def _said_lines(item: str) -> list[str]:
    """An item's lines that say something, without spaces and tabs at either end (a line of
    U+00A0 or U+3000 says something to GitHub)."""
    return [line.strip(SPACE_AND_EOL) for line in item.splitlines() if line.strip(SPACE_AND_EOL)]


def vanished(old_text: str, new_text: str) -> list[tuple[str, str]]:
    """Items of the old snapshot missing from the new one without a marker (policy breaks).

    An item counts as kept when its key appears anywhere in the new snapshot (kept, moved to
    another section, or marked). Placeholders and the Metadata table are not items.
    """
    old = Snapshot(old_text)
    new_keys = Snapshot(new_text).all_keys()
    out = []
    for sec in old.sections:
        if sec.name.casefold() == "metadata":
            continue
        for it in sec.items:
            if not is_placeholder(it.text) and it.key not in new_keys:
                out.append((sec.name, it.text.rstrip("\r\n")))
    return out


def place_items(text: str, section: str, source: Snapshot, items: list[Item]) -> str:
    """text with items of another snapshot (or note) written into section as `merge` adds them:
    whole blocks after its last item, in place of its placeholders, or in a new section."""
    if not items:
        return text
    return _place(Snapshot(text), section, [_piece(it, source) for it in items])
