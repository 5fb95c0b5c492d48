"""history.md and research.md as the skill writes them: a preamble, then entries, each with its exact range.

An entry is a line starting `### ` outside a ``` or ~~~ code fence, up to the next such line or the end of
the file. A heading whose time is the template's literal `YYYY-MM-DD HH:MM` is not a boundary (before the
first entry it is preamble). Every byte belongs to the preamble or to exactly one entry, so
`preamble + entries` is the file: archive and the readers move and show byte ranges, never re-rendered text.
A BOM stays in the preamble (the line after it can still start an entry); line ends (LF, CRLF, none at the
end) stay with their lines; text is decoded losslessly (core.formats.text), so ranges hold for any bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..formats.text import BOM, decode, encode, line_body, split_lines

HEADING_PREFIX = "### "
TEMPLATE_TIME = "YYYY-MM-DD HH:MM"
TIME_FORMAT = "%Y-%m-%d %H:%M"
_OPEN_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")
_CLOSE_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*$")
_TIME_RE = re.compile(r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2})(?!\d)")
# the skill's readers: `[context: …]` anywhere in the heading, `- name：value` (or `:`) on a stripped line
_CONTEXT_RE = re.compile(r"\[context:\s*([^\]]+)\]")
_FIELD_RE = re.compile(r"^- ([^:：]+)[：:]\s*(.*)$")


@dataclass(frozen=True)
class Entry:
    """One entry: its text, its [start, end) range in the decoded text and in the file's bytes, and its reading."""

    start: int
    end: int
    byte_start: int
    byte_end: int
    text: str
    heading: str
    time: str | None
    context: str
    fields: tuple[tuple[str, str], ...]

    @property
    def data(self) -> bytes:
        """The entry's exact bytes."""
        return encode(self.text)

    def field(self, name: str) -> str | None:
        """The value of field `name` (the last one, as the skill reads it), stripped; None when absent."""
        found = None
        for key, value in self.fields:
            if key == name:
                found = value
        return found

    def when(self) -> datetime | None:
        """The heading's time as a naive local datetime; None when there is none or it is not a real time."""
        if self.time is None:
            return None
        try:
            return datetime.strptime(self.time, TIME_FORMAT)
        except ValueError:
            return None


@dataclass(frozen=True)
class Document:
    """A history.md or research.md split: the preamble (with the BOM) and the entries, in file order."""

    text: str
    preamble: str
    entries: tuple[Entry, ...]

    @property
    def bom(self) -> bool:
        """Whether the file starts with a UTF-8 BOM."""
        return self.text.startswith(BOM)

    @property
    def newline(self) -> str:
        """The file's line end: that of its first line, `\\n` when it has none."""
        return line_end(self.text)

    def join(self, entries: Iterable[Entry] | None = None) -> str:
        """The preamble followed by `entries` (default: all of them), each its exact text."""
        chosen = self.entries if entries is None else entries
        return self.preamble + "".join(e.text for e in chosen)


def line_end(text: str) -> str:
    """The line end a text uses: that of its first line (`\\r\\n` or `\\n`), `\\n` when it has no line end."""
    index = text.find("\n")
    if index > 0 and text[index - 1] == "\r":
        return "\r\n"
    return "\n"


def is_heading(body: str) -> bool:
    """Whether a line (without its line end) starts an entry, fences aside: `### ` and not the template's time."""
    return body.startswith(HEADING_PREFIX) and not body[len(HEADING_PREFIX) :].lstrip().startswith(TEMPLATE_TIME)


def read_heading(body: str) -> tuple[str, str | None, str]:
    """A heading line's text after `### `, its `YYYY-MM-DD HH:MM` time (None when absent) and its context."""
    title = body[len(HEADING_PREFIX) :].strip() if body.startswith(HEADING_PREFIX) else body.strip()
    m = _TIME_RE.match(title)
    context = _CONTEXT_RE.search(title)
    return title, m.group(1) if m else None, context.group(1).strip() if context else ""


def read_fields(lines: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The `- name：value` fields of an entry's body lines, in order, names and values stripped."""
    found: list[tuple[str, str]] = []
    for line in lines:
        m = _FIELD_RE.match(line_body(line).strip())
        if m:
            found.append((m.group(1).strip(), m.group(2).strip()))
    return tuple(found)


def boundaries(lines: Sequence[str]) -> list[int]:
    """Indexes of the lines that start an entry: `### ` headings outside code fences (a BOM before one ignored)."""
    starts: list[int] = []
    fence = ""
    for index, line in enumerate(lines):
        body = line_body(line)
        if index == 0 and body.startswith(BOM):
            body = body[len(BOM) :]
        if fence:
            close = _CLOSE_FENCE_RE.match(body)
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= len(fence):
                fence = ""
            continue
        opened = _OPEN_FENCE_RE.match(body)
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            fence = opened.group(1)
            continue
        if is_heading(body):
            starts.append(index)
    return starts


def parse(text: str) -> Document:
    """Split a decoded history.md / research.md into its preamble and entries with exact ranges."""
    lines = split_lines(text)
    starts = boundaries(lines)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    entries: list[Entry] = []
    # byte offsets: each entry's bytes counted once (encoding per entry, not per line)
    at_char, at_byte = 0, 0
    for number, first in enumerate(starts):
        last = starts[number + 1] if number + 1 < len(starts) else len(lines)
        head = line_body(lines[first])
        start = offsets[first]
        if first == 0 and head.startswith(BOM):
            start, head = len(BOM), head[len(BOM) :]  # the BOM is the preamble's: the entry starts after it
        end = offsets[last]
        byte_start = at_byte + len(encode(text[at_char:start]))
        body = text[start:end]
        byte_end = byte_start + len(encode(body))
        at_char, at_byte = end, byte_end
        title, time, context = read_heading(head)
        entries.append(
            Entry(
                start=start,
                end=end,
                byte_start=byte_start,
                byte_end=byte_end,
                text=body,
                heading=title,
                time=time,
                context=context,
                fields=read_fields(lines[first + 1 : last]),
            )
        )
    preamble_end = entries[0].start if entries else len(text)
    return Document(text=text, preamble=text[:preamble_end], entries=tuple(entries))


def parse_bytes(data: bytes) -> Document:
    """Split a file's bytes (decoded losslessly) into its preamble and entries."""
    return parse(decode(data))
