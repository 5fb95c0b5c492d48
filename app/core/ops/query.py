"""Read-only views: list rows, show one session, walk its reference chain."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Literal

from ..errors import MemboardError, Unreadable, UsageError
from ..files.root import MemoryRoot
from ..formats import clock
from ..formats.ids import check_id, is_valid_id
from ..formats.index import STATUSES, IndexFile, Row, parse_refs, readable_rows
from ..formats.layout import INDEX, archive_index_path, archive_session_path, session_path
from ..formats.markers import marker_warning
from ..formats.snapshot import Snapshot
from ..formats.sources import continues_from
from ..formats.text import unescape
from ..results import ChainNode, ChainState, ChainView, RowView, SessionView
from .common import load_index, unknown_session

Direction = Literal["up", "down"]


def clean(text: str) -> str:
    """Text safe to print or dump as JSON: bytes that were not UTF-8 become U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")  # no stand-in for an undecodable byte (the usual case): the text as it is
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


VIEWED = ("agent", "topic", "summary", "keywords", "status", "referenced_by", "started_at", "updated_at")


def _utf8(text: str) -> bool:
    """Whether text encodes as UTF-8 (holds no stand-in for a byte that was not UTF-8)."""
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def row_view(row: Row, has_snapshot: bool) -> RowView:
    """A row of the index as the views show it."""
    if row.known is None and row.problem is None:  # (a row read at its pipes: its cells in one step)
        fields, cells = row.fields, row.raw_cells
        if all(name in fields for name in VIEWED):
            raw = [cells[fields[name]] for name in VIEWED]
            joined = "".join(raw)
            if joined.isascii() or _utf8(joined):  # no stand-in for an undecodable byte: the cells as they are
                if "\\" in joined:
                    raw = [unescape(cell) for cell in raw]
                agent, topic, summary, keywords, status, refs, started, updated = raw
                return RowView(
                    row.id,
                    agent,
                    topic,
                    summary,
                    keywords,
                    status,
                    parse_refs(refs),
                    started,
                    updated,
                    row.line + 1,
                    None,
                    has_snapshot,
                )
    return RowView(
        id=clean(row.id),
        agent=clean(row.get("agent")),
        topic=clean(row.get("topic")),
        summary=clean(row.get("summary")),
        keywords=clean(row.get("keywords")),
        status=clean(row.get("status")),
        referenced_by=[clean(r) for r in row.refs],
        started_at=clean(row.get("started_at")),
        updated_at=clean(row.get("updated_at")),
        line=row.line + 1,
        problem=clean(row.problem) if row.problem is not None else None,
        has_snapshot=has_snapshot,
    )


def archived_row_view(meta: dict[str, str], has_snapshot: bool) -> RowView:
    """An archive index's Metadata table as a row view, with its `Archived At`."""
    meta = {k: clean(v) for k, v in meta.items()}
    return RowView(
        id=meta.get("Session ID", ""),
        agent=meta.get("Agent Name", ""),
        topic=meta.get("Topic", ""),
        summary=meta.get("Summary", ""),
        keywords=meta.get("Keywords", ""),
        status=meta.get("Original Status", ""),
        referenced_by=parse_refs(meta.get("Referenced By", "")),
        started_at=meta.get("Started At", ""),
        updated_at=meta.get("Updated At", ""),
        line=None,
        problem=None,
        has_snapshot=has_snapshot,
        archived_at=meta.get("Archived At", ""),
    )


def missing_index_warning(root: MemoryRoot) -> list[str]:
    """The warning of a view of a root whose index.md is missing while sync-conflict copies of it hold its rows
    (rclone bisync renames both versions): no empty memory shown silently."""
    from ..files.copies import index_copies  # lazy: only a root without index.md looks for its copies

    copies = index_copies(root)
    if not copies:
        return []
    names = ", ".join(c.path for c in copies)
    return [
        f"warning: index.md is missing, and sync-conflict copies of it hold its rows ({names}): "
        "run `memboard doctor --fix` to merge them"
    ]


def viewed_rows(root: MemoryRoot, warnings: list[str] | None) -> Iterable[Row]:
    """The index's rows for viewing, streamed, read through any merge-conflict markers, which add a
    warning to warnings (before the first row is read)."""
    read = root.read(INDEX)
    if read is None and warnings is not None:
        warnings += missing_index_warning(root)
    data = read or b""
    index = IndexFile(data)
    markers = index.conflict_lines
    if not markers:
        outside = index.outside  # (rows an agent appended below text under the table: listed with their problem)
        return itertools.chain(index.iter_rows(), outside) if outside else index.iter_rows()
    if warnings is not None:
        warnings.append(marker_warning(markers))
    return readable_rows(data, markers)


