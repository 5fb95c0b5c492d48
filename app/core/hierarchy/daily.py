"""Daily logs, the hierarchy's cold layer: memory/YYYY-MM-DD.md (memboard's and the agent's) and OpenClaw's
memory/YYYY-MM-DD-<slug>.md (its session-memory hook's, which memboard reads and never writes).

A daily log is append-only: this module names the logs of a workspace with their dates, renders the
bytes of one append (seed 004's rule, issue 25 §3 "log": a line end first when the file lacks one, an
empty line when it has content, the text in the file's line ends), and says where archive-logs puts a log.
Pure apart from listing the memory/ folder.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass

BOM = b"\xef\xbb\xbf"
MEMORY_DIR = "memory"
ARCHIVE_DIR = "memory/daily-archive"
_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-(.+))?\.md$")


@dataclass(frozen=True)
class DailyLog:
    """One daily log: its path relative to the workspace, its date, and OpenClaw's slug (None for memboard's form)."""

    path: str
    date: str
    slug: str | None

    def as_json(self) -> dict[str, str | None]:
        """The JSON of one log: `{"path", "date", "slug"}`."""
        return {"path": self.path, "date": self.date, "slug": self.slug}


def real_date(text: str) -> bool:
    """Whether text is a real date YYYY-MM-DD."""
    try:
        return len(text) == 10 and dt.date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False


def parse_name(name: str) -> tuple[str, str | None] | None:
    """The (date, slug) of a daily log's file name, None when the name is no daily log."""
    m = _NAME.match(name)
    if m is None or not real_date(m.group(1)):
        return None
    return m.group(1), m.group(2)


def log_path(date: str) -> str:
    """The path of memboard's daily log of a date (the only daily log name memboard writes)."""
    return f"{MEMORY_DIR}/{date}.md"


def list_logs(workspace: str) -> list[DailyLog]:
    """The daily logs in the workspace's memory/ folder (both forms), oldest first (by date, then name)."""
    folder = os.path.join(workspace, MEMORY_DIR)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    out: list[DailyLog] = []
    for name in names:
        parsed = parse_name(name)
        if parsed is not None and os.path.isfile(os.path.join(folder, name)):
            out.append(DailyLog(f"{MEMORY_DIR}/{name}", parsed[0], parsed[1]))
    return sorted(out, key=lambda log: (log.date, log.slug is not None, log.path))


def archive_path(log: DailyLog) -> str:
    """Where archive-logs moves a log: memory/daily-archive/YYYY-MM/<name>."""
    return f"{ARCHIVE_DIR}/{log.date[:7]}/{log.path.rsplit('/', 1)[-1]}"


def line_end(data: bytes) -> bytes:
    """A file's line end: CRLF when its first line ends so, else LF."""
    at = data.find(b"\n")
    return b"\r\n" if at > 0 and data[at - 1 : at] == b"\r" else b"\n"


def block_of(text: str, eol: bytes) -> bytes:
    """The appended text in a file's line ends, ending in a line end."""
    lines = re.split(r"\r\n|\n|\r", text)
    if lines and lines[-1] == "":
        lines.pop()
    return b"".join(line.encode("utf-8") + eol for line in lines)


def appended(before: bytes | None, text: str, date: str) -> bytes | None:
    """The log's bytes after appending text (None: the log already ends with that block, nothing to change).

    A new log starts with `# DATE` and an empty line; an existing one gets a line end when it lacks one,
    an empty line when it has content, then the text in its line ends."""
    if before is None:
        return f"# {date}\n\n".encode() + block_of(text, b"\n")
    eol = line_end(before)
    block = block_of(text, eol)
    if block and (before.endswith(block) or before.endswith(block[: -len(eol)])) and _starts_block(before, block):
        return None
    tail = before
    body = before.removeprefix(BOM)
    if body and not body.endswith(b"\n") and not body.endswith(b"\r"):
        tail += eol
    if body.strip():
        tail += eol
    return tail + block


def _starts_block(before: bytes, block: bytes) -> bool:
    """Whether the block that before ends with starts at a line's start (not inside a longer last line)."""
    at = before.rfind(block) if before.endswith(block) else before.rfind(block.rstrip(b"\r\n"))
    return at == 0 or before[at - 1 : at] in (b"\n", b"\r")


def append_log(before: bytes | None, date: str, text: str) -> bytes:
    """The log's bytes after appending text (before None: a new log headed `# date`); before itself when the
    file already ends with that block (the form `facts todo done` plans with)."""
    after = appended(before, text, date)
    return before if after is None and before is not None else after or b""
