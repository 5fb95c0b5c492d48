"""Reading a memory root for the board: the model, file signatures for the watcher, revisions,
and the notices of its banner (read-only root, merge-conflict markers, sync-conflict copies to merge, the
cells their merge left open, a file with too many copies).

No Textual here: the App calls these from worker threads and posts the results back.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Container
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from memboard.widgets.panes import PaneMerge, PaneRevision, PaneSnapshot, PolicyBreak, SectionDiff
from memboard.widgets.rows import BoardRow, printable

from ..core.errors import MemboardError, Unreadable
from ..core.files import revisions
from ..core.files.copies import ConflictCopy, find_copies
from ..core.files.regular import read_regular
from ..core.files.root import MemoryRoot
from ..core.files.settle import whole
from ..core.formats.index import IndexFile, readable_rows
from ..core.formats.layout import ARCHIVE, INDEX, NOTES, SESSIONS, session_path
from ..core.formats.markers import has_block_marker, line_list
from ..core.formats.snapshot import LIST_MARK_RE, Snapshot, vanished
from ..core.results import Finding
from .model import BoardModel, IndexSource

HEAD_BYTES = 64 * 1024  # a first, partial read paints the screen before a huge index is parsed
PANE_WINDOW = 8  # revisions the pane's view is prepared for per read: the newest first, older ones on demand


def snapshot_ids(root: MemoryRoot) -> set[str]:
    """IDs that have a snapshot under sessions/."""
    return root.session_ids_on_disk()


def read_model(
    root: MemoryRoot,
    now: datetime,
    data: bytes | None = None,
    previous: BoardModel | None = None,
    missing: bool = False,
) -> BoardModel:
    """The whole index as a board model (reusing previous's rows before the first change); missing says
    index.md does not exist (data is then empty)."""
    if data is None:
        data = root.read(INDEX)
        missing = data is None
        data = data or b""
    model = _read_model(root, now, data, previous)
    model.missing = missing
    return model


def _read_model(root: MemoryRoot, now: datetime, data: bytes, previous: BoardModel | None) -> BoardModel:
    """read_model's parse: reuse previous's rows where the bytes allow it, else parse them all."""
    snaps = snapshot_ids(root)
    if previous is not None:
        model = reread(previous, data, snaps, now)
        if model is not None:
            return model
    index = IndexFile(data)
    if not index.conflict_lines:
        return BoardModel.from_index(index, snaps, now)
    # a merge conflict: both sides' rows and those past it, read through the markers (the banner says so)
    rows = readable_rows(data, index.conflict_lines)
    model = BoardModel([BoardRow.from_row(r, r.values.get("id", "") in snaps) for r in rows], now)
    model.markers = list(index.conflict_lines)
    return model


def common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix of two byte strings (chunked, then bisected)."""
    n = min(len(a), len(b))
    chunk = 1 << 16
    i = 0
    while i < n and a[i : i + chunk] == b[i : i + chunk]:
        i += chunk
    if i >= n:
        return n
    lo, hi = i, min(i + chunk, n)  # a[:lo] == b[:lo]; they differ before hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo if a[lo : lo + 1] != b[lo : lo + 1] else hi


def reread(previous: BoardModel, data: bytes, snaps: set[str], now: datetime) -> BoardModel | None:
    """A model for new bytes that reuses the rows before the first changed line.

    Applies when the change starts inside the table (or right after its last row): the
    changed tail is parsed under the same header and its line numbers shifted. A hook's
    append then costs one line, not the whole file. None when a full parse is needed.
    """
    source = previous.source
    if source is None or not previous.complete or source.header_line is None:
        return None
    old = source.data
    if old == data:
        for r in previous.rows:
            r.has_snapshot = r.id in snaps
        model = BoardModel(previous.rows, now, True, list(previous.problems))
        model.source = source
        return model
    p = common_prefix(old, data)
    first_line = old.count(b"\n", 0, p)
    if first_line < source.header_line + 2 or first_line > source.table_end:
        return None
    start = old.rfind(b"\n", 0, p) + 1 if first_line else 0
    tail = IndexFile(source.prelude + data[start:])
    if tail.header_line != 0 or tail.conflict_lines:
        return None
    shift = first_line - 2
    kept = [r for r in previous.rows if r.line < first_line]
    for r in kept:
        r.has_snapshot = r.id in snaps
    fresh = [
        BoardRow.from_row(replace(r, line=r.line + shift), r.values.get("id", "") in snaps)
        for r in tail.rows + tail.outside  # (outside: rows below text under the table, see IndexFile.outside)
    ]
    model = BoardModel(kept + fresh, now, True, list(previous.problems))
    model.source = IndexSource(data, source.header_line, tail.table_end + shift, source.prelude)
    return model


def read_head(data: bytes, root: MemoryRoot, now: datetime) -> BoardModel | None:
    """A partial model from the first HEAD_BYTES of a large index (None when the file is small)."""
    if len(data) <= HEAD_BYTES * 2:
        return None
    cut = data.rfind(b"\n", 0, HEAD_BYTES)
    if cut < 0:
        return None
    return BoardModel.from_index(IndexFile(data[: cut + 1]), snapshot_ids(root), now, complete=False)


Signature = tuple[int, int]


def _signature(path: str) -> Signature | None:
    """(mtime_ns, size) of a file, None when it is missing."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


@dataclass
class FileWatch:
    """Signatures of index.md and every snapshot, compared on each poll."""

    root: MemoryRoot
    index: Signature | None = None
    snapshots: dict[str, Signature] = field(default_factory=dict)

    def scan(self) -> tuple[Signature | None, dict[str, Signature]]:
        """Current signatures of the index and of sessions/*.md."""
        index = _signature(str(self.root.path / INDEX))
        snaps: dict[str, Signature] = {}
        folder = self.root.path / SESSIONS
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.name.endswith(".md"):
                        try:
                            st = entry.stat()
                        except OSError:
                            continue
                        snaps[entry.name[:-3]] = (st.st_mtime_ns, st.st_size)
        except OSError:
            pass
        return index, snaps

    def prime(self) -> None:
        """Take the current state as seen."""
        self.index, self.snapshots = self.scan()

    def changes(self) -> tuple[bool, set[str]]:
        """Whether the index changed and which snapshots changed (added, modified or removed)."""
        index, snaps = self.scan()
        index_changed = index != self.index
        changed = {sid for sid in set(snaps) | set(self.snapshots) if snaps.get(sid) != self.snapshots.get(sid)}
        self.index, self.snapshots = index, snaps
        return index_changed, changed


SYNC_KINDS = frozenset({"sync_conflict_copy", "conflict_cell", "too_many_copies", "conflict_markers"})
"""Doctor's findings the banner names (issue 26 §6): the copies to merge, their open cells, too many copies, and
the conflict blocks git (its merge driver) left in a snapshot, an archive file or a note beside them."""
OPEN_LINES = 5  # open cells named one a line; past this many, one line counts the rest


def extra_of(finding: Finding, key: str) -> str | None:
    """One of a finding's extra `doctor --json` keys (None when it has none such)."""
    return dict(finding.extra).get(key)


@dataclass
class Notices:
    """What the board's banner says about the root; each kind has one line (open cells: one each)."""

    read_only: str | None = None
    markers: list[int] = field(default_factory=list)
    copies: list[ConflictCopy] = field(default_factory=list)
    saving: bool = False  # index.md read empty a moment after it held rows: a save caught half-way
    sync: list[Finding] = field(default_factory=list)
    """Doctor's findings about the copies (SYNC_KINDS), read while there is a copy."""
    missing: list[str] = field(default_factory=list)
    """Originals that are gone while copies of them are there (rclone bisync renames both versions away)."""

    def open_cells(self) -> list[Finding]:
        """The conflict_cell findings: cells a merge left open, decided with R (resolve)."""
        return [f for f in self.sync if f.kind == "conflict_cell"]

    def to_merge(self) -> list[str]:
        """The copies doctor merges (paths): every copy, less those only waiting for resolve (their open cells are
        named instead: doctor has nothing else to do with them)."""
        waiting = {extra_of(f, "path") for f in self.open_cells()}
        found = {extra_of(f, "path"): f.fix for f in self.sync if f.kind == "sync_conflict_copy"}
        paths = sorted({c.path for c in self.copies} | {path for path in found if path})
        return [path for path in paths if path not in waiting or found.get(path)]

    def original_of(self, path: str) -> str:
        """The file a copy is of (the copy's own path when it is not known)."""
        for f in self.sync:
            if f.kind == "sync_conflict_copy" and extra_of(f, "path") == path:
                return extra_of(f, "of") or f.subject or path
        return next((c.original for c in self.copies if c.path == path), path)

    def lines(self) -> list[tuple[str, str]]:
        """(severity, text) per notice: `error` when changes are refused, `warning` otherwise."""
        out = []
        if self.saving:
            out.append(("warning", "index.md is being saved…: its last rows are shown until it is whole again"))
        if self.read_only:
            out.append(("error", f"read-only: {self.read_only}; changes are refused, nothing is written"))
        if self.markers:
            text = f"index.md has merge-conflict markers ({line_list(self.markers)}): both sides shown; "
            out.append(("error", text + "changes refused until resolved (R: resolve)"))
        for original in self.missing:
            n = sum(1 for c in self.copies if c.original == original)
            held = "1 sync-conflict copy holds" if n == 1 else f"{n} sync-conflict copies hold"
            out.append(("warning", f"{original} is missing: {held} it (d: doctor restores it from them)"))
        merge = self.to_merge()
        if merge:
            noun = "copy" if len(merge) == 1 else "copies"
            out.append(("warning", f"{len(merge)} sync-conflict {noun} to merge (d: doctor)"))
        for f in self.sync:
            if f.kind == "too_many_copies":
                out.append(("warning", self.too_many(f)))
        cells = self.open_cells()
        for f in cells[: OPEN_LINES if len(cells) > OPEN_LINES + 1 else len(cells)]:
            original = self.original_of(extra_of(f, "path") or "")
            out.append(("warning", f"{original}: open conflict: {f.id} {extra_of(f, 'column') or ''} (R: resolve)"))
        if len(cells) > OPEN_LINES + 1:
            out.append(("warning", f"… and {len(cells) - OPEN_LINES} more open conflicts (R: resolve)"))
        for f in self.sync:
            if f.kind == "conflict_markers" and f.subject:
                out.append(("warning", f"{f.subject} has merge-conflict markers: both sides kept (R: resolve)"))
        return out

    def too_many(self, finding: Finding) -> str:
        """The warning of a file with 8 or more copies: Syncthing deletes the oldest beyond 10."""
        original = extra_of(finding, "of") or finding.subject or extra_of(finding, "path") or finding.id or "a file"
        found = sum(1 for f in self.sync if f.kind == "sync_conflict_copy" and extra_of(f, "of") == original)
        count = found or sum(1 for c in self.copies if c.original == original)
        many = f"{count} sync-conflict copies" if count else "8 or more sync-conflict copies"
        return f"{original} has {many}: Syncthing deletes copies beyond 10, merge them now (d: doctor)"


def read_notices(
    root: MemoryRoot, model: BoardModel, copies: list[ConflictCopy], sync: list[Finding] | None = None
) -> Notices:
    """The banner's notices: the root's writability (probed now), the model's conflict markers, the copies found
    (and those whose original is gone) and doctor's findings about them."""
    missing = sorted({c.original for c in copies if not root.exists(c.original) and not _archived_since(root, c)})
    return Notices(root.read_only_reason(), list(model.markers), list(copies), sync=list(sync or []), missing=missing)


def _archived_since(root: MemoryRoot, copy: ConflictCopy) -> bool:
    """Whether a copy's snapshot is gone because its session was archived (doctor folds the copy into the archive)."""
    sid = copy.original.removeprefix(f"{SESSIONS}/").removesuffix(".md")
    return copy.original.startswith(f"{SESSIONS}/") and root.exists(f"{ARCHIVE}/{sid}")


def sync_findings(root: MemoryRoot) -> list[Finding]:
    """Doctor's findings about the root's copies (SYNC_KINDS): read only while there is a copy (a whole doctor pass)."""
    from ..core.ops.doctor import diagnose  # lazy: doctor's checks load only once a copy is seen

    try:
        found, _ = diagnose(root)
    except (OSError, MemboardError):  # an unreadable file: the copies' own line still shows
        return []
    return [f for f in found if f.kind in SYNC_KINDS]


def _note_files(top: Path) -> tuple[list[str], list[str]]:
    """(the folders, the Markdown files) under notes/, relative to the root; symlinked folders are not followed."""
    folders: list[str] = []
    files: list[str] = []
    for folder, dirs, names in os.walk(top / NOTES, onerror=lambda _: None):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(folder, d)))
        rel = os.path.relpath(folder, top).replace(os.sep, "/")
        folders += [f"{rel}/{d}" for d in dirs]
        files += [f"{rel}/{name}" for name in sorted(names) if name.endswith(".md")]
    return folders, files


def _holds_blocks(root: MemoryRoot, rel: str) -> bool:
    """Whether a file holds a conflict block's marker (a file that cannot be read holds none the banner can name)."""
    try:  # (a regular file only, no symlink followed: a FIFO or a device must never block the board)
        data = read_regular(root.path / rel, follow=False)
    except OSError:
        return False
    return b"<<<<<<<" in data and has_block_marker(data)


class CopyScan:
    """The root's sync-conflict copies, scanned again only when the root, sessions/ or archive/ changed; and
    doctor's findings about them, read again when a copy or index.md changed. Those findings are also read while
    a session archived on one machine is live again from the other (its row or snapshot beside `archive/<id>/`:
    what no time decides there is open, with no copy left to hold it).

    And read while a snapshot, an archive file or a note holds git's conflict blocks (what memboard's merge driver
    leaves of a cell no rule decides), with no copy beside it: those files are looked at again when their folder
    changed (git, the sync tools and memboard replace a file, which changes its folder), and only those whose
    (mtime, size) moved are read.

    A copy that appears inside an archive folder shows at the next change of archive/ or the
    next start (`memboard doctor` always reads every folder).
    """

    def __init__(self, root: MemoryRoot):
        """Scan root on first use."""
        self.root = root
        self.signature: tuple | None = None
        self.copies: list[ConflictCopy] = []
        self.archived: set[str] = set()  # the IDs with a folder under archive/
        self.snapshots: set[str] = set()  # the IDs with a live snapshot
        self.sync_signature: tuple | None = None
        self.sync: list[Finding] = []
        self.note_folders: list[str] = []  # the folders under notes/ at the last scan (a new one changes its parent)
        self.looked: dict[str, tuple[Signature | None, bool]] = {}  # file -> (its signature, holds conflict blocks)
        self.marked: list[str] = []  # the snapshots, archive files and notes that hold conflict blocks

    def _folders(self) -> tuple:
        """(mtime_ns, size) of the folders a copy or a file with conflict blocks can appear in."""
        rels = (".", SESSIONS, ARCHIVE, NOTES, *self.note_folders)
        return tuple(_signature(str(self.root.path / rel)) for rel in rels)

    def stale(self) -> bool:
        """Whether a folder changed since the last scan (never before the first one, which the board's
        first read makes: until then every poll would start a reload of the whole index)."""
        return self.signature is not None and self._folders() != self.signature

    def current(self) -> list[ConflictCopy]:
        """The copies, scanned again when a folder changed (the archived and live snapshots' IDs with them)."""
        signature = self._folders()
        if signature != self.signature:
            try:
                self.copies = find_copies(self.root)
                self.archived = self.root.archived_ids()
                self.snapshots = snapshot_ids(self.root) if self.archived else set()
            except (OSError, MemboardError):  # an unreadable folder: no banner line rather than no board
                self.copies, self.archived, self.snapshots = [], set(), set()
            try:
                self.marked = self._marked()
            except (OSError, MemboardError):  # (as above: no banner line rather than no board)
                self.marked = []
            self.signature = self._folders()  # (the note folders found by this scan are watched from now on)
        return self.copies

    def _marked(self) -> list[str]:
        """The snapshots, archive files and notes holding git's conflict blocks (read again only when changed)."""
        files = [f"{SESSIONS}/{name}" for name in self.root.listdir(SESSIONS) if name.endswith(".md")]
        for sid in self.root.listdir(ARCHIVE):
            files += [f"{ARCHIVE}/{sid}/index.md", f"{ARCHIVE}/{sid}/session.md"]
        self.note_folders, notes = _note_files(self.root.path)
        looked: dict[str, tuple[Signature | None, bool]] = {}
        for rel in files + notes:
            stamp = _signature(str(self.root.path / rel))
            seen = self.looked.get(rel)
            looked[rel] = seen if seen is not None and seen[0] == stamp else (stamp, _holds_blocks(self.root, rel))
        self.looked = looked
        return sorted(rel for rel, (_, blocks) in looked.items() if blocks)

    def findings(self, live: Container[str] = frozenset()) -> list[Finding]:
        """Doctor's findings about the current copies and the archived sessions live again (live: the IDs of the
        index's rows); none while there is neither. Read again when a copy, its original, index.md or the files
        of such a session changed."""
        copies = self.current()
        again = sorted(sid for sid in self.archived if sid in self.snapshots or sid in live)
        if not copies and not again and not self.marked:
            self.sync_signature, self.sync = None, []
            return []
        files = sorted({INDEX, *(c.path for c in copies), *(c.original for c in copies), *self.marked})
        files += [rel for sid in again for rel in (session_path(sid), f"{ARCHIVE}/{sid}/index.md")]
        signature = (self.signature, tuple(_signature(str(self.root.path / rel)) for rel in files))
        if signature != self.sync_signature:
            self.sync = sync_findings(self.root)
            self.sync_signature = signature
        return self.sync


def observe_snapshots(root: MemoryRoot, ids: set[str] | None = None, unsettled: set[str] | None = None) -> set[str]:
    """Record a revision for each snapshot whose settled, non-empty bytes differ from its latest; returns those IDs.

    A snapshot still being saved (an editor's truncate, pause, write back) is no revision: its ID is added to
    unsettled (when given) so that a later poll looks at it again (revisions.record_settled)."""
    recorded, pending = revisions.record_settled(root, snapshot_ids(root) if ids is None else set(ids))
    if unsettled is not None:
        unsettled |= pending
    return recorded


@dataclass
class MergeView:
    """What one merge did: per-section diffs and the items it dropped without a marker."""

    sections: list[SectionDiff]
    breaks: list[tuple[str, str]]


def _section_texts(text: str) -> dict[str, list[str]]:
    """Section name -> its body lines (heading excluded), in file order."""
    snap = Snapshot(text)
    out: dict[str, list[str]] = {}
    for sec in snap.sections:
        out.setdefault(sec.name, [line.rstrip("\r\n") for line in snap.lines[sec.start : sec.end]])
    return out


def merge_view(old: str, new: str) -> MergeView:
    """Diff two revisions section by section (difflib) and list policy breaks (vanished items)."""
    a, b = _section_texts(old), _section_texts(new)
    names = list(b) + [n for n in a if n not in b]
    sections = []
    for name in names:
        before, after = a.get(name, []), b.get(name, [])
        if before == after:
            continue
        diff = [
            line
            for line in difflib.unified_diff(before, after, lineterm="", n=1)
            if not line.startswith(("---", "+++", "@@"))
        ]
        diff = [line for line in diff if line.strip() not in ("", "+", "-")]
        if diff:
            sections.append(SectionDiff(name, diff))
    return MergeView(sections, vanished(old, new))


@dataclass
class SessionDetail:
    """A session's snapshot and revisions as read, and the pane's view of them."""

    session_id: str
    snapshot: str | None
    revisions: list[str]
    pane: PaneSnapshot = field(init=False)

    def __post_init__(self) -> None:
        """Start with no revision prepared for the pane (load_detail prepares the newest)."""
        self.pane = PaneSnapshot(self.session_id, len(self.revisions))

    def merge(self, position: int) -> MergeView | None:
        """The merge that produced revision `position` (None for the first one)."""
        if position <= 0 or position >= len(self.revisions):
            return None
        return merge_view(self.revisions[position - 1], self.revisions[position])

    def window(self, position: int) -> range:
        """The revisions to prepare so that `position` can be shown: it and up to PANE_WINDOW - 1 older ones."""
        if not self.revisions:
            return range(0)
        position = max(0, min(position, len(self.revisions) - 1))
        return range(max(0, position - PANE_WINDOW + 1), position + 1)

    def prepare(self, positions: range) -> dict[int, PaneRevision]:
        """The pane's views of these revisions (Markdown parsed, merges diffed: call it off the UI thread)."""
        return {
            i: PaneRevision(printable(without_metadata(self.revisions[i])), pane_merge(self.merge(i)))
            for i in positions
            if i not in self.pane.views
        }


def pane_merge(view: MergeView | None) -> PaneMerge | None:
    """A merge as the pane shows it: each dropped item by its first line, list mark removed (all printable)."""
    if view is None:
        return None
    breaks = tuple(
        PolicyBreak(printable(section), printable(LIST_MARK_RE.sub("", (item.strip().splitlines() or [""])[0])))
        for section, item in view.breaks
    )
    sections = tuple(SectionDiff(printable(s.name), [printable(line) for line in s.lines]) for s in view.sections)
    return PaneMerge(breaks, sections)


def decode_text(data: bytes) -> str:
    """Snapshot bytes as text for display (undecodable bytes replaced, BOM dropped)."""
    return data.decode("utf-8", "replace").lstrip("\ufeff")


def load_detail(root: MemoryRoot, session_id: str) -> SessionDetail:
    """A session's current snapshot and its recorded revisions (plus the current one if newer).

    Reading only: revisions are recorded by the reload worker (observe_snapshots), one writer.
    The pane's views of the newest PANE_WINDOW revisions are prepared here too.
    """
    unreadable = ""
    try:
        data = root.read(session_path(session_id))
    except Unreadable as exc:  # said in the pane: never shown as a session without a snapshot
        data, unreadable = None, str(exc)
    except MemboardError:  # an ID that names no file (a malformed row's), a folder: no snapshot to show
        data = None
    try:
        texts = [decode_text(raw) for raw in revisions.contents(root, session_id)]
    except Exception:
        texts = []
    current = decode_text(data) if data is not None else None
    if current is not None and texts and (not current.strip() or not whole("", data or b"", texts[-1].encode())):
        current = texts[-1]  # an empty or cut read (a save caught half-way) is never a revision nor the merge's base
    if current is not None and (not texts or texts[-1] != current):
        texts.append(current)
    detail = SessionDetail(session_id, current, texts)
    detail.pane.unreadable = unreadable
    detail.pane.views.update(detail.prepare(detail.window(len(texts) - 1)))
    return detail


def without_section(text: str, name: str) -> str:
    """Snapshot text minus one section, heading included (the text itself when it has none such)."""
    snap = Snapshot(text)
    sec = snap.section(name)
    if sec is None:
        return text
    return "".join(snap.lines[: sec.heading] + snap.lines[sec.end :])


def without_metadata(text: str) -> str:
    """Snapshot text minus its `## Metadata` table (the pane shows the row's fields instead)."""
    return without_section(text, "Metadata")
