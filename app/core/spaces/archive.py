"""The cold layer, byte-exact: which entries move to archive/, and the files' new bytes (issue 24 §4 "archive").

The skill's archive re-renders history.md and research.md, drops identical entries and splits fences; here an
entry is a byte range (entries.py) and nothing else changes: the archive file becomes its old bytes (plus a line
end when it lacked one) followed by the moved ranges in their original order, the source its preamble plus the
kept ranges. A research *topic* (work context + 研究主题) moves whole once its latest entry closes it. A crash
between the archive's write and the source's leaves entries in both (`half_archived`, which cold.py tells from
the archive's journal), which the next archive finishes by removing from the source exactly the ranges the
archive's tail holds (remove_ranges); a source another writer changed meanwhile loses only ranges still
byte-identical to the moved ones. Dream snapshots in the global home
older than the keep days move to archive/dreams/YYYY-MM/, never over a file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .entries import Document, Entry, line_end, parse

HISTORY = "history.md"
RESEARCH = "research.md"
HISTORY_ARCHIVE = "archive/history-archive.md"
RESEARCH_ARCHIVE = "archive/research-archive.md"
DREAMS = "dreams"
DREAMS_ARCHIVE = "archive/dreams"
DEFAULT_KEEP = 20
DEFAULT_DREAM_KEEP_DAYS = 30
# verbatim from the skill's archive script (scripts/archive_session_memory.py)
HISTORY_ARCHIVE_HEADER = """# 会话记忆历史归档

这是 dream 之后转冷的旧条目。除非用户明确要求查看归档，否则默认不要读取这里。
"""
RESEARCH_ARCHIVE_HEADER = """# 会话记忆研究归档

这是 dream 之后从 `research.md` 转冷的研究条目，只保留已并入主线或已判定无效的旧研究记录。除非用户明确要求查看归档，否则默认不要读取这里。
"""
HEADERS = {HISTORY: HISTORY_ARCHIVE_HEADER, RESEARCH: RESEARCH_ARCHIVE_HEADER}
ARCHIVES = {HISTORY: HISTORY_ARCHIVE, RESEARCH: RESEARCH_ARCHIVE}
_SNAPSHOT_TIME_RE = re.compile(r"(\d{8}T\d{6})")


@dataclass(frozen=True)
class Topic:
    """A research topic: the entries sharing work context and 研究主题, in file order (indexes into the document)."""

    context: str
    topic: str
    indexes: tuple[int, ...]
    closed: bool


@dataclass(frozen=True)
class Move:
    """One source file's archive: the entries that move and the new bytes of the source and of its archive file."""

    source: str
    archive: str
    moved: tuple[Entry, ...]
    kept: tuple[Entry, ...]
    source_after: str
    archive_after: str


def closes(entry: Entry) -> bool:
    """Whether a research entry closes its topic: 是否并入主线：yes or 是否有效：no (as the skill reads them)."""
    merged = (entry.field("是否并入主线") or "").strip().lower()
    valid = (entry.field("是否有效") or "").strip().lower()
    return merged == "yes" or valid == "no"


def topics(doc: Document) -> list[Topic]:
    """The research topics of a research.md, in the order of their first entry; closed by their latest entry."""
    groups: dict[tuple[str, str], list[int]] = {}
    for index, entry in enumerate(doc.entries):
        groups.setdefault((entry.context, entry.field("研究主题") or ""), []).append(index)
    return [
        Topic(context, topic, tuple(indexes), closes(doc.entries[indexes[-1]]))
        for (context, topic), indexes in groups.items()
    ]


def history_moving(doc: Document, keep: int) -> list[int]:
    """Indexes of the history entries that move: all but the newest `keep` (file order)."""
    return list(range(max(0, len(doc.entries) - keep)))


def research_moving(doc: Document) -> list[int]:
    """Indexes of the research entries that move: every entry of every closed topic."""
    return sorted(i for t in topics(doc) if t.closed for i in t.indexes)


def archive_text(old: str | None, moved: Iterable[str], header: str, newline: str) -> str:
    """The archive file after the move: its old text (a line end added when it lacked one), then the moved ranges;
    a new one starts with the skill's header, in the source's line ends, and a blank line."""
    if old is None:
        start = header.replace("\n", newline) + newline
    elif old and not old.endswith("\n"):
        start = old + line_end(old)
    else:
        start = old
    return start + "".join(moved)


