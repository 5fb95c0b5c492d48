"""The sessions view: the memory index as a live, filterable table beside the snapshot pane.

A browse screen (browse.py) and the App's default screen. Reading happens in thread workers that
post messages back (the reload worker for live updates and after every flow, the detail worker for
the pane); the table widget only renders what is on screen; the model (rows, filters, sorting) is
plain Python in model.py. Its keys are its own (owner "board" in the action table); the flows it
starts run in the App (flows.py), which tells it when one has written something to re-read.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from textual import work
from textual.css.query import NoMatches
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from memboard.widgets.board_status import BoardBanner, BoardStatus
from memboard.widgets.rows import BoardRow
from memboard.widgets.session_table import SessionTable
from memboard.widgets.snapshot_pane import SnapshotPane

from ..core.errors import MemboardError
from ..core.files.execute import SETTLE_WAIT
from ..core.files.root import MemoryRoot
from ..core.files.settle import Budget, NotSettled, Seen, whole
from ..core.formats import clock
from ..core.formats.ids import is_valid_id
from ..core.formats.index import STATUSES
from ..core.formats.layout import INDEX
from .actions import bindings
from .browse import BrowseFilter, BrowseScreen, Ids
from .loader import (
    CopyScan,
    FileWatch,
    Notices,
    SessionDetail,
    load_detail,
    observe_snapshots,
    read_head,
    read_model,
    read_notices,
    snapshot_ids,
)
from .messages import (
    DetailLoaded,
    FlowFinished,
    FlowsShown,
    ModelLoaded,
    NoticesLoaded,
    RevisionsPrepared,
)
from .model import ALL, SORT_COLUMNS, BoardModel
from .planning import PLANNING

if TYPE_CHECKING:
    from .app import MemboardApp

SAVING_GRACE = 5.0  # seconds an index.md read empty after it held rows is taken for a save under way (a synced
# drive's editor pauses a second or more between truncating and writing back; the settle window is half a second)
FIRST_BATCH = 8  # snapshots the first recording of a root takes at a time: a reload's own recording comes between
FIRST_YIELD = 5.0  # seconds at most that the first recording waits, between batches, for a plan being built
CONTINUE_PHRASE = "接續 memory {id}"  # what a person pastes into a chat to continue a session (the protocol's)

IDS = Ids("status", "filter-bar", "filter-label", "filter", "main", "table", "pane", "keys")


def appended(data: bytes | None, before: bytes) -> bool:
    """Whether data is before with whole lines added at its end (a hook's append): whole without
    comparing rows, which costs a scan of both files at 100k rows."""
    return data is not None and data.startswith(before) and (data.endswith(b"\n") or not before.endswith(b"\n"))


class SessionsScreen(BrowseScreen[BoardRow, BoardModel]):
    """The index's rows beside the snapshot pane: filters, marks, sorting, revisions, live updates."""

    IDS = IDS
    FOOTER, PANE_FOOTER, FILTER_FOOTER = "board", "pane", "filter"
    PLACEHOLDER = "ID, agent, topic, summary, keywords (enter keeps, escape clears)"
    # from 5k rows (as the notes view): at 10k, each full collection pass walked the rows and the App's objects,
    # 60-110 ms, and one came during nearly every organize or doctor preview (its plan's allocations set it off)
    GC_FREEZE = 5_000

    # every key comes from the action table; `/` has priority: handled before the key is
    # forwarded, so letters typed right after it reach the box (check_action says when it yields)
    BINDINGS = bindings("board")

    def __init__(self, root: MemoryRoot, title: str, *, watch: bool = True) -> None:
        """The sessions view of root (title heads its status line); watch=False turns the file poller off."""
        super().__init__(watch=watch, sort_column="line")
        self.memory_root = root
        self.root_title = title
        self.model = BoardModel.empty(clock.now())
        self.status_filter = ALL
        self.marks: set[str] = set()
        self.detail: SessionDetail | None = None
        self.revision_position = 0
        self._pending_steps: tuple[str, int] | None = None
        self.watcher = FileWatch(root)
        self.copy_scan = CopyScan(root)
        self.notices = Notices()
        self._waiting_flows: list[FlowFinished] = []  # applied flows whose end waits for the next refresh
        self._held: tuple[set[str], str | None] | None = None  # marks and cursor row kept while the index read empty
        self._unsettled: set[str] = set()  # snapshots still being saved when last read: looked at again on each poll
        self._record_lock = threading.Lock()  # one recorder of revisions at a time (the first pass, a reload's)
        self._first_pass: set[str] = set()  # snapshots the first recording has not reached yet
        self._empty_since: float | None = None  # when index.md was first read empty after it held rows

    @property
    def board(self) -> MemboardApp:
        """The App (its flows, its config)."""
        return self.app  # type: ignore[return-value]

    # -- layout ---------------------------------------------------------------------------

    def make_status(self) -> BoardStatus:
        """Title and counts."""
        return BoardStatus(self.root_title, id=IDS.status)

    def compose_top(self):
        """The banner of the root's notices, and the hot-cache health of the hierarchy workspace (when found)."""
        yield BoardBanner(id="banner")
        health = Static(id="hierarchy-health")
        health.display = False
        yield health

    def make_table(self) -> SessionTable:
        """The session table."""
        return SessionTable(id=IDS.table)

    def make_pane(self) -> SnapshotPane:
        """The snapshot pane."""
        return SnapshotPane(id=IDS.pane)

    def on_mount(self) -> None:
        """Start reading the index and (unless off) the file watcher."""
        self.query_one(f"#{IDS.filter_bar}").display = False
        self.table.focus()
        self.watcher.prime()
        self._first_read()
        self.start_watching()
        self.call_after_refresh(self.health_worker)

    @work(thread=True, exclusive=True, group="hierarchy-health")
    def health_worker(self) -> None:
        """The hierarchy workspace's one line of hot-cache health, when a workspace is found (off the UI thread)."""
        from .hiermodel import find_workspace, health_line  # lazy: only its small readers load here

        workspace, _ = find_workspace()
        if workspace is None:
            return
        try:
            line = health_line(workspace)
        except Exception:  # a workspace that cannot be read: the Hierarchy screen (h) says why
            return
        self.app.call_from_thread(self._show_health, f"hierarchy · {line} · h opens it")

    def _show_health(self, line: str) -> None:
        """Show the health line under the banner."""
        try:
            health = self.query_one("#hierarchy-health", Static)
        except NoMatches:
            return
        health.update(line)
        health.display = True

    # -- what the flows see (through the App) -----------------------------------------------

    @property
    def table(self) -> SessionTable:
        """The session table widget."""
        return self.query_one(SessionTable)

    @property
    def current_session_id(self) -> str | None:
        """The Session ID of the row under the cursor (None if none or not a valid ID)."""
        row = self.table.current
        if row is None or not is_valid_id(row.id):
            return None
        return row.id

    @property
    def marked_session_ids(self) -> list[str]:
        """Marked rows' IDs in table order."""
        if not self.marks:
            return []
        rows = self.model.ordered(self.sort_column, self.sort_reverse)
        return list(dict.fromkeys(r.id for r in rows if r.key in self.marks))

    def clear_marks(self) -> None:
        """Unmark every row."""
        self.marks.clear()
        self.table.marked = self.marks
        self.table.refresh()
        self._update_status()

    def refresh_model(self, after: FlowFinished | None = None) -> None:
        """Re-read the index and every snapshot in the reload worker, keeping cursor, filters, marks.

        The pane re-reads its session too. A flow waiting for this refresh (after) is told once it is shown.
        """
        if after is not None:
            self._waiting_flows.append(after)
        self.watcher.prime()
        waiting, self._waiting_flows = tuple(self._waiting_flows), []
        self.reload_worker(None, after=waiting)

    def has_session(self, session_id: str) -> bool:
        """Whether the session is a row of the index as read."""
        return session_id in self.model.by_id

    def select_session(self, session_id: str) -> bool:
        """Move the cursor to a session's row, clearing filters if they hide it."""
        return session_id in self.model.by_id and self.select(session_id)

    def reset_filters(self) -> None:
        """Show every row: no status filter, no text."""
        self.status_filter = ALL
        self.set_filter("")

    def pane_cleared(self) -> None:
        """No row under the cursor: no snapshot either."""
        self.detail = None

    # -- reading ----------------------------------------------------------------------------

    def poll(self) -> None:
        """The watcher's look (every half second)."""
        self.check_files()

    def check_files(self) -> bool:
        """Poll index.md and snapshots; start a reload when any changed. True if one did."""
        index_changed, snapshots = self.watcher.changes()
        if self._unsettled:  # (a save caught half-way is looked at again until it settles)
            snapshots = snapshots | self._unsettled
        if index_changed or snapshots or self.copy_scan.stale() or self._empty_since is not None:
            self.reload_worker(snapshots)
            return True
        return False

    def _first_read(self) -> None:
        """Paint at once: a small index is parsed here, a big one's first screenful only.

        The rest (the whole of a big index, recording snapshot revisions) goes to a worker.
        """
        root = self.memory_root
        now = clock.now()
        try:
            found = root.read(INDEX)
        except MemboardError as exc:
            # lazy: the board's wording loads with the flows, not at start-up
            from .wording import refusal_words

            self.notify(refusal_words(exc), severity="error")
            found = b""
        data = found or b""
        model = read_head(data, root, now)
        if model is None:
            model = read_model(root, now, data, missing=found is None)
        self._apply_model(model, set())
        self.show_notices(read_notices(root, model, []))  # up front: read-only, conflict markers (copies: the worker)
        self.call_after_refresh(self._preload_styles)  # the first rows are drawn first
        if model.complete:
            self.call_after_refresh(self.reload_worker, set(), initial=True)
        else:
            self.call_after_refresh(self.reload_worker, set(), initial=True, data=data)

    def _preload_styles(self) -> None:
        """Have the board read the stylesheets of the screens it opens later (MemboardApp.preload_styles)."""
        preload = getattr(self.app, "preload_styles", None)  # (a test's App may show this screen alone)
        if preload is not None:
            preload()

    @work(thread=True, exclusive=True, group="reload")
    def reload_worker(
        self,
        changed_snapshots: set[str] | None,
        initial: bool = False,
        data: bytes | None = None,
        after: tuple[FlowFinished, ...] = (),
    ) -> None:
        """Read and parse the index off the UI thread and post the model back: live updates, the
        rest of the first read, and the refresh after a flow.

        changed_snapshots are those the watcher saw change; None (after a flow) checks every
        snapshot and has the pane re-read its session. On the first read it parses `data` when
        given (a big index) and records a revision of every snapshot it has not seen yet. The
        flows in `after` are told (FlowsShown) once this read is on screen, or has failed.
        """
        try:
            if initial:
                with self._read_lock:
                    self._finish_first_read(data)
                self.app.call_from_thread(self._record_first)
                return
            with self._read_lock:
                error = self._read_changes(changed_snapshots)
            if error:
                self.app.call_from_thread(self.notify, error, severity="error")
        finally:
            if after:
                self.post_message(FlowsShown(after))

    def _finish_first_read(self, data: bytes | None) -> None:
        """The first read's rest (from the worker): parse a big index whole; which snapshots to record."""
        model = self.model
        if data is not None:
            model = read_model(self.memory_root, clock.now(), data)
            self.post_message(ModelLoaded(model))
        with self._record_lock:
            self._first_pass = snapshot_ids(self.memory_root)
        self._post_notices(model)

    @work(thread=True, group="first-revisions")
    def _record_first(self) -> None:
        """Record a revision of every snapshot not seen yet (from the worker, after the first read), a batch at a
        time and outside the read lock: on a root new to this machine that is a synced write per snapshot, seconds
        for a thousand, and a live update (a registration) must not wait behind it. A reload records what it saw
        change itself and takes it off this pass."""
        worker = get_current_worker()
        for at in range(0, len(order := sorted(self._first_pass)), FIRST_BATCH):
            PLANNING.wait_idle(FIRST_YIELD)  # a flow's plan being built comes first (planning.py)
            if worker.is_cancelled:  # the board is closing
                return
            with self._record_lock:
                batch = self._first_pass.intersection(order[at : at + FIRST_BATCH])
                self._first_pass -= batch
                self._observe(batch)

    def _observe(self, ids: set[str] | None) -> set[str]:
        """Record revisions of these snapshots (None: every one not left to the first pass); the IDs recorded. The
        caller holds the record lock."""
        root, pending = self.memory_root, set[str]()
        if ids is None:
            ids = snapshot_ids(root) - self._first_pass
        recorded = observe_snapshots(root, ids, unsettled=pending)
        self._unsettled = (self._unsettled - ids) | pending  # (a new set: the UI thread reads it at each poll)
        return recorded

    def _read_changes(self, changed_snapshots: set[str] | None) -> str | None:
        """Re-read the index (from the worker) and post the model; the error's text when it cannot be read.

        A read that is not whole next to the last one shown (empty, cut mid-line, its header or
        rows gone: an editor's save caught half-way) is not shown: the board keeps the last good
        model and waits, by the core's settled-read rule, until the file settles.
        """
        root = self.memory_root
        try:
            found = self._settled_index()
        except NotSettled:
            return None  # still being saved: keep the last good model; the next poll looks again
        except MemboardError as exc:
            # lazy: the board's wording loads with the flows, not at start-up
            from .wording import refusal_words

            return refusal_words(exc)
        model = read_model(root, clock.now(), found or b"", previous=self.model, missing=found is None)
        if changed_snapshots is None:
            with self._record_lock:
                changed = self._observe(None)
        else:
            changed = set(changed_snapshots)
            looked = {sid for sid in changed if sid in model.by_id}
            if looked:  # (a registration changes no snapshot: it never waits for the record lock)
                with self._record_lock:
                    self._first_pass -= looked  # (recorded here, now: the first pass leaves it)
                    self._observe(looked)
        self.post_message(ModelLoaded(model, changed, reload_pane=changed_snapshots is None))
        self._post_notices(model)
        return None

    def _settled_index(self) -> bytes | None:
        """index.md's bytes (None when absent), waited for while they are not whole next to the last model's."""
        root = self.memory_root
        seen = root.read_seen(INDEX)
        source = self.model.source
        if seen.data is not None and not seen.data.strip() and self.model.complete and self.model.rows:
            seen = self._saving_index(seen)
            if seen.data is not None and not seen.data.strip():
                return seen.data  # empty for the whole grace: shown so
        else:
            self._empty_since = None
        if (
            source is None
            or not self.model.complete
            or appended(seen.data, source.data)
            or whole(INDEX, seen.data or b"", source.data)
        ):
            return seen.data
        return root.wait_settled({INDEX: (source.data, None)}, Budget(SETTLE_WAIT))[INDEX].data

    def _saving_index(self, seen: Seen) -> Seen:
        """index.md read empty a moment after it held rows: an editor's save (truncate, pause, write back) caught
        half-way. Said so, the last rows kept, until it holds text again (looked at for a settle window here, then
        at every poll) or stays empty for SAVING_GRACE: then it is shown so, and marks and cursor come back with
        the rows (NotSettled meanwhile: the last good model stays)."""
        root = self.memory_root
        since = self._empty_since = self._empty_since or time.monotonic()
        self.post_message(NoticesLoaded(replace(self.notices, saving=True)))
        deadline = time.monotonic() + root.window
        while time.monotonic() < deadline:
            time.sleep(min(0.05, root.window / 4))
            seen = root.read_seen(INDEX)
            if seen.data is None or seen.data.strip():
                self._empty_since = None
                return seen
        if time.monotonic() - since < max(SAVING_GRACE, root.window):
            raise NotSettled("index.md is being saved")
        self._empty_since = None
        return seen

    def _post_notices(self, model: BoardModel) -> None:
        """Work out the banner's notices for a model (from a worker) and post them to the UI thread."""
        scan = self.copy_scan
        self.post_message(
            NoticesLoaded(read_notices(self.memory_root, model, scan.current(), scan.findings(model.by_id.keys())))
        )

    def on_notices_loaded(self, message: NoticesLoaded) -> None:
        """Show fresh notices in the banner."""
        try:
            self.show_notices(message.notices)
        except NoMatches:  # the board is closing: its widgets are gone
            pass

    def show_notices(self, notices: Notices) -> None:
        """Put the root's notices (read-only, conflict markers, sync-conflict copies) in the banner."""
        self.notices = notices
        self.query_one(BoardBanner).show(notices.lines())

    def on_model_loaded(self, message: ModelLoaded) -> None:
        """Show a fresh model, keeping cursor, marks and filters."""
        try:
            changed = message.changed_snapshots
            if message.reload_pane:
                changed = changed | {self.current_session_id or ""}
            self._apply_model(message.model, changed)
        except NoMatches:  # the board is closing: its widgets are gone
            pass

    def _apply_model(self, model: BoardModel, changed_snapshots: set[str]) -> None:
        """Swap in a model, highlight new rows, refresh the pane when its session changed."""
        previous = self.model
        if previous.rows and model.complete and not model.rows and self._held is None:
            current = self.table.current
            self._held = (set(self.marks), current.id if current else None)  # kept by Session ID until rows return
        self.model = model
        held, cursor = self._held if self._held is not None and model.rows else (None, None)
        if held is not None:
            self._held = None
            self.marks |= held
        if model.complete and self.marks and model.rows:
            self.marks &= {r.key for r in model.rows}
        before, after = self.swap_model(previous, model)
        if cursor is not None and cursor in model.by_id and after != cursor and self.select(cursor):
            before = after = cursor
        if after is not None and after == before and (after in changed_snapshots or not previous.complete):
            self.load_pane(after)
        elif after is not None and after == before:
            self.show_pane(self.table.current)
        elif after is None:
            self.show_pane(None)  # no row: the pane says why

    def apply_view(self) -> None:
        """Filter and sort the model into the table, keeping the cursor's row."""
        table = self.table
        keep = table.current.id if table.current else None
        rows = self.model.view(self.filter_text, self.status_filter, self.sort_column, self.sort_reverse)
        with self.app.batch_update():
            table.marked = self.marks
            table.sort_column = self.sort_column
            table.sort_reverse = self.sort_reverse
            table.empty_text = "" if rows else self.why_empty()
            table.set_rows(rows, self.model.now, keep)
            if not rows:
                self.show_pane(None)
            self._update_status()

    def why_empty(self) -> str:
        """One line saying why the table shows no row (no index.md, no rows, a filter that hides them all)."""
        model = self.model
        if model.missing:
            return "No index.md in this root yet: it appears when an agent's hook registers its first chat."
        if not model.rows:
            return "index.md holds no session row yet: each chat an agent's hook registers adds one."
        status = "" if self.status_filter == ALL else self.status_filter
        if self.filter_text:
            where = f" among the {status} rows" if status else ""
            return f"No row matches “{self.filter_text}”{where}: escape in the filter box (/) clears it, 1 shows all."
        return f"No {status} rows (of {len(model.rows):,}): 1 shows all, 2 3 4 the others."

    def _update_status(self) -> None:
        """Counts, filters and sort in the status line."""
        self.query_one(BoardStatus).show(
            self.model.counts,
            shown=len(self.table.rows),
            status=self.status_filter,
            text=self.filter_text,
            sort=SORT_COLUMNS[self.sort_column] if self.sort_column != "line" or self.sort_reverse else "",
            reverse=self.sort_reverse,
            marked=len(self.marks),
            loading=not self.model.complete,
        )

    # -- the pane ---------------------------------------------------------------------------

    def show_pane(self, row: BoardRow | None) -> None:
        """Show row in the pane, with its snapshot at revision_position once that is loaded."""
        detail = self.detail
        snapshot = detail.pane if detail is not None and row is not None and detail.session_id == row.id else None
        self.query_one(SnapshotPane).show(
            row, snapshot, self.revision_position, self.model.now, empty=self.table.empty_text
        )

    def _show_revision(self) -> None:
        """Show the current revision, having an older one prepared first (off the UI thread) when needed."""
        detail, row = self.detail, self.table.current
        if (
            detail is not None
            and row is not None
            and detail.session_id == row.id
            and detail.revisions
            and self.revision_position not in detail.pane.views
        ):
            self._prepare_revisions(detail, self.revision_position)
        self.show_pane(row)

    @work(thread=True, exclusive=True, group="detail")
    def load_pane(self, row_id: str) -> None:
        """Read a snapshot and its revisions off the UI thread."""
        self.post_message(DetailLoaded(load_detail(self.memory_root, row_id)))

    def on_detail_loaded(self, message: DetailLoaded) -> None:
        """Show a loaded snapshot if its row is still selected."""
        try:
            self._show_detail(message.detail)
        except NoMatches:  # the board is closing: its widgets are gone
            pass

    def _show_detail(self, detail: SessionDetail) -> None:
        """Put detail in the pane at its latest revision."""
        row = self.table.current
        if row is None or row.id != detail.session_id:
            return
        self.detail = detail
        latest = max(len(detail.revisions) - 1, 0)
        steps = 0
        if self._pending_steps is not None and self._pending_steps[0] == row.id:
            steps = self._pending_steps[1]
        self._pending_steps = None
        self.revision_position = max(0, min(latest + steps, latest))
        self._show_revision()

    @work(thread=True, exclusive=True, group="revisions")
    def _prepare_revisions(self, detail: SessionDetail, position: int) -> None:
        """Prepare the pane's view of an older revision (and its older neighbours) off the UI thread."""
        self.post_message(RevisionsPrepared(detail, detail.prepare(detail.window(position))))

    def on_revisions_prepared(self, message: RevisionsPrepared) -> None:
        """Keep the prepared revisions; show them if their session is still in the pane."""
        message.detail.pane.views.update(message.views)
        if message.detail is self.detail:
            try:
                self.show_pane(self.table.current)
            except NoMatches:  # the board is closing: its widgets are gone
                pass

    # -- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`/` yields while text is being typed, so the key reaches the input."""
        if action == "filter" and isinstance(self.focused, Input):
            return False
        return super().check_action(action, parameters)

    def action_leave_pane(self) -> None:
        """Leave the full-width pane (escape); on the table, clear the kept filters, text and status alike."""
        if not self.has_class("-expanded") and (self.filter_text or self.status_filter != ALL):
            self.reset_filters()
            return
        super().action_leave_pane()

    def action_status(self, status: str) -> None:
        """Show one status (or all)."""
        self.status_filter = status if status in STATUSES else ALL
        self.apply_view()

    def action_sort(self) -> None:
        """Sort by the next column on screen, left to right, then back to file order."""
        keys = ["line", *self.table.visible_columns()]
        at = keys.index(self.sort_column) if self.sort_column in keys else 0
        self.sort_column = keys[(at + 1) % len(keys)]
        self.sort_reverse = False
        self.apply_view()

    def sort_by(self, column: str, reverse: bool = False) -> None:
        """Sort by a column key of SORT_COLUMNS."""
        self.sort_column, self.sort_reverse = column, reverse
        self.apply_view()

    def action_reverse_sort(self) -> None:
        """Reverse the sort order."""
        self.sort_reverse = not self.sort_reverse
        self.apply_view()

    def action_mark(self) -> None:
        """Mark or unmark the row under the cursor and move down."""
        row = self.table.current
        if row is None:
            return
        if row.key in self.marks:
            self.marks.discard(row.key)
        else:
            self.marks.add(row.key)
        self.table.marked = self.marks
        self.table.move_cursor(self.table.cursor + 1)
        self.table.refresh()
        self._update_status()

    def action_revision(self, step: int) -> None:
        """Step to an older (-1) or newer (+1) snapshot revision."""
        row, detail = self.table.current, self.detail
        if row is None:
            return
        if detail is None or detail.session_id != row.id:
            # the snapshot is still loading: keep the keystroke and apply it when it arrives
            earlier = self._pending_steps[1] if self._pending_steps and self._pending_steps[0] == row.id else 0
            self._pending_steps = (row.id, earlier + step)
            return
        if not detail.revisions:
            return
        self.revision_position = max(0, min(self.revision_position + step, len(detail.revisions) - 1))
        self._show_revision()

    def action_copy_id(self) -> None:
        """Copy the selected Session ID to the system clipboard, saying so in a toast."""
        self._copy("{id}", "Session ID")

    def action_copy_phrase(self) -> None:
        """Copy the selected session's continue phrase (`接續 memory <id>`), saying so in a toast."""
        self._copy(CONTINUE_PHRASE, "continue phrase")

    def _copy(self, template: str, what: str) -> None:
        """Copy template with the selected Session ID to the clipboard (OSC 52), the whole text in a toast."""
        session_id = self.current_session_id
        if session_id is None:
            self.notify(f"Select a session to copy its {what}", severity="warning")
            return
        text = template.format(id=session_id)
        self.app.copy_to_clipboard(text)
        self.notify(text, title=f"copied the {what}")

    def action_notes(self) -> None:
        """Show the notes view (its own `n` comes back)."""
        self.board.open_notes()

    def action_session_notes(self) -> None:
        """Show the notes view filtered to the selected session's notes."""
        self.board.open_notes(self.current_session_id or "")

    def action_log(self) -> None:
        """Show the result log: what each flow did in this run."""
        self.board.action_log()

    def action_spaces(self) -> None:
        """Show the Spaces screen (its `escape` comes back)."""
        self.board.open_spaces()

    def action_hierarchy(self) -> None:
        """Show the Hierarchy screen (its `escape` comes back)."""
        self.board.open_hierarchy()

    # -- search and the archive (read-only views) ---------------------------------------------

    def action_search(self) -> None:
        """Search everything (rows, snapshots, the archive); enter on a live result selects its row."""
        # lazy: search's screens and the search engine load on first use (start-up stays light)
        from .screens.search import SearchScreen

        self.app.push_screen(SearchScreen(self.memory_root), self.show_search_result)

    def show_search_result(self, chosen: tuple[str, str] | None) -> None:
        """Show the note chosen in search in the notes view; select the live session chosen (one no
        longer on the table opens read-only)."""
        if chosen is None:
            return
        kind, session_id = chosen
        if kind == "note":
            self.board.open_notes(note_id=session_id)
            return
        if kind == "space":  # a P hit: the Spaces screen, on that space
            self.board.open_spaces(session_id)
            return
        if kind == "hierarchy":  # an H hit: the Hierarchy screen
            self.board.open_hierarchy()
            return
        if self.select_session(session_id):
            self.table.focus()
        else:
            # lazy: loaded with search, on first use
            from .screens.session import SessionScreen

            self.app.push_screen(SessionScreen(self.memory_root, session_id))

    def action_archived(self) -> None:
        """Browse the archived sessions (read-only)."""
        # lazy: the archive's screen and its table widget load on first use (start-up stays light)
        from .screens.archive import ArchiveScreen

        self.app.push_screen(ArchiveScreen(self.memory_root))

    # -- the flows (they run in the App) ----------------------------------------------------

    def action_continue_session(self) -> None:
        """Continue from the selected session (a flow)."""
        self.board.flows.continue_session()

    def action_release(self) -> None:
        """Release one of the selected session's references (a flow)."""
        self.board.flows.release()

    def action_archive(self) -> None:
        """Archive the marked sessions, or the selected one (a flow)."""
        self.board.flows.archive()

    def action_organize(self) -> None:
        """Organize the whole index (a flow)."""
        self.board.flows.organize()

    def action_update(self) -> None:
        """Update the selected session's fields and snapshot (a flow)."""
        self.board.flows.update()

    def action_chain(self) -> None:
        """Show the selected session's reference chain (a flow)."""
        self.board.flows.chain()

    def action_doctor(self) -> None:
        """Find and repair inconsistencies (a flow)."""
        self.board.flows.doctor()

    def action_resolve(self) -> None:
        """Decide the open conflicts a merge or git's driver left: keep ours or take theirs (a flow)."""
        self.board.flows.resolve()


__all__ = ["BrowseFilter", "SessionsScreen", "appended"]
