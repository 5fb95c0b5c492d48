"""Writing a new search cache in one pass: each session's records and documents as read, then their FTS entries.

A full build used to add every document, then ask FTS5 to `rebuild` and `optimize` its index
(4.1 s and 1.1 s of a 10 s build at 100k rows, and `rebuild` grows faster than the corpus: 46 s
at 1M rows). FTS5 indexes documents fastest in rowid order, in one transaction: it then only
appends to its in-memory terms and writes a segment when they fill up; a rowid lower than the
last one makes it write what it holds first, and so does the start of any statement that takes
a statement journal (an `INSERT ... SELECT`, a trigger's insert). So the documents are written to
the docs table as read, a batch at a time, and FTS5 is fed once, at the end, by one `INSERT INTO
fts SELECT id, ftext FROM docs`: every document in rowid order, and no text bound a second time
from Python (see FEED). A session's files (its snapshot, its archived copy) are read when its
first row is read, so that its records and documents (id = session << 20 | weight << 16 |
number) are written together. The sessions table is filled from the records in hand, never by a
second pass over them.
"""

from __future__ import annotations

import sqlite3
import zlib
from array import array
from collections.abc import Callable, Iterable
from typing import Any

from ..formats.layout import INDEX
from .docs import LIVE, ROW, SESSION, TIME_RE, Record, facts, resolve, sort_time, source_of
from .parse import CELL_WEIGHTS, iter_lines, records, row_values, table_of, values_record

SID_SHIFT, WEIGHT_SHIFT, SEQ_MASK = 20, 16, 0xFFFF  # as cache.py's (a document id's parts)
BATCH = 2000  # sessions written at a time
FTS_HASHSIZE = (
    16 << 20
)  # bytes of pending FTS terms before a segment is written (SQLite default 1 MiB; 64 MiB: no faster)
# FTS5 merges its segments as it writes them (automerge, default 4): a build sets it to 0, so each segment of
# pending terms is written once and left (FTS5's crisis merge still bounds a level at 16 segments; at 100k rows
# the build ends with 6-7 either way), and sets the default again for the refreshes' small writes. At 100k rows
# FTS5's work 2.4-2.7 s -> 1.8 s, and a cache of 147 -> 133 MiB (the merges' freed pages).
AUTOMERGE = 4
ROW_CELLS = tuple((column, min(weight, 15) << WEIGHT_SHIFT) for column, weight in CELL_WEIGHTS.items())  # weight bits
SESSION_COLUMNS = "sid, kind, key, state, status, agent, topic, updated_at, updated_sort, ntype, scope, project"
RECORD_COLUMNS = (
    "id, sid, kind, key, state, source, path, status, agent, topic, updated_at, fingerprint, ntype, scope, project"
)


