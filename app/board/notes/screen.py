"""The notes view: a live, filterable table of the root's typed notes beside a pane with the selected
note and its last change, one key (`n`) from the session table.

A browse screen (board/browse.py), like the sessions view: reading happens in thread workers that
post messages back (the first read paints the first screenful before the rest is read; the watcher
polls every note file's signature every half second, re-reading only the notes that changed, and
keeps the cursor and the filters); the table renders only what is on screen; the model is plain
Python (model.py). Keys come from the action table (owner "notes"); the flows (flows.py) run against
a FlowHost (the App) and report back here; the sessions view is reached through SessionBoard only.
The screen is installed once and kept, so going back and forth is instant.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from textual import work
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.css.query import NoMatches
from textual.message import Message

from memboard.styles import NOTES_TCSS
from memboard.widgets.note_pane import NotePane
from memboard.widgets.note_table import NoteTable
from memboard.widgets.notes_status import NotesStatus
from memboard.widgets.panes import NotePaneView

from ...core.formats import clock
from ...core.ops.notes.chain import note_chain
from ...core.results import NoteView
from ..actions import Action, KeyTable, bindings, palette_entries
from ..browse import BrowseScreen, Ids
from ..commands import sentence
from ..flowrun import FlowHost
from ..screens import Choice as PickerChoice
from .dialogs import NoteChainScreen
from .flows import NoteFlowFinished, NoteFlows
from .loader import FIRST_SCREEN, NoteWatch, load_note_pane, read_views
from .model import ALL, SORT_COLUMNS, STATUS_FILTERS, TYPE_FILTERS, NoteRow, NotesModel

GC_FREEZE_NOTES = 5_000
IDS = Ids(
    "notes-status",
    "notes-filter-bar",
    "notes-filter-label",
    "notes-filter",
    "notes-main",
    "note-table",
    "note-pane",
    "notes-keys",
)
NO_NOTES = (
    "No notes under notes/ yet. Agents save them with `memboard note save`, the MCP server's mem_save, "
    "or a Memory Update block (`memboard note apply`); they show here as they are saved."
)

HINT_STATUS = "1 shows every status"
HINT_TYPE = "t / T the other types (then all)"


@dataclass
class NotesLoaded(Message):
    """A read of the notes (the first screenful first, then all), and the notes that changed."""

    model: NotesModel
    changed: set[str] = field(default_factory=set)
    after: NoteFlowFinished | None = None  # a flow waiting for this read to be shown


@dataclass
class NotePaneLoaded(Message):
    """A note read for the pane."""

    pane: NotePaneView


class NotesCommands(Provider):
    """The notes view's actions for the command palette (the action table's entries of owner "notes")."""

    def table(self) -> tuple[Action, ...]:
        """The board's action table, with the user's keymap applied."""
        return getattr(self.app, "key_table", KeyTable()).entries

    def commands(self) -> list[tuple[str, str, str]]:
        """(name as shown, action, help) of every notes command: the table's, then one per type of note."""
        out = [
            (f"{entry.palette}  {entry.key_text}", entry.action, sentence(entry.help))
            for entry in palette_entries(self.table(), owner="notes")
        ]
        for note_type in TYPE_FILTERS:
            name = "Show every type of note" if note_type == ALL else f"Show {note_type} notes"
            help = "every type of note again" if note_type == ALL else f"only the notes of type {note_type}"
            out.append((f"{name}  t / T", f"show_type({note_type!r})", sentence(help)))
        return out

    async def discover(self) -> Hits:
        """Every notes command, for the empty palette."""
        for shown, action, help in self.commands():
            yield DiscoveryHit(shown, self.runner(action), text=shown.split("  ")[0], help=help)

    async def search(self, query: str) -> Hits:
        """Notes commands matching the query."""
        matcher = self.matcher(query)
        for shown, action, help in self.commands():
            name = shown.split("  ")[0]
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(shown), self.runner(action), text=name, help=help)

    def runner(self, action: str):
        """Run action on the notes view (the screen the palette was opened from)."""
        screen = self.screen

        async def run() -> None:
            """Run the action once the palette has closed."""
            await self.app.run_action(action, screen)

        return run