def viewed_session(
    root: MemoryRoot, warnings: list[str] | None, session_id: str, index: IndexFile | None = None
) -> list[Row]:
    """The rows of session_id for viewing (read through merge-conflict markers, as viewed_rows); index: index.md
    as the caller read it (None: read it now)."""
    if index is None:
        index = IndexFile(root.read(INDEX) or b"")
    markers = index.conflict_lines
    if not markers:
        return index.find(session_id)
    if warnings is not None:
        warnings.append(marker_warning(markers))
    return [r for r in readable_rows(index.data, markers) if r.id == session_id]


def iter_row_views(root: MemoryRoot, status: str | None = None, warnings: list[str] | None = None) -> Iterator[RowView]:
    """Rows of the index (optionally of one status), one at a time: a large index streams through in
    little memory. Bad usage is refused and warnings are collected before the first row comes."""
    if status is not None and status not in STATUSES:
        raise UsageError(f"unknown status {status!r}: use idle, active or stale")
    rows = viewed_rows(root, warnings)
    snaps = root.session_ids_on_disk()
    return (row_view(r, r.id in snaps) for r in rows if status is None or r.status == status)


def listed_index(root: MemoryRoot, status: str | None = None) -> IndexFile | None:
    """The index when its rows can be listed from their lines' text (a table with the ID and every viewed column,
    no merge-conflict markers), else None (iter_row_views lists them); checks status as iter_row_views does (an
    index it takes gives no warning: iter_row_views warns only of a missing index and of conflict markers)."""
    if status is not None and status not in STATUSES:
        raise UsageError(f"unknown status {status!r}: use idle, active or stale")
    read = root.read(INDEX)
    if read is None:
        return None
    index = IndexFile(read)
    if not index.has_table or index.conflict_lines:
        return None
    fields, _ = index.line_reader()
    if not all(name in fields for name in ("id", *VIEWED)):
        return None
    return index


def list_rows(root: MemoryRoot, status: str | None = None, warnings: list[str] | None = None) -> list[RowView]:
    """Rows of the index (optionally of one status); warnings collects what the reader should know."""
    return list(iter_row_views(root, status, warnings))


def show(
    root: MemoryRoot, session_id: str, warnings: list[str] | None = None, index: IndexFile | None = None
) -> SessionView:
    """One session: its row (live or archived), snapshot text and metadata (index: index.md as the caller read it;
    None: read it now)."""
    check_id(session_id)
    rows = viewed_session(root, warnings, session_id, index)
    if rows:
        data = root.read(session_path(session_id))
        return SessionView(
            session_id,
            archived=False,
            row=row_view(rows[0], data is not None),
            duplicates=len(rows) - 1,
            snapshot_path=session_path(session_id) if data is not None else None,
            snapshot=data.decode("utf-8", "replace") if data is not None else None,
        )
    meta = root.read(archive_index_path(session_id))
    if meta is not None:
        data = root.read(archive_session_path(session_id))
        return SessionView(
            session_id,
            archived=True,
            row=archived_row_view(Snapshot(meta).metadata(), data is not None),
            duplicates=0,
            snapshot_path=archive_session_path(session_id) if data is not None else None,
            snapshot=data.decode("utf-8", "replace") if data is not None else None,
        )
    raise unknown_session(session_id, "not in index.md nor archive/", root)


def list_archived(root: MemoryRoot) -> list[RowView]:
    """Every archived session (a folder under archive/ named by a Session ID) as a row view from its
    metadata, last archived first; a folder whose metadata is missing or unreadable is listed with `problem`."""
    out = []
    for sid in root.archived_ids():
        if not is_valid_id(sid):
            continue
        problem: str | None = None
        try:
            meta = root.read(archive_index_path(sid))
            has_snapshot = root.exists(archive_session_path(sid))
        except MemboardError as exc:
            meta, has_snapshot, problem = None, False, str(exc)
        if meta is None and problem is None:
            problem = f"no {archive_index_path(sid)}"
        fields = Snapshot(meta).metadata() if meta is not None else {}
        out.append(archived_row_view(fields, has_snapshot)._replace(id=sid, problem=problem))
    out.sort(key=_archived_order, reverse=True)
    return out


def _archived_order(row: RowView) -> tuple[datetime, str]:
    """Sort key of an archived row: when it was archived (unknown: before everything), then its ID."""
    return clock.parse(row.archived_at or "") or datetime.min, row.id