def _sql(text: str) -> str:
    """A constant as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


# A lone row's session and record (most rows of a root) hold the same kind, state, source and path: written as
# constants of the statement, 7 and 8 values are bound for them instead of 12 and 15 (at 20k rows of root b the
# two tables' inserts take 0.90 -> 0.68 G instructions)
LONE_SESSION = f"INSERT INTO sessions({SESSION_COLUMNS}) VALUES (?,{_sql(SESSION)},?,{_sql(LIVE)},?,?,?,?,?,'','','')"
LONE_RECORD = (
    f"INSERT INTO records({RECORD_COLUMNS}) "
    f"VALUES (?,?,{_sql(SESSION)},?,{_sql(LIVE)},{_sql(ROW)},{_sql(INDEX)},?,?,?,?,?,'','','')"
)
# FTS5 is fed every document at the end, in one statement (module docstring): at 20k rows of root b, 4.10 G
# instructions for the docs table and FTS5 -> 3.61 G (binding each text again per batch, before)
FEED = "INSERT INTO fts(rowid, ftext) SELECT id, ftext FROM docs"


class BulkWriter:
    """Adds the records of a new cache, a session at a time (see the module docstring)."""

    def __init__(self, con: sqlite3.Connection, say: Callable[[str], None]):
        """Write through con, inside its open transaction."""
        self.con = con
        self.say = say
        self.sids: dict[tuple[str, str], int] = {}
        self.seq: dict[int, int] = {}  # a session's next document number
        self.again: set[int] = set()  # sessions met a second time: their attributes are computed from the table
        self.records: list[tuple[Any, ...]] = []
        self.docs: list[tuple[Any, ...]] = []
        self.sessions: list[tuple[Any, ...]] = []
        self.lone_sessions: list[tuple[Any, ...]] = []  # (see LONE_SESSION)
        self.lone_records: list[tuple[Any, ...]] = []
        self.next_record = 1
        self.count = 0
        con.execute(f"INSERT INTO fts(fts, rank) VALUES('hashsize', {FTS_HASHSIZE})")
        con.execute("INSERT INTO fts(fts, rank) VALUES('automerge', 0)")  # (see AUTOMERGE)

    def session(self, recs: list[Record]) -> None:
        """Add the records of one session (all with the same kind and key), its documents in id order."""
        kind, key = recs[0].kind, recs[0].key
        sid = self.sids.get((kind, key))
        if sid is None:
            sid = self.sids[(kind, key)] = len(self.sids) + 1
            if len(recs) == 1:  # (most sessions: what resolve() makes of one record)
                r = recs[0]
                row = (r.state, r.status, r.agent, r.topic, r.updated_at, sort_time(r.updated_at), *r[11:])
            else:
                info = resolve(kind, key, (facts(r) for r in recs))
                row = info[2:] if info else ("",) * 9
            self.sessions.append((sid, kind, key, *row))
        else:
            self.again.add(sid)
        number = self.seq.get(sid, 0)
        docs = []
        for rec in recs:
            rid = self.next_record
            self.next_record += 1
            self.records.append((rid, sid, *rec[:9], rec.fingerprint, *rec[11:]))
            for doc in rec.docs:
                if number <= SEQ_MASK:
                    docs.append(
                        (sid << SID_SHIFT | min(doc.weight, 15) << WEIGHT_SHIFT | number, rid, *doc[:2], doc[3])
                    )
                number += 1
            self.count += 1
        self.seq[sid] = number
        docs.sort()
        self.docs += docs
        if len(self.sessions) + len(self.lone_sessions) >= BATCH or len(self.records) + len(self.lone_records) >= BATCH:
            self.flush()
            self.say(f"search cache: {self.count:,} sources read")

    def lone_row(self, values: list[str], fingerprint: int, source: tuple[str, str]) -> bool:
        """Add an index row of a session met for the first time and holding no file, from its row_values and its
        source (SESSION, its ID); what session() makes of its one record, without the record (most rows of a root).
        False, adding nothing, when the session was met before."""
        sids = self.sids
        if source in sids:
            return False
        sid = sids[source] = len(sids) + 1
        key, status, agent, topic, updated = values[0], values[-2], values[4], values[1], values[-1]
        when = updated if TIME_RE.fullmatch(updated) else sort_time(updated)  # (a cell is stripped: sort_time's test)
        self.lone_sessions.append((sid, key, status, agent, topic, updated, when))
        rid = self.next_record
        self.next_record = rid + 1
        self.lone_records.append((rid, sid, key, status, agent, topic, updated, fingerprint))
        low, number, docs = sid << SID_SHIFT, 0, []
        for text, (column, bits) in zip(values, ROW_CELLS):
            if text and text != "-":
                docs.append((low | bits | number, rid, ROW, column, text))
                number += 1
        docs.sort()
        self.docs += docs
        self.seq[sid] = number
        self.count += 1
        if len(self.records) + len(self.lone_records) >= BATCH:  # (a batch holds at least as many records as sessions)
            self.flush()
            self.say(f"search cache: {self.count:,} sources read")
        return True

    def flush(self) -> None:
        """Write what is queued: records, documents, new sessions (FTS5 reads the documents in finish())."""
        con = self.con
        con.executemany(f"INSERT INTO sessions({SESSION_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", self.sessions)
        con.executemany(LONE_SESSION, self.lone_sessions)
        con.executemany(f"INSERT INTO records({RECORD_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", self.records)
        con.executemany(LONE_RECORD, self.lone_records)
        con.executemany("INSERT INTO docs(id, record, place, section, text) VALUES (?,?,?,?,?)", self.docs)
        self.records, self.docs, self.sessions, self.lone_sessions, self.lone_records = [], [], [], [], []

    def finish(self) -> None:
        """Write the rest; index every document in FTS5; recompute the sessions met more than once from all their
        records; merge as FTS5 does by default from here on (the refreshes' small writes)."""
        self.flush()
        self.say(f"search cache: indexing {self.count:,} sources")
        self.con.execute(FEED)
        self.con.execute(f"INSERT INTO fts(fts, rank) VALUES('automerge', {AUTOMERGE})")
        sql = "SELECT kind, key, state, source, status, agent, topic, updated_at, ntype, scope, project FROM records WHERE sid = ?"
        for sid in sorted(self.again):
            rows = self.con.execute(sql, (sid,)).fetchall()
            info = resolve(rows[0][0], rows[0][1], (r[2:] for r in rows))
            if info is not None:
                self.con.execute(
                    "UPDATE sessions SET state = ?, status = ?, agent = ?, topic = ?, updated_at = ?, "
                    "updated_sort = ?, ntype = ?, scope = ?, project = ? WHERE sid = ?",
                    (*info[2:], sid),
                )


def build_records(
    writer: BulkWriter, base: str, data: bytes, files: Iterable[str], unreadable: dict[str, str]
) -> tuple[tuple[str, ...], array[int]]:
    """Add every row of index bytes with the files of its session, then the files of no row; returns the table's
    columns and each row line's CRC-32 (the refresh's fingerprints)."""
    by_key: dict[tuple[str, str], list[str]] = {}
    loose: list[str] = []
    for path in sorted(files):
        source = source_of(path)
        if source is None:
            loose.append(path)  # (read all the same: records() decides, as a refresh does)
        else:
            by_key.setdefault(source, []).append(path)
    columns, start, end = table_of(data)
    crcs = array("I")
    for line in iter_lines(data, start, end):
        crc = zlib.crc32(line)
        crcs.append(crc)
        values = row_values(line, columns)
        if not values[0]:
            continue
        source = (SESSION, values[0])
        paths = by_key.pop(source, None)
        if paths or not writer.lone_row(values, crc, source):
            group = [values_record(values, crc)]
            if paths:
                _add_files(writer, base, paths, unreadable, group, source)
            else:
                writer.session(group)
    for source, paths in by_key.items():
        _add_files(writer, base, paths, unreadable, [], source)
    _add_files(writer, base, loose, unreadable, [])
    writer.finish()
    return columns, crcs


def _add_files(
    writer: BulkWriter,
    base: str,
    paths: list[str],
    unreadable: dict[str, str],
    group: list[Record],
    source: tuple[str, str] | None = None,
) -> None:
    """Add the records of these files (all of source, when given) with those in group: together when they are one
    session's, else each apart."""
    for _path, rec in records(base, paths, unreadable, source):
        if rec is None:
            continue
        if group and (rec.kind, rec.key) != (group[0].kind, group[0].key):
            writer.session([rec])
        else:
            group.append(rec)
    if group:
        writer.session(group)
