"""Search without the cache: read the files and match their documents in Python.

Used when this SQLite lacks FTS5 with the trigram tokenizer, when the cache cannot be
written, and while another process writes it. It reads the same documents as the cache
(docs.py) and ranks them the same way, so it gives the same results, only slower.
Memory stays bounded: it keeps the matching sessions, not the corpus.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..formats.layout import NOTES
from .docs import NOTE, SESSION, Facts, Record, doc_order, facts, fold, listing, resolve
from .parse import iter_lines, read_index, records, row_record, table_of

if TYPE_CHECKING:
    from .engine import Candidate, Matcher, Ranked, SearchFilters


class _Tally:
    """The matching documents seen so far, per session: best weight, count and best document."""

    def __init__(self, matcher: Matcher, section: str | None):
        """Count matches of matcher (in one section only when section is set, compared folded)."""
        self.matcher = matcher
        self.section = section
        self.fold = fold
        self.found: dict[tuple[str, str], list[Any]] = {}

    def consider(self, rec: Record) -> None:
        """Count a record's matching documents."""
        for doc in rec.docs:
            if self.section is not None and self.fold(doc.section) != self.section:
                continue
            if not self.matcher.found(doc.text):
                continue
            order = doc_order(doc, rec.path)
            entry = self.found.get((rec.kind, rec.key))
            if entry is None:
                self.found[(rec.kind, rec.key)] = [doc.weight, 1, order, doc, rec.path]
                continue
            entry[0] = max(entry[0], doc.weight)
            entry[1] += 1
            if order < entry[2]:
                entry[2:] = [order, doc, rec.path]


def _maybe_matches(line: bytes, matcher: Matcher) -> bool:
    """A cheap test that never misses a row whose cells match: the line itself, pipes unescaped."""
    text = line.decode("utf-8", "replace")
    return "\\\\" in text or matcher.found(text) or matcher.found(text.replace("\\|", "|"))


def _row_key(line: bytes, columns: tuple[str, ...]) -> str | None:
    """The Session ID cell of a line when it can be read without parsing the row (ID first, no escapes)."""
    if not columns or columns[0] != "Session ID" or not line.lstrip().startswith(b"|"):
        return None
    parts = line.split(b"|", 2)
    if len(parts) < 3 or b"\\" in parts[1]:
        return None
    return parts[1].decode("utf-8", "replace").strip()


def scan(
    base: str, matcher: Matcher, filters: SearchFilters, unreadable: dict[str, str], files: bool = True
) -> tuple[list[Ranked], dict[tuple[str, str], list[Candidate]]]:
    """The ranked sessions matching in the files under base, and the best document of each; each file that cannot
    be read goes to unreadable (path -> why; an unreadable index.md is Unreadable: search refuses). files=False
    reads index.md alone: the live rows' answer, no snapshot, note or archived session."""
    tally = _Tally(matcher, fold(filters.section) if filters.section is not None else None)
    known: dict[tuple[str, str], list[Facts]] = {}
    data = read_index(base)
    for _path, rec in records(base, sorted(listing(base, unreadable)), unreadable) if files else ():
        if rec:
            tally.consider(rec)
            known.setdefault((rec.kind, rec.key), []).append(facts(rec))
    columns, start, end = table_of(data)
    for line in iter_lines(data, start, end):
        if _maybe_matches(line, matcher):
            rec = row_record(line, columns)
            if rec:
                tally.consider(rec)
    if tally.found:  # every row of a matching session tells its status, even rows that did not match
        keys = {key for _, key in tally.found}
        for line in iter_lines(data, start, end):
            quick = _row_key(line, columns)
            if quick is not None and quick not in keys:
                continue
            rec = row_record(line, columns)
            if rec and (rec.kind, rec.key) in tally.found:
                known.setdefault((rec.kind, rec.key), []).append(facts(rec))
    return _ranked(tally, known, filters)


def scan_until(
    base: str, matcher: Matcher, filters: SearchFilters, unreadable: dict[str, str], deadline: float
) -> tuple[list[Ranked], dict[tuple[str, str], list[Candidate]], str]:
    """scan(), reading while time.monotonic() < deadline: index.md's rows first, then the files, then every row of
    the matching sessions again (their status); and "" when it read all of it (its answer is then scan()'s), else
    what it read, in words. A session whose rows were not all read in time is ranked by those that matched."""
    tally = _Tally(matcher, fold(filters.section) if filters.section is not None else None)
    known: dict[tuple[str, str], list[Facts]] = {}
    matched: dict[tuple[str, str], list[Facts]] = {}  # the facts of the rows that matched, by session
    data = read_index(base)
    columns, start, end = table_of(data)
    rows_too = filters.kind != NOTE  # (index.md's rows are sessions: a search of notes reads none of them)
    read, done = 0, end  # rows read, and where the blocks of index.md read whole begin
    for at, lines in _candidates(data, start, end, matcher) if rows_too else ():
        for line in lines:  # newest first: rows are appended, and a newer session ranks first among equals
            if not read & 255 and time.monotonic() >= deadline:
                break
            read += 1
            rec = row_record(line, columns)
            if rec:
                tally.consider(rec)
                matched.setdefault((rec.kind, rec.key), []).append(facts(rec))
        else:
            done = at
            if time.monotonic() < deadline:
                continue
        break
    rows_whole = not rows_too or done == start
    paths = [p for p in sorted(listing(base, unreadable), reverse=True) if filters.kind in (None, _kind_of(p))]
    paths = paths if rows_whole else []
    opened = 0
    for path in paths:
        opened += 1
        for _path, rec in records(base, [path], unreadable):
            if rec:
                tally.consider(rec)
                known.setdefault((rec.kind, rec.key), []).append(facts(rec))
        if time.monotonic() >= deadline:
            break
    whole = rows_whole and opened == len(paths)
    whole = whole and (not rows_too or _statuses(data, columns, (start, end), tally, known, deadline))
    if not whole:
        for key, seen in matched.items():
            known.setdefault(key, []).extend(seen)
    ranked, best = _ranked(tally, known, filters)
    if whole:
        return ranked, best, ""
    files = f"{opened:,} of {len(paths):,} files" if rows_whole else "no file"
    share = 100 if rows_whole else (end - done) * 100 // max(end - start, 1)
    return ranked, best, f"index.md's newest {read:,} rows that may match (its last {share}%) and {files}"


