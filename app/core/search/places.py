"""Search over the places beside the memory root: session-memory spaces (`--kind space`) and a hierarchy workspace
(`--kind hierarchy`), issue 24 §7 and issue 25 §6. Neither needs a memory root.

Documents: a space's current.md and dream-notes.md one per `## ` section, history.md, research.md and the archive
files one per entry (a `### ` line outside a fence starts one; the preamble is one too); a workspace's MEMORY.md one
per heading's section (layer hot), each facts.yaml leaf as `<key path>: <value>` (section: the key path), each
lookup row, project files by section (warm), daily logs of both forms, the daily archive and migration copies by
section (cold, only with include_archive). Matching is `memboard search`'s (literal, any case: engine.Matcher);
a hit is one file's best document (its first matching one), scored as search scores: the layer's weight x 1000
plus how many of the file's documents match; best first.

The documents live in the search cache's folder in local state (`places.sqlite3`, an SQLite FTS5 trigram index
beside the roots' caches), keyed by each file's absolute path and brought up to date before every search from
the file's size and modification time, as the roots' cache checks session files: a file changed since the last
search is read again (one changed too recently to trust its time is read again next time too), a file gone is
dropped. Where the cache cannot be used (no FTS5 trigram, the state folder unwritable, another writer), the files
are read directly: the same documents, the same hits.
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from ..errors import MemboardError
from ..files import statepaths
from .engine import Matcher, check_query, make_snippet, mark_spans

SPACE, HIERARCHY = "space", "hierarchy"
HOT, WARM, COLD, RESEARCH, ARCHIVE = "hot", "warm", "cold", "research", "archive"
WEIGHT = {HOT: 3, WARM: 2, RESEARCH: 2, COLD: 1, ARCHIVE: 1}
SCHEMA = 1
RACY_NS = 2_000_000_000
CACHE_NAME = "places.sqlite3"
DAILY_RE = re.compile(r"\d{4}-\d{2}-\d{2}(-[^/]+)?\.md")
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING_RE = re.compile(r"^#{1,6} ")
TABLES = """
CREATE TABLE meta(name TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, parser TEXT NOT NULL);
CREATE TABLE docs(id INTEGER PRIMARY KEY, path TEXT NOT NULL, line INTEGER NOT NULL, section TEXT NOT NULL,
    text TEXT NOT NULL);
CREATE INDEX docs_path ON docs(path);
CREATE VIRTUAL TABLE fts USING fts5(text, tokenize='trigram');
"""


class PlaceDoc(NamedTuple):
    """One searchable text of a file: its first line (1-based), its section and its text."""

    line: int
    section: str
    text: str


class PlaceFile(NamedTuple):
    """A file to search: whose it is (kind, id), where (absolute path, the path a hit shows), its layer and parser."""

    kind: str
    id: str
    path: str
    shown: str
    layer: str
    parser: str  # "sections" (## ), "headings" (any level), "entries" (### outside fences), "facts", "lookup"


class PlaceHit(NamedTuple):
    """One file's best match."""

    kind: str
    id: str
    state: str
    where: str
    section: str
    path: str
    line: int
    layer: str
    snippet: str
    spans: tuple[tuple[int, int], ...]
    score: int
    matches: int

    def marked(self, start: str = "«", end: str = "»") -> str:
        """The snippet with every match wrapped in start/end."""
        return mark_spans(self.snippet, self.spans, start, end)


# -- which files ---------------------------------------------------------------------------------------------------


