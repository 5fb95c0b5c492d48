"""Continues From of a snapshot, read by a line scan that knows code fences, lists and tables.

Organize, archive, doctor and the reference chain only need the Session IDs a snapshot lists
under Continues From; parsing the whole snapshot with the Markdown reader (blocks.py) costs
about a millisecond a file and 0.2 s of import. The scan here reads the top-level blocks the
way blocks.py does (same patterns, same order of trials) for the Markdown snapshots hold:
headings, paragraphs, code fences of either kind, indented code, lists (with nested content and
lazy lines), quotes, tables and thematic breaks. Where a snapshot holds something the scan does
not follow to the letter (an HTML block, a link reference definition, tabs in its structure, a
lazy line after a quote or after a list item's nested blocks, a table that may or may not start)
it says so and the caller reads the snapshot with blocks.py instead: the answer is always the
Markdown reader's (tests/unit/test_sources_scan.py holds the scan to it).
"""

from __future__ import annotations

import re

from .ids import is_valid_id
from .snapshot import Snapshot
from .text import BOM, CLOSING_FENCE_RE, decode

SECTION = "continues from"
OTHER_SPACE_RE = re.compile(r"[^\S \t\n\r]")
TEXT_MARK = "\u00a4"
HEADING_RE = re.compile(r" {0,3}(#{1,6})(?: |$)")
FENCE_RE = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")
HR_RE = re.compile(r" {0,3}([-_*]) *(?:\1 *){2,}$")
MARKER_RE = re.compile(r"( {0,3})(\d{1,9}[.)]|[+\-*])($| +)")
SETEXT_RE = re.compile(r" {0,3}[=-]+ *$")
DELIMITER_RE = re.compile(r"\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*")
PIPE_RE = re.compile(r"(?<!\\)\|")
LIST_MARK_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")


class Unsure(Exception):
    """The snapshot holds Markdown the scan does not follow exactly: read it with blocks.py."""


def listed_id(text: str) -> str:
    """The Session ID a Continues From item names: its first word, list mark and backticks removed."""
    key = LIST_MARK_RE.sub("", text.strip().split("\n", 1)[0]).strip()
    words = key.split()
    return words[0].strip("`*[]").rstrip(",.;:") if words else ""


def _cells(row: str) -> int:
    """How many cells a table row has (pipes at either end are borders), as blocks.py counts them."""
    text = row.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    return len(PIPE_RE.findall(text)) + 1


def _is_fence(line: str) -> re.Match[str] | None:
    """The opening of a code fence (a backtick fence's info string holds no backtick)."""
    m = FENCE_RE.match(line)
    if m is None or (m.group(2)[0] == "`" and "`" in m.group(3)):
        return None
    return m


def _html(line: str) -> bool:
    """Whether the line may start an HTML block (the scan does not read those)."""
    stripped = line.lstrip()
    return len(line) - len(stripped) < 4 and stripped.startswith("<")


def _interrupts_list_free(line: str) -> bool:
    """Whether a line starts a heading, quote, code fence or thematic break (each ends a paragraph)."""
    stripped = line.lstrip(" ")
    return (
        HEADING_RE.match(line) is not None
        or (len(line) - len(stripped) < 4 and stripped.startswith(">"))
        or _is_fence(line) is not None
        or HR_RE.match(line) is not None
    )


def _list_interrupts(line: str) -> bool:
    """Whether a list item on this line may interrupt a paragraph (not empty; bullet or starting at 1)."""
    m = MARKER_RE.match(line)
    if m is None or not line[m.end() :].strip():
        return False
    leader = m.group(2)
    return not leader[0].isdigit() or leader in ("1.", "1)")


def _continues_para(line: str) -> bool:
    """Whether a line goes on with an open paragraph for sure (it starts no block, no table can start)."""
    stripped = line.lstrip(" ")
    return not (
        "|" in line
        or (len(line) - len(stripped) < 4 and stripped.startswith("<"))
        or _interrupts_list_free(line)
        or MARKER_RE.match(line)
        or SETEXT_RE.match(line)
    )


def _plain(rel: str) -> bool:
    """Whether a line of a list item's content starts a paragraph for sure (and no other block)."""
    stripped = rel.lstrip(" ")
    return bool(stripped) and len(rel) - len(stripped) < 4 and not stripped.startswith("[") and _continues_para(rel)


