"""Full-text search over a memory root: index rows, live snapshots, archived sessions and typed notes.

`search(root, query, filters)` returns typed `SearchHit`s, best first, one per session or note
(its `kind`: `session` or `note`). It is
safe to call from a worker thread (each call opens its own connection) and prints nothing:
progress goes to an optional callback. Matching is literal and case-insensitive: the query
is a piece of text, and `AND`, quotes, `*` or `-` in it are searched for. With
`SearchFilters(syntax=True)` the query is an SQLite FTS5 expression instead.

Answers come from the search cache (cache.py) when this SQLite has FTS5 with the
trigram tokenizer; otherwise, or while another process writes the cache, from scanning the
files (scan.py). Both read the same documents (docs.py) and rank the same way:
the best place a session matches (its weight), then how many of its cells and sections
match, then Updated At, newest first.

The result types are typed NamedTuples (immutable, with named fields, like frozen
dataclasses): importing `dataclasses` alone would add about 5 ms, a fifth of Python's own
start, to every `memboard search`, which must stay within twice that start.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from ..errors import Refused, UsageError
from ..files.root import MemoryRoot
from ..formats.layout import ARCHIVE, NOTES
from ..formats.topic import SCOPES, TYPES
from . import cache as search_cache
from .docs import ARCHIVED, KINDS, LIVE, NOTE, SESSION, Doc, SessionInfo, doc_order, fold, sort_time

if TYPE_CHECKING:
    from .cache import SearchCache

MAX_QUERY = 1000
FIRST_ANSWER = 0.5  # seconds a first search with its cache built beside it reads the files before it answers
DEFAULT_LIMIT = 20
MAX_LIMIT = 10_000
SNIPPET_BEFORE = 40
SNIPPET_WIDTH = 160
MARK_OPEN, MARK_CLOSE = "«", "»"
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
SPACES_RE = re.compile(r"\s+")
OPERATORS = {"AND", "OR", "NOT", "NEAR"}
SYNTAX_TERM_RE = re.compile(r'"((?:[^"]|"")*)"|([^\s()"*^+:{},]+)(:?)')
STATUSES = ("idle", "active", "stale", "superseded")  # sessions' three, and a note's superseded

Ranked = tuple[str, str, int, int, SessionInfo]  # kind, key, best weight, matching documents, session
Candidate = tuple[int, Doc, str]  # document id (0 when scanning), document, file path


class SearchFilters(NamedTuple):
    """What narrows a search; times are `YYYY-MM-DD HH:MM` text (or datetimes) compared with Updated At."""

    status: str | None = None
    agent: str | None = None
    since: str | datetime | None = None
    until: str | datetime | None = None
    state: str | None = None  # "live" or "archived"
    section: str | None = None  # a row cell or snapshot section name, compared without ASCII case
    limit: int = DEFAULT_LIMIT
    syntax: bool = False  # the query is an FTS5 expression, not literal text
    kind: str | None = None  # "session" or "note"
    note_type: str | None = None  # a note's Type, Scope and Project (sessions have none: a filter leaves them out)
    scope: str | None = None
    project: str | None = None

    def normalized(self) -> SearchFilters:
        """A copy with times as sortable text; a one-line UsageError for a value that cannot be."""
        if self.status is not None and self.status not in STATUSES:
            raise UsageError(f"unknown status {self.status!r}: use idle, active or stale (notes: active or superseded)")
        if self.kind is not None and self.kind not in KINDS:
            raise UsageError(f"unknown kind {self.kind!r}: use session or note")
        if self.note_type is not None and self.note_type not in TYPES:
            raise UsageError(f"unknown note type {self.note_type!r}: use one of {', '.join(TYPES)}")
        if self.scope is not None and self.scope not in SCOPES:
            raise UsageError(f"unknown scope {self.scope!r}: use one of {', '.join(SCOPES)}")
        if self.state not in (None, LIVE, ARCHIVED):
            raise UsageError(f"unknown state {self.state!r}: use live or archived")
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or not 1 <= self.limit <= MAX_LIMIT:
            raise UsageError(f"--limit must be a whole number from 1 to {MAX_LIMIT}")
        if self.section is not None and not self.section.strip():
            raise UsageError("--section needs a cell or section name, such as Topic or Decisions")
        for value, option in ((self.agent, "--agent"), (self.section, "--section"), (self.project, "--project")):
            if value is not None:
                _utf8(value, option)
        return self._replace(
            since=_time_text(self.since, "--since", False), until=_time_text(self.until, "--until", True)
        )

    def passes(self, info: SessionInfo) -> bool:
        """Whether a session passes the status, agent, state and time filters (the cache's SQL says the same)."""
        since, until = _minute(self.since), _minute(self.until)
        if self.status is not None and info.status != self.status:
            return False
        if self.agent is not None and info.agent != self.agent:
            return False
        for want, have in (
            (self.kind, info.kind),
            (self.note_type, info.note_type),
            (self.scope, info.scope),
            (self.project, info.project),
        ):
            if want is not None and want != have:
                return False
        if self.state is not None and info.state != self.state:
            return False
        if since is not None and (not info.updated_sort or info.updated_sort < since):
            return False
        return until is None or (bool(info.updated_sort) and info.updated_sort <= until)

    def sql(self) -> tuple[str, list[str]]:
        """The same filters as an SQL condition on the sessions table `s`."""
        parts, args = [], []
        for column, value in (
            ("status", self.status),
            ("agent", self.agent),
            ("state", self.state),
            ("kind", self.kind),
            ("ntype", self.note_type),
            ("scope", self.scope),
            ("project", self.project),
        ):
            if value is not None:
                parts.append(f" AND s.{column} = ?")
                args.append(value)
        for op, value in ((">=", _minute(self.since)), ("<=", _minute(self.until))):
            if value is not None:
                parts.append(f" AND s.updated_sort != '' AND s.updated_sort {op} ?")
                args.append(value)
        return "".join(parts), args


def _minute(value: str | datetime | None) -> str | None:
    """A normalized time bound as `YYYY-MM-DD HH:MM` text."""
    return value.strftime("%Y-%m-%d %H:%M") if isinstance(value, datetime) else value


def _time_text(value: str | datetime | None, option: str, end_of_day: bool) -> str | None:
    """A --since/--until value as `YYYY-MM-DD HH:MM`; a date alone means its start (or its end)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return _minute(value)
    text = value.strip()
    if DATE_RE.fullmatch(text):
        text += " 23:59" if end_of_day else " 00:00"
    normal = sort_time(text)
    if not normal:
        raise UsageError(f"{option} {value!r} is not a time: use YYYY-MM-DD, YYYY-MM-DD HH:MM or ISO 8601")
    return normal


def mark_spans(text: str, spans: Iterable[tuple[int, int]], start: str = MARK_OPEN, end: str = MARK_CLOSE) -> str:
    """text with each span [a, b) wrapped in start/end (spans in order, not overlapping)."""
    out, last = [], 0
    for a, b in spans:
        out += [text[last:a], start, text[a:b], end]
        last = b
    out.append(text[last:])
    return "".join(out)


class SearchHit(NamedTuple):
    """One session or note that matches: where its best match is and a one-line snippet around it."""

    kind: str  # "session" or "note"
    id: str  # the document's key: a Session ID for sessions, a note ID for notes
    state: str  # "live" or "archived" (notes are live)
    status: str
    agent: str  # a note's: ""
    topic: str  # a note's: its Title
    updated_at: str
    where: str  # "row" (an index row, or an archived row's metadata), "snapshot" or "note"
    section: (
        str  # the cell (Topic, Summary, ...), snapshot section (Decisions, ...) or note field or section (What, ...)
    )
    path: str  # the file the match is in, relative to the root
    snippet: str
    spans: tuple[tuple[int, int], ...] = ()  # [start, end) of each match in snippet
    score: int = 0  # higher is better: best weight x 1000 + matching cells and sections
    matches: int = 0  # how many cells and sections of the session match
    note_type: str = ""  # a note's Type, Scope and Project ("" for sessions)
    scope: str = ""
    project: str = ""

    @property
    def session_id(self) -> str | None:
        """The Session ID of a session hit (None for other kinds)."""
        return self.id if self.kind == SESSION else None

    def marked(self, start: str = MARK_OPEN, end: str = MARK_CLOSE) -> str:
        """The snippet with every match wrapped in start/end."""
        return mark_spans(self.snippet, self.spans, start, end)


class SearchOutcome(NamedTuple):
    """Hits plus how they were found: from the cache, or by scanning the files (and why)."""

    hits: list[SearchHit]
    backend: str  # "cache" or "scan"
    reason: str = ""  # why the files were scanned
    built: bool = False  # the cache was built from scratch for this search
    refreshed: int = 0  # how many changed files the cache re-read first
    unreadable: dict[str, str] = {}  # files that could not be read (path -> why): they may hold matches
    partial: str = ""  # the files read in time when the answer is of only a part of them (a first search, beside)

    def unread_line(self) -> str | None:
        """`1 file could not be read: notes/a.md (permission denied)`, None when every file was read."""
        if not self.unreadable:
            return None
        count = len(self.unreadable)
        files = ", ".join(f"{path} ({why})" for path, why in sorted(self.unreadable.items()))
        return f"{count} file{'' if count == 1 else 's'} could not be read: {files}"


def check_query(query: str) -> str:
    """The query without surrounding white space; a one-line UsageError when empty, too long or with NUL."""
    if not isinstance(query, str):
        raise UsageError("the search query must be text")
    text = query.strip()
    if not text:
        raise UsageError("empty search query: give the text to find")
    if len(text) > MAX_QUERY:
        raise UsageError(f"search query too long ({len(text):,} characters; at most {MAX_QUERY:,})")
    if "\x00" in text:
        raise UsageError("the search query contains a NUL character")
    _utf8(text, "the search query")
    return text


def _utf8(text: str, what: str) -> None:
    """A one-line UsageError when text holds bytes that were not UTF-8 (a command line can pass them)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"{what} is not UTF-8 text") from None