def space_files(space_id: str, folder: Path, research: bool, archive: bool) -> list[PlaceFile]:
    """The files of one space (folder: where its memory is) in search order: the hot files, research.md, the archive."""
    out = [
        PlaceFile(SPACE, space_id, str(folder / "current.md"), str(folder / "current.md"), HOT, "sections"),
        PlaceFile(SPACE, space_id, str(folder / "history.md"), str(folder / "history.md"), HOT, "entries"),
        PlaceFile(SPACE, space_id, str(folder / "dream-notes.md"), str(folder / "dream-notes.md"), HOT, "sections"),
    ]
    if research:
        out.append(
            PlaceFile(SPACE, space_id, str(folder / "research.md"), str(folder / "research.md"), RESEARCH, "entries")
        )
    if archive:
        for name in ("history-archive.md", "research-archive.md"):
            path = str(folder / "archive" / name)
            out.append(PlaceFile(SPACE, space_id, path, path, ARCHIVE, "entries"))
        for path in _walk(folder / "archive" / "legacy-imports"):
            out.append(PlaceFile(SPACE, space_id, path, path, ARCHIVE, "sections"))
    return out


def _walk(folder: Path) -> list[str]:
    """The regular files under folder, sorted (links not followed); none when it is absent."""
    found = []
    for dirpath, dirs, names in os.walk(folder):
        dirs.sort()
        found += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".md")]
    return found


def known_space_files(research: bool, archive: bool) -> list[PlaceFile]:
    """The files of every known space (space_roots, the spaces memboard resolved, the skill's registry), each read
    where its memory is (its folder, else its legacy folder)."""
    from ..spaces.known import known  # lazy: only --kind space reads the known spaces
    from ..spaces.resolve import legacy_folders  # lazy: as known, only --kind space needs it

    out: list[PlaceFile] = []
    for space in known():
        target = space.target
        folder = target if target.is_dir() else next(iter(legacy_folders(target.parent)), None)
        if folder is not None:
            out += space_files(str(target), Path(folder), research, archive)
    return out


def hierarchy_files(workspace: Path, archive: bool) -> list[PlaceFile]:
    """The files of a hierarchy workspace: MEMORY.md (hot), facts.yaml, lookup-index.md and project files (warm),
    with archive the daily logs of both forms, the daily archive and the migration copies (cold)."""
    ws = str(workspace)

    def one(rel: str, layer: str, parser: str) -> PlaceFile:
        return PlaceFile(HIERARCHY, ws, os.path.join(ws, rel), rel, layer, parser)

    out = [
        one("MEMORY.md", HOT, "headings"),
        one("memory/facts.yaml", WARM, "facts"),
        one("memory/lookup-index.md", WARM, "lookup"),
    ]
    memory = workspace / "memory"
    try:
        names = sorted(os.listdir(memory))
    except OSError:
        names = []
    out += [one(f"memory/{n}", WARM, "headings") for n in names if n.startswith("project-") and n.endswith(".md")]
    if archive:
        out += [one(f"memory/{n}", COLD, "headings") for n in names if DAILY_RE.fullmatch(n)]
        for sub in ("daily-archive", "migrations"):
            for path in _walk(memory / sub):
                out.append(one(os.path.relpath(path, ws), COLD, "headings"))
    return out


# -- documents -----------------------------------------------------------------------------------------------------


def _split(text: str, starts: Callable[[str], bool], section_of: Callable[[str], str], top: str) -> list[PlaceDoc]:
    """text cut at the lines for which starts() holds (outside ``` and ~~~ fences): one document per part."""
    docs: list[PlaceDoc] = []
    lines = text.splitlines(keepends=True)
    first, section = 1, top
    part: list[str] = []
    fence: str | None = None
    for n, line in enumerate(lines, 1):
        bare = line.rstrip("\r\n")
        m = FENCE_RE.match(bare)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not bare.strip()[len(mark) :].strip():
                fence = None
        elif fence is None and starts(bare):
            if "".join(part).strip():
                docs.append(PlaceDoc(first, section, "".join(part)))
            first, section, part = n, section_of(bare), []
        part.append(line)
    if "".join(part).strip():
        docs.append(PlaceDoc(first, section, "".join(part)))
    return docs