def _doc(text: str | Document) -> Document:
    return text if isinstance(text, Document) else parse(text)


def plan_move(source: str, text: str | Document, indexes: Sequence[int], archive_old: str | None) -> Move | None:
    """The move of the entries at `indexes` of `text` (the file `source`, or its parse) to its archive file; None
    when none move."""
    doc = _doc(text)
    chosen = set(indexes)
    if not chosen:
        return None
    moved = tuple(e for i, e in enumerate(doc.entries) if i in chosen)
    kept = tuple(e for i, e in enumerate(doc.entries) if i not in chosen)
    return Move(
        source=source,
        archive=ARCHIVES[source],
        moved=moved,
        kept=kept,
        source_after=doc.join(kept),
        archive_after=archive_text(archive_old, (e.text for e in moved), HEADERS[source], doc.newline),
    )


def newest_time(entries: Iterable[Entry]) -> tuple[datetime | None, bool]:
    """The newest heading time among entries, and whether some entry has no parseable heading time."""
    newest: datetime | None = None
    untimed = False
    for e in entries:
        when = e.when()
        if when is None:
            untimed = True
        elif newest is None or when > newest:
            newest = when
    return newest, untimed


def _match(fresh: Sequence[Entry], wanted: Sequence[str]) -> list[tuple[int, int]] | None:
    """For each wanted text, the earliest entry of `fresh` not taken yet that holds it, as (entry index, length of
    the match): an entry equal to the text, or else one that is the text followed by blank lines only (another
    writer appended after an entry that ended without a line end). None when some text is not found."""
    exact: dict[str, list[int]] = {}
    for index, entry in enumerate(fresh):
        exact.setdefault(entry.text, []).append(index)
    taken: set[int] = set()
    out: list[tuple[int, int]] = []
    for text in wanted:
        free = [i for i in exact.get(text, ()) if i not in taken]
        if free:
            at = free[0]
        else:
            loose = [
                i
                for i, e in enumerate(fresh)
                if i not in taken and e.text.startswith(text) and not e.text[len(text) :].strip()
            ]
            if not loose:
                return None
            at = loose[0]
        taken.add(at)
        out.append((at, len(text)))
    return out


def remove_ranges(text: str | Document, moved: Sequence[str]) -> str | None:
    """`text` without the moved ranges, each removed where it is still byte-identical (the earliest such entry);
    everything else kept. None when one of them is no longer there (the move cannot finish)."""
    doc = _doc(text)
    found = _match(doc.entries, moved)
    if found is None:
        return None
    cut = dict(found)
    parts = [doc.preamble]
    for index, entry in enumerate(doc.entries):
        parts.append(entry.text[cut[index] :] if index in cut else entry.text)
    return "".join(parts)


# dream snapshots in the global home


def snapshot_time(name: str) -> datetime | None:
    """The UTC time a dream snapshot's name starts with (`YYYYMMDDTHHMMSS`), or None."""
    m = _SNAPSHOT_TIME_RE.match(name)
    if not m:
        return None
    try:
        return datetime.strptime(m.group(1), "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None


def unique_name(folder_names: set[str], name: str) -> str:
    """name, or name with `-1`, `-2` … before its suffix, the first not among folder_names (never over a file)."""
    if name not in folder_names:
        return name
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem:
        stem, suffix, dot = name, "", ""
    index = 1
    while True:
        candidate = f"{stem}-{index}{dot}{suffix}"
        if candidate not in folder_names:
            return candidate
        index += 1


def dream_moves(
    snapshots: Iterable[tuple[str, datetime]],
    taken: dict[str, set[str]],
    now: datetime,
    keep_days: int,
) -> list[tuple[str, str]]:
    """Moves (`dreams/NAME`, `archive/dreams/YYYY-MM/NAME'`) of the snapshots older than keep_days, each given
    with its modification time (used when its name has no time); taken holds each month folder's file names."""
    cutoff = now - timedelta(days=keep_days)
    out: list[tuple[str, str]] = []
    for name, mtime in sorted(snapshots):
        when = snapshot_time(name) or mtime
        if when >= cutoff:
            continue
        month = when.strftime("%Y-%m")
        names = taken.setdefault(month, set())
        dest = unique_name(names, name)
        names.add(dest)
        out.append((f"{DREAMS}/{name}", f"{DREAMS_ARCHIVE}/{month}/{dest}"))
    return out