def syntax_terms(expression: str) -> list[str]:
    """The words and phrases of an FTS5 expression (to mark them in snippets)."""
    terms = []
    for m in SYNTAX_TERM_RE.finditer(expression):
        if m.group(1) is not None:
            terms.append(m.group(1).replace('""', '"'))
        elif not m.group(3) and m.group(2) not in OPERATORS:
            terms.append(m.group(2))
    return [t for t in terms if t.strip()]


class Matcher:
    """Finds the query in a text: literal and case-insensitive (or the terms of an FTS5 expression)."""

    def __init__(self, query: str, syntax: bool = False):
        """Compile the query."""
        self.query = query
        self.syntax = syntax
        terms = syntax_terms(query) if syntax else [query]
        pattern = "|".join(re.escape(t) for t in sorted(set(terms), key=len, reverse=True))
        self.regex = re.compile(pattern, re.IGNORECASE) if pattern else None

    def found(self, text: str) -> bool:
        """Whether text contains the query."""
        return self.regex is not None and self.regex.search(text) is not None

    def spans(self, text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
        """Non-empty matches in text[start:end]."""
        if self.regex is None:
            return []
        end = len(text) if end is None else end
        return [m.span() for m in self.regex.finditer(text, start, end) if m.end() > m.start()]


def make_snippet(text: str, matcher: Matcher) -> tuple[str, tuple[tuple[int, int], ...]]:
    """One line of about SNIPPET_WIDTH characters around the first match (white space collapsed) and the match spans in it."""
    first = matcher.spans(text)[:1]
    at, until = first[0] if first else (0, 0)
    a = max(0, at - SNIPPET_BEFORE)
    b = min(len(text), max(a + SNIPPET_WIDTH, until))
    pieces: list[tuple[str, bool]] = []
    last = a
    for s, e in matcher.spans(text, a, b):
        pieces += [(text[last:s], False), (text[s:e], True)]
        last = e
    pieces.append((text[last:b], False))
    lead = "…" if a > 0 else ""
    out, spans, length = [lead], [], len(lead)
    for i, (piece, is_match) in enumerate(pieces):
        piece = SPACES_RE.sub(" ", piece)
        if not is_match and i == 0:
            piece = piece.lstrip()
        if not is_match and i == len(pieces) - 1:
            piece = piece.rstrip()
        if is_match:
            spans.append((length, length + len(piece)))
        out.append(piece)
        length += len(piece)
    out.append("…" if b < len(text) else "")
    return "".join(out), tuple(spans)


def build_hits(
    ranked: list[Ranked],
    candidates: dict[tuple[str, str], list[Candidate]],
    matcher: Matcher,
    filters: SearchFilters,
    matching_ids: set[int] | None = None,
) -> list[SearchHit]:
    """Hits for ranked sessions: each points at its best matching document, with a snippet."""
    hits = []
    for kind, key, best, n, info in ranked:
        docs = [
            c
            for c in candidates.get((kind, key), [])
            if filters.section is None or fold(c[1].section) == fold(filters.section)
        ]
        if matching_ids is not None:
            found = [c for c in docs if c[0] in matching_ids]
        else:
            found = [c for c in docs if matcher.found(c[1].text)]
        pool = found or docs
        if not pool:
            continue
        _, doc, path = min(pool, key=lambda c: doc_order(c[1], c[2]))
        snippet, spans = make_snippet(doc.text, matcher)
        hits.append(
            SearchHit(
                kind,
                key,
                info.state,
                info.status,
                info.agent,
                info.topic,
                info.updated_at,
                doc.place,
                doc.section,
                path,
                snippet,
                spans,
                best * 1000 + min(n, 999),
                n,
                info.note_type,
                info.scope,
                info.project,
            )
        )
    return hits


def search(
    root: MemoryRoot | str,
    query: str,
    filters: SearchFilters | None = None,
    progress: Callable[[str], None] | None = None,
    check_files: bool = True,
    beside: bool = False,
) -> list[SearchHit]:
    """Sessions matching query, best first (see the module's docstring); raises UsageError on bad input.

    progress receives short status lines while a cache is built. check_files=False skips the
    look at the files' stats for a caller that searched moments ago and knows nothing changed
    (a board refining a search keystroke by keystroke); the cache is still built when missing.
    """
    return run(root, query, filters, progress, check_files, beside).hits


def answers_beside(root: MemoryRoot | str) -> bool:
    """Whether a search with beside=True on root would answer from the files while its cache is built beside it."""
    root = root if isinstance(root, MemoryRoot) else MemoryRoot(root)
    if not search_cache.fts_available() or _cache_there(root):
        return False
    from . import beside as first  # lazy: only a search that finds no cache may build it beside

    return first.wanted(root)


def run(
    root: MemoryRoot | str,
    query: str,
    filters: SearchFilters | None = None,
    progress: Callable[[str], None] | None = None,
    check_files: bool = True,
    beside: bool = False,
) -> SearchOutcome:
    """Search (as search() does), and say whether the cache answered or the files were scanned.

    beside=True (the command line, the MCP server): on a large root with no cache yet, the cache is built in a
    process of its own and this search answers from the files within FIRST_ANSWER seconds (beside.py)."""
    started = time.monotonic()
    root = root if isinstance(root, MemoryRoot) else MemoryRoot(root)
    query = check_query(query)
    filters = (filters or SearchFilters()).normalized()
    matcher = Matcher(query, filters.syntax)
    reason = "this SQLite lacks FTS5 with the trigram tokenizer"
    if beside and not filters.syntax and answers_beside(root):
        from . import beside as first  # lazy: only a search that finds no cache builds it beside

        return _first_answer(root, matcher, filters, first.start(root), started + FIRST_ANSWER)
    if search_cache.fts_available():
        for _attempt in range(2):
            try:
                with search_cache.SearchCache(
                    root, progress, check_files, filters.kind == NOTE, no_note_passes(filters)
                ) as cache:
                    try:
                        hits = _from_cache(cache, query, matcher, filters)
                        if cache.catch_up():  # files changed since the cache saw them: it caught up, ask again
                            hits = _from_cache(cache, query, matcher, filters)
                        unread = _relevant(cache.unreadable_files(), filters)
                        return SearchOutcome(hits, "cache", "", cache.built, cache.changed, unread)
                    except sqlite3.DatabaseError as exc:
                        if search_cache.is_busy(exc):
                            raise search_cache.CacheBusy(str(exc)) from None
                        _bad_expression(exc, filters)
                        cache.discard()
                        reason = f"the search cache was unreadable ({exc})"
            except search_cache.CacheBusy:
                reason = "another process is writing the search cache"
                break
            except search_cache.CacheUnavailable as exc:
                reason = str(exc)
                break
    if filters.syntax:
        raise Refused(f"--syntax needs the search cache, and {reason}; search without --syntax")
    # lazy: a search the cache answers needs no file parsing (docs/search.md: its figures)
    from .scan import scan

    unreadable: dict[str, str] = {}
    ranked, candidates = scan(str(root.path), matcher, filters, unreadable)
    hits = build_hits(ranked, candidates, matcher, filters)
    return SearchOutcome(hits, "scan", reason, unreadable=_relevant(unreadable, filters))


def no_note_passes(filters: SearchFilters) -> bool:
    """Whether no note can pass these filters (sessions only, archived only, one agent's: a note is live and has no
    agent), so that nothing under notes/ can change the answer and the search need not look at the notes' files."""
    return filters.kind == SESSION or filters.state == ARCHIVED or filters.agent not in (None, "")


def _cache_there(root: MemoryRoot) -> bool:
    """Whether root's cache file exists (True when that cannot be told: the search then goes on as before)."""
    try:
        return search_cache.cache_path(root).exists()
    except OSError:
        return True


def _first_answer(
    root: MemoryRoot, matcher: Matcher, filters: SearchFilters, reason: str, deadline: float
) -> SearchOutcome:
    """The files' answer while the cache is built elsewhere: what scan_until read by the deadline."""
    from .scan import scan_until  # lazy: a search the cache answers needs no file parsing

    unreadable: dict[str, str] = {}
    ranked, candidates, partial = scan_until(str(root.path), matcher, filters, unreadable, deadline)
    hits = build_hits(ranked, candidates, matcher, filters)
    return SearchOutcome(hits, "scan", reason, unreadable=_relevant(unreadable, filters), partial=partial)


def _relevant(unreadable: dict[str, str], filters: SearchFilters) -> dict[str, str]:
    """The files (and folders) that could not be read and might have held a result these filters keep (by kind and
    state)."""
    out = {}
    for path, why in unreadable.items():
        top = path.split("/", 1)[0]
        kind = NOTE if top == NOTES else SESSION
        state = ARCHIVED if top == ARCHIVE else LIVE
        if filters.kind in (None, kind) and filters.state in (None, state):
            out[path] = why
    return out


def _bad_expression(exc: sqlite3.DatabaseError, filters: SearchFilters) -> None:
    """Raise a one-line UsageError when an FTS5 expression (--syntax) is what SQLite refused."""
    text = str(exc)
    if filters.syntax and text.startswith(("fts5:", "no such column", "unknown special query")):
        raise UsageError(f"bad query expression: {text}") from None


def _from_cache(cache: SearchCache, query: str, matcher: Matcher, filters: SearchFilters) -> list[SearchHit]:
    """Rank in SQL, then point each hit at its best document."""
    ranked = cache.rank(query, filters)
    candidates: dict[tuple[str, str], list[Candidate]] = {}
    for kind, key, doc_id, doc, path in cache.docs_of([(r[0], r[1]) for r in ranked]):
        candidates.setdefault((kind, key), []).append((doc_id, doc, path))
    matching = None
    if filters.syntax:
        matching = cache.matching(query, [c[0] for docs in candidates.values() for c in docs])
    return build_hits(ranked, candidates, matcher, filters, matching)
