"""The Spaces screen: every known session-memory space as a live, filterable table beside its pane.

A browse screen (browse.py), one key (`p`) from the session table; `escape` goes back. The rows are the
service builder of `space list` (spacemodel.py): a space that cannot be resolved shows `!` and its one-line
problem, never hidden; Updated is red past space_stale_days. Reading happens in thread workers that post
messages back: the first read paints the known spaces at once (their folders, from memboard's record, the
config's space_roots and the skill's registry) and fills in their ages and counts as soon as they are
read; the watcher polls every space's files every half second and re-reads when one changed, keeping the
cursor and the filter (a file caught mid-save is waited for, as the sessions table waits for index.md).
The pane shows current.md, dream-notes.md and the newest history entries, and the change of current.md
since the revision memboard last saw, with the lines that left it without reaching history.md. Keys come
from the action table (owner "spaces"); every changing key is a flow (spaceflows.py) that opens the usual
exact preview and applies exactly that plan.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import Input, Static

from memboard.styles import SPACES_TCSS
from memboard.widgets.line_view import LineView
from memboard.widgets.space_table import SpaceRow, SpaceTable

from ..core.formats import clock
from .actions import bindings
from .browse import BrowseScreen, Ids
from .planview import ViewLine
from .spacemodel import SpacePane, SpacesModel, SpaceWatch, load_pane, read_rows

if TYPE_CHECKING:
    from .app import MemboardApp
    from .spaceflows import SpaceFlowFinished, SpaceFlows

IDS = Ids(
    "spaces-status",
    "spaces-filter-bar",
    "spaces-filter-label",
    "spaces-filter",
    "spaces-main",
    "spaces-table",
    "space-pane",
    "spaces-keys",
)
NO_SPACES = (
    "No known session-memory space yet. memboard knows a space once a `memboard space` command resolved it, "
    "from the config's space_roots, or from the skill's registry.json; it never walks the disk."
)


@dataclass
class SpacesLoaded(Message):
    """A read of the known spaces and the IDs whose files changed."""

    model: SpacesModel
    changed: set[str]


@dataclass
class SpacePaneLoaded(Message):
    """A space read for the pane."""

    pane: SpacePane
    full: bool


def quick_rows() -> list[SpaceRow]:
    """The known spaces before they are read: their folders and projects (memboard's record, space_roots, the
    skill's registries), no resolution, no file read."""
    from ..core.spaces.known import known  # lazy: loaded on first use (opening the screen stays light)

    out = []
    for space in known():
        target = space.target
        name = "global" if space.scope == "global" else target.parent.name or str(target)
        out.append(SpaceRow(id=str(target), name=name, project=str(target.parent), rule="…", exists=False))
    return out


class SpacesScreen(BrowseScreen[SpaceRow, SpacesModel]):
    """The known spaces beside their pane: filter, live updates, the changing keys' flows."""

    CSS_PATH = SPACES_TCSS  # (the App reads it once its first rows show: then it is not read again)

    BINDINGS = bindings("spaces")
    IDS = IDS
    FOOTER = "spaces"
    PLACEHOLDER = "space, folder, project, rule, flags, problem (enter keeps, escape clears)"
    SORTABLE = frozenset({"name", "project", "rule", "updated", "history", "research", "dream", "flags"})

    def __init__(self, host: MemboardApp, *, watch: bool = True) -> None:
        """The Spaces screen of the board host; watch=False turns its file watcher off."""
        super().__init__(watch=watch, sort_column="name")
        self.host = host
        self.model = SpacesModel.empty()
        self.pane: SpacePane | None = None
        self.watcher = SpaceWatch()
        self._flows: SpaceFlows | None = None
        self.painted_at: float | None = None  # when the first rows were on screen (perf_counter)
        self.wanted: str | None = None  # a space asked for before the first read (search's P hit): selected once read

    @property
    def flows(self) -> SpaceFlows:
        """The changing keys' flows (built on first use)."""
        if self._flows is None:
            from .spaceflows import SpaceFlows  # lazy: the flows and their modals load with the first change

            self._flows = SpaceFlows(self.host, self)
        return self._flows

    # -- layout -----------------------------------------------------------------------------

    def make_status(self) -> Static:
        """Counts: spaces, stale, problems, dream and archive due."""
        return Static(id=IDS.status)

    def make_table(self) -> SpaceTable:
        """The spaces table."""
        return SpaceTable(id=IDS.table)

    def make_pane(self) -> LineView:
        """The space's pane."""
        return LineView(id=IDS.pane)

    def on_mount(self) -> None:
        """Paint the known spaces at once, then read them (and, unless off, watch their files)."""
        self.query_one(f"#{IDS.filter_bar}").display = bool(self.filter_text)
        self.table.focus()
        self.model = SpacesModel(quick_rows(), complete=False)
        self.apply_view()
        self.call_after_refresh(self._painted)

    def _painted(self) -> None:
        """The first rows are on screen: note when (the benchmark reads it), then read the spaces."""
        self.painted_at = time.perf_counter()
        self.read_worker(set())
        self.start_watching()

    def on_screen_resume(self) -> None:
        """Back on screen: look for files saved meanwhile at once."""
        if self.model.complete:
            self.poll()

    @property
    def table(self) -> SpaceTable:
        """The spaces table widget."""
        return self.query_one(SpaceTable)

    # -- reading ----------------------------------------------------------------------------

    @work(thread=True, group="spaces-read")
    def read_worker(self, changed: set[str]) -> None:
        """Read every known space off the UI thread and post the model."""
        with self._read_lock:
            model = SpacesModel(read_rows())
            self.watcher.prime(model.rows)
        self.post_message(SpacesLoaded(model, changed))

    def poll(self) -> None:
        """Every half second while on screen: re-read when a space's files (or the known spaces) changed."""
        if not (self.is_current and self.model.complete) or self._read_lock.locked():
            return
        changed, anything = self.watcher.changes(self.model.rows)
        if anything:
            self.read_worker(changed)

    def on_spaces_loaded(self, message: SpacesLoaded) -> None:
        """Show a fresh model, keeping cursor and filter; the pane re-reads when its space changed."""
        try:
            previous, self.model = self.model, message.model
            before, after = self.swap_model(previous, message.model)
            if self.wanted is not None and self.wanted in self.model.by_id:
                wanted, self.wanted = self.wanted, None
                self.select(wanted)
                after = self.table.current.id if self.table.current else after
            if after is None:
                self.show_pane(None)
            elif after != before or after in message.changed or not previous.complete:
                self.show_pane(self.table.current)
                self.load_pane(after)
        except NoMatches:  # the screen is closing
            pass

    def apply_view(self) -> None:
        """Filter and sort the model into the table, keeping the cursor's space."""
        table = self.table
        keep = table.current.id if table.current else None
        rows = self.model.view(self.filter_text, self.sort_column, self.sort_reverse)
        with self.app.batch_update():
            table.sort_column, table.sort_reverse = self.sort_column, self.sort_reverse
            table.empty_text = "" if rows else self.why_empty()
            table.set_rows(rows, clock.now(), keep)
            if not rows:
                self.show_pane(None)
            self._update_status()

    def why_empty(self) -> str:
        """Why the table shows no row."""
        if self.model.rows and self.filter_text:
            return f"No space matches “{self.filter_text}”: escape in the filter box (/) clears it."
        return NO_SPACES if self.model.complete else "reading the known spaces…"

    def _update_status(self) -> None:
        """The counts line."""
        rows = self.model.rows
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append("◇ spaces ", style="bold")
        out.append(f"{len(rows):,}")
        for label, count in (
            ("stale", sum(r.stale for r in rows)),
            ("with a problem", sum(bool(r.problem) for r in rows)),
            ("dream due", sum(r.dream_due for r in rows)),
            ("archive due", sum(r.archive_due for r in rows)),
        ):
            if count:
                out.append(f" · {count:,} {label}")
        if self.filter_text:
            out.append(f" · {len(self.table.rows):,} shown for “{self.filter_text}”")
        if not self.model.complete:
            out.append(" · reading…", style="dim")
        self.query_one(f"#{IDS.status}", Static).update(out)

    def reset_filters(self) -> None:
        """Show every space."""
        self.set_filter("")

    def default_reverse(self, column: str) -> bool:
        """A first click on an age shows the oldest first."""
        return column in ("updated", "dream")

    # -- the pane ---------------------------------------------------------------------------

    def show_pane(self, row: SpaceRow | None) -> None:
        """Show row's pane once read (its heading at once); no row: say why."""
        view = self.query_one(f"#{IDS.pane}", LineView)
        if row is None:
            view.set_lines([ViewLine(self.table.empty_text or "No space selected.", "muted")])
            return
        pane = self.pane
        if pane is not None and pane.space_id == row.id:
            view.set_lines(pane.lines, top=False)
        else:
            view.set_lines([ViewLine(row.id, "header"), ViewLine("loading…", "muted")])

    @work(thread=True, exclusive=True, group="spaces-pane")
    def load_pane(self, row_id: str) -> None:
        """Read a space for the pane off the UI thread."""
        row = self.model.by_id.get(row_id)
        if row is None:
            return
        full = self.has_class("-expanded")
        self.post_message(SpacePaneLoaded(load_pane(row, None if full else 5), full))

    def on_space_pane_loaded(self, message: SpacePaneLoaded) -> None:
        """Show a read space if it is still selected."""
        try:
            row = self.table.current
            if row is not None and row.id == message.pane.space_id:
                self.pane = message.pane
                self.show_pane(row)
        except NoMatches:
            pass

    def pane_cleared(self) -> None:
        """No row: no pane either."""
        self.pane = None

    def action_open(self) -> None:
        """The restore view full width (every history entry); again to go back."""
        super().action_open()
        row = self.table.current
        if row is not None:
            self.load_pane(row.id)

    def action_back(self) -> None:
        """Leave the full-width view, else go back to the session table."""
        if self.has_class("-expanded"):
            self.action_leave_pane()
            row = self.table.current
            if row is not None:
                self.load_pane(row.id)
            return
        self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`/` yields while text is being typed, so the key reaches the input."""
        if action == "filter" and isinstance(self.focused, Input):
            return False
        return super().check_action(action, parameters)

    def select_space(self, space_id: str) -> bool:
        """Move the cursor to a space, clearing the filter if it hides it (before the first read: once read)."""
        if not self.model.complete:
            self.wanted = space_id
            return False
        return space_id in self.model.by_id and self.select(space_id)

    # -- keys -------------------------------------------------------------------------------

    def selected(self, op: str) -> SpaceRow | None:
        """The space under the cursor, or None with a hint."""
        row = self.table.current
        if row is None:
            self.notify(f"Select a space to {op}", severity="warning")
        return row

    def action_search(self) -> None:
        """Search everything (as `f` on the session table)."""
        self.host.sessions.action_search()

    def action_check(self) -> None:
        """The space's check findings and save-gate decision, in a message."""
        row = self.selected("check")
        if row is not None:
            self.check_worker(row)

    @work(thread=True, group="spaces-check")
    def check_worker(self, row: SpaceRow) -> None:
        """Run the check builder off the UI thread and show its answer."""
        from ..service.spaces_read import check  # lazy: loaded on first use (opening the screen stays light)

        scope = "global" if row.rule == "global" else "workspace" if row.rule == "workspace" else "auto"
        try:
            found = check(str(Path(row.id).parent), scope, []).result
        except Exception as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            return
        lines = [f"decision: {found['decision'] or '-'} ({'; '.join(found['reasons'])})", ""]
        if not found["findings"]:
            lines.append("no findings")
        for finding in found["findings"]:
            lines.append(f"{finding['kind']}: {finding['message']}")
            lines.append(f"    fix: {finding['fix']}")
        from .screens import MessageScreen  # lazy: loaded on first use (opening the screen stays light)

        self.app.call_from_thread(
            self.app.push_screen,
            MessageScreen(
                f"Check · {row.name}", "\n".join(lines), footnote="A read: nothing was written.", error=False
            ),
        )

    def _flow(self, op: str, method: str, *, needs_space: bool = True) -> None:
        """Start one of the flows on the selected space."""
        row = self.selected(op)
        if row is None:
            return
        if needs_space and row.problem and not row.exists and row.config_invalid:
            self.notify(row.problem, severity="error")
            return
        flows = self.flows
        flows.start_flow(op, getattr(flows, method), row.id, row.rule)

    def action_save(self) -> None:
        """Save current.md through $EDITOR and the layering preview."""
        self._flow("save", "flow_save")

    def action_research(self) -> None:
        """The research-save form and its preview."""
        self._flow("research-save", "flow_research")

    def action_dream(self) -> None:
        """The dream draft and its preview."""
        self._flow("dream", "flow_dream")

    def action_init(self) -> None:
        """Init a missing space (create-only)."""
        self._flow("init", "flow_init")

    def archive_blocked(self, row: SpaceRow) -> str | None:
        """Why archive is disabled for row now (None: a dream covers the entries it would move)."""
        if row.archive_due or row.half_archived:
            return None
        pane = self.pane
        if pane is not None and pane.space_id == row.id and pane.archive_blocked:
            return pane.archive_blocked
        if not row.exists:
            return "there is no memory here yet"
        return "no dream covers the entries to move yet: D distils them first"

    def action_archive(self) -> None:
        """Archive, unless no dream covers the entries (then say why: the key is disabled)."""
        row = self.selected("archive")
        if row is None:
            return
        reason = self.archive_blocked(row)
        if reason is not None:
            self.app.bell()
            self.notify(f"archive is disabled: {reason}", title="Archive", severity="warning")
            return
        self._flow("archive", "flow_archive")

    def action_migrate(self) -> None:
        """Migrate legacy data (`space migrate`'s plan), previewed first."""
        self._flow("migrate", "flow_migrate")

    def on_space_flow_finished(self, message: SpaceFlowFinished) -> None:
        """A flow ended: say so, re-read when it wrote, and let the flow end."""
        try:
            if message.outcome:
                self.notify(message.outcome, title=message.op, severity=message.severity)
            if message.applied:
                self.pane = None
                self.read_worker(set(self.model.by_id))
        finally:
            message.shown.set_result(None)

    def flow_running(self) -> bool:
        """Whether one of this screen's flows is open."""
        return self._flows is not None and self._flows.running()


__all__ = ["SpacesScreen", "quick_rows"]
