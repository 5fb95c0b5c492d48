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
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from ..formats.text import BOM
from . import entries as entries_mod
from .entries import Document, Entry

CURRENT = "current.md"
HISTORY = "history.md"
RESEARCH = "research.md"
DREAM = "dream-notes.md"
HOT = (CURRENT, HISTORY, DREAM)
ARCHIVE_FILES = ("archive/history-archive.md", "archive/research-archive.md")
LEGACY_IMPORTS = "archive/legacy-imports"
LAYER_HOT, LAYER_RESEARCH, LAYER_ARCHIVE = "hot", "research", "archive"
TOPIC_FIELD = "研究主题"
VALID_FIELD = "是否有效"
MERGED_FIELD = "是否并入主线"
TIME_FORMAT = "%Y-%m-%d %H:%M"
_LAST_UPDATED = re.compile(
    r"^(?:- |> |# )?(?:Last Updated|Last updated|最后更新)\s*[:：]\s*(\d{4}-\d{2}-\d{2} \d{2}:\d{2})"
)
_GENERATED_AT = re.compile(r"^- Generated At\s*[:：]\s*(\S+)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_RELEVANT = re.compile(r"^\ufeff?(?:### | {0,3}(?:```|~~~))", re.MULTILINE)  # the lines entries.boundaries reads


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
    """The time of the `Last Updated` line in the first 10 lines (`Last updated`, `最后更新`; `:` or `：`;
    after `- `, `> ` or `# `), as `YYYY-MM-DD HH:MM`; None when there is none."""
    for line in text.lstrip(BOM).splitlines()[:10]:
        found = _LAST_UPDATED.match(line.strip())
        if found:
            return found.group(1)
    return None


def parse_time(text: str | None) -> datetime | None:
    """A `YYYY-MM-DD HH:MM` time as a naive local datetime; None when it is not one."""
    if not text:
        return None
    try:
        return datetime.strptime(text, TIME_FORMAT)
    except ValueError:
        return None


def dream_time(text: str) -> datetime | None:
    """dream-notes.md's time: its Last Updated, else its `- Generated At: <ISO 8601>` in local time."""
    stamp = parse_time(last_updated(text))
    if stamp is not None:
        return stamp
    for line in text.lstrip(BOM).splitlines()[:20]:
        found = _GENERATED_AT.match(line.strip())
        if found:
            try:
                when = datetime.fromisoformat(found.group(1).replace("Z", "+00:00"))
            except ValueError:
                return None
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            return when.astimezone().replace(tzinfo=None, second=0, microsecond=0)
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


def entry_starts(text: str) -> list[int]:
    """Where each entry of a decoded history.md / research.md starts, as entries.parse splits it (its boundary
    rule, entries.boundaries, run on the only lines that can matter: `### ` lines and fence lines, found by one
    regular expression instead of splitting a megabyte into lines)."""
    offsets: list[int] = []
    lines: list[str] = []
    for found in _RELEVANT.finditer(text):
        start = found.start()
        if start and text.startswith(BOM, start):
            continue  # only the file's first line may start with a BOM; elsewhere the line is plain text
        end = text.find("\n", start)
        offsets.append(start)
        lines.append(text[start : len(text) if end < 0 else end + 1])
    bom = len(BOM) if text.startswith(BOM) else 0
    return [offsets[i] + (bom if offsets[i] == 0 else 0) for i in entries_mod.boundaries(lines)]


def newest(data: bytes, keep: str) -> tuple[str, int]:
    """restore's text of a history.md / research.md for `--history all|none|N`: the preamble and the newest N
    entries, byte ranges untouched (a BOM removed, undecodable bytes replaced), and how many entries it holds."""
    text = data.decode("utf-8", "surrogateescape")
    starts = entry_starts(text)
    count = len(starts) if keep == "all" else 0 if keep == "none" else min(int(keep), len(starts))
    preamble_end = starts[0] if starts else len(text)
    chosen = text[:preamble_end] + (text[starts[len(starts) - count] :] if count else "")
    if chosen.startswith(BOM):
        chosen = chosen[len(BOM) :]
    try:
        return chosen.encode("utf-8").decode("utf-8"), count
    except UnicodeEncodeError:  # undecodable bytes (lone surrogates here): shown replaced
        return chosen.encode("utf-8", "surrogateescape").decode("utf-8", "replace"), count


# -- research topics ----------------------------------------------------------------------------------------------


class Topic(NamedTuple):
    """A research topic: the entries sharing work context and 研究主题, in file order."""

    context: str
    topic: str
    entries: tuple[Entry, ...]

    @property
    def closed(self) -> bool:
        """Whether its latest entry says 是否并入主线：yes or 是否有效：no (archive moves it whole)."""
        last = self.entries[-1]
        return (last.field(MERGED_FIELD) or "").lower() == "yes" or (last.field(VALID_FIELD) or "").lower() == "no"


def topics(doc: Document) -> list[Topic]:
    """research.md's topics in order of first appearance."""
    groups: dict[tuple[str, str], list[Entry]] = {}
    for entry in doc.entries:
        groups.setdefault((entry.context, entry.field(TOPIC_FIELD) or ""), []).append(entry)
    return [Topic(c, t, tuple(es)) for (c, t), es in groups.items()]


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


def skill_lines(data: bytes) -> list[str]:
    """A file's lines as the skill's search reads them: text mode (universal newlines), then str.splitlines."""
    text = data.decode("utf-8", "replace")
    return text.replace("\r\n", "\n").replace("\r", "\n").splitlines()


def _headings(lines: list[str], entry_file: bool) -> list[str | None]:
    """For each line, the heading it is under: the entry heading (`### `, outside fences) of history-like
    files, the `## ` section (outside fences) of current.md and dream-notes.md."""
    out: list[str | None] = []
    heading: str | None = None
    fence = ""
    starts = set(entries_mod.boundaries(lines)) if entry_file else set()
    for index, line in enumerate(lines):
        body = line[len(BOM) :] if index == 0 and line.startswith(BOM) else line
        if entry_file:
            if index in starts:
                heading = body.strip()
        else:
            opened = _FENCE.match(body)
            stripped = body.strip()
            if fence:
                if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                    fence = ""
            elif opened:
                fence = opened.group(1)
            elif body.startswith("## "):
                heading = body.strip()
        out.append(heading)
    return out


def search_file(path: Path, rel: str, layer: str, query: str, limit: int) -> list[Hit]:
    """The first `limit` lines of the file at path containing query (ignoring case as str.lower does)."""
    data = read_bytes(path)
    if data is None:
        return []
    lines = skill_lines(data)
    wanted = query.lower()
    found = [i for i, line in enumerate(lines) if wanted in line.lower()][:limit]
    if not found:
        return []
    entry_file = rel not in (CURRENT, DREAM)
    headings = _headings(lines, entry_file)
    hits = []
    for index in found:
        text = lines[index].strip()
        if index == 0 and text.startswith(BOM):
            text = text[len(BOM) :].strip()
        hits.append(Hit(rel, path, layer, index + 1, text, headings[index]))
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
