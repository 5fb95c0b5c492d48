"""A virtualised, soft-wrapped list of styled lines (a plan's changes, its exact diff, the result log).

Only the lines on screen become Strips, so a preview of 10,000 file changes scrolls like one
of three. Each line has a kind (a component class `line-view--<kind>`, coloured in the
stylesheet) and spans of other kinds inside it. Text is never parsed as markup.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Protocol, Sequence

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

KINDS = ("text", "file", "row", "field", "added", "removed", "hunk", "header", "context", "muted", "section",
         "changed", "refusal", "note", "group", "headline")


class Drawn(Protocol):
    """What a line must offer: its text, its kind and emphasised (start, end, kind) spans."""

    text: str
    kind: str
    spans: tuple[tuple[int, int, str], ...]


def wrapped(text: str, width: int) -> list[str]:
    """text cut into pieces of at most width cells (an empty line is one empty piece)."""
    if not text:
        return [""]
    if text.isascii():
        return [text[i : i + width] for i in range(0, len(text), width)]
    return chop_cells(text, width) or [""]


def rows_of(text: str, width: int) -> int:
    """How many screen rows text takes at width."""
    if text.isascii():
        return max(1, -(-len(text) // width))
    return len(wrapped(text, width))


class LineView(ScrollView, can_focus=True):
    """Styled lines, wrapped to the width, drawn only where they are on screen."""

    COMPONENT_CLASSES = {f"line-view--{kind}" for kind in KINDS}

    DEFAULT_CSS = """
    LineView {
        scrollbar-gutter: stable;
        overflow-x: hidden;
    }
    """

    def __init__(self, lines: Sequence[Drawn] = (), *, id: str | None = None, classes: str | None = None) -> None:
        """A view of lines (set_lines replaces them)."""
        super().__init__(id=id, classes=classes)
        self.lines: list[Drawn] = list(lines)
        self._starts: list[int] = [0]
        self._width = 0
        self._chunks: tuple[int, int, list[str]] | None = None  # (line, width, pieces) of the last line drawn
        self._styles: dict[str, Style] = {}

    @property
    def text(self) -> str:
        """Every line's text, one per line (what the view holds, unwrapped)."""
        return "\n".join(line.text for line in self.lines)

    def set_lines(self, lines: Sequence[Drawn]) -> None:
        """Show other lines, from the top."""
        self.lines = list(lines)
        self._width = 0
        self._chunks = None
        self._reflow()
        self.scroll_to(y=0, animate=False, immediate=True)
        self.refresh()

    def _reflow(self) -> None:
        """Work out where each line starts at the current width (only when the width changed)."""
        width = self.scrollable_content_region.width
        if width <= 0 or width == self._width:
            return
        self._width = width
        starts = [0]
        total = 0
        for line in self.lines:
            total += rows_of(line.text, width)
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

    def _pieces(self, number: int, width: int) -> list[str]:
        """Line number's wrapped pieces (the last line asked for is kept: its rows come one after another)."""
        if self._chunks is not None and self._chunks[:2] == (number, width):
            return self._chunks[2]
        pieces = wrapped(self.lines[number].text, width)
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
        index = min(row - self._starts[number], len(pieces) - 1)
        start = sum(len(piece) for piece in pieces[:index])
        piece = pieces[index]
        segments = self._segments(line, piece, start)
        used = cell_len(piece)
        if used < width:
            segments.append(Segment(" " * (width - used), self._style(line.kind)))
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
