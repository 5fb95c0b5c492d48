"""What the space reads compute from a space's files (issue 24 §4): restore's texts, search's lines, check's
decision and findings, and list's ages and counts — pure reads, nothing written.

Search counts lines as the skill's search does (the file read in text mode, so `\\r\\n` and a lone `\\r`
are line ends, then str.splitlines) and matches as it does (`query.lower() in line.lower()`), so that
both name the same line numbers. Restore's texts are the files' own (a BOM removed, line ends kept), and
with `--history N` the preamble and the newest N entries, byte ranges untouched.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from ..formats import clock
from ..formats.text import BOM
from . import entries as entries_mod
from .current import last_updated as written_last_updated
from .entries import Document

CURRENT = "current.md"
HISTORY = "history.md"
RESEARCH = "research.md"
DREAM = "dream-notes.md"
HOT = (CURRENT, HISTORY, DREAM)
ARCHIVE_FILES = ("archive/history-archive.md", "archive/research-archive.md")
LEGACY_IMPORTS = "archive/legacy-imports"
LAYER_HOT, LAYER_RESEARCH, LAYER_ARCHIVE = "hot", "research", "archive"
HEADING = "### "
TIME_FORMAT = "%Y-%m-%d %H:%M"
_MAYBE = ("### ", " ", "```", "~~~", BOM)  # how the lines entries.boundaries can act on begin
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def read_text(path: Path) -> str | None:
    """A file's text (UTF-8, undecodable bytes replaced, a BOM removed, line ends kept); None when absent."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    text = data.decode("utf-8", "replace")
    return text[len(BOM) :] if text.startswith(BOM) else text


