"""The hot cache, MEMORY.md, read mechanically: what seed 004 says must not be in it (facts), its pointers
to the warm layer, and its size (lines and an estimated token count).

MEMORY.md is loaded at every session start, so the seed keeps it small and fact-free: identity, rules,
permissions, narrative and two pointer lines. memboard cannot understand prose; it can find the text
that *looks like* a fact — a date, an e-mail address, a URL, a path, an ID, an amount, a status, a todo
— by explicit patterns. `hierarchy lint` reports these matches (`fact_in_hot`, `number_in_hot`) and
`hierarchy migrate` proposes from them, so a match is a small value with a kind and a span (the
characters `[start, end)` of the line without its line end and BOM). Pure: str in, values out.
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

BOM = "\ufeff"
ALLOW_MARK = "<!-- memboard-lint: allow -->"
FACTS_PATH = "memory/facts.yaml"
LOOKUP_PATH = "memory/lookup-index.md"
FACTS_POINTER = "# Structured facts → memory/facts.yaml"
LOOKUP_POINTER = "# Find anything → memory/lookup-index.md"

# the kinds of fact-like text, in the order a line's overlapping matches are decided (the first wins)
DATE = "date"
EMAIL = "email"
URL = "url"
PATH = "path"
ID = "id"
AMOUNT = "amount"
STATUS = "status"
TODO = "todo"
NUMBER = "number"  # a bare number: only reported (info) when a line holds nothing else fact-like
FACT_KINDS = (URL, EMAIL, DATE, ID, PATH, AMOUNT, STATUS, TODO)


class Match(NamedTuple):
    """Fact-like text in one line: its kind, its span [start, end) in the line, and the text matched."""

    kind: str
    start: int
    end: int
    text: str

    @property
    def span(self) -> tuple[int, int]:
        """The matched characters [start, end) of the line."""
        return (self.start, self.end)


_MONTHS = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_URL_END = ".,;:!?'\"”’)>]}"


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(kind, pattern) in priority order, several patterns may share a kind (compiled on first use: `lookup`
    reads headings alone)."""
    return (
        (URL, re.compile(r"\b(?:https?|ftp)://[^\s<>\"'`]+|\bwww\.[A-Za-z0-9-]+\.[^\s<>\"'`]+", re.IGNORECASE)),
        (EMAIL, re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")),
        (
            DATE,
            re.compile(
                r"(?<![\d/-])\d{4}-(?:0?[1-9]|1[0-2])-(?:0?[1-9]|[12]\d|3[01])(?![\d-])"
                r"|(?<![\d/])\d{4}/(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])(?![\d/])"
                r"|\d{4}\s?年\s?\d{1,2}\s?月\s?\d{1,2}\s?[日号]"
                rf"|\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b"
                rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\s*,?\s+\d{{4}}\b",
                re.IGNORECASE,
            ),
        ),
        (ID, re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")),
        (
            PATH,
            re.compile(
                r"(?<![\w~/.:\\])~?/[\w.@+-]+(?:/[\w.@+-]+)+/?"  # /a/b, ~/a/b
                r"|(?<![\w/])~/[\w.@+-]+/?"  # ~/a
                r"|\b[A-Za-z]:\\[^\s<>\"'`|]*"  # C:\a
                r"|(?<![\w/.:~-])[\w.@+-]+(?:/[\w.@+-]+)*/[\w@+-][\w.@+-]*\.[A-Za-z0-9]{1,8}\b"  # dir/file.ext
            ),
        ),
        (
            AMOUNT,
            re.compile(
                r"[$€£¥￥]\s?\d(?:[\d,]*\d)?(?:\.\d+)?(?:\s?(?:[kKmMbB]|million|billion)\b)?"
                r"|\b\d(?:[\d,]*\d)?(?:\.\d+)?\s?(?:USD|EUR|GBP|CNY|RMB|JPY|dollars?|euros?|yuan)\b"
                r"|\d(?:[\d,]*\d)?(?:\.\d+)?\s?(?:元|美元|欧元|块钱)",
                re.IGNORECASE,
            ),
        ),
        (ID, re.compile(r"(?<![\w.,])\d{6,}(?![\w.,]\d)|\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{12,}\b")),
        (
            STATUS,
            re.compile(
                r"\bstatus\s*[:：]|\bin[ -]progress\b|\bblocked\b|\bpaused\b|进行中|已暂停|已阻塞", re.IGNORECASE
            ),
        ),
        (TODO, re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[ \]|\bTODO\b|待办")),
    )


_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+|$)(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```+|~~~+)")


def lines_of(text: str) -> list[str]:
    """The lines of a text without their line ends (LF, CRLF or CR) and without a leading BOM."""
    if text.startswith(BOM):
        text = text[1:]
    if not text:
        return []
    lines = re.split(r"\r\n|\n|\r", text)
    if lines[-1] == "":
        lines.pop()
    return lines


def pointer_of(line: str) -> str | None:
    """Which pointer the line is: "facts" when it names memory/facts.yaml, "lookup" for the lookup index."""
    if FACTS_PATH in line:
        return "facts"
    if LOOKUP_PATH in line:
        return "lookup"
    return None


def pointers(lines: list[str]) -> dict[str, bool]:
    """Whether MEMORY.md's lines hold a pointer to facts.yaml and one to lookup-index.md."""
    found = {"facts": False, "lookup": False}
    for line in lines:
        if FACTS_PATH in line:
            found["facts"] = True
        if LOOKUP_PATH in line:
            found["lookup"] = True
    return found


def allowed(line: str) -> bool:
    """Whether the line ends with the `<!-- memboard-lint: allow -->` mark that exempts it."""
    return line.rstrip().endswith(ALLOW_MARK)


def exempt(line: str) -> bool:
    """Whether lint passes over the line: a pointer line, or one marked allowed."""
    return pointer_of(line) is not None or allowed(line)


def _trim_url(text: str) -> str:
    """A URL without the punctuation that ends its sentence (a `)` only when unbalanced)."""
    while text and text[-1] in _URL_END:
        if text[-1] == ")" and text.count("(") >= text.count(")"):
            break
        text = text[:-1]
    return text


def fact_matches(line: str) -> list[Match]:
    """Every fact-like text in the line, left to right, no two overlapping (exemptions not applied)."""
    taken: list[Match] = []
    for kind, pattern in _patterns():
        for m in pattern.finditer(line):
            text = m.group(0)
            if kind == URL:
                text = _trim_url(text)
            elif kind == PATH:
                text = text.rstrip(".,;:!?)")
            start = m.start()
            if kind == TODO and text[:1].isspace():
                start += len(text) - len(text.lstrip())
                text = text.lstrip()
            if not text:
                continue
            end = start + len(text)
            if any(start < t.end and t.start < end for t in taken):
                continue
            taken.append(Match(kind, start, end, text))
    return sorted(taken, key=lambda t: t.start)


def number_matches(line: str) -> list[Match]:
    """The bare numbers of the line (`2-3 lines`, `DALL-E 3`)."""
    return [Match(NUMBER, m.start(), m.end(), m.group(0)) for m in _NUMBER.finditer(line)]


def line_facts(line: str) -> list[Match]:
    """What `fact_in_hot` reports on the line: its fact matches, none when the line is exempt."""
    return [] if exempt(line) else fact_matches(line)


def line_number(line: str) -> Match | None:
    """What `number_in_hot` reports: the first bare number of a line holding nothing else fact-like."""
    if exempt(line) or fact_matches(line):
        return None
    numbers = number_matches(line)
    return numbers[0] if numbers else None


def _is_cjk(ch: str) -> bool:
    """Whether ch is a CJK ideograph, kana, hangul or CJK punctuation (each counted as one token)."""
    o = ord(ch)
    return (
        0x3000 <= o <= 0x30FF  # CJK punctuation, hiragana, katakana
        or 0x3400 <= o <= 0x4DBF
        or 0x4E00 <= o <= 0x9FFF
        or 0xAC00 <= o <= 0xD7AF
        or 0xF900 <= o <= 0xFAFF
        or 0xFF00 <= o <= 0xFFEF  # full-width forms
        or 0x20000 <= o <= 0x3FFFF
    )


def estimate_tokens(text: str) -> int:
    """The token estimate: each CJK character 1, the other characters (line ends excluded) ÷ 4, rounded up."""
    body = text.removeprefix(BOM).replace("\r", "").replace("\n", "")
    if body.isascii():
        return -(-len(body) // 4)
    cjk = sum(1 for ch in body if _is_cjk(ch))
    return cjk + -(-(len(body) - cjk) // 4)


def heading_of(line: str) -> tuple[int, str] | None:
    """The (level, text) of a Markdown ATX heading line, None for any other line (pointer lines included)."""
    if pointer_of(line) is not None:
        return None
    m = _HEADING.match(line)
    if m is None:
        return None
    return len(m.group(1)), m.group(2).strip()


def headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """The headings of a Markdown text outside fenced code: (0-based line, level, text)."""
    out: list[tuple[int, int, str]] = []
    fence: str | None = None
    for i, line in enumerate(lines):
        f = _FENCE.match(line)
        if f is not None:
            mark = f.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark) :].strip():
                fence = None
            continue
        if fence is not None:
            continue
        h = heading_of(line)
        if h is not None:
            out.append((i, h[0], h[1]))
    return out


class Section(NamedTuple):
    """A part of MEMORY.md: the heading that opens it (None before the first), its first line, its size."""

    heading: str | None
    line: int  # 1-based
    lines: int


def sections(lines: list[str]) -> list[Section]:
    """MEMORY.md cut at every heading: each heading's lines up to the next heading (the text before the first)."""
    marks = headings(lines)
    out: list[Section] = []
    first = marks[0][0] if marks else len(lines)
    if first > 0:
        out.append(Section(None, 1, first))
    for k, (i, level, text) in enumerate(marks):
        end = marks[k + 1][0] if k + 1 < len(marks) else len(lines)
        out.append(Section("#" * level + " " + text, i + 1, end - i))
    return out


def largest_sections(lines: list[str], count: int = 3) -> list[Section]:
    """The count largest sections, largest first (file order among equals)."""
    return sorted(sections(lines), key=lambda s: -s.lines)[:count]


def describe_sections(found: list[Section]) -> str:
    """Sections in words: `## Projects (30 lines), (before the first heading) (5 lines)`."""
    return ", ".join(f"{s.heading or '(before the first heading)'} ({s.lines} lines)" for s in found)
