"""Daily logs `memory/YYYY-MM-DD.md`: what an append adds, beside OpenClaw's own appends (issue 25 §3 "log").

An append never rewrites: a line end first when the file lacks one, an empty line when the file has
content, then the text with the file's line ends, ending in a line end. A new log starts with
`# YYYY-MM-DD` and an empty line. Appending the block the file already ends with changes nothing.
"""

from __future__ import annotations

BOM = b"\xef\xbb\xbf"


def log_path(date: str) -> str:
    """The daily log of date (YYYY-MM-DD), relative to the workspace."""
    return f"memory/{date}.md"


def line_end(data: bytes) -> bytes:
    """A file's line end: CRLF when its first line ends so, else LF."""
    at = data.find(b"\n")
    return b"\r\n" if at > 0 and data[at - 1 : at] == b"\r" else b"\n"


def append_log(before: bytes | None, date: str, text: str) -> bytes:
    """The log's bytes after appending text (before None: a new log headed `# date`); before itself when the
    file already ends with that block."""
    if before is None:
        return f"# {date}\n\n".encode() + _block(text, b"\n")
    eol = line_end(before)
    block = _block(text, eol)
    body = before[len(BOM) :] if before.startswith(BOM) else before
    if body.endswith(block) and (len(body) == len(block) or body[: -len(block)].endswith(b"\n")):
        return before
    out = before
    if body and not body.endswith(b"\n"):
        out += eol
    if body.strip():
        out += eol
    return out + block


def _block(text: str, eol: bytes) -> bytes:
    """text with eol line ends, ending in one."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return b"".join(line.encode("utf-8") + eol for line in lines)
