"""An independent reader of a snapshot's structure: GitHub's cmark-gfm (via `cmarkgfm`).

The tests compare what memboard writes with how GitHub reads it, never with memboard's own
parser. cmark-gfm renders the document to HTML with source positions; the top-level elements
of that HTML are the document's blocks, `<h2>` elements are its sections, and every other
top-level block (each `<li>` of a top-level list counts on its own) is a *unit* with:

- `kind`: the element (`p`, `pre`, `ul>li`, `ol>li`, `blockquote`, `table`, `hr`, `h3`, …),
  `html` for a raw HTML block, `def` for lines that render to nothing (link definitions);
- `html`: its rendering without source positions, whitespace between tags dropped and a
  list item's paragraphs unwrapped (a list's tight/loose look is not an item's structure);
- `text`: its source lines as cmark-gfm delimits them, trailing blank lines dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from cmarkgfm import cmark

EXTENSIONS = ["table", "autolink", "tagfilter", "strikethrough", "tasklist"]
POS_RE = re.compile(r"(\d+):(\d+)-(\d+):(\d+)")
VOID = {"hr", "br", "img", "input"}
SETEXT_RE = re.compile(r" {0,3}(=+|-+)[ \t]*$")
DELIMITER_RE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")


OMITTED = "<!-- raw HTML omitted -->"


def render(text: str, sourcepos: bool = True, unsafe: bool = False) -> str:
    """The document as GitHub renders it (raw HTML omitted, as GitHub's sanitizer does)."""
    options = cmark.Options.CMARK_OPT_SOURCEPOS if sourcepos else 0
    if unsafe:
        options |= cmark.Options.CMARK_OPT_UNSAFE
    return cmark.markdown_to_html_with_extensions(text, options=options, extensions=EXTENSIONS)


@dataclass
class Node:
    """An element of the rendered HTML (or a comment / text run)."""

    tag: str
    attrs: dict
    children: list
    text: str = ""

    def html(self, in_li: bool = False) -> str:
        """The element re-serialised without source positions, paragraphs in list items unwrapped."""
        if self.tag == "#text":
            return self.text.strip()
        if self.tag == "#comment":
            return f"<!--{self.text}-->"
        inner = "".join(c.html(self.tag == "li") for c in self.children)
        if self.tag == "p" and in_li:
            return inner
        attrs = "".join(f' {k}="{v}"' for k, v in sorted(self.attrs.items()) if k != "data-sourcepos")
        if self.tag in VOID:
            return f"<{self.tag}{attrs}/>"
        return f"<{self.tag}{attrs}>{inner.strip()}</{self.tag}>"

    def lines(self) -> tuple[int, int] | None:
        """First and last source line (1-based) of the element, from cmark's source positions."""
        m = POS_RE.fullmatch(self.attrs.get("data-sourcepos", ""))
        if not m:
            return None
        first, last, last_col = int(m.group(1)), int(m.group(3)), int(m.group(4))
        return first, (last - 1 if last_col == 0 else last)

    def plain(self) -> str:
        """Text content."""
        if self.tag == "#text":
            return self.text
        return "".join(c.plain() for c in self.children)


class _TreeBuilder(HTMLParser):
    """cmark's HTML (escaped text, no raw HTML) into Nodes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, [])
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        """Open an element."""
        node = Node(tag, dict(attrs), [])
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        """A void element."""
        self.stack[-1].children.append(Node(tag, dict(attrs), []))

    def handle_endtag(self, tag):
        """Close the innermost open element of this name."""
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        """Text (white space between blocks dropped, code kept as is)."""
        if data.strip() or self.stack[-1].tag in ("code", "pre"):
            self.stack[-1].children.append(Node("#text", {}, [], data))

    def handle_comment(self, data):
        """A comment: where cmark omitted raw HTML."""
        self.stack[-1].children.append(Node("#comment", {}, [], data))


def tree(text: str) -> Node:
    """The rendered document as a tree."""
    builder = _TreeBuilder()
    builder.feed(render(text))
    builder.close()
    return builder.root


@dataclass(frozen=True)
class Unit:
    """One item of a section as GitHub reads it."""

    kind: str
    html: str
    text: str


@dataclass
class Section:
    """A top-level `<h2>` and the units under it."""

    name: str
    units: list[Unit]


def _source(lines: list[str], first: int, last: int) -> str:
    """Source lines first..last (1-based, inclusive) with trailing blank lines dropped."""
    chunk = lines[first - 1 : last]
    while chunk and not chunk[-1].strip(" \t"):
        chunk.pop()
    return "\n".join(chunk)


def _gap_units(lines: list[str]) -> list[Unit]:
    """Units for source lines that cmark renders without a source position: raw HTML blocks
    (one unit each, split where cmark starts the next one) and link definitions (`def`, they
    render to nothing)."""
    units: list[Unit] = []
    first = last = -1
    for i, line in enumerate(lines):
        if not line.strip(" \t"):
            continue
        if first < 0:
            first = last = i
            continue
        current, joined = "\n".join(lines[first : last + 1]), "\n".join(lines[first : i + 1])
        same_html = render(joined, sourcepos=False).count(OMITTED) == render(current, sourcepos=False).count(OMITTED)
        inside = render(joined, unsafe=True) != render(current, unsafe=True)
        if same_html and inside and render(current, sourcepos=False).strip():
            last = i  # the line is more of the same HTML block
        else:
            units.append(_gap_unit(current))
            first = last = i
    if first >= 0:
        units.append(_gap_unit("\n".join(lines[first : last + 1])))
    return units


def _gap_unit(text: str) -> Unit:
    """A raw HTML block or a link definition."""
    shown = render(text, sourcepos=False).strip()
    return Unit("html", shown, text) if shown else Unit("def", "", text)


def _spans(nodes: list[Node], lines: list[str]) -> list[tuple[Node, int, int]]:
    """Top-level nodes with their line spans; a span that runs into the next node's first line
    (cmark-gfm reports one line too many for some setext headings) ends before it."""
    out: list[tuple[Node, int, int]] = []
    for node in nodes:
        if node.tag == "#comment":
            continue
        span = node.lines()
        if span is None:
            raise AssertionError(f"cmark-gfm gave no source position for <{node.tag}>")
        first, last = span
        if node.tag in ("h1", "h2") and last > first and not SETEXT_RE.match(lines[last - 1]):
            last -= 1  # cmark-gfm reports a setext heading one line too long when raw HTML follows
        out.append((node, first, last))
    for i in range(len(out) - 1):
        node, first, last = out[i]
        if first == 0 and out[i + 1][0].tag == "table":
            # cmark-gfm gives no position to a paragraph that a table interrupted and counts its
            # lines to the table: the table starts the line before its delimiter row
            table, t_first, t_last = out[i + 1]
            delimiter = next(j for j in range(t_first + 1, t_last + 1) if DELIMITER_RE.fullmatch(lines[j - 1]))
            out[i], out[i + 1] = (node, t_first, delimiter - 2), (table, delimiter - 1, t_last)
    for i in range(len(out) - 1):
        node, first, last = out[i]
        out[i] = (node, first, min(last, out[i + 1][1] - 1))
    return out + [(Node("#end", {}, []), len(lines) + 1, len(lines) + 1)]


def read(text: str) -> tuple[list[str], list[Section]]:
    """(names of the top-level h1 headings before any section, sections) of a Markdown document."""
    lines = text.replace("\r\n", "\n").split("\n")
    nodes = [n for n in tree(text).children if n.tag != "#text"]
    titles: list[str] = []
    sections: list[Section] = [Section("", [])]
    prev_end = 0
    for node, first, last in _spans(nodes, lines):
        sections[-1].units += _gap_units(lines[prev_end : first - 1])
        prev_end = last
        if node.tag == "#end":
            break
        if node.tag == "h1" and len(sections) == 1:
            titles.append(node.plain().strip())
        if node.tag == "h2":
            sections.append(Section(" ".join(node.plain().split()), []))  # a setext heading's lines, joined
        elif node.tag in ("ul", "ol"):
            for li in node.children:
                if li.tag == "li":
                    li_first, li_last = li.lines() or (first, last)
                    sections[-1].units.append(
                        Unit(f"{node.tag}>li", li.html(), _source(lines, li_first, min(li_last, last)))
                    )
        else:
            sections[-1].units.append(Unit(node.tag, node.html(), _source(lines, first, last)))
    return titles, sections


def section_names(text: str) -> list[str]:
    """The top-level `##` section names, in order."""
    return [s.name for s in read(text)[1][1:]]


def units_of(text: str, name: str) -> list[Unit]:
    """The units of the first section with this name ([] when there is none)."""
    for sec in read(text)[1][1:]:
        if sec.name == name:
            return sec.units
    return []
