"""Search without the cache: read the files and match their documents in Python.

Used when this SQLite lacks FTS5 with the trigram tokenizer, when the cache cannot be
written, and while another process writes it. It reads the same documents as the cache
(docs.py) and ranks them the same way, so it gives the same results, only slower.
Memory stays bounded: it keeps the matching sessions, not the corpus.
"""

from __future__ import annotations

import time
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
    rows = data.count(b"\n", start, end) + (end > start and data[end - 1] != 0x0A) if rows_too else 0
    read = 0
    for line in iter_lines(data, start, end) if rows_too else ():
        if not read & 1023 and time.monotonic() >= deadline:
            break
        read += 1
        if _maybe_matches(line, matcher):
            rec = row_record(line, columns)
            if rec:
                tally.consider(rec)
                matched.setdefault((rec.kind, rec.key), []).append(facts(rec))
    paths = [p for p in sorted(listing(base, unreadable)) if (filters.kind is None or _kind_of(p) == filters.kind)]
    paths = paths if rows == read else []
    opened = 0
    for path in paths:
        opened += 1
        for _path, rec in records(base, [path], unreadable):
            if rec:
                tally.consider(rec)
                known.setdefault((rec.kind, rec.key), []).append(facts(rec))
        if time.monotonic() >= deadline:
            break
    whole = rows == read and opened == len(paths)
    whole = whole and (not rows_too or _statuses(data, columns, (start, end), tally, known, deadline))
    if not whole:
        for key, seen in matched.items():
            known.setdefault(key, []).extend(seen)
    ranked, best = _ranked(tally, known, filters)
    if whole:
        return ranked, best, ""
    files = f"{opened:,} of {len(paths):,} files" if rows == read else "no file"
    return ranked, best, f"index.md's first {read:,} of {rows:,} rows and {files}"


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
