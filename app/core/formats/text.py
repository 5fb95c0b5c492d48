"""Text of memory files: lossless decoding, lines split at `\\n` only, and Markdown table cells.

Files are decoded with surrogateescape, so bytes that are not UTF-8 survive a round trip;
a line keeps its own ending (`\\r\\n`, `\\n`, or none at the end of the file).
"""

from __future__ import annotations

import re

BOM = "\ufeff"


BOM_BYTES = BOM.encode("utf-8")


def decode(data: bytes) -> str:
    """Decode file bytes losslessly (invalid UTF-8 bytes survive a round trip)."""
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    """Encode text produced by `decode` back to the exact original bytes."""
    return text.encode("utf-8", "surrogateescape")


def split_lines(text: str) -> list[str]:
    """Split on `\\n` only, keeping each line's ending (a `\\r` stays part of its line)."""
    fast = text.splitlines(keepends=True)
    # str.splitlines also splits at a lone \r, \v, \f, \x1c-\x1e, \x85, \u2028 and \u2029; each of those adds
    # a line beyond the \n count, so equal counts mean it split at \n (or \r\n) only: the same lines
    if len(fast) == text.count("\n") + (0 if not text or text.endswith("\n") else 1):
        return fast
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def line_body(line: str) -> str:
    """A line without its `\\n` / `\\r\\n` ending."""
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return line


def line_ending(line: str) -> str:
    """The ending of a line: `\\r\\n`, `\\n` or `` for a last line without one."""
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\n"):
        return "\n"
    return ""


def split_cells(body: str) -> list[str] | None:
    """Split a table line into raw cell texts (stripped); None if it is not a table line.

    A backslash escapes the character after it, so `\\|` stays inside a cell.
    """
    s = body.strip()
    if not s.startswith("|"):
        return None
    s = s[1:]
    if "\\" not in s:
        cells = s.split("|")
        if (cells and cells[-1].strip() == "" and s.endswith("|")) or (len(cells) > 1 and cells[-1].strip() == ""):
            cells.pop()
        return [c.strip() for c in cells]
    # a pipe is escaped when an odd run of backslashes stands right before it (each backslash escapes the
    # character after it, left to right, and a run starts fresh after any other character)
    pieces = s.split("|")
    cells = [pieces[0]]
    for piece in pieces[1:]:
        last = cells[-1]
        if (len(last) - len(last.rstrip("\\"))) % 2:
            cells[-1] = last + "|" + piece
        else:
            cells.append(piece)
    cells = [c.strip() for c in cells]
    if len(cells) > 1 and not cells[-1]:  # nothing after the last pipe: no cell there
        cells.pop()
    return cells


def unescape(raw: str) -> str:
    """The value of a raw cell: `\\|` becomes `|`."""
    return raw.replace("\\|", "|") if "\\|" in raw else raw


def escape(value: str) -> str:
    """The raw cell text for a value: one line, pipes escaped so they stay in the cell."""
    if value.isalnum():  # no pipe, backslash, line break or white space: itself (organize writes 42k `stale`)
        return value
    value = value.replace("\r", " ").replace("\n", " ").strip()
    if "|" not in value:  # nothing to escape (most values)
        return value + " " if value.endswith("\\") else value
    out: list[str] = []
    for ch in value:
        if ch == "|":
            if out and out[-1].endswith("\\"):
                out.append(" ")
            out.append("\\|")
        else:
            out.append(ch)
    text = "".join(out)
    if text.endswith("\\"):
        text += " "
    return text


def is_separator(cells: list[str]) -> bool:
    """Whether cells form a header separator row such as `|---|:---:|`."""
    return bool(cells) and all(c and set(c) <= set("-: ") and "-" in c for c in cells)


CLOSING_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*\n?$")  # a line that can close a code fence


def strip_columns(line: str, n: int) -> str:
    """line without up to n columns of leading indentation (a tab reaches the next multiple of 4;
    the columns of a tab that reach past n stay as spaces), as a code fence's content lines."""
    col = i = 0
    while i < len(line) and col < n and line[i] in " \t":
        col = col + 1 if line[i] == " " else (col // 4 + 1) * 4
        i += 1
    return " " * max(0, col - n) + line[i:]
