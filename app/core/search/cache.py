"""The search cache: an SQLite FTS5 (trigram) index of a root's documents, kept in local state.

It is derived data: the Markdown files stay the truth and the cache can always be rebuilt.
One cache per root lives in `<state>/search/<key>.sqlite3`, keyed like the lock by the root's
real path, never inside the root. Before each search it is brought up to date
from file sizes and modification times: an unchanged root costs one stat per file; a changed
index.md is diffed line by line through a CRC-32 of each line, so one changed row re-indexes
one row. A missing, truncated, corrupt or older-schema cache is rebuilt into a new file that
replaces the old one; while another process writes the cache, `CacheBusy` tells the caller
to scan the files instead of waiting.
"""

from __future__ import annotations

import marshal
import os
import sqlite3
import threading
import time
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..files import fsclock, statepaths
from ..files.notewalk import take_early
from ..files.root import MemoryRoot
from ..formats.layout import INDEX, NOTES
from .docs import (
    MAX_NOTE_DEPTH,
    Doc,
    Record,
    SessionInfo,
    index_stat,
    listing,
    note_listing,
    others_listing,
    resolve,
    source_of,
)

SCHEMA_VERSION = 4  # 2: notes (their Type, Scope and Project); 3: no note record for a sync-conflict copy of a note;
# 4: no session record for a sync-conflict copy of a snapshot named like a session (`<id>-<COMPUTER>.md`)
NO_FTS_ENV = "MEMBOARD_SEARCH_NO_FTS"  # "1": behave as if this SQLite had no FTS5 trigram (search scans files)
BUSY_TIMEOUT = 0.1  # seconds a reader waits for a writer's commit before scanning the files instead
RACY_NS = 2_000_000_000  # a file changed this recently may change again within its mtime's resolution
BATCH = 2000
CHUNK = 1 << 20
HEADER = b"SQLite format 3\x00"

# A document's id says whose it is and what it weighs: session id << 20 | weight << 16 | number, so
# ranking groups the FTS index's own rowids and never looks documents up. FTS indexes each text
# with two newlines after it: every character is then the start of a trigram, which is how queries
# of one or two characters are found (through the trigram vocabulary) without reading every text.
# No document's size is kept (columnsize=0): nothing ranks by bm25, and keeping 600k sizes costs a
# build at 100k rows 0.3 s of its 6 (a cache made before keeps its sizes, unused: the same queries run).
SID_SHIFT, WEIGHT_SHIFT, SEQ_MASK = 20, 16, 0xFFFF
TABLES = """
CREATE TABLE meta(name TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE sessions(sid INTEGER PRIMARY KEY, kind TEXT NOT NULL, key TEXT NOT NULL, state TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT '', agent TEXT NOT NULL DEFAULT '', topic TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL DEFAULT '', updated_sort TEXT NOT NULL DEFAULT '', ntype TEXT NOT NULL DEFAULT '',
    scope TEXT NOT NULL DEFAULT '', project TEXT NOT NULL DEFAULT '', UNIQUE(kind, key));
CREATE TABLE records(id INTEGER PRIMARY KEY, sid INTEGER NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
    state TEXT NOT NULL, source TEXT NOT NULL, path TEXT NOT NULL, fingerprint INTEGER NOT NULL, status TEXT NOT NULL,
    agent TEXT NOT NULL, topic TEXT NOT NULL, updated_at TEXT NOT NULL, ntype TEXT NOT NULL, scope TEXT NOT NULL,
    project TEXT NOT NULL);
CREATE TABLE docs(id INTEGER PRIMARY KEY, record INTEGER NOT NULL, place TEXT NOT NULL, section TEXT NOT NULL,
    text TEXT NOT NULL, ftext TEXT GENERATED ALWAYS AS (text || char(10, 10)) VIRTUAL);
CREATE VIRTUAL TABLE fts USING fts5(ftext, content='docs', content_rowid='id', tokenize='trigram', detail='full',
    columnsize=0);
CREATE VIRTUAL TABLE vocab USING fts5vocab(fts, 'row');
"""
INDEXES = """
CREATE INDEX records_sid ON records(sid);
CREATE INDEX records_path ON records(path, fingerprint);
CREATE INDEX docs_record ON docs(record);
"""

if TYPE_CHECKING:
    from .engine import Ranked, SearchFilters

Progress = Callable[[str], None]


class CacheBusy(Exception):
    """Another process is writing the cache: answer from the files this time."""


class CacheUnavailable(Exception):
    """The cache cannot be used here (no FTS5 trigram, state folder unwritable, inside the root)."""