def documents(parser: str, data: bytes) -> list[PlaceDoc]:
    """The documents of a file's bytes by its parser (see the module's docstring)."""
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    if parser == "sections":
        return _split(text, lambda s: s.startswith("## "), lambda s: s.strip(), "(top)")
    if parser == "entries":
        return _split(text, lambda s: s.startswith("### "), lambda s: s.strip(), "(preamble)")
    if parser == "headings":
        return _split(text, lambda s: HEADING_RE.match(s) is not None, lambda s: s.lstrip("#").strip(), "(top)")
    if parser == "lookup":
        from ..hierarchy.lookup import parse_index  # lazy: only a changed lookup-index.md is parsed

        rows = parse_index(text).rows
        lines = text.splitlines()
        return [PlaceDoc(r.line, r.need or "(row)", lines[r.line - 1] if r.line <= len(lines) else "") for r in rows]
    return _facts(data)


def _facts(data: bytes) -> list[PlaceDoc]:
    """Each leaf of facts.yaml as `<key path>: <value>` (a file that does not parse: by its lines, so it is found)."""
    from ..hierarchy import facts  # lazy: only a changed facts.yaml is parsed (ruamel.yaml is slow to load)

    try:
        leaves = facts.leaves(facts.read(data))
    except (MemboardError, ValueError):
        text = data.decode("utf-8", "replace")
        return [PlaceDoc(n, "(line)", line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    return [PlaceDoc(leaf.line, leaf.key, f"{leaf.key}: {leaf.value}") for leaf in leaves]


def _stat(path: str) -> tuple[int, int] | None:
    """A regular file's (size, mtime in ns), None when it is absent or no regular file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None


def _read(path: str) -> bytes | None:
    """A file's bytes, None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


# -- the cache -----------------------------------------------------------------------------------------------------


class PlaceCache:
    """The places' documents in local state, refreshed per file by size and modification time."""

    def __init__(self) -> None:
        """Open (or create) the cache; sqlite3.Error or OSError when it cannot be used."""
        folder = statepaths.base() / "search"
        folder.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(folder / CACHE_NAME, timeout=1.0, isolation_level=None)
        try:
            version = self.db.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone()
        except sqlite3.OperationalError:
            version = None
        if version is None or version[0] != SCHEMA:
            self.db.execute("BEGIN IMMEDIATE")
            for table in ("fts", "docs", "files", "meta"):
                self.db.execute(f"DROP TABLE IF EXISTS {table}")
            self.db.executescript(TABLES.replace(";\n", ";\n"))
            self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA,))
            self.db.execute("COMMIT")

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def refresh(self, files: Iterable[PlaceFile]) -> None:
        """Bring the files' documents up to date (a changed file read again, a gone one dropped)."""
        now = time.time_ns()
        wanted = list(files)
        have = {
            row[0]: (row[1], row[2], row[3])
            for row in self.db.execute("SELECT path, size, mtime, parser FROM files").fetchall()
        }
        stale: list[tuple[PlaceFile, tuple[int, int] | None]] = []
        for f in wanted:
            st = _stat(f.path)
            old = have.get(f.path)
            if st is None:
                if old is not None:
                    stale.append((f, None))
            elif old is None or old != (st[0], st[1], f.parser):
                stale.append((f, st))
        if not stale:
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for f, st in stale:
                self._drop(f.path)
                if st is None:
                    continue
                data = _read(f.path)
                if data is None:
                    continue
                mtime = st[1] if now - st[1] > RACY_NS else -1  # too recent to trust: read again next time
                self.db.execute("INSERT INTO files VALUES (?, ?, ?, ?)", (f.path, len(data), mtime, f.parser))
                for doc in documents(f.parser, data):
                    cur = self.db.execute(
                        "INSERT INTO docs(path, line, section, text) VALUES (?, ?, ?, ?)",
                        (f.path, doc.line, doc.section, doc.text),
                    )
                    self.db.execute("INSERT INTO fts(rowid, text) VALUES (?, ?)", (cur.lastrowid, doc.text))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _drop(self, path: str) -> None:
        """Forget a file and its documents."""
        self.db.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE path = ?)", (path,))
        self.db.execute("DELETE FROM docs WHERE path = ?", (path,))
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))

    def candidates(self, files: list[PlaceFile], query: str) -> dict[str, list[PlaceDoc]]:
        """The documents of the files that may match query (all their documents for a query of under 3 characters,
        which the trigram index cannot look up)."""
        paths = {f.path for f in files}
        if len(query) >= 3:
            phrase = '"' + query.replace('"', '""') + '"'
            rows = self.db.execute(
                "SELECT d.path, d.line, d.section, d.text FROM fts JOIN docs d ON d.id = fts.rowid "
                "WHERE fts MATCH ? ORDER BY d.id",
                (phrase,),
            ).fetchall()
        else:
            rows = self.db.execute("SELECT path, line, section, text FROM docs ORDER BY id").fetchall()
        out: dict[str, list[PlaceDoc]] = {}
        for path, line, section, text in rows:
            if path in paths:
                out.setdefault(path, []).append(PlaceDoc(line, section, text))
        return out


