"""A virtualised, soft-wrapped list of styled lines (a plan's changes, its exact diff, the result log).

Only the lines on screen become Strips, so a preview of 10,000 file changes scrolls like one
of three. Each line has a kind (a component class `line-view--<kind>`, coloured in the
stylesheet) and spans of other kinds inside it. Text is never parsed as markup.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import Protocol

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

KINDS = (
    "text",
    "file",
    "row",
    "field",
    "added",
    "removed",
    "hunk",
    "header",
    "context",
    "muted",
    "section",
    "changed",
    "refusal",
    "note",
    "group",
    "headline",
    "cursor",
)


class Drawn(Protocol):
    """What a line must offer: its text, its kind and emphasised (start, end, kind) spans (read-only)."""

    @property
    def text(self) -> str:
        """The line's characters."""

    @property
    def kind(self) -> str:
        """Its kind: the component class `line-view--<kind>` styles it."""

    @property
    def spans(self) -> tuple[tuple[int, int, str], ...]:
        """Emphasised character ranges and their kinds."""


Piece = tuple[int, int, int]
"""A screen row of a line: its characters [start, end) and the indent drawn before them."""

NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def cells(text: str) -> int:
    """How many cells text takes, ASCII counted one each (as the wrapping below counts it): only the characters
    beyond ASCII are looked up, one by one and cached, where rich's cell_len sums over every character (a line of
    a preview is ASCII but for a ✓ or a CJK topic: 5,800 such lines took 70 ms). Never less than cell_len."""
    if text.isascii():
        return len(text)
    if "\u200d" in text or "\ufe0f" in text:  # a joiner or a variation selector: rich works those out whole
        return cell_len(text)
    return len(text) + sum(cell_len(character) - 1 for character in NOT_ASCII.findall(text))


def char_pieces(text: str, width: int) -> list[Piece]:
    """text cut every width cells, nothing dropped (the exact diff: every character where it is)."""
    if not text:
        return [(0, 0, 0)]
    if text.isascii():
        return [(i, min(i + width, len(text)), 0) for i in range(0, len(text), width)]
    out: list[Piece] = []
    start = 0
    for chunk in chop_cells(text, width) or [""]:
        out.append((start, start + len(chunk), 0))
        start += len(chunk)
    return out


def word_pieces(text: str, width: int) -> list[Piece]:
    """text wrapped at spaces where it can be (a word longer than the width is cut), each continuation
    indented like the line itself (prose: a reason, a finding, a step). Text with wide characters (CJK) is
    cut by cells, as char_pieces does."""
    if len(text) <= width or not (text.isascii() or cell_len(text) == len(text)):
        return char_pieces(text, width)
    indent = len(text) - len(text.lstrip(" "))
    if indent > width // 2:
        indent = 0
    out: list[Piece] = []
    start = 0
    while start < len(text):
        lead = indent if out else 0
        room = width - lead
        if len(text) - start <= room:
            out.append((start, len(text), lead))
            break
        cut = text.rfind(" ", start + 1, start + room + 1)
        if cut <= start:
            cut = start + room
        out.append((start, cut, lead))
        start = cut
        while start < len(text) and text[start] == " ":
            start += 1
    return out