class _Rebuild(Exception):
    """The cache must be built again from scratch (corrupt, older schema, another root, new table header)."""


_FTS: list[bool] = []


def fts_available() -> bool:
    """Whether this Python's SQLite has FTS5 with the trigram tokenizer (checked once per process)."""
    if os.environ.get(NO_FTS_ENV, "") not in ("", "0"):
        return False
    if not _FTS:
        try:
            con = sqlite3.connect(":memory:")
            try:
                con.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
            finally:
                con.close()
            _FTS.append(True)
        except sqlite3.Error:
            _FTS.append(False)
    return _FTS[0]


def cache_path(root: MemoryRoot) -> Path:
    """The cache file of a root: in local state, keyed by the root's real path like its lock (see statepaths);
    the path itself is stored in the cache and checked on open."""
    return statepaths.search_cache(root.real)


def is_busy(exc: sqlite3.Error) -> bool:
    """Whether an SQLite error means another connection holds a lock."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def line_crcs(data: bytes, start: int, end: int) -> tuple[array[int], list[tuple[int, int]]]:
    """The crc32 of each line of data[start:end] (a line's fingerprint), computed a chunk at a time,
    and (offset, number of its first line) of each chunk, to find a line's offset without a count.

    CRC-32 tells apart any two lines that differ within 32 consecutive bits (a changed word,
    status or time), and any others but for a 1-in-4-billion chance.
    """
    crcs = array("I")
    marks = []
    pos = start
    while pos < end:
        cut = min(pos + CHUNK, end)
        if cut < end:
            nl = data.find(b"\n", cut - 1, end)
            cut = end if nl < 0 else nl + 1
        lines = data[pos:cut].split(b"\n")
        if data[cut - 1 : cut] == b"\n":
            lines.pop()
        marks.append((pos, len(crcs)))
        crcs.extend(map(zlib.crc32, lines))
        pos = cut
    return crcs, marks


def _line_start(data: bytes, marks: list[tuple[int, int]], n: int) -> int:
    """The offset of line number n, found from the last chunk that starts at or before it."""
    pos, line = next((m for m in reversed(marks) if m[1] <= n), (len(data), n))
    for _ in range(n - line):
        pos = data.index(b"\n", pos) + 1
    return pos


def _common(a: array[int], b: array[int], step: int = 512) -> int:
    """The length of the common prefix of two lists (compared a block at a time)."""
    n = min(len(a), len(b))
    i = 0
    while i + step <= n and a[i : i + step] == b[i : i + step]:
        i += step
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _intact(path: Path) -> bool:
    """Whether a cache file looks whole: an SQLite header whose page count matches the file size."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(100)
            size = os.fstat(fh.fileno()).st_size
    except OSError:
        return False
    if len(head) < 100 or not head.startswith(HEADER):
        return False
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    if head[24:28] != head[92:96] or os.path.exists(f"{path}-journal"):
        return True  # no trustworthy size in the header, or SQLite will roll a journal back first
    return size == page * pages


def _sidecars(path: Path) -> list[Path]:
    """SQLite's journal files of a cache that exist (left by a writer of the file being replaced)."""
    return [p for p in (Path(f"{path}-journal"), Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()]


def sweep_dead_builds(path: Path) -> None:
    """Remove the temp files of builders that died mid-build (each names its builder's process), so a killed
    build leaves nothing behind while a sound cache is in use; a live builder's file is left alone."""
    if os.name != "posix":  # (os.kill(pid, 0) tests a process only on POSIX; elsewhere the next build sweeps)
        return
    prefix = path.name + "."
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        pid = name[len(prefix) :].partition(".")[0] if name.startswith(prefix) and name.endswith(".tmp") else ""
        if not pid.isdigit() or _alive(int(pid)):
            continue
        try:
            os.unlink(path.parent / name)
        except OSError:
            pass  # (gone already, or not ours to remove: the next build sweeps under its lock)


def _alive(pid: int) -> bool:
    """Whether process pid exists (this one included)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # (it exists, owned by someone else)
    return True


def _racy(stat: tuple[int, int] | None, taken: int | None) -> tuple[int, int] | None:
    """A stat to remember, taken at `taken`: one too recent to trust is stored so it never compares equal.

    A file changed within a tick of its clock before its stat may change again with the same
    size and time after it was read; it is then read again at the next search. taken is on the
    clock of the file system that stamps the files (see on_fs_clock); None, where that clock
    cannot be had, trusts no stat.
    """
    if stat is None or (taken is not None and stat[1] <= taken - RACY_NS):
        return stat
    return (stat[0], -1)


def on_fs_clock(base: str, taken: int) -> int | None:
    """taken (this process's clock, ns) on the clock of the file system holding the root at base (see
    files/fsclock.py), or None where that clock cannot be had."""
    try:
        dev = os.stat(base).st_dev
    except OSError:
        return None
    offset = fsclock.offset(dev, os.path.join(base, INDEX))
    return None if offset is None else taken + offset


def _remembered(
    files: dict[str, tuple[int, int]], unreadable: dict[str, str], taken: int | None
) -> dict[str, tuple[int, int] | None]:
    """The listing to remember: each file's stat (see _racy), except the files that could not be read. Those are
    then new to the next search, which reads them again: a file made readable again (chmod, a download that
    finished) keeps its size and mtime, and a remembered stat would hide it for ever."""
    return {p: _racy(s, taken) for p, s in files.items() if p not in unreadable}


NOTES_PART, OTHERS_PART = "notes", "others"  # a search that looks at the notes alone, or at all but the notes


class _Stats(threading.Thread):
    """index.md's stat and the listing of the other files, taken in a thread of their own (part NOTES_PART: the
    notes' listing alone, and no index.md stat: None; OTHERS_PART: index.md and every listed file but the notes)."""

    def __init__(self, base: str, part: str | None = None):
        """Start statting the root at base."""
        super().__init__(daemon=True)
        self.base = base
        self.part = part
        self.value: tuple[tuple[int, int] | None, dict[str, tuple[int, int]]] | None = None
        self.unlisted: dict[str, str] = {}  # folders that could not be listed -> why
        # the notes' stamps, when a child began taking them at the process's start (cli/entry.py: early_notes)
        self.early = None if part == OTHERS_PART else take_early(os.path.join(base, NOTES), NOTES, MAX_NOTE_DEPTH)
        # before the first stat (the child's too): what "recently changed" is measured from
        self.now = time.time_ns() if self.early is None else self.early.began
        self.taken: int | None = None  # the same moment on the files' clock (see on_fs_clock)
        self.start()

    def run(self) -> None:
        """Take the stats (the calls release the GIL, so SQLite works meanwhile)."""
        try:
            self.taken = on_fs_clock(self.base, self.now)
            self.value = self._take(self.unlisted)
        except Exception:  # taken again by result(), where an error reaches the caller
            self.value = None

    def result(self) -> tuple[tuple[int, int] | None, dict[str, tuple[int, int]]]:
        """The stats, taken again here if the thread failed."""
        self.join()
        if self.value is None:
            self.taken = on_fs_clock(self.base, time.time_ns())
            self.unlisted = {}
            return self._take(self.unlisted)
        return self.value

    def _take(self, unlisted: dict[str, str]) -> tuple[tuple[int, int] | None, dict[str, tuple[int, int]]]:
        """The stats themselves."""
        early, self.early = self.early, None  # (its stamps are read once: taken again, the stats are this walk's)
        if self.part == NOTES_PART:
            return None, note_listing(self.base, unlisted, early)
        if self.part is None:
            return index_stat(self.base), listing(self.base, unlisted, early)
        return index_stat(self.base), others_listing(self.base, unlisted)


class SearchCache:
    """An open cache of one root (use as a context manager; one per thread)."""

    def __init__(
        self,
        root: MemoryRoot,
        progress: Progress | None = None,
        refresh: bool = True,
        notes_only: bool = False,
        others_only: bool = False,
    ):
        """Open the root's cache (building it when missing or broken) and start reading the files' stats.

        Query it, then call catch_up(): when files changed since the cache last saw them, it
        refreshes the cache and says so, and the query must run again. On an unchanged root
        the stat calls thus run while SQLite answers. refresh=False skips the stats; notes_only
        looks at the notes' files alone (a search of notes: nothing else can change its answer;
        what changed elsewhere is caught up by the next search that looks at everything), and
        others_only at everything but the notes (a search whose filters no note can pass: the
        same, the other way round).
        Raises CacheBusy while another process writes it, CacheUnavailable when it cannot be used.
        """
        self.root = root
        self.base = str(root.path)
        self.progress = progress
        self.path = cache_path(root)
        self.built = False
        self.changed = 0
        self.unreadable: dict[str, str] | None = None  # files the last build or refresh could not read -> why
        self.unlisted: dict[str, str] = {}  # folders the last listing could not list -> why
        if not fts_available():
            raise CacheUnavailable("this SQLite lacks FTS5 with the trigram tokenizer")
        try:
            real = self.path.resolve()
        except OSError as exc:
            raise CacheUnavailable(f"cannot find the state folder: {exc.strerror or exc}") from None
        if real == root.real or root.real in real.parents:
            raise CacheUnavailable("the state folder is inside the memory root")
        self.part = NOTES_PART if notes_only else OTHERS_PART if others_only else None
        self.stats = _Stats(self.base, self.part) if refresh else None  # the stat calls overlap the opening and a query
        self.con = self._ready()

    def __enter__(self) -> SearchCache:
        """Use the cache."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the connection."""
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self.con.close()

    # -- opening --------------------------------------------------------------------------

    def _connect(self, path: Path) -> sqlite3.Connection:
        """An autocommit connection that waits only briefly for another writer."""
        return sqlite3.connect(str(path), timeout=BUSY_TIMEOUT, isolation_level=None)

    def _ready(self) -> sqlite3.Connection:
        """A connection to a sound cache of this root, rebuilt first when the one on disk is not."""
        con = self._existing()
        if con is None:
            self._rebuild()
            con = self._connect(self.path)
        else:
            sweep_dead_builds(self.path)
        return con

    def _existing(self) -> sqlite3.Connection | None:
        """A connection to the cache on disk if it is sound and this root's; None when it must be rebuilt."""
        if not _intact(self.path):
            return None
        try:
            con = self._connect(self.path)
        except sqlite3.Error:
            return None
        try:
            self._check(con)
            return con
        except sqlite3.Error as exc:
            con.close()
            if is_busy(exc):
                raise CacheBusy(str(exc)) from None
            return None
        except _Rebuild:
            con.close()
            return None
        except BaseException:
            con.close()
            raise

    def catch_up(self) -> bool:
        """Refresh the cache from the files' stats; True when something changed (query again)."""
        if self.stats is None or self.built:
            return False
        stat, files = self.stats.result()
        self.unlisted = self.stats.unlisted
        try:
            self.changed = self._refresh(self.con, stat, files, self.stats.taken)
        except _Rebuild:
            self.con.close()
            self._rebuild()
            self.con = self._connect(self.path)
            return True
        return self.changed > 0

    def unreadable_files(self) -> dict[str, str]:
        """The files the cache could not read when it last looked, and the folders it could not list (path -> why);
        each file is read again by the next refresh, so a file that is readable again is found."""
        if self.unreadable is None:
            self.unreadable = _loads(self._meta(self.con, "unreadable").get("unreadable")) or {}
        return {**self.unreadable, **self.unlisted}

    def discard(self) -> None:
        """Close and delete a cache found broken while querying (the next open rebuilds it)."""
        self.close()
        try:
            self.path.unlink()
        except OSError:
            pass

    def _check(self, con: sqlite3.Connection) -> None:
        """Raise _Rebuild unless the cache has this schema version and belongs to this root."""
        if con.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            raise _Rebuild("schema")
        row = con.execute("SELECT value FROM meta WHERE name = 'root'").fetchone()
        if row is None or row[0] != os.fsencode(self.root.real):
            raise _Rebuild("root")

    def _meta(self, con: sqlite3.Connection, *names: str) -> dict[str, Any]:
        """Some meta values by name."""
        return dict(con.execute(f"SELECT name, value FROM meta WHERE name IN ({_marks(names)})", names))

    def _say(self, message: str) -> None:
        """Report progress when the caller asked for it."""
        if self.progress:
            self.progress(message)

    # -- full build -----------------------------------------------------------------------

    def _rebuild(self) -> None:
        """Build a fresh cache in a new file and move it into place (one builder at a time).

        The folder and the file are private to the user (the cache holds the memory's text).
        Temp files of builders that died are removed first.
        """
        from filelock import FileLock, Timeout  # lazy: only a search that writes the cache locks it

        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            lock = FileLock(str(self.path) + ".lock")
            lock.acquire(timeout=0)
        except Timeout:
            raise CacheBusy("another process is building the search cache") from None
        except OSError as exc:
            raise CacheUnavailable(f"cannot create the search cache: {exc.strerror or exc}") from None
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            for stale in [*self.path.parent.glob(f"{self.path.name}.*.tmp"), *_sidecars(self.path)]:
                stale.unlink()
            self._build(tmp)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
            self.built = True
        except (OSError, sqlite3.Error) as exc:
            raise CacheUnavailable(f"cannot write the search cache: {getattr(exc, 'strerror', None) or exc}") from None
        finally:
            if tmp.exists():
                tmp.unlink()
            lock.release()

    def _build(self, tmp: Path) -> None:
        """Write a whole cache into tmp, streaming every document (no list of the corpus in memory)."""
        from .build import BulkWriter, build_records  # lazy: an unchanged root parses nothing

        self._say("search cache: indexing text…")  # once per build, before the first rows are read
        con = sqlite3.connect(str(tmp), isolation_level=None)
        try:
            con.execute("PRAGMA journal_mode = OFF")
            con.execute("PRAGMA synchronous = OFF")
            con.executescript(TABLES)
            con.execute("BEGIN")  # after executescript, which commits whatever is pending
            writer = BulkWriter(con, self._say)
            taken = on_fs_clock(self.base, time.time_ns())
            stat = index_stat(self.base)
            unlisted: dict[str, str] = {}
            files = listing(self.base, unlisted)
            unreadable: dict[str, str] = {}
            columns, crcs = build_records(writer, self.base, self._read_index() if stat else b"", files, unreadable)
            for statement in INDEXES.strip().split(";"):
                if statement.strip():
                    con.execute(statement)
            meta = {
                "root": os.fsencode(self.root.real),  # bytes: a path need not be UTF-8
                "index_stat": marshal.dumps(_racy(stat, taken)),
                "columns": marshal.dumps(columns),
                "row_crcs": crcs.tobytes(),
                "listing": marshal.dumps(_remembered(files, unreadable, taken)),
                "unreadable": marshal.dumps(unreadable),
            }
            con.executemany("INSERT INTO meta(name, value) VALUES (?, ?)", meta.items())
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.execute("COMMIT")
        finally:
            con.close()
        self.unreadable, self.unlisted = unreadable, unlisted
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())

    def _read_index(self) -> bytes:
        """index.md's bytes (empty when it vanished or is a symlink); Unreadable when it cannot be read."""
        from .parse import read_index  # lazy: an unchanged root parses nothing

        return read_index(self.base)

    # -- incremental refresh --------------------------------------------------------------

    def _refresh(
        self,
        con: sqlite3.Connection,
        stat: tuple[int, int] | None,
        files: dict[str, tuple[int, int]],
        taken: int | None,
    ) -> int:
        """Bring the cache up to date with the files' stats (taken at `taken`); returns how many sources changed."""
        seen = self._meta(con, "index_stat", "listing")
        old_stat, (old_files, old_part) = _loads(seen.get("index_stat")), _kept_listing(seen.get("listing"), self.part)
        part = files
        if self.part == NOTES_PART:  # (files is the notes' listing: every other stat is taken as the cache last saw it)
            stat = old_stat
        if self.part is not None:  # (files is one part's listing: the other part as the cache last saw it)
            if stat == old_stat and part == old_part:
                self.unreadable = {}
                return 0
            files = _with_part(old_files, part, self.part)
        if stat == old_stat and files == old_files:
            self.unreadable = {}  # (a file that could not be read is left out of the listing kept: none is listed)
            return 0
        try:
            con.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise CacheBusy(str(exc)) from None
            raise
        try:
            changed = self._apply(con, stat, part if self.part else files, taken, (seen, old_stat, old_files))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        return changed

    def _apply(
        self,
        con: sqlite3.Connection,
        stat: tuple[int, int] | None,
        files: dict[str, tuple[int, int]],
        taken: int | None,
        seen: tuple[Any, ...],
    ) -> int:
        """Inside a write transaction: re-index what changed since the meta's stats.

        The stats are read again (another process may have refreshed the cache since `seen`
        was read, before this transaction began), and decoded again only if they changed.
        """
        from .parse import records  # lazy: an unchanged root parses nothing

        meta = self._meta(con, "index_stat", "listing", "columns", "row_crcs")
        raw, old_stat, old_files = seen
        if (meta.get("index_stat"), meta.get("listing")) != (raw.get("index_stat"), raw.get("listing")):
            old_stat, old_files = _loads(meta.get("index_stat")), _loads(meta.get("listing")) or {}
        if self.part == NOTES_PART:  # (no index.md stat was taken: as the cache saw it, maybe just now)
            stat = old_stat
        if self.part is not None:  # (files is one part's listing; the other part as the cache saw it, maybe just now)
            files = _with_part(old_files, files, self.part)
        writer = _Writer(con, self._say)
        changed = 0
        if stat != old_stat:
            self._refresh_rows(con, writer, meta)
            changed += 1
        unreadable: dict[str, str] = {}  # (those not read before are left out of the listing: read again next time)
        for path in sorted({p for p, _ in old_files.items() ^ files.items()}):
            if source_of(path) is None:  # no Session ID nor note ID: never indexed (and maybe not even UTF-8)
                continue
            changed += 1
            writer.drop("path = ?", (path,))
            for _path, rec in records(self.base, [path] if path in files else [], unreadable):
                if rec:
                    writer.add(rec)
        writer.flush()
        writer.sync_sessions()
        _set_meta(
            con,
            index_stat=marshal.dumps(_racy(stat, taken)),
            listing=marshal.dumps(_remembered(files, unreadable, taken)),
            unreadable=marshal.dumps(unreadable),
        )
        self.unreadable = unreadable
        return changed

    def _refresh_rows(self, con: sqlite3.Connection, writer: _Writer, meta: dict[str, Any]) -> None:
        """Re-index only the index lines whose fingerprints appeared or disappeared."""
        # lazy: an unchanged root parses nothing
        from .parse import iter_lines, row_record, table_of

        data = self._read_index()
        columns, start, end = table_of(data)
        if columns != _loads(meta.get("columns")):
            raise _Rebuild("the index table's header changed")
        old_crcs = array("I")
        old_crcs.frombytes(meta.get("row_crcs") or b"")
        crcs, marks = line_crcs(data, start, end)
        head = _common(old_crcs, crcs)
        tail = _common(old_crcs[head:][::-1], crcs[head:][::-1])
        old_mid = Counter(old_crcs[head : len(old_crcs) - tail])
        new_keys = crcs[head : len(crcs) - tail]
        new_mid = Counter(new_keys)
        for fp, count in (old_mid - new_mid).items():
            writer.drop("id IN (SELECT id FROM records WHERE path = ? AND fingerprint = ? LIMIT ?)", (INDEX, fp, count))
        wanted = new_mid - old_mid
        if wanted:
            for fp, line in zip(new_keys, iter_lines(data, _line_start(data, marks, head), end)):
                if wanted.get(fp):
                    wanted[fp] -= 1
                    rec = row_record(line, columns, fp)
                    if rec:
                        writer.add(rec)
        _set_meta(con, row_crcs=crcs.tobytes())

    # -- queries --------------------------------------------------------------------------

    def rank(self, query: str, filters: SearchFilters) -> list[Ranked]:
        """Sessions whose documents match, best first: (kind, key, best weight, matches, info).

        A literal query is one phrase (trigrams in a row). One of one or two characters, which
        has no trigram of its own, matches every trigram that starts with it.
        """
        if filters.syntax:
            expression = query
        elif len(query) >= 3:
            expression = _quoted(query)
        else:
            start = query.lower()
            terms = [
                r[0]
                for r in self.con.execute(
                    "SELECT term FROM vocab WHERE term >= ? AND term < ?", (start, start + "\U0010ffff")
                )
            ]
            if not terms:
                return []
            expression = " OR ".join(_quoted(t) for t in terms)
        if filters.section is None:
            source = "fts WHERE fts MATCH ?"
            args: list[object] = [expression]
            doc_id = "rowid"
        else:
            source = "fts JOIN docs AS d ON d.id = fts.rowid WHERE fts MATCH ? AND d.section = ? COLLATE NOCASE"
            args = [expression, filters.section]
            doc_id = "d.id"
        condition, extra = filters.sql()
        if not condition:  # no session filter: only sessions that match as well as the limit-th best can rank
            condition = " AND (NOT EXISTS (SELECT 1 FROM cut) OR (m.best, m.n) >= (SELECT best, n FROM cut))"
        sql = f"""
            WITH m AS (SELECT {doc_id} >> {SID_SHIFT} AS sid, MAX(({doc_id} >> {WEIGHT_SHIFT}) & 15) AS best,
                              COUNT(*) AS n FROM {source} GROUP BY 1),
                 cut AS (SELECT best, n FROM m ORDER BY best DESC, n DESC LIMIT 1 OFFSET ?)
            SELECT s.kind, s.key, m.best, m.n, s.state, s.status, s.agent, s.topic, s.updated_at, s.updated_sort,
                   s.ntype, s.scope, s.project
            FROM m JOIN sessions AS s ON s.sid = m.sid
            WHERE 1 {condition}
            ORDER BY m.best DESC, m.n DESC, s.updated_sort DESC, s.key, s.kind
            LIMIT ?"""
        out = []
        for kind, key, best, n, *info in self.con.execute(sql, args + [filters.limit - 1] + extra + [filters.limit]):
            out.append((kind, key, best, n, SessionInfo(kind, key, *info)))
        return out

    def docs_of(self, sessions: list[tuple[str, str]]) -> Iterator[tuple[str, str, int, Doc, str]]:
        """Every document of these sessions: (kind, key, doc id, doc, file path)."""
        sql = (
            "SELECT d.id, d.place, d.section, d.text, r.path FROM sessions AS s "
            f"JOIN docs AS d ON d.id BETWEEN s.sid << {SID_SHIFT} AND (s.sid << {SID_SHIFT}) + {(1 << SID_SHIFT) - 1} "
            "JOIN records AS r ON r.id = d.record WHERE s.kind = ? AND s.key = ?"
        )
        for kind, key in sessions:
            for doc_id, place, section, text, path in self.con.execute(sql, (kind, key)):
                yield kind, key, doc_id, Doc(place, section, (doc_id >> WEIGHT_SHIFT) & 15, text), path

    def matching(self, expression: str, doc_ids: list[int]) -> set[int]:
        """Which of these documents an FTS5 expression matches."""
        found: set[int] = set()
        for part in range(0, len(doc_ids), 500):
            chunk = doc_ids[part : part + 500]
            sql = f"SELECT rowid FROM fts WHERE fts MATCH ? AND rowid IN ({','.join('?' * len(chunk))})"
            found.update(r[0] for r in self.con.execute(sql, [expression, *chunk]))
        return found


_LISTINGS: dict[bytes, dict[str | None, dict[str, tuple[int, int]]]] = {}  # the last listing decoded, by part


def _kept_listing(
    raw: object, part: str | None = None
) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """A cache's stored listing, decoded ({} when absent or unreadable), and with part (NOTES_PART, OTHERS_PART) that
    part of it (else {}): the same bytes as the last ones decoded in this process give the same dicts again (a server
    searches the same cache call after call; 13k files take 5 ms to decode). No dict is changed by anyone."""
    if not isinstance(raw, bytes):
        return {}, {}
    found = _LISTINGS.get(raw)  # (a dict look-up by bytes: their hash, then one comparison of the equal bytes)
    if found is None:
        found = {None: _loads(raw) or {}}
        _LISTINGS.clear()
        _LISTINGS[raw] = found
    files = found[None]
    if part is None:
        return files, {}
    if part not in found:
        found[part] = _part_of(files, part)
    return files, found[part]


def _part_of(files: dict[str, tuple[int, int]], part: str) -> dict[str, tuple[int, int]]:
    """The entries of a listing under notes/ (NOTES_PART) or outside it (OTHERS_PART)."""
    prefix = NOTES + "/"
    notes = part == NOTES_PART
    return {p: s for p, s in files.items() if p.startswith(prefix) == notes}


def _with_part(
    files: dict[str, tuple[int, int]], part_files: dict[str, tuple[int, int]], part: str
) -> dict[str, tuple[int, int]]:
    """A listing whose entries of part are those of part_files (one part's listing), its others those of files."""
    return {**_part_of(files, OTHERS_PART if part == NOTES_PART else NOTES_PART), **part_files}


def _quoted(text: str) -> str:
    """Text as an FTS5 string: every character literal."""
    return '"' + text.replace('"', '""') + '"'


class _Writer:
    """Adds and removes records with their documents; keeps the FTS index and the sessions in step."""

    def __init__(self, con: sqlite3.Connection, say: Callable[[str], None]):
        """Write through con (a new cache is written by build.py's BulkWriter instead)."""
        self.con = con
        self.say = say
        self.records: list[tuple[Any, ...]] = []
        self.docs: list[tuple[Any, ...]] = []
        self.seq: dict[int, int] = {}  # next document number of the sessions in this batch
        self.touched: set[int] = set()
        self.next_record = (con.execute("SELECT max(id) FROM records").fetchone()[0] or 0) + 1
        self.count = 0

    def _sid(self, kind: str, key: str) -> int:
        """The session id of (kind, key), created when new."""
        row = self.con.execute("SELECT sid FROM sessions WHERE kind = ? AND key = ?", (kind, key)).fetchone()
        if row:
            return int(row[0])
        return int(self.con.execute("INSERT INTO sessions(kind, key) VALUES (?, ?)", (kind, key)).lastrowid or 0)

    def _next_doc(self, sid: int) -> int:
        """The next free document number of a session."""
        if sid not in self.seq:
            low = sid << SID_SHIFT
            top = self.con.execute(
                "SELECT max(id) FROM docs WHERE id BETWEEN ? AND ?", (low, low | ((1 << SID_SHIFT) - 1))
            ).fetchone()[0]
            self.seq[sid] = 0 if top is None else (top & SEQ_MASK) + 1
        number = self.seq[sid]
        self.seq[sid] = number + 1
        return number

    def add(self, rec: Record) -> None:
        """Queue a record and its documents (a session keeps at most 65,536 documents)."""
        sid = self._sid(rec.kind, rec.key)
        rid = self.next_record
        self.next_record += 1
        self.records.append(
            (
                rid,
                sid,
                rec.kind,
                rec.key,
                rec.state,
                rec.source,
                rec.path,
                rec.fingerprint,
                rec.status,
                rec.agent,
                rec.topic,
                rec.updated_at,
                rec.note_type,
                rec.scope,
                rec.project,
            )
        )
        for doc in rec.docs:
            number = self._next_doc(sid)
            if number <= SEQ_MASK:
                doc_id = sid << SID_SHIFT | min(doc.weight, 15) << WEIGHT_SHIFT | number
                self.docs.append((doc_id, rid, doc.place, doc.section, doc.text))
        self.touched.add(sid)
        self.count += 1
        if len(self.records) >= BATCH:
            self.flush()
            self.say(f"search cache: {self.count:,} sources read")

    def flush(self) -> None:
        """Write queued records and documents, and their FTS entries."""
        if self.records:
            self.con.executemany("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", self.records)
            self.con.executemany("INSERT INTO docs(id, record, place, section, text) VALUES (?,?,?,?,?)", self.docs)
        for part in range(0, len(self.docs), 500):
            ids = [d[0] for d in self.docs[part : part + 500]]
            self.con.execute(
                f"INSERT INTO fts(rowid, ftext) SELECT id, ftext FROM docs WHERE id IN ({_marks(ids)})", ids
            )
        self.records, self.docs, self.seq = [], [], {}

    def drop(self, where: str, params: tuple[object, ...]) -> None:
        """Remove the records matching an SQL condition, their documents and FTS entries."""
        found = self.con.execute(f"SELECT id, sid FROM records WHERE {where}", params).fetchall()
        for part in range(0, len(found), 500):
            chunk = found[part : part + 500]
            ids = [r[0] for r in chunk]
            self.con.execute(
                f"INSERT INTO fts(fts, rowid, ftext) SELECT 'delete', id, ftext FROM docs WHERE record IN ({_marks(ids)})",
                ids,
            )
            self.con.execute(f"DELETE FROM docs WHERE record IN ({_marks(ids)})", ids)
            self.con.execute(f"DELETE FROM records WHERE id IN ({_marks(ids)})", ids)
            self.touched.update(r[1] for r in chunk)

    def sync_sessions(self) -> None:
        """Recompute the sessions whose records changed; forget those left without any."""
        for sid in sorted(self.touched):
            rows = self.con.execute(
                "SELECT kind, key, state, source, status, agent, topic, updated_at, ntype, scope, project FROM records WHERE sid = ?",
                (sid,),
            ).fetchall()
            info = resolve(rows[0][0], rows[0][1], (r[2:] for r in rows)) if rows else None
            if info is None:
                self.con.execute("DELETE FROM sessions WHERE sid = ?", (sid,))
            else:
                self.con.execute(UPDATE_SESSION, _session_row(info) + (sid,))
        self.touched.clear()


UPDATE_SESSION = (
    "UPDATE sessions SET state = ?, status = ?, agent = ?, topic = ?, updated_at = ?, updated_sort = ?, "
    "ntype = ?, scope = ?, project = ? WHERE sid = ?"
)


def _marks(values: Sequence[object]) -> str:
    """SQL placeholders for values."""
    return ",".join("?" * len(values))


def _session_row(info: SessionInfo) -> tuple[object, ...]:
    """The sessions table's attribute columns of a session."""
    return (
        info.state,
        info.status,
        info.agent,
        info.topic,
        info.updated_at,
        info.updated_sort,
        info.note_type,
        info.scope,
        info.project,
    )


def _loads(value: object) -> Any:
    """A marshalled meta value (None when absent or unreadable)."""
    if not isinstance(value, bytes):
        return None
    try:
        return marshal.loads(value)
    except (EOFError, ValueError, TypeError):
        return None


def _set_meta(con: sqlite3.Connection, **values: object) -> None:
    """Store meta values."""
    con.executemany("INSERT OR REPLACE INTO meta(name, value) VALUES (?, ?)", values.items())
