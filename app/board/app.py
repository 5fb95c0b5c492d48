"""The board: a live, filterable table of the memory index with a snapshot pane.

Reading happens in thread workers that post messages back (the reload worker for live
updates and after every flow, the detail worker for the pane); the table widget only renders
what is on screen; the model (rows, filters, sorting) is plain Python in model.py. Keys come
from the action table (actions.py); the modal flows (flows.py) see this App as their FlowHost.
"""

from __future__ import annotations

import gc
import os
import threading
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState

from memboard.styles import BOARD_TCSS
from memboard.widgets.board_status import BoardBanner, BoardStatus
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.session_table import SessionTable
from memboard.widgets.snapshot_pane import SnapshotPane

from ..core.config import load as load_config
from ..core.errors import MemboardError
from ..core.files.execute import SETTLE_WAIT
from ..core.files.root import MemoryRoot
from ..core.files.settle import Budget, NotSettled, settle_seconds, whole
from ..core.formats import clock
from ..core.formats.ids import DEFAULT_AGENT, is_valid_id
from ..core.formats.index import STATUSES
from ..core.formats.layout import INDEX
from .actions import bindings, board_only
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
)
from .messages import (
    AskScreen,
    DetailLoaded,
    FlowFinished,
    FlowsShown,
    JumpToSession,
    LogEntry,
    ModelLoaded,
    NoticesLoaded,
    RevisionsPrepared,
)
from .model import ALL, SORT_COLUMNS, BoardModel, BoardRow

if TYPE_CHECKING:
    from .flows import BoardFlows

DEFAULT_THEME = "textual-dark"
NOTES_VIEW = "notes"  # the name the notes view is installed under (notes/screen.py's NAME)
TOAST_SECONDS = 4.0
TOAST_WIDTH = 72  # a toast says this much of a flow's outcome; the result log (`l`) keeps all of it
FRESH_SECONDS = 3.0
POLL_SECONDS = 0.5
DETAIL_DELAY = 0.2
GC_FREEZE_ROWS = 20_000
BOARD_ACTIONS = board_only()


def board_commands():
    """The palette provider, imported when the palette first opens (keeps start-up light)."""
    # lazy: the palette loads when it first opens (start-up stays light)
    from .commands import BoardCommands

    return BoardCommands


class FilterInput(Input):
    """The text filter; escape clears it and goes back to the table."""

    BINDINGS = bindings("filter")

    def action_clear_filter(self) -> None:
        """Clear the filter text and return to the table."""
        self.value = ""
        self.app.query_one(SessionTable).focus()


def appended(data: bytes | None, before: bytes) -> bool:
    """Whether data is before with whole lines added at its end (a hook's append): whole without
    comparing rows, which costs a scan of both files at 100k rows."""
    return data is not None and data.startswith(before) and (data.endswith(b"\n") or not before.endswith(b"\n"))