class LineView(ScrollView, can_focus=True):
    """Styled lines, wrapped to the width, drawn only where they are on screen."""

    COMPONENT_CLASSES = {f"line-view--{kind}" for kind in KINDS}

    DEFAULT_CSS = """
    LineView {
        scrollbar-gutter: stable;
        overflow-x: hidden;
    }
    """

    def __init__(
        self, lines: Sequence[Drawn] = (), *, words: bool = True, id: str | None = None, classes: str | None = None
    ) -> None:
        """A view of lines (set_lines replaces them); words wraps at spaces, else every character stays put."""
        super().__init__(id=id, classes=classes)
        self.lines: list[Drawn] = list(lines)
        self.words = words
        self._starts: list[int] = [0]
        self._width = 0
        self._cells: list[int] | None = None  # each line's width in cells (worked out once per set of lines)
        self._chunks: tuple[int, int, list[Piece]] | None = None  # (line, width, pieces) of the last line drawn
        self._styles: dict[str, Style] = {}

    @property
    def text(self) -> str:
        """Every line's text, one per line (what the view holds, unwrapped)."""
        return "\n".join(line.text for line in self.lines)

    def set_lines(self, lines: Sequence[Drawn], *, words: bool = True, top: bool = True) -> None:
        """Show other lines, from the top (words: wrapped at spaces; top=False stays where it was scrolled to)."""
        self.lines = list(lines)
        self.words = words
        self._width = 0
        self._cells = None
        self._chunks = None
        self._reflow()
        if top:
            self.scroll_to(y=0, animate=False, immediate=True)
        self.refresh()

    @property
    def top_line(self) -> int:
        """The number of the line at the top of the view."""
        self._reflow()
        return max(bisect_right(self._starts, int(self.scroll_offset.y)) - 1, 0)

    def scroll_to_line(self, number: int) -> None:
        """Scroll so that line number is at the top (as far as the view scrolls)."""
        self._reflow()
        self.scroll_to(y=self._starts[min(max(number, 0), len(self._starts) - 1)], animate=False, immediate=True)

    def _reflow(self) -> None:
        """Work out where each line starts at the current width (only when the width changed)."""
        width = self.scrollable_content_region.width
        if width <= 0 or width == self._width:
            return
        self._width = width
        if self._cells is None:
            self._cells = [cells(line.text) for line in self.lines]
        starts = [0]
        total = 0
        cut = word_pieces if self.words else char_pieces
        for line, used in zip(self.lines, self._cells):
            total += 1 if used <= width else len(cut(line.text, width))
            starts.append(total)
        self._starts = starts
        self._chunks = None
        self.virtual_size = Size(width, total)

    def on_resize(self) -> None:
        """Wrap again at the new width."""
        self._reflow()

    def notify_style_update(self) -> None:
        """Forget cached component styles when CSS or the theme changes."""
        self._styles = {}
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        """Render the visible lines, looking each style up once per pass."""
        self._styles = {}
        self._reflow()
        return super().render_lines(crop)

    def _style(self, kind: str) -> Style:
        """A kind's rich style (cached for one rendering pass)."""
        style = self._styles.get(kind)
        if style is None:
            style = self._styles[kind] = self.rich_style + self.get_component_rich_style(f"line-view--{kind}")
        return style

    def _pieces(self, number: int, width: int) -> list[Piece]:
        """Line number's screen rows (the last line asked for is kept: its rows come one after another)."""
        if self._chunks is not None and self._chunks[:2] == (number, width):
            return self._chunks[2]
        pieces = (word_pieces if self.words else char_pieces)(self.lines[number].text, width)
        self._chunks = (number, width, pieces)
        return pieces

    def render_line(self, y: int) -> Strip:
        """One screen row: a piece of the line under it, styled by the line's kind and its spans."""
        width = self.scrollable_content_region.width
        row = int(self.scroll_offset.y) + y
        if width <= 0 or not self.lines or row >= self._starts[-1]:
            return Strip.blank(max(width, 0), self.rich_style)
        number = bisect_right(self._starts, row) - 1
        line = self.lines[number]
        pieces = self._pieces(number, width)
        start, end, indent = pieces[min(row - self._starts[number], len(pieces) - 1)]
        base = self._style(line.kind)
        piece = line.text[start:end]
        segments = ([Segment(" " * indent, base)] if indent else []) + self._segments(line, piece, start)
        used = indent + cell_len(piece)
        if used < width:
            segments.append(Segment(" " * (width - used), base))
        return Strip(segments).simplify()

    def _segments(self, line: Drawn, piece: str, start: int) -> list[Segment]:
        """piece (the characters of line from start) as segments, its spans in their own style."""
        base = self._style(line.kind)
        end = start + len(piece)
        cuts = []
        for lo, hi, kind in line.spans:
            lo, hi = max(lo, start), min(hi, end)
            if lo < hi:
                cuts.append((lo - start, hi - start, kind))
        if not cuts:
            return [Segment(piece, base)]
        out = []
        at = 0
        for lo, hi, kind in sorted(cuts):
            if lo < at:
                continue
            if lo > at:
                out.append(Segment(piece[at:lo], base))
            out.append(Segment(piece[lo:hi], base + self.get_component_rich_style(f"line-view--{kind}")))
            at = hi
        if at < len(piece):
            out.append(Segment(piece[at:], base))
        return out