class _Scan:
    """One pass over a snapshot's lines: top-level blocks, as blocks.py reads them."""

    def __init__(self, text: str):
        """Lines of text (its BOM dropped), as the scan and as the reader see them."""
        if text.startswith(BOM):
            text = text[1:]
        lines = text.split("\n")  # as split_lines splits (at `\n` only), without the endings
        if lines[-1] == "":
            lines.pop()
        self.lines = [line[:-1] if line.endswith("\r") else line for line in lines]  # line_body of each
        # characters Python takes for white space but GitHub for text: blocks.py reads them as text
        self.seen = (
            [OTHER_SPACE_RE.sub(TEXT_MARK, b) for b in self.lines] if OTHER_SPACE_RE.search(text) else self.lines
        )
        self.n = len(self.lines)

    def at(self, i: int) -> str:
        """Line i as the reader sees it; Unsure when tabs or carriage returns shape it."""
        line = self.seen[i]
        if "\t" in line or "\r" in line:
            raise Unsure
        return line

    def sources(self) -> list[str]:
        """The Session IDs listed under the first Continues From section."""
        firsts: list[int] | None = None
        i = 0
        while i < self.n:
            line = self.at(i)
            if not line.strip():
                i += 1
                continue
            end, level, starts = self.block(i, line)
            if level == 2:
                if firsts is not None:
                    break
                if self.heading_name(i, end).casefold() == SECTION:
                    firsts = []
            elif firsts is not None:
                firsts += starts
            i = end
        out: list[str] = []
        for k in firsts or []:
            if not self.lines[k].strip():
                raise Unsure  # the item's first line is white space Python strips: its text starts later
            token = listed_id(self.lines[k])
            if is_valid_id(token) and token not in out:
                out.append(token)
        return out

    def heading_name(self, start: int, end: int) -> str:
        """A section heading's text (ATX marks removed, setext lines joined), as snapshot.py has it."""
        if end - start == 1:
            return self.lines[start].strip().lstrip("#").strip().rstrip("#").strip()
        return " ".join(line.strip() for line in self.lines[start : end - 1])

    def block(self, i: int, line: str) -> tuple[int, int, list[int]]:
        """The top-level block at line i: its end, its heading level (0 if none) and its items' first lines."""
        if line[:1].isalpha() and "|" not in line:
            return self.paragraph(i)  # a letter starts no other block (most lines of a snapshot)
        stripped = line.lstrip(" ")
        if len(line) - len(stripped) >= 4:
            return self.indented(i), 0, [i]
        # blocks.py tries HTML, a heading, a quote, a fence, a thematic break, a list, in that order: each
        # starts with its own mark, so the first character after the indentation says which to try
        mark = stripped[:1]
        if mark == "<":
            raise Unsure
        if mark == "#":
            heading = HEADING_RE.match(line)
            if heading:
                return i + 1, len(heading.group(1)), [i]
        elif mark == ">":
            return self.quote(i), 0, [i]
        elif mark in ("`", "~"):
            fence = _is_fence(line)
            if fence:
                return self.fence(i, fence), 0, [i]
        elif mark in ("-", "*", "_", "+") or mark.isdigit():
            if HR_RE.match(line):
                return i + 1, 0, [i]
            if MARKER_RE.match(line):
                end, starts = self.list(i)
                return end, 0, starts
        if "|" in line and i + 1 < self.n and DELIMITER_RE.fullmatch(self.at(i + 1)):
            if _cells(line) != _cells(self.at(i + 1)):
                raise Unsure
            return self.table(i), 0, [i]
        if stripped.startswith("["):
            raise Unsure
        return self.paragraph(i)

    def indented(self, i: int) -> int:
        """The end of an indented code block starting at i."""
        j = i + 1
        while j < self.n:
            line = self.seen[j]  # blocks.py's own tests: a tab indents as far as four spaces here
            if line.strip() and not line.replace("\t", "    ", 1).startswith("    "):
                break
            j += 1
        return j

    def fence(self, i: int, opening: re.Match[str]) -> int:
        """The end of a code fence opened at i (the end of the text when it never closes)."""
        leader = opening.group(2)
        for j in range(i + 1, self.n):
            close = CLOSING_FENCE_RE.match(self.seen[j])
            if close and close.group(1)[0] == leader[0] and len(close.group(1)) >= len(leader):
                return j + 1
        return self.n

    def paragraph(self, i: int) -> tuple[int, int, list[int]]:
        """A paragraph (or setext heading) starting at i: its end, heading level and first line."""
        j = i + 1
        while j < self.n:
            line = self.at(j)
            if line[:1].isalpha() and "|" not in line:
                j += 1  # a letter starts no block and no setext underline: the paragraph goes on
                continue
            if not line.strip():
                break
            if _html(line):
                raise Unsure
            if (_interrupts_list_free(line) and not HR_RE.match(line)) or _list_interrupts(line):
                break
            if "|" in line and j + 1 < self.n and DELIMITER_RE.fullmatch(self.at(j + 1)):
                raise Unsure  # a table may start here, depending on what the paragraph held before
            if SETEXT_RE.match(line):
                return j + 1, (1 if line.rstrip().endswith("=") else 2), [i]
            if HR_RE.match(line):
                break
            j += 1
        return j, 0, [i]

    def quote(self, i: int) -> int:
        """The end of a block quote starting at i (Unsure at a lazy line)."""
        j = i + 1
        while j < self.n:
            line = self.at(j)
            if not line.strip():
                break
            if _html(line):
                raise Unsure
            if line.lstrip().startswith(">"):
                j += 1
                continue
            if _interrupts_list_free(line) or _list_interrupts(line):
                break
            raise Unsure  # a lazy line: it goes on with the quote only if a paragraph is open there
        return j

    def table(self, i: int) -> int:
        """The end of a table whose header is line i: its body runs to a blank line or another block."""
        j = i + 2
        while j < self.n:
            line = self.at(j)
            if line[:1] == "|":
                j += 1  # a row like the header's: no other block starts with a pipe
                continue
            if not line.strip() or line.startswith("    ") or MARKER_RE.match(line):
                break
            if _html(line):
                raise Unsure
            if _interrupts_list_free(line):
                break
            j += 1
        return j

    def list(self, i: int) -> tuple[int, list[int]]:
        """The end of a list starting at i and its items' first lines."""
        starts = []
        j = i
        while True:
            starts.append(j)
            j, more = self.item(j)
            if not more:
                return j, starts

    def item(self, i: int) -> tuple[int, bool]:
        """The end of the list item starting at i, and whether another item starts there."""
        line = self.at(i)
        m = MARKER_RE.match(line)
        if m is None:
            raise Unsure
        width = len(m.group(0))
        content = line[m.end() :]
        if width - m.end(2) > 4 or not content.strip():
            raise Unsure  # an item starting with indented code or a blank line
        para: bool | None = (content[:1].isalpha() and "|" not in content) or _plain(content)  # None: not known
        if not para:
            para = None
        blank = False
        j = i + 1
        while j < self.n:
            line = self.at(j)
            stripped = line.lstrip(" ")
            if not stripped:
                blank = True
                para = False if para is not None else None
            elif len(line) - len(stripped) >= width:
                rel = line[width:]
                if para is not None:
                    if blank:
                        para = True if _plain(rel) else None
                    elif para and not _continues_para(rel):
                        para = None
                blank = False
            else:
                if _html(line):
                    raise Unsure
                if _interrupts_list_free(line):
                    return j, False
                if MARKER_RE.match(line):
                    return j, True
                if blank:
                    return j, False
                if not para:
                    raise Unsure  # a lazy line: it continues the item only if a paragraph is open there
                if not _continues_para(line):
                    para = None
            j += 1
        return j, False