def short(text: str, width: int = TOAST_WIDTH) -> str:
    """A toast's text: the first line of text, cut at width with an ellipsis."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= width else first[: width - 1].rstrip() + "…"


class MemboardApp(App):
    """The memboard board; its flows (BoardFlows) see it as their FlowHost."""

    TITLE = "memboard"
    CSS_PATH = [BOARD_TCSS]
    COMMANDS = App.COMMANDS | {board_commands}
    # below 110 columns the pane folds away (enter opens it full width); the table gets the width
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-roomy")]

    # every key comes from the action table; `/` has priority: handled before the key is
    # forwarded, so letters typed right after it reach the box (check_action says when it yields)
    BINDINGS = bindings("app")

    def __init__(self, root_path: str | os.PathLike, *, watch: bool = True) -> None:
        """A board on the memory root at root_path; watch=False turns the file poller off."""
        super().__init__()
        self.memory_root = MemoryRoot(root_path)
        self.memory_root.window = settle_seconds()
        try:
            self.config = load_config()
        except MemboardError:
            self.config = {}
        self.agent_name: str = str(self.config.get("agent_name") or DEFAULT_AGENT)
        self.watch_files = watch
        self.model = BoardModel.empty(clock.now())
        self.filter_text = ""
        self.status_filter = ALL
        self.sort_column = "line"
        self.sort_reverse = False
        self.marks: set[str] = set()
        self.detail: SessionDetail | None = None
        self.revision_position = 0
        self._pending_steps: tuple[str, int] | None = None
        self.watcher = FileWatch(self.memory_root)
        self.copy_scan = CopyScan(self.memory_root)
        self.notices = Notices()
        self._detail_timer: Timer | None = None
        self._reload_lock = threading.Lock()  # one read at a time: models reach the UI in the order read
        self._waiting_flows: list[FlowFinished] = []  # applied flows whose end waits for the next refresh
        self._flows: BoardFlows | None = None  # built when a flow first starts: its modules load then
        self.run_log: list[LogEntry] = []  # what each flow did in this run (the `l` screen)
        self._follow_up: tuple[str, str | None] | None = None  # a fix flow to start once the current flow ends
        self._asking_quit = False
        self.sub_title = self.memory_root.path.name or str(self.memory_root.path)

    @property
    def flows(self) -> BoardFlows:
        """The modal flows (continue, release, archive, update, organize, doctor, chain), built on first use."""
        if self._flows is None:
            # lazy: the flows and their screens load when the first flow starts (start-up stays light)
            from .flows import BoardFlows

            self._flows = BoardFlows(self)
        return self._flows

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Title and counts, filter, the table beside the pane, keys."""
        yield BoardStatus(self.sub_title, id="status")
        yield BoardBanner(id="banner")
        with Horizontal(id="filter-bar"):
            yield Static("filter ›", id="filter-label")
            yield FilterInput(
                placeholder="ID, agent, topic, summary, keywords (enter keeps, escape clears)",
                id="filter",
                compact=True,
            )
        with Horizontal(id="main"):
            yield SessionTable(id="table")
            yield SnapshotPane(id="pane")
        yield KeyBar("board", id="keys")

    def on_mount(self) -> None:
        """Apply the theme, start reading the index and (unless off) the file watcher."""
        theme = str(self.config.get("theme") or DEFAULT_THEME)
        try:
            self.theme = theme
        except Exception:
            self.theme = DEFAULT_THEME
        self.query_one("#filter-bar").display = False
        self.query_one(SessionTable).focus()
        self.watcher.prime()
        self._first_read()
        if self.watch_files:
            self.set_interval(POLL_SECONDS, self.check_files)

    # -- what the flows see (FlowHost) ----------------------------------------------------

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

    def refresh_model(self) -> None:
        """Re-read the index and every snapshot in the reload worker, keeping cursor, filters, marks.

        The pane re-reads its session too. Flows waiting for this refresh are told once it is shown.
        """
        self.watcher.prime()
        waiting, self._waiting_flows = tuple(self._waiting_flows), []
        self.reload_worker(None, after=waiting)

    def modal_open(self) -> bool:
        """Whether a modal (a flow's, help, the palette) is on top of the board."""
        return isinstance(self.screen, ModalScreen)

    def select_session(self, session_id: str) -> bool:
        """Move the cursor to a session's row, clearing filters if they hide it."""
        if session_id not in self.model.by_id:
            return False
        if not any(r.id == session_id for r in self.table.rows):
            self.filter_text = ""
            self.status_filter = ALL
            box = self.query_one("#filter", FilterInput)
            with box.prevent(Input.Changed):
                box.value = ""
            self.query_one("#filter-bar").display = False
            self._apply_view()
        for i, row in enumerate(self.table.rows):
            if row.id == session_id:
                self.table.move_cursor(i)
                return True
        return False

    # -- reading ----------------------------------------------------------------------------

    def check_files(self) -> bool:
        """Poll index.md and snapshots; start a reload when any changed. True if one did."""
        index_changed, snapshots = self.watcher.changes()
        if index_changed or snapshots or self.copy_scan.stale():
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
        if model.complete:
            self.call_after_refresh(self.reload_worker, set(), initial=True)
        else:
            self.call_after_refresh(self.reload_worker, set(), initial=True, data=data)

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
            with self._reload_lock:
                if initial:
                    self._finish_first_read(data)
                    return
                error = self._read_changes(changed_snapshots)
            if error:
                self.call_from_thread(self.notify, error, severity="error")
        finally:
            if after:
                self.post_message(FlowsShown(after))

    def _finish_first_read(self, data: bytes | None) -> None:
        """The first read's rest (from the worker): parse a big index whole, record unseen snapshots."""
        model = self.model
        if data is not None:
            model = read_model(self.memory_root, clock.now(), data)
            self.post_message(ModelLoaded(model))
        observe_snapshots(self.memory_root)
        self._post_notices(model)

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
            changed = observe_snapshots(root)
        else:
            changed = set(changed_snapshots)
            observe_snapshots(root, {sid for sid in changed if sid in model.by_id})
        self.post_message(ModelLoaded(model, changed, reload_pane=changed_snapshots is None))
        self._post_notices(model)
        return None

    def _settled_index(self) -> bytes | None:
        """index.md's bytes (None when absent), waited for while they are not whole next to the last model's."""
        root = self.memory_root
        seen = root.read_seen(INDEX)
        source = self.model.source
        if (
            source is None
            or not self.model.complete
            or appended(seen.data, source.data)
            or whole(INDEX, seen.data or b"", source.data)
        ):
            return seen.data
        return root.wait_settled({INDEX: (source.data, None)}, Budget(SETTLE_WAIT))[INDEX].data

    def _post_notices(self, model: BoardModel) -> None:
        """Work out the banner's notices for a model (from a worker) and post them to the UI thread."""
        self.post_message(NoticesLoaded(read_notices(self.memory_root, model, self.copy_scan.current())))

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
        self.model = model
        if model.complete and len(model.rows) >= GC_FREEZE_ROWS:
            # a big index is a million long-lived objects: keep the cyclic GC from walking
            # them on every keystroke's allocations (gen-2 passes cost ~100 ms at 100k rows)
            gc.collect()
            gc.freeze()
        fresh = model.new_ids(previous)
        table = self.table
        if fresh:
            table.fresh = table.fresh | fresh
            self.set_timer(FRESH_SECONDS, self._clear_fresh)
        if model.complete and self.marks:
            self.marks &= {r.key for r in model.rows}
        before = table.current.id if table.current else None
        self._apply_view()
        after = table.current.id if table.current else None
        if after is not None and after == before and (after in changed_snapshots or not previous.complete):
            self._load_detail(after)
        elif after is not None and after == before:
            self._show_pane(table.current)
        elif after is None:
            self._show_pane(None)  # no row: the pane says why

    def _clear_fresh(self) -> None:
        """End the highlight of new rows."""
        self.table.fresh = set()
        self.table.refresh()

    def _apply_view(self) -> None:
        """Filter and sort the model into the table, keeping the cursor's row."""
        table = self.table
        keep = table.current.id if table.current else None
        rows = self.model.view(self.filter_text, self.status_filter, self.sort_column, self.sort_reverse)
        with self.batch_update():
            table.marked = self.marks
            table.sort_column = self.sort_column
            table.sort_reverse = self.sort_reverse
            table.empty_text = "" if rows else self.why_empty()
            table.set_rows(rows, self.model.now, keep)
            if not rows:
                self._show_pane(None)
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

    @on(SessionTable.CursorMoved)
    def _cursor_moved(self, message: SessionTable.CursorMoved) -> None:
        """Show the new row at once and load its snapshot in a worker."""
        row = self.table.current
        if row is None:
            self.detail = None
            self._show_pane(None)
            return
        if isinstance(self.focused, FilterInput):
            # typing a filter moves the cursor on every key: show the row once it rests
            if self._detail_timer is not None:
                self._detail_timer.stop()
            self._detail_timer = self.set_timer(DETAIL_DELAY, self._show_current)
        else:
            self._show_pane(row)
            # after the next refresh: the cursor repaints first, the snapshot follows
            self.call_after_refresh(self._load_detail, row.id)

    def _show_current(self) -> None:
        """Show the cursor's row in the pane and load its snapshot (after typing pauses)."""
        row = self.table.current
        self._show_pane(row)
        if row is not None:
            self._load_detail(row.id)

    def _show_pane(self, row: BoardRow | None) -> None:
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
        self._show_pane(row)

    @on(SessionTable.HeaderClicked)
    def _header_clicked(self, message: SessionTable.HeaderClicked) -> None:
        """Sort by a clicked column (again to reverse)."""
        if message.column == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = message.column, False
        self._apply_view()

    @work(thread=True, exclusive=True, group="detail")
    def _load_detail(self, session_id: str) -> None:
        """Read a snapshot and its revisions off the UI thread."""
        self.post_message(DetailLoaded(load_detail(self.memory_root, session_id)))

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
                self._show_pane(self.table.current)
            except NoMatches:  # the board is closing: its widgets are gone
                pass

    # -- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Board keys act on the board only: not inside a modal flow, help or the palette.

        `/` also yields while text is being typed, so the key reaches the input.
        """
        if action in BOARD_ACTIONS:
            on_board = len(self.screen_stack) <= 1 or self.screen is self.screen_stack[0]
            if not on_board:
                return False
            if action == "filter" and self._typing():
                return False
        return super().check_action(action, parameters)

    def _typing(self) -> bool:
        """Whether the focus is in a text box on the board (the only text editor, the update
        flow's, sits in a modal, where `/` is not a board key anyway)."""
        return isinstance(self.focused, Input)

    def action_filter(self) -> None:
        """Show and focus the text filter."""
        box = self.query_one("#filter", FilterInput)
        self.query_one("#filter-bar").display = True
        # focus now, not via call_later: keys typed right after `/` must land in the box,
        # never on the board's single-letter actions
        self.screen.set_focus(box)
        self.call_after_refresh(self.update_footer)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        """Filter on every keystroke."""
        self.filter_text = event.value
        self._apply_view()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        """Keep the filter and go back to the table (showing the selected snapshot now)."""
        self.table.focus()
        self.call_after_refresh(self.update_footer)
        if self._detail_timer is not None:
            self._detail_timer.stop()
        self._show_current()

    @on(Input.Blurred, "#filter")
    def _filter_blurred(self, event: Input.Blurred) -> None:
        """Hide an empty filter box."""
        if not event.value:
            self.query_one("#filter-bar").display = False

    def action_status(self, status: str) -> None:
        """Show one status (or all)."""
        self.status_filter = status if status in STATUSES else ALL
        self._apply_view()

    def action_sort(self) -> None:
        """Sort by the next column on screen, left to right, then back to file order."""
        keys = ["line", *self.table.visible_columns()]
        at = keys.index(self.sort_column) if self.sort_column in keys else 0
        self.sort_column = keys[(at + 1) % len(keys)]
        self.sort_reverse = False
        self._apply_view()

    def sort_by(self, column: str, reverse: bool = False) -> None:
        """Sort by a column key of SORT_COLUMNS."""
        self.sort_column, self.sort_reverse = column, reverse
        self._apply_view()

    def action_reverse_sort(self) -> None:
        """Reverse the sort order."""
        self.sort_reverse = not self.sort_reverse
        self._apply_view()

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

    def action_open(self) -> None:
        """Expand the snapshot pane to the full width (again to go back)."""
        self.screen.toggle_class("-expanded")
        if self.screen.has_class("-expanded"):
            self.query_one(SnapshotPane).focus()
        else:
            self.table.focus()
        self.call_after_refresh(self.update_footer)

    def action_leave_pane(self) -> None:
        """Leave the full-width pane (escape)."""
        if self.screen.has_class("-expanded"):
            self.screen.remove_class("-expanded")
            self.table.focus()
            self.call_after_refresh(self.update_footer)

    def update_footer(self) -> None:
        """Show the keys of where the user is on the board: the table, the filter box or the full pane."""
        if self.screen_stack and self.screen_stack[0].has_class("-expanded"):
            context = "pane"
        elif isinstance(self.focused, FilterInput):
            context = "filter"
        else:
            context = "board"
        try:
            self.screen_stack[0].query_one("#keys", KeyBar).show(context)
        except NoMatches:
            pass

    def on_descendant_focus(self) -> None:
        """The focus moved on the board: its footer follows."""
        self.call_after_refresh(self.update_footer)

    def action_log(self) -> None:
        """Show the result log: what each flow did in this run."""
        # lazy: the result log's screen loads on first use (start-up stays light)
        from .screens.confirm import LogScreen

        self.push_screen(LogScreen(self.run_log))

    def _note_flow_running(self) -> bool:
        """Whether the notes view (once opened) has a flow open: an edit, a supersede, a mark."""
        if not self.is_screen_installed(NOTES_VIEW):
            return False
        runner = getattr(self.get_screen(NOTES_VIEW), "flows", None)
        return bool(runner is not None and runner.running())

    async def action_quit(self) -> None:
        """Quit; while a flow is open (or an update draft is kept) ask first."""
        if self._asking_quit:
            return
        # lazy: loaded with the flows, on first use
        from .screens.waiting import ProgressScreen

        if isinstance(self.screen, ProgressScreen):  # a write under way is never cut off
            self.notify("A change is being written: quit once it is done.", severity="warning")
            return
        flows = self._flows
        busy = (flows is not None and flows.running()) or self._note_flow_running()
        drafts = list(flows.drafts) if flows is not None else []
        if not busy and not drafts:
            self.exit()
            return
        # lazy: the question's screen loads on first use (start-up stays light)
        from .screens.confirm import QuestionScreen

        what = (
            "a change is open (nothing of it is written yet)"
            if busy
            else f"update drafts of {', '.join(drafts)} are kept only while the board runs"
        )
        self._asking_quit = True

        def answered(answer: str | None) -> None:
            """Quit on yes."""
            self._asking_quit = False
            if answer == "yes":
                self.exit()

        self.push_screen(QuestionScreen("Quit memboard?", f"Quit now? {what[0].upper()}{what[1:]}."), answered)

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

    def action_notes(self) -> None:
        """Show the notes view (its own `n` comes back)."""
        # lazy: the notes view loads when it is first opened (start-up stays light)
        from .notes.screen import open_notes

        open_notes(self)

    def action_session_notes(self) -> None:
        """Show the notes view filtered to the selected session's notes."""
        # lazy: the notes view loads when it is first opened (start-up stays light)
        from .notes.screen import open_notes

        open_notes(self, self.current_session_id or "")

    def search_themes(self) -> None:
        """The palette's theme search; the theme chosen there is saved in the config."""
        # lazy: the palette loads when it first opens (start-up stays light)
        from textual.command import CommandPalette

        # lazy: loaded with the palette
        from .commands import SavedThemes

        self.push_screen(CommandPalette(providers=[SavedThemes], placeholder="Search for themes… (saved when chosen)"))

    def choose_theme(self, name: str) -> None:
        """Apply a theme and save it as the config's `theme`, with the same comment-keeping writer as `config set`."""
        # lazy: the config writer loads when a theme is first chosen
        from ..core import config
        from ..core.files import tomledit  # lazy: with the config writer

        self.theme = name
        try:
            stored = config.parse_value("theme", name, frozenset(self.available_themes))
            config.load()  # a config that is not valid TOML is refused, as by `config set`
            tomledit.apply(tomledit.plan_set(config.config_path(), ("theme",), stored))
        except MemboardError as exc:
            self.notify(short(f"theme {name} is used but not saved: {exc}"), severity="warning")
            return
        self.notify(f"theme {name} saved in the config", timeout=TOAST_SECONDS)

    def action_help(self) -> None:
        """Show the keys."""
        # lazy: its Markdown widget loads on first use (start-up stays light)
        from .screens.help import HelpScreen

        self.push_screen(HelpScreen())

    # -- search and the archive (read-only views) ---------------------------------------------

    def action_search(self) -> None:
        """Search everything (rows, snapshots, the archive); enter on a live result selects its row."""
        # lazy: search's screens and the search engine load on first use (start-up stays light)
        from .screens.search import SearchScreen

        self.push_screen(SearchScreen(self.memory_root), self._search_chosen)

    def _search_chosen(self, chosen: tuple[str, str] | None) -> None:
        """Show the note chosen in search in the notes view; select the live session chosen (one no
        longer on the table opens read-only)."""
        if chosen is None:
            return
        kind, session_id = chosen
        if kind == "note":
            # lazy: the notes view loads when it is first opened (start-up stays light)
            from .notes.screen import open_notes

            open_notes(self, session_id)
            return
        if self.select_session(session_id):
            self.table.focus()
        else:
            # lazy: loaded with search, on first use
            from .screens.session import SessionScreen

            self.push_screen(SessionScreen(self.memory_root, session_id))

    def action_archived(self) -> None:
        """Browse the archived sessions (read-only)."""
        # lazy: the archive's screen and its table widget load on first use (start-up stays light)
        from .screens.archive import ArchiveScreen

        self.push_screen(ArchiveScreen(self.memory_root))

    # -- the flows --------------------------------------------------------------------------

    def action_continue_session(self) -> None:
        """Continue from the selected session (a flow)."""
        self.flows.continue_session()

    def action_release(self) -> None:
        """Release one of the selected session's references (a flow)."""
        self.flows.release()

    def action_archive(self) -> None:
        """Archive the marked sessions, or the selected one (a flow)."""
        self.flows.archive()

    def action_organize(self) -> None:
        """Organize the whole index (a flow)."""
        self.flows.organize()

    def action_update(self) -> None:
        """Update the selected session's fields and snapshot (a flow)."""
        self.flows.update()

    def action_chain(self) -> None:
        """Show the selected session's reference chain (a flow)."""
        self.flows.chain()

    def action_doctor(self) -> None:
        """Find and repair inconsistencies (a flow)."""
        self.flows.doctor()

    def on_ask_screen(self, message: AskScreen) -> None:
        """Show a flow's modal; its answer goes back to the waiting flow."""
        self.push_screen(message.screen, message.answer)

    def on_flow_finished(self, message: FlowFinished) -> None:
        """A flow ended: clear marks if it asked; re-read what it wrote (in the reload worker),
        else finish its report at once."""
        if message.clear_marks:
            self.clear_marks()
        if message.applied:
            self._waiting_flows.append(message)
            self.refresh_model()
        else:
            self._flow_shown(message)

    def on_flows_shown(self, message: FlowsShown) -> None:
        """The refresh after these flows is on screen: finish their reports."""
        for finished in message.finished:
            self._flow_shown(finished)

    def _flow_shown(self, message: FlowFinished) -> None:
        """Move the cursor if the flow asked, log what happened and say it in a short toast, and let the flow end."""
        try:
            if message.select_id:
                self.select_session(message.select_id)
            if message.outcome:
                self.run_log.append(
                    LogEntry(clock.now(), message.op, message.outcome, message.severity, list(message.details))
                )
                text = short(message.outcome)
                if text != message.outcome or message.details:
                    text += "  (l: the whole result)"
                self.clear_notifications()  # an earlier flow's toast is stale now
                self.notify(text, title=message.op, severity=message.severity, timeout=TOAST_SECONDS)
            self._follow_up = message.follow_up
        finally:
            message.shown.set_result(None)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """When a flow's worker ends, start the fix flow it offered and the user chose."""
        worker = event.worker
        if worker.group != "flow" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        follow, self._follow_up = self._follow_up, None
        if follow is None:
            return
        action, session_id = follow
        if session_id and not self.select_session(session_id):
            return
        starts = {"release": self.flows.release, "update": self.flows.update, "doctor": self.flows.doctor}
        if action in starts:
            starts[action]()

    def on_jump_to_session(self, message: JumpToSession) -> None:
        """Move the cursor to the session chosen in the chain view."""
        self.select_session(message.session_id)
