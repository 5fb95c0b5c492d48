"""Top-level Markdown blocks with their line spans, read the way GitHub (cmark-gfm) reads them.

mistletoe does the reading. Where its block reading differs from GitHub's in a way that moves
the end of a block (and so of a snapshot section or item), a subclass of its token corrects
it; the subclasses take the place of mistletoe's own in its token registry (as mistletoe's
renderers do with theirs) the first time a snapshot is read:

- HTML blocks are read (mistletoe only reads them when rendering HTML);
- a code fence closes only on a line of fence characters alone (`~~~py` does not close one);
- an ordered list marker needs a number (`. x` and `) x` are text);
- a table needs as many header cells as delimiter cells, its body runs to a blank line or
  the start of another block (rows without pipes are rows), and only a paragraph's first
  delimiter-like line may start one;
- a line that lacks a list item's indentation (or a quote's `>`) continues the item (or the
  quote) only when it continues a paragraph there, never a code fence, a table or an HTML
  block.

Only the block level is read: inline parsing is skipped (memboard moves whole blocks).
The test suite checks these readings against cmark-gfm itself (tests/reliability/gfm.py).
This module is imported only where snapshots are parsed: the hook path never loads it.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any

from .mdimport import FileWrapper, block_token, token, tokenize_block
from .text import CLOSING_FENCE_RE, strip_columns

ITEM_MARKER_RE = re.compile(r"( {0,3})(\d{1,9}[.)]|[+\-*])($|\s+)")
LIST_START_RE = re.compile(r" {0,3}(?:\d{1,9}[.)]|[+\-*])(?:[ \t]*$|[ \t]+)")
UNESCAPED_PIPE_RE = re.compile(r"(?<!\\)\|")
# Characters Python (and so mistletoe) takes for white space but GitHub takes for text: a line of
# them is not blank, and they do not indent or separate a list marker, a `#` or a tag name.
OTHER_SPACE_RE = re.compile(r"[^\S \t\n\r]")
TEXT_MARK = "\u00a4"  # stands in for them while reading: text to mistletoe, and nothing else
_LOCK = threading.RLock()  # mistletoe keeps reading state on its classes: one reader at a time


@dataclass(frozen=True)
class Block:
    """A top-level block: its kind, mistletoe's read result and its lines [start, end).

    open marks a code fence or HTML block that is never closed (it runs to the end), and
    closer is a line that would close it.
    """

    kind: str
    result: Any
    start: int
    end: int
    open: bool = False
    closer: str = ""


class CodeFence(block_token.CodeFence):
    """A fenced code block that closes only on a line of enough of the same fence characters."""

    @classmethod
    def read(cls, lines: FileWrapper) -> tuple[list[str], Any]:
        """The fence's content lines, up to its closing line or the end."""
        next(lines)
        indent, leader = cls._open_info[0], cls._open_info[1]  # type: ignore[index]  # set by start()
        buffer = []
        for line in lines:
            close = CLOSING_FENCE_RE.match(line)
            if close and close.group(1)[0] == leader[0] and len(close.group(1)) >= len(leader):
                break
            buffer.append(strip_columns(line, indent))
        return buffer, cls._open_info


class ListItem(block_token.ListItem):
    """A list item whose marker has digits when ordered and whose lazy lines continue a paragraph."""

    pattern = ITEM_MARKER_RE

    @classmethod
    def read(cls, lines: FileWrapper, prev_marker: Any = None) -> tuple[Any, Any]:
        """mistletoe's reading, ended before the first lazy line that does not continue a paragraph."""
        pos = lines.get_pos()
        output, next_marker = super().read(lines, prev_marker)
        raw = lines.lines[pos + 1 : lines.get_pos() + 1]
        content = [(prev_marker or cls.parse_marker(raw[0]))[3]]
        for i, line in enumerate(raw[1:], start=1):
            inner = cls.parse_continuation(line, output[2])
            if inner is None and not _continues_lazily(line, content):
                output, _ = super().read(FileWrapper(raw[:i], start_line=lines.start_line + pos + 1), prev_marker)
                lines.set_pos(pos + i)
                return output, None
            content.append(line if inner is None else inner)
        return output, next_marker


class List(block_token.List):
    """A list whose ordered markers have digits (its items are read by ListItem)."""

    pattern = LIST_START_RE


class Quote(block_token.Quote):
    """A block quote whose lazy lines continue a paragraph."""

    @classmethod
    def read(cls, lines: FileWrapper) -> Any:
        """mistletoe's reading, ended before the first lazy line that does not continue a paragraph."""
        pos = lines.get_pos()
        result = super().read(lines)
        raw = lines.lines[pos + 1 : lines.get_pos() + 1]
        content = [_unquote(raw[0])]
        for i, line in enumerate(raw[1:], start=1):
            lazy = not line.lstrip(" ").startswith(">")
            if lazy and not _continues_lazily(line, content):
                result = super().read(FileWrapper(raw[:i], start_line=lines.start_line + pos + 1))
                lines.set_pos(pos + i)
                return result
            content.append(line if lazy else _unquote(line))
        return result