def _scanned(files: list[PlaceFile]) -> dict[str, list[PlaceDoc]]:
    """Every file's documents read from the file itself."""
    out: dict[str, list[PlaceDoc]] = {}
    for f in files:
        data = _read(f.path) if _stat(f.path) is not None else None
        if data is not None:
            out[f.path] = documents(f.parser, data)
    return out


def _docs(files: list[PlaceFile], query: str) -> dict[str, list[PlaceDoc]]:
    """The files' candidate documents: from the cache, else from the files."""
    try:
        cache = PlaceCache()
    except sqlite3.DatabaseError as exc:  # not a database (a torn or foreign file): derived data, made again
        if isinstance(exc, sqlite3.OperationalError):
            return _scanned(files)  # locked, or unwritable: the files this time
        try:
            os.unlink(statepaths.base() / "search" / CACHE_NAME)
            cache = PlaceCache()
        except (sqlite3.Error, OSError):
            return _scanned(files)
    except (sqlite3.Error, OSError):
        return _scanned(files)
    try:
        cache.refresh(files)
        return cache.candidates(files, query)
    except sqlite3.Error:
        return _scanned(files)
    finally:
        cache.close()


def search_places(files: list[PlaceFile], query: str, limit: int = 20) -> list[PlaceHit]:
    """The files' hits for query, best first (one per file: its first matching document), at most limit."""
    query = check_query(query)
    matcher = Matcher(query)
    found = _docs(files, query)
    hits: list[tuple[int, int, PlaceHit]] = []
    for order, f in enumerate(files):
        matching = [d for d in found.get(f.path, []) if matcher.found(d.text)]
        if not matching:
            continue
        doc = matching[0]
        at = matcher.spans(doc.text)[0][0]
        line = doc.line + doc.text.count("\n", 0, at)
        snippet, spans = make_snippet(doc.text, matcher)
        score = WEIGHT[f.layer] * 1000 + min(len(matching), 999)
        state = "archived" if f.layer == ARCHIVE or "/migrations/" in f.path or "/daily-archive/" in f.path else "live"
        hit = PlaceHit(
            f.kind, f.id, state, f.kind, doc.section, f.shown, line, f.layer, snippet, spans, score, len(matching)
        )
        hits.append((-score, order, hit))
    hits.sort(key=lambda t: (t[0], t[1]))
    return [h for _s, _o, h in hits[:limit]]


def hit_json(hit: PlaceHit) -> dict[str, object]:
    """A place hit's stable JSON."""
    return {
        "kind": hit.kind,
        "id": hit.id,
        "state": hit.state,
        "where": hit.where,
        "section": hit.section,
        "path": hit.path,
        "line": hit.line,
        "layer": hit.layer,
        "snippet": hit.snippet,
        "spans": [list(s) for s in hit.spans],
        "marked": hit.marked(),
        "score": hit.score,
        "matches": hit.matches,
    }
