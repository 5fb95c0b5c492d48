"""Line ends, the BOM, code fences and the append rule shared by every space file (issue 24 §3).

Space files are UTF-8 with an optional BOM and LF or CRLF line ends, and memboard never rewrites a line
it does not change: every format here works on the decoded text with its BOM and line ends kept, and
converts text it adds to the file's own line ends. The skill appends a block (a research entry) by adding
a line end when the file lacks a final one, then one empty line when the file holds anything but white
space, then the block; memboard's history and research appends follow the same rule.
"""

from __future__ import annotations

import re

BOM = "\ufeff"
"""The byte order mark as it decodes from UTF-8."""

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def split_bom(text: str) -> tuple[str, str]:
    """The text's BOM ('' when none) and the rest."""
    if text.startswith(BOM):
        return BOM, text[1:]
    return "", text


def line_end(text: str, default: str = "\n") -> str:
    """The text's line end: that of its first line (CRLF or LF); `default` when it has none."""
    at = text.find("\n")
    if at < 0:
        return default
    return "\r\n" if at > 0 and text[at - 1] == "\r" else "\n"


def with_line_ends(text: str, eol: str) -> str:
    """The text with every line end (LF, CRLF, a lone CR) turned into eol."""
    unified = text.replace("\r\n", "\n").replace("\r", "\n")
    return unified if eol == "\n" else unified.replace("\n", eol)


def bare(line: str) -> str:
    """A line (as splitlines(keepends=True) gives it) without its line end."""
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith(("\n", "\r")):
        return line[:-1]
    return line


def fenced_flags(lines: list[str]) -> list[bool]:
    """For each line (without its end), whether it is a fence line or inside a ``` or ~~~ fence.

    A fence opens on a line of three or more backticks or tildes (up to three spaces before) and closes on
    a line of the same character at least as long with nothing else after it; an unclosed fence runs to the
    end of the file, as Markdown reads it.
    """
    flags: list[bool] = []
    opener = ""
    for line in lines:
        match = _FENCE.match(line)
        if not opener:
            if match:
                opener = match.group(1)
                flags.append(True)
            else:
                flags.append(False)
            continue
        flags.append(True)
        closer = match.group(1) if match else ""
        if closer[:1] == opener[0] and len(closer) >= len(opener) and match and not line[match.end() :].strip():
            opener = ""
    return flags


def append_block(existing: str, block: str) -> str:
    """The skill's append: existing, a line end if it lacks a final one, one empty line if it holds any
    non-white-space, then block; the added line ends are the file's own (block must already use them)."""
    eol = line_end(existing, line_end(block))
    out = existing
    if out and not out.endswith(("\n", "\r")):
        out += eol
    if out.strip():
        out += eol
    return out + block