def _candidates(data: bytes, start: int, end: int, matcher: Matcher) -> Iterator[tuple[int, list[bytes]]]:
    """The row lines of data[start:end] that _maybe_matches keeps, a block at a time from the end: (where the block
    begins, its lines kept, last first). Found by one search of the block's text rather than line by line when
    the query holds no pipe or backslash."""
    query = matcher.query
    line_by_line = matcher.syntax or "|" in query or "\\" in query  # (a match across an escaped pipe)
    stop = end
    while stop > start:
        cut = max(start, stop - BLOCK)
        cut = cut if cut == start else data.rfind(b"\n", start, cut) + 1 or start
        if line_by_line:
            yield cut, [line for line in iter_lines(data, cut, stop) if _maybe_matches(line, matcher)][::-1]
        else:
            yield cut, _kept(data[cut:stop].decode("utf-8", "replace"), matcher)
        stop = cut


def _kept(text: str, matcher: Matcher) -> list[bytes]:
    """The lines of text where matcher finds the query or an escaped backslash is, last first."""
    lines: dict[int, int] = {}  # the start of each line kept -> its end
    for find in (matcher.regex.search if matcher.regex else None, _double_backslash):
        pos = 0
        while find is not None and (hit := find(text, pos)) is not None:
            first = text.rfind("\n", 0, hit.start()) + 1
            stop = text.find("\n", hit.start())
            lines[first] = stop = len(text) if stop < 0 else stop
            pos = stop + 1
    return [text[first:stop].encode("utf-8") for first, stop in sorted(lines.items(), reverse=True)]


BLOCK = 1 << 20  # bytes of index.md searched at a time by scan_until (its deadline is looked at between blocks)
_double_backslash = re.compile(r"\\\\").search  # a line with an escaped backslash is read whole (_maybe_matches)


def _kind_of(path: str) -> str:
    """Whose documents a listed file holds: a note's (under notes/) or a session's."""
    return NOTE if path.startswith(NOTES + "/") else SESSION


def _statuses(
    data: bytes,
    columns: tuple[str, ...],
    span: tuple[int, int],
    tally: _Tally,
    known: dict[tuple[str, str], list[Facts]],
    deadline: float,
) -> bool:
    """Add to known every row of the sessions tally found, as scan() does (their status); False, adding none,
    when the deadline comes first."""
    if not tally.found:
        return True
    keys = {key for _, key in tally.found}
    found: dict[tuple[str, str], list[Facts]] = {}
    for n, line in enumerate(iter_lines(data, *span)):
        if not n & 1023 and time.monotonic() >= deadline:
            return False
        quick = _row_key(line, columns)
        if quick is not None and quick not in keys:
            continue
        rec = row_record(line, columns)
        if rec and (rec.kind, rec.key) in tally.found:
            found.setdefault((rec.kind, rec.key), []).append(facts(rec))
    for key, seen in found.items():
        known.setdefault(key, []).extend(seen)
    return True


def _ranked(
    tally: _Tally, known: dict[tuple[str, str], list[Facts]], filters: SearchFilters
) -> tuple[list[Ranked], dict[tuple[str, str], list[Candidate]]]:
    """The sessions tally found that pass the filters, best first, and the best document of each."""
    ranked = []
    for (kind, key), (best, n, _order, _doc, _path) in tally.found.items():
        info = resolve(kind, key, known.get((kind, key), []))
        if info is not None and filters.passes(info):
            ranked.append((kind, key, best, n, info))
    ranked.sort(key=lambda r: (r[1], r[0]))
    ranked.sort(key=lambda r: r[4].updated_sort, reverse=True)
    ranked.sort(key=lambda r: (r[2], r[3]), reverse=True)
    ranked = ranked[: filters.limit]
    best_docs = {(r[0], r[1]): [(0, tally.found[(r[0], r[1])][3], tally.found[(r[0], r[1])][4])] for r in ranked}
    return ranked, best_docs