class Table(block_token.Table):
    """A GFM table: header and delimiter rows with as many cells; body up to another block."""

    paragraph_start: int | None = None  # set while a paragraph is read

    @classmethod
    def check_interrupts_paragraph(cls, lines: FileWrapper) -> bool:
        """Whether a table starts at the next line of a paragraph. As in cmark-gfm, only the
        paragraph's first delimiter-like line is tried (a failed try ends the chances), and a
        lazy line of a list item or quote never starts one."""
        start = cls.paragraph_start
        if start is None or not cls.start(lines.peek()):
            return False
        here = lines.get_pos() + 1
        if any(cls.delimiter_row_pattern.fullmatch(line) for line in lines.lines[start + 1 : here + 1]):
            return False
        return bool(cls.read(lines, check_only=True))

    @classmethod
    def read(cls, lines: FileWrapper, check_only: bool = False) -> Any:
        """The table's lines (or, with check_only, whether one starts here), or None."""
        anchor = lines.get_pos()
        header = next(lines)
        start_line = lines.line_number()
        delimiter = next(lines, None)
        if (
            delimiter is None
            or not cls.delimiter_row_pattern.fullmatch(delimiter)
            or _cells(header) != _cells(delimiter)
        ):
            lines.set_pos(anchor)
            return None
        if check_only:
            lines.set_pos(anchor)
            return True
        buffer = [header, delimiter]
        while lines.peek() is not None and lines.peek().strip() and not _starts_block(lines.peek()):
            buffer.append(next(lines))
        return buffer, start_line


class Paragraph(block_token.Paragraph):
    """A paragraph that tells Table where it started."""

    @classmethod
    def read(cls, lines: FileWrapper) -> Any:
        """mistletoe's reading, with the paragraph's first line known to Table."""
        Table.paragraph_start = lines.get_pos() + 1
        try:
            return super().read(lines)
        finally:
            Table.paragraph_start = None


CORRECTED = (CodeFence, ListItem, List, Quote, Table, Paragraph)


def _installed() -> list[Any]:
    """mistletoe's block token registry with the corrections in place (installed once, again
    if something reset the registry)."""
    if block_token.HtmlBlock not in block_token._token_types or Table not in block_token._token_types:
        types = [block_token.HtmlBlock]
        by_name = {cls.__name__: cls for cls in CORRECTED}
        for cls in block_token._token_types:
            if cls is not block_token.HtmlBlock:
                types.append(by_name.get(cls.__name__, cls))
        for cls in CORRECTED:  # mistletoe's readers name each other through the module
            setattr(block_token, cls.__name__, cls)
        block_token._token_types = types
    return block_token._token_types


def _unquote(line: str) -> str:
    """A quote line without its `>` and one following space."""
    stripped = line.lstrip(" ")[1:]
    return stripped[1:] if stripped.startswith(" ") else stripped


def _cells(row: str) -> int:
    """How many cells a table row has (pipes at either end are borders)."""
    text = row.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    return len(UNESCAPED_PIPE_RE.findall(text)) + 1


def _starts_block(line: str) -> bool:
    """Whether line starts a block other than a paragraph (it ends a table)."""
    return any(t.__name__ not in ("Paragraph", "Footnote", "Table") and t.start(line) for t in _installed())


def _continues_lazily(line: str, content: list[str]) -> bool:
    """Whether a line without a container's indentation or `>` still belongs to it: it must
    continue a paragraph there, and not start a list item or an HTML block of any kind (GitHub
    ends the container then, though neither could interrupt a paragraph inside it)."""
    if block_token.HtmlBlock.start(line) or List.start(line):
        return False
    Paragraph.parse_setext = False  # a lazy `===` continues the paragraph (mistletoe's Quote does the same)
    try:
        return _ends_in_paragraph(tokenize_block(content, _installed()))
    finally:
        Paragraph.parse_setext = True


def _ends_in_paragraph(buffer: list[Any]) -> bool:
    """Whether the last open block of a parse buffer is a paragraph (lazy text may continue it)."""
    if not buffer:
        return False
    token_type, result, _ = buffer[-1]
    name = token_type.__name__
    if name == "Paragraph":
        return isinstance(result, list)  # a setext heading is closed
    if name == "List":
        return _ends_in_paragraph(result[-1][0])
    if name == "Quote":
        return _ends_in_paragraph(result)
    return False


KINDS = {
    "Heading": "heading",
    "Paragraph": "para",
    "CodeFence": "fence",
    "BlockCode": "indented",
    "HtmlBlock": "html",
    "List": "list",
    "Quote": "quote",
    "Table": "table",
    "ThematicBreak": "hr",
    "Footnote": "def",
}


def _block(token_type: type, result: Any, start: int, end: int, lines: list[str], end_cond: str | None) -> Block:
    """A Block for a read result, with whether it is left open at the end of the lines."""
    kind = KINDS.get(token_type.__name__, "other")
    if kind == "para" and not isinstance(result, list):
        kind = "setext"
    if kind == "fence" and end - start == 1 + len(result[0]):  # no closing line was read
        return Block(kind, result, start, end, True, result[1][1])
    if kind == "html" and end_cond and end_cond not in lines[end - 1].casefold():
        return Block(kind, result, start, end, True, end_cond)
    return Block(kind, result, start, end)


def read_blocks(lines: list[str]) -> list[Block]:
    """The top-level blocks of lines (each ending in `\\n`), with their spans, in order.

    Only the spans and kinds describe the lines as given: white space other than spaces and
    tabs is read as text (as GitHub does), so the read results hold a stand-in for it.
    """
    lines = [OTHER_SPACE_RE.sub(TEXT_MARK, line) for line in lines]
    with _LOCK:
        types = _installed()
        token._root_node = block_token.Document([])  # type: ignore[assignment]  # link definitions go there
        try:
            wrapper = FileWrapper(lines)
            blocks: list[Block] = []
            while wrapper.peek() is not None:
                for token_type in types:
                    if token_type.start(wrapper.peek()):
                        first = wrapper.get_pos() + 1
                        end_cond = getattr(token_type, "_end_cond", None)  # set by HtmlBlock.start
                        result = token_type.read(wrapper)
                        if result is not None:
                            blocks.append(_block(token_type, result, first, wrapper.get_pos() + 1, lines, end_cond))
                            break
                else:
                    next(wrapper)
            return blocks
        finally:
            token._root_node = None