# Before the first Continues From heading, what could hide a column-0 `## ` line from being a heading, or make
# an earlier line a level-2 heading: a fence, an HTML block, a setext underline, an indented ATX heading.
HIDING_RE = re.compile(r"^ {0,3}(?:`{3}|~{3}|<|(?:-+|=+) *$)|^ {1,3}#", re.M)
H2_LINE_RE = re.compile(r"^##(?: [^\n]*)?$", re.M)


def _section_start(text: str) -> int | None:
    """Where the first Continues From section's heading starts, -1 when there is none, or None when what comes
    before it needs the whole scan. Most snapshots hold no fence, HTML or setext heading: then every `## ` line
    at column 0 is a level-2 heading, and the blocks before the section cannot change what it holds (a heading
    closes every open block), so only the section need be scanned."""
    if "\t" in text or "\r" in text or OTHER_SPACE_RE.search(text):
        return None
    for match in H2_LINE_RE.finditer(text):
        if match.group().strip().lstrip("#").strip().rstrip("#").strip().casefold() == SECTION:
            return None if HIDING_RE.search(text, 0, match.start()) else match.start()
    return None if HIDING_RE.search(text) else -1


def scan_sources(text: str) -> list[str] | None:
    """The Session IDs listed under Continues From, or None when the snapshot needs the Markdown reader."""
    if text.startswith(BOM):
        text = text[1:]
    start = _section_start(text)
    try:
        if start is None:
            return _Scan(text).sources()
        return _Scan(text[start:]).sources() if start >= 0 else []
    except Unsure:
        return None


def continues_from(data: bytes | str) -> list[str]:
    """The Session IDs a snapshot lists under Continues From (the scan, else the Markdown reader)."""
    text = data if isinstance(data, str) else decode(data)
    found = scan_sources(text)
    if found is not None:
        return found
    return Snapshot(text).continues_from()