def read_bytes(path: Path) -> bytes | None:
    """A file's bytes; None when absent."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def last_updated(text: str) -> str | None:
    """The time of current.md's (or dream-notes.md's) Last Updated line (current.find_last_updated's rule), as
    local `YYYY-MM-DD HH:MM`; None when there is none or its time is not one (the template's placeholder)."""
    when = clock.parse(written_last_updated(text) or "")
    return None if when is None else when.strftime(TIME_FORMAT)


def parse_time(text: str | None) -> datetime | None:
    """A `YYYY-MM-DD HH:MM` time as a naive local datetime; None when it is not one (fromisoformat, in C:
    strptime would load the locale machinery, 2 ms of a read's start)."""
    if not text or len(text) != len("YYYY-MM-DD HH:MM") or text[10] != " ":
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def mtime(path: Path) -> datetime | None:
    """A file's modification time as a naive local datetime; None when absent."""
    try:
        return datetime.fromtimestamp(os.stat(path).st_mtime)
    except OSError:
        return None


def file_time(path: Path) -> datetime | None:
    """A current.md's time: its Last Updated, else its modification time; None when absent."""
    text = read_text(path)
    if text is None:
        return None
    return parse_time(last_updated(text)) or mtime(path)


def minutes(since: datetime | None, now: datetime) -> int | None:
    """Whole minutes from since to now (None when since is None)."""
    if since is None:
        return None
    return int((now - since).total_seconds() // 60)


def document(path: Path) -> Document | None:
    """history.md / research.md split into preamble and entries; None when absent."""
    data = read_bytes(path)
    return None if data is None else entries_mod.parse_bytes(data)


def _candidates(text: str) -> list[int]:
    """The starts of the lines entries.boundaries can act on: `### ` lines and fence lines (at most 3 spaces,
    then ``` or ~~~), found with str.find (a megabyte in about 2 ms; a regular expression takes 5 to 10)."""
    found = {0} if text.startswith((HEADING, BOM + HEADING)) else set()
    at = text.find("\n" + HEADING)
    while at >= 0:
        found.add(at + 1)
        at = text.find("\n" + HEADING, at + 1)
    for fence in ("```", "~~~"):
        at = text.find(fence)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            lead = text[start:at]
            if start == 0 and lead.startswith(BOM):
                lead = lead[len(BOM) :]
            if len(lead) <= 3 and not lead.strip(" "):
                found.add(start)
            at = text.find(fence, at + len(fence))
    return sorted(found)


def entry_starts(text: str) -> list[int]:
    """Where each entry of a decoded history.md / research.md starts, as entries.parse splits it: its boundary
    rule (entries.boundaries) run on the only lines that can matter, instead of on a megabyte split into lines."""
    offsets = _candidates(text)
    lines = []
    for start in offsets:
        end = text.find("\n", start)
        lines.append(text[start : len(text) if end < 0 else end + 1])
    bom = len(BOM) if text.startswith(BOM) else 0
    return [offsets[i] + (bom if offsets[i] == 0 else 0) for i in entries_mod.boundaries(lines)]


def newest(data: bytes, keep: str) -> tuple[str, int]:
    """restore's text of a history.md / research.md for `--history all|none|N`: the preamble and the newest N
    entries, byte ranges untouched (a BOM removed, undecodable bytes replaced), and how many entries it holds."""
    try:
        text, clean = data.decode("utf-8"), True
    except UnicodeDecodeError:
        text, clean = data.decode("utf-8", "surrogateescape"), False
    starts = entry_starts(text)
    count = len(starts) if keep == "all" else 0 if keep == "none" else min(int(keep), len(starts))
    preamble_end = starts[0] if starts else len(text)
    if count == len(starts):
        chosen = text  # (all of it: no copy of a megabyte)
    else:
        chosen = text[:preamble_end] + (text[starts[len(starts) - count] :] if count else "")
    if chosen.startswith(BOM):
        chosen = chosen[len(BOM) :]
    if clean:
        return chosen, count
    return chosen.encode("utf-8", "surrogateescape").decode("utf-8", "replace"), count  # bad bytes shown replaced


# -- search -------------------------------------------------------------------------------------------------------


class Hit(NamedTuple):
    """One matching line: the file relative to the space folder, its layer, line number (the skill's count),
    the line stripped, and the entry heading or `## ` section it is in."""

    file: str
    path: Path
    layer: str
    line: int
    text: str
    heading: str | None


def skill_lines(text: str) -> list[str]:
    """A file's lines as the skill's search reads them: text mode (universal newlines), then str.splitlines."""
    return text.replace("\r\n", "\n").replace("\r", "\n").splitlines()


def _entry_headings(lines: list[str], wanted: list[int]) -> list[str | None]:
    """For each line index in wanted (ascending), the heading line of the entry it is in (None in the preamble):
    entries.boundaries run on the only lines it can act on (`### ` and fence-like lines)."""
    upto = lines[: wanted[-1] + 1] if wanted else []  # (a line's entry depends on the lines before it only)
    picked = [i for i, line in enumerate(upto) if line.startswith(_MAYBE) and (i == 0 or not line.startswith(BOM))]
    starts = [picked[k] for k in entries_mod.boundaries([lines[i] for i in picked])]
    out: list[str | None] = []
    for index in wanted:
        at = bisect_right(starts, index) - 1
        out.append(None if at < 0 else lines[starts[at]].removeprefix(BOM).strip())
    return out


def _section_headings(lines: list[str], wanted: list[int]) -> list[str | None]:
    """For each line index in wanted, the `## ` section (outside code fences) of current.md / dream-notes.md."""
    by_line: list[str | None] = []
    heading: str | None = None
    fence = ""
    for index, line in enumerate(lines[: wanted[-1] + 1] if wanted else []):
        body = line[len(BOM) :] if index == 0 and line.startswith(BOM) else line
        opened = _FENCE.match(body)
        stripped = body.strip()
        if fence:
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        elif body.startswith("## "):
            heading = body.strip()
        by_line.append(heading)
    return [by_line[i] for i in wanted]


def search_file(path: Path, rel: str, layer: str, query: str, limit: int) -> list[Hit]:
    """The first `limit` lines of the file at path containing query (ignoring case as str.lower does), counted
    as the skill's search counts them (skill_lines)."""
    data = read_bytes(path)
    if data is None:
        return []
    wanted = query.lower()
    text = data.decode("utf-8", "replace")
    if wanted not in text.lower():  # lower is per character: a quick no for the file
        return []
    lines = skill_lines(text)
    found: list[int] = []
    for index, line in enumerate(lines):
        if wanted in line.lower():
            found.append(index)
            if len(found) >= limit:
                break
    if not found:
        return []
    headings = _section_headings(lines, found) if rel in (CURRENT, DREAM) else _entry_headings(lines, found)
    hits = []
    for index, heading in zip(found, headings, strict=True):
        text = lines[index].strip()
        if index == 0 and text.startswith(BOM):
            text = text[len(BOM) :].strip()
        hits.append(Hit(rel, path, layer, index + 1, text, heading))
    return hits


def search_files(folder: Path, research: bool, archive: bool) -> Iterator[tuple[str, Path, str]]:
    """The files search reads in a space folder, in order: (relative name, path, layer)."""
    for name in HOT:
        yield name, folder / name, LAYER_HOT
    if research:
        yield RESEARCH, folder / RESEARCH, LAYER_RESEARCH
    if archive:
        for name in ARCHIVE_FILES:
            yield name, folder / name, LAYER_ARCHIVE
        imports = folder / LEGACY_IMPORTS
        if imports.is_dir():
            for dirpath, dirnames, filenames in os.walk(imports):
                dirnames.sort()
                for name in sorted(filenames):
                    path = Path(dirpath) / name
                    yield path.relative_to(folder).as_posix(), path, LAYER_ARCHIVE


def search(folder: Path, query: str, limit: int, research: bool, archive: bool) -> list[Hit]:
    """Every hit in a space folder, files in search order, at most limit per file."""
    hits: list[Hit] = []
    for rel, path, layer in search_files(folder, research, archive):
        hits.extend(search_file(path, rel, layer, query, limit))
    return hits


def stray_temps(folder: Path) -> list[Path]:
    """Temp files a write left behind in a space folder or its archive (memboard's `.<name>.*.memboard-tmp`)."""
    found: list[Path] = []
    for sub in (folder, folder / "archive"):
        try:
            names = sorted(os.listdir(sub))
        except OSError:
            continue
        found.extend(sub / n for n in names if n.startswith(".") and n.endswith(".memboard-tmp"))
    return found