class SessionBoard(Protocol):
    """The sessions view as the notes view sees it: whether a session is on it, and moving its cursor there."""

    def has_session(self, session_id: str) -> bool:
        """Whether the session is a row of the index as read."""

    def select_session(self, session_id: str) -> bool:
        """Move the cursor to a session's row, clearing filters if they hide it."""

    def show_search_result(self, chosen: tuple[str, str] | None) -> None:
        """Show what was chosen in search (`f`): a session's row, a note in the notes view, a space or the
        hierarchy on its screen."""


class NotesScreen(BrowseScreen[NoteRow, NotesModel]):
    """Typed notes beside their pane: filters, counts per status and type, flows, live updates."""

    CSS_PATH = NOTES_TCSS
    BINDINGS = bindings("notes")
    COMMANDS = {NotesCommands}
    IDS = IDS
    FOOTER = "notes"
    PLACEHOLDER = "ID, title, type, scope, project, session (enter keeps, escape clears)"
    SORTABLE = frozenset(SORT_COLUMNS)
    GC_FREEZE = GC_FREEZE_NOTES

    def __init__(self, host: FlowHost, sessions: SessionBoard, *, watch: bool = True) -> None:
        """The notes view of host's memory root; its flows run on host, `o` reaches the sessions view."""
        super().__init__(watch=watch, sort_column="id")
        self.sessions = sessions
        self.root = host.memory_root
        self.model = NotesModel.empty(clock.now())
        self.status_filter = ALL
        self.type_filter = ALL
        self.pane: NotePaneView | None = None
        self.watcher = NoteWatch(self.root)
        self.rows: dict[str, NoteRow] = {}  # the read notes' rows (touched by the read workers only, under the lock)
        self.flows = NoteFlows(host, self)

    # -- layout -----------------------------------------------------------------------------

    def make_status(self) -> NotesStatus:
        """Counts per status and type."""
        return NotesStatus(id=IDS.status)

    def make_table(self) -> NoteTable:
        """The notes table."""
        return NoteTable(id=IDS.table)

    def make_pane(self) -> NotePane:
        """The note pane."""
        return NotePane(id=IDS.pane)

    def on_mount(self) -> None:
        """Focus the table, start reading the notes and (unless off) watching them."""
        self.query_one(f"#{IDS.filter_bar}").display = bool(self.filter_text)
        self.table.focus()
        self.apply_view()
        self.first_read()
        self.start_watching()

    def on_screen_resume(self) -> None:
        """Back on screen: look for notes saved meanwhile at once."""
        if self.model.complete:
            self.poll()

    @property
    def table(self) -> NoteTable:
        """The notes table widget."""
        return self.query_one(NoteTable)

    # -- reading ----------------------------------------------------------------------------

    @work(thread=True, group="notes-first-read")
    def first_read(self) -> None:
        """Read every note's metadata off the UI thread: the first screenful first, then the rest."""
        with self._read_lock:
            self.watcher.prime()
            ids = sorted(self.watcher.snapshots)
            head = read_views(self.root, ids[:FIRST_SCREEN])
            self._keep(head)
            if len(ids) > FIRST_SCREEN:
                self.post_message(NotesLoaded(self._model(complete=False)))
                self._keep(read_views(self.root, ids[FIRST_SCREEN:]))
            self.post_message(NotesLoaded(self._model()))

    def poll(self) -> None:
        """Every half second while the view is on screen: look for notes that changed on disk (unless a
        read is still going on: polls do not pile up on a slow disk)."""
        if self.is_current and self.model.complete and not self._read_lock.locked():
            self.read_changes()

    @work(thread=True, group="notes-read")
    def read_changes(self, after: NoteFlowFinished | None = None) -> None:
        """Re-read the notes whose files changed (off the UI thread) and post the model when any did
        (always when a flow waits on it: even when the read fails, the flow is told)."""
        told = False
        try:
            with self._read_lock:
                _, changed = self.watcher.changes()
                if changed:
                    self._keep(read_views(self.root, sorted(changed)))
                if changed or after is not None:
                    told = self.post_message(NotesLoaded(self._model(), changed, after)) or after is None
        finally:
            if after is not None and not told:
                after.shown.set_result(None)

    def _keep(self, views: dict[str, NoteView | None]) -> None:
        """Fold fresh reads into the rows (from a read worker, under the lock); None drops a note."""
        for note_id, view in views.items():
            if view is None:
                self.rows.pop(note_id, None)
            else:
                self.rows[note_id] = NoteRow.of(view)

    def _model(self, complete: bool = True) -> NotesModel:
        """A model of the rows read so far (from a read worker, under the lock)."""
        return NotesModel([self.rows[key] for key in sorted(self.rows)], clock.now(), complete)

    def on_notes_loaded(self, message: NotesLoaded) -> None:
        """Show a fresh model, keeping cursor and filters; a waiting flow finishes once it is shown."""
        try:
            self._show_model(message.model, message.changed)
            if message.after is not None:
                self._flow_shown(message.after)
        except NoMatches:  # the board is closing: its widgets are gone
            if message.after is not None:
                message.after.shown.set_result(None)

    def _show_model(self, model: NotesModel, changed: set[str]) -> None:
        """Swap in a model, flash new notes, reload the pane when its note changed."""
        previous, self.model = self.model, model
        before, after = self.swap_model(previous, model)
        if after is None:
            self.show_pane(None)
        elif after == before and after in changed:
            self.load_pane(after)

    def apply_view(self) -> None:
        """Filter and sort the model into the table, keeping the cursor's note."""
        table = self.table
        keep = table.current.id if table.current else None
        rows = self.model.view(
            self.filter_text, self.status_filter, self.type_filter, self.sort_column, self.sort_reverse
        )
        with self.app.batch_update():
            table.sort_column, table.sort_reverse = self.sort_column, self.sort_reverse
            table.empty_text = "" if rows else self.why_empty()
            table.set_rows(rows, self.model.now, keep)
            if not rows:
                self.show_pane(None)
            self._update_status()

    def why_empty(self) -> str:
        """One line saying why the table shows no note (none read yet, none saved, filters that hide them all)."""
        model = self.model
        if not model.rows:
            return "Reading the notes…" if not model.complete else NO_NOTES
        kinds = " ".join(f for f in (self.status_filter, self.type_filter) if f != ALL)
        among = f" among the {kinds} notes" if kinds else ""
        undo = [
            hint for hint, on in ((HINT_STATUS, self.status_filter != ALL), (HINT_TYPE, self.type_filter != ALL)) if on
        ]
        if self.filter_text:
            undo.insert(0, "escape in the filter box (/) clears it")
            return f"No note matches “{self.filter_text}”{among}: {', '.join(undo)}."
        return f"No {kinds} notes (of {len(model.rows):,}): {', '.join(undo)}."

    def _update_status(self) -> None:
        """Counts per status and type, what is shown and the filters, in the status lines."""
        model = self.model
        self.query_one(NotesStatus).show(
            model.counts,
            model.type_counts,
            problems=model.problems,
            shown=len(self.table.rows),
            status=self.status_filter,
            note_type=self.type_filter,
            text=self.filter_text,
            loading=not model.complete,
        )

    # -- the pane ---------------------------------------------------------------------------

    def show_pane(self, row: NoteRow | None) -> None:
        """Show row in the pane, with its sections and change once read (no row: say why)."""
        pane = self.pane if self.pane is not None and row is not None and self.pane.note_id == row.id else None
        empty = self.table.empty_text or "No note selected."
        self.query_one(NotePane).show(row, pane, empty)

    @work(thread=True, exclusive=True, group="notes-pane")
    def load_pane(self, row_id: str) -> None:
        """Read a note and its newest differing revision off the UI thread."""
        self.post_message(NotePaneLoaded(load_note_pane(self.root, row_id)))

    def on_note_pane_loaded(self, message: NotePaneLoaded) -> None:
        """Show a read note if it is still selected."""
        try:
            row = self.table.current
            if row is not None and row.id == message.pane.note_id:
                self.pane = message.pane
                self.show_pane(row)
        except NoMatches:  # the board is closing: its widgets are gone
            pass

    def action_status(self, status: str) -> None:
        """Show one status (or all)."""
        self.status_filter = status if status in STATUS_FILTERS else ALL
        self.apply_view()

    def action_next_type(self, step: int = 1) -> None:
        """Show the next type that has notes (after the last one, every type); step -1 goes back."""
        cycle = [t for t in TYPE_FILTERS if t == ALL or t == self.type_filter or self.model.type_counts.get(t)]
        self.type_filter = cycle[(cycle.index(self.type_filter) + step) % len(cycle)]
        self.apply_view()

    def action_previous_type(self) -> None:
        """Show the previous type that has notes (before the first one, every type): `t` the other way."""
        self.action_next_type(-1)

    def action_show_type(self, note_type: str) -> None:
        """Show one type of note (or every type), as chosen in the palette."""
        self.type_filter = note_type if note_type in TYPE_FILTERS else ALL
        self.apply_view()

    def default_reverse(self, column: str) -> bool:
        """A first click on Updated shows the newest first."""
        return column == "updated"

    def reset_filters(self) -> None:
        """Show every note: no status, no type, no text."""
        self.status_filter = self.type_filter = ALL
        self.set_filter("")

    def jump_to(self, note_id: str) -> None:
        """Show one note (a jump from search): its ID as the text filter, the status and type filters that
        could hide it cleared."""
        self.status_filter = self.type_filter = ALL
        self.set_filter(note_id)

    def select_note(self, note_id: str) -> bool:
        """Move the cursor to a note, clearing the filters if they hide it."""
        return note_id in self.model.by_id and self.select(note_id)

    # -- moving around ----------------------------------------------------------------------

    def action_sessions(self) -> None:
        """Back to the session table."""
        self.app.pop_screen()

    def action_session(self) -> None:
        """Go to the selected note's session on the board."""
        row = self.table.current
        if row is None:
            return
        session = row.view.session
        if not session:
            self.notify(f"{row.id} names no session", severity="warning")
        elif not self.sessions.has_session(session):
            self.notify(f"{session} is not on the board (archived, or no longer in index.md)", severity="warning")
        else:
            self.app.pop_screen()
            self.sessions.select_session(session)

    def action_search(self) -> None:
        """Search everything (as `f` on the session table): a note chosen is shown here, its filters cleared;
        anything else is shown from the session table."""
        # lazy: search's screens and the search engine load on first use (opening the view stays light)
        from ..screens.search import SearchScreen

        self.app.push_screen(SearchScreen(self.root), self._search_chosen)

    def _search_chosen(self, chosen: tuple[str, str] | None) -> None:
        """Jump to the note chosen in search; a session, space or hierarchy hit goes back to the session table
        and is shown from there."""
        if chosen is None:
            return
        if chosen[0] == "note":
            self.jump_to(chosen[1])
            self.table.focus()
            return
        if self.app.screen is self:
            self.app.pop_screen()
        self.sessions.show_search_result(chosen)

    def action_chain(self) -> None:
        """Walk the selected note's supersede chain; enter jumps to a note."""
        row = self.table.current
        if row is None or self.app.screen is not self:
            return
        self.app.push_screen(NoteChainScreen(note_chain(self.model.views(), row.id)), self._jump)

    def _jump(self, note_id: str | None) -> None:
        """Move to the note chosen in the chain (it may be hidden by the filters)."""
        if note_id and not self.select_note(note_id):
            self.notify(f"{note_id} is not among the notes read", severity="warning")

    # -- the flows --------------------------------------------------------------------------

    def selected(self, op: str) -> NoteRow | None:
        """The note under the cursor, or None with a hint."""
        row = self.table.current
        if row is None:
            self.notify(f"Select a note to {op}", severity="warning")
        return row

    def action_edit(self) -> None:
        """Edit the selected note (a flow)."""
        row = self.selected("edit")
        if row is not None:
            self.flows.edit(row.id)

    def action_supersede(self) -> None:
        """Supersede the selected note with another one picked from the active notes (a flow)."""
        row = self.selected("supersede")
        if row is None:
            return
        choices = [
            PickerChoice(r.id, f"{r.view.type} · {r.view.title}")
            for r in self.model.ordered("updated", reverse=True)
            if r.id != row.id and r.status == "active"
        ]
        self.flows.supersede(row.id, choices)

    def action_mark(self) -> None:
        """Mark the selected note superseded, or a superseded one active again (a flow)."""
        row = self.selected("mark")
        if row is not None:
            self.flows.mark(row.id, "active" if row.status == "superseded" else "superseded")

    def on_note_flow_finished(self, message: NoteFlowFinished) -> None:
        """A flow ended: re-read what it wrote (the flow ends once that is shown), else tell at once."""
        if message.applied:
            self.read_changes(after=message)
        else:
            self._flow_shown(message)

    def _flow_shown(self, message: NoteFlowFinished) -> None:
        """Move the cursor if the flow asked, say what happened, and let the flow end."""
        try:
            if message.select_id:
                self.select_note(message.select_id)
                if self.table.current is not None and self.table.current.id == message.select_id:
                    self.load_pane(message.select_id)
            if message.outcome:
                self.notify(message.outcome, title=message.op, severity=message.severity)
        finally:
            message.shown.set_result(None)