class FoundRows(Mapping[str, Row]):
    """The well-formed rows of an index by Session ID (the last one where an ID repeats), each found when first
    asked for (`IndexFile.find`, a search of the bytes) rather than by parsing every row: a chain visits a few
    sessions of 100k. Past FIND_LIMIT look-ups every row is read once instead (a chain of thousands of sessions)."""

    FIND_LIMIT = 64

    def __init__(self, index: IndexFile):
        """The rows of index, none looked up yet."""
        self.index = index
        self.found: dict[str, Row | None] = {}
        self.every: dict[str, Row] | None = None

    def _row(self, sid: str) -> Row | None:
        """sid's row, None when it has none."""
        if self.every is not None:
            return self.every.get(sid)
        if sid not in self.found:
            if len(self.found) >= self.FIND_LIMIT:
                self.every = {r.id: r for r in self.index.iter_rows() if not r.problem}
                return self.every.get(sid)
            rows = [r for r in self.index.find(sid) if not r.problem]
            self.found[sid] = rows[-1] if rows else None
        return self.found[sid]

    def __getitem__(self, sid: str) -> Row:
        """sid's row; KeyError when it has none."""
        row = self._row(sid) if isinstance(sid, str) else None
        if row is None:
            raise KeyError(sid)
        return row

    def __contains__(self, sid: object) -> bool:
        """Whether sid has a well-formed row."""
        return isinstance(sid, str) and self._row(sid) is not None

    def _all(self) -> dict[str, Row]:
        """Every well-formed row by ID (read once)."""
        if self.every is None:
            self.every = {r.id: r for r in self.index.iter_rows() if not r.problem}
        return self.every

    def __iter__(self) -> Iterator[str]:
        """Every ID with a well-formed row."""
        return iter(self._all())

    def __len__(self) -> int:
        """How many IDs have a well-formed row."""
        return len(self._all())


class Graph:
    """The reference graph of a root: live rows, archived sessions, both kinds of link."""

    def __init__(self, root: MemoryRoot, index: IndexFile | None = None):
        """Read the index, snapshots and archive metadata once."""
        self.root = root
        self.index = index or load_index(root)
        self.rows = FoundRows(self.index)
        self.archived = root.archived_ids()
        self._continues: dict[str, list[str]] = {}
        self.unreadable: dict[
            str, Unreadable
        ] = {}  # sessions whose snapshot could not be read: what they list is unknown

    def state(self, sid: str) -> ChainState:
        """`live`, `archived` or `missing`."""
        if sid in self.rows:
            return "live"
        if sid in self.archived:
            return "archived"
        return "missing"

    def continues_from(self, sid: str) -> list[str]:
        """Sources listed in sid's snapshot (live or archived); none known when it cannot be read (noted in
        `unreadable`: the chain marks that session instead of showing it without sources)."""
        if sid not in self._continues:
            data = None
            try:
                if sid in self.rows:
                    data = self.root.read(session_path(sid))
                elif sid in self.archived:
                    data = self.root.read(archive_session_path(sid))
            except Unreadable as exc:
                self.unreadable[sid] = exc
            except MemboardError:  # a folder where the snapshot belongs: it lists nothing
                data = None
            self._continues[sid] = continues_from(data) if data else []
        return self._continues[sid]

    def why_unread(self, sid: str) -> str | None:
        """Why sid's snapshot could not be read (None when it was, or was not asked for)."""
        exc = self.unreadable.get(sid)
        return exc.reason if exc is not None else None

    def referenced_by(self, sid: str) -> list[str]:
        """Referencing sessions listed on sid's row."""
        row = self.rows.get(sid)
        return row.refs if row else []

    def node(self, sid: str, direction: Direction, path: tuple[str, ...]) -> ChainNode:
        """A chain node with its children in one direction, marking cycles and one-sided links."""
        row = self.rows.get(sid)
        topic = clean(row.get("topic")) if row else None
        status = row.status if row else None
        if sid in path:
            return ChainNode(sid, self.state(sid), topic, status, cycle=True)
        path = path + (sid,)
        children = []
        if direction == "up":
            for src in self.continues_from(sid):
                child = self.node(src, "up", path)
                one_sided = child.state == "live" and sid not in self.referenced_by(src)
                children.append(child._replace(one_sided=one_sided))
        else:
            for ref in self.referenced_by(sid):
                child = self.node(ref, "down", path)
                listed = sid in self.continues_from(ref) or ref in self.unreadable  # (unknown: not called one-sided)
                one_sided = child.state != "missing" and not listed
                children.append(child._replace(one_sided=one_sided, unreadable=self.why_unread(ref)))
        return ChainNode(sid, self.state(sid), topic, status, children=tuple(children), unreadable=self.why_unread(sid))


def chain(root: MemoryRoot, session_id: str, index: IndexFile | None = None) -> ChainView:
    """sid's ancestors (Continues From, recursively) and descendants (Referenced By); a session whose snapshot cannot
    be read is marked (its sources unknown); sid's own refuses (Unreadable). index: index.md as the caller read it
    (None: read it now)."""
    check_id(session_id)
    graph = Graph(root, index)
    state = graph.state(session_id)
    if state == "missing":
        raise unknown_session(session_id, "not in index.md nor archive/", root)
    up = graph.node(session_id, "up", ())
    if session_id in graph.unreadable:  # its own sources are unknown: one line, as show says it
        raise graph.unreadable[session_id]
    down = graph.node(session_id, "down", ())
    return ChainView(session_id, state, up.status, up.topic, up.children, down.children)
