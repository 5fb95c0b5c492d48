"""The Hierarchy screen: an agent memory workspace's Hot / Warm / Cold layers, live, one key (`h`) from the
session table; `escape` goes back.

A browse screen (browse.py) whose table side is three stacked panels: **Hot** (MEMORY.md with its lint
matches highlighted, a lines bar against hot_max_lines and the token estimate), **Warm** (a table of every
fact with its value and facts.yaml's Last updated age, the lookup rows with broken targets marked `!`, the
project files, marked when no row targets them) and **Cold** (the daily logs by date with sizes, OpenClaw's
slugged ones included; a log opens only on `enter`). The model is plain Python (hiermodel.py), read in a
thread worker; the watcher polls the workspace's files every half second, so an edit an agent makes shows
within a second, keeping the cursor and the filter. Every change (`e` a fact, `t` the todos, `L` today's
log) is a flow (spaceflows.py, on the workspace as a place) that opens the usual exact preview first;
`escape` writes nothing. Keys come from the action table (owner "hierarchy").
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import Input, Static

from memboard.styles import SPACES_TCSS
from memboard.widgets.hierarchy_table import HierarchyRow, HierarchyTable
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.line_view import LineView

from ..core.formats import clock
from .actions import bindings
from .browse import BrowseFilter, BrowseScreen, Ids
from .hiermodel import HierarchyModel, find_workspace, open_lines, read_model, signatures
from .planview import ViewLine

if TYPE_CHECKING:
    from .app import MemboardApp
    from .spaceflows import HierarchyFlows, SpaceFlowFinished

IDS = Ids(
    "hierarchy-status",
    "hierarchy-filter-bar",
    "hierarchy-filter-label",
    "hierarchy-filter",
    "hierarchy-main",
    "hierarchy-table",
    "hierarchy-pane",
    "hierarchy-keys",
)


@dataclass
class HierarchyLoaded(Message):
    """A read of the workspace."""

    model: HierarchyModel


@dataclass
class HierarchyPaneLoaded(Message):
    """An item read for the pane."""

    row_id: str
    lines: list[ViewLine]


class HierarchyScreen(BrowseScreen[HierarchyRow, HierarchyModel]):
    """Hot, Warm and Cold panels beside the selected item's pane: filter, live updates, the changes' flows."""

    CSS_PATH = SPACES_TCSS  # (the App reads it once its first rows show: then it is not read again)

    BINDINGS = bindings("hierarchy")
    IDS = IDS
    FOOTER = "hierarchy"
    PLACEHOLDER = "key, value, need, target, file, date (enter keeps, escape clears)"
    SORTABLE = frozenset()

    def __init__(self, host: MemboardApp, *, watch: bool = True) -> None:
        """The Hierarchy screen of the board host; watch=False turns its file watcher off."""
        super().__init__(watch=watch)
        self.host = host
        self.model = HierarchyModel(None, complete=False)
        self.painted = False  # the Hot panel shows the workspace's MEMORY.md (or why there is none)
        self.painted_at: float | None = None  # when the panels were first on screen (perf_counter)
        self.cold_active = False  # the Cold panel's table holds the cursor the pane follows
        self.seen: dict[str, Any] = {}
        self.pane_id: str | None = None
        self._flows: HierarchyFlows | None = None

    @property
    def flows(self) -> HierarchyFlows:
        """The changing keys' flows (built on first use)."""
        if self._flows is None:
            from .spaceflows import HierarchyFlows  # lazy: with the first change

            self._flows = HierarchyFlows(self.host, self)
        return self._flows

    # -- layout -----------------------------------------------------------------------------

    def make_status(self) -> Static:
        """The workspace and its lint summary."""
        return Static(id=IDS.status)

    def make_table(self) -> HierarchyTable:
        """The Warm panel's table."""
        return HierarchyTable(id=IDS.table, classes="hierarchy-panel")

    def make_pane(self) -> LineView:
        """The selected item's pane."""
        return LineView(id=IDS.pane)

    def compose(self) -> ComposeResult:
        """Status, filter, the three panels beside the pane, keys."""
        yield self.make_status()
        with Horizontal(id=IDS.filter_bar):
            yield Static("filter ›", id=IDS.filter_label)
            yield BrowseFilter(value=self.filter_text, placeholder=self.PLACEHOLDER, id=IDS.filter, compact=True)
        with Horizontal(id=IDS.main):
            with Vertical(id="hierarchy-panels"):
                hot = LineView(id="hot-panel", classes="hierarchy-panel")
                hot.border_title = "Hot · MEMORY.md"
                yield hot
                warm = self.make_table()
                warm.border_title = "Warm"
                yield warm
                cold = HierarchyTable(cold=True, id="cold-panel", classes="hierarchy-panel")
                cold.border_title = "Cold · daily logs"
                yield cold
            yield self.make_pane()
        yield KeyBar(self.FOOTER, id=IDS.keys)

    def on_mount(self) -> None:
        """Read the workspace at once (a small read) and start watching it."""
        self.query_one(f"#{IDS.filter_bar}").display = bool(self.filter_text)
        self.warm.focus()
        self.read_worker()
        self.start_watching()

    def on_screen_resume(self) -> None:
        """Back on screen: look for edits made meanwhile."""
        if self.model.complete:
            self.poll()

    @property
    def warm(self) -> HierarchyTable:
        """The Warm panel's table."""
        return self.query_one(f"#{IDS.table}", HierarchyTable)

    @property
    def cold(self) -> HierarchyTable:
        """The Cold panel's table."""
        return self.query_one("#cold-panel", HierarchyTable)

    @property
    def table(self) -> HierarchyTable:
        """The table the cursor the pane follows is in (Warm, or Cold once it has the focus)."""
        return self.cold if self.cold_active else self.warm

    def on_descendant_focus(self) -> None:
        """The pane follows the panel that has the focus; the footer follows too."""
        focused = self.focused
        if isinstance(focused, HierarchyTable):
            cold = focused.id == "cold-panel"
            if cold != self.cold_active:
                self.cold_active = cold
                self.show_current()
        super().on_descendant_focus()

    # -- reading ----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="hierarchy-read")
    def read_worker(self) -> None:
        """Read the workspace off the UI thread and post it."""
        with self._read_lock:
            workspace, problem = find_workspace()
            model = read_model(workspace, problem)
            self.seen = signatures(workspace) if workspace is not None else {}
        self.post_message(HierarchyLoaded(model))

    def poll(self) -> None:
        """Every half second while on screen: re-read when a file of the workspace changed."""
        workspace = self.model.workspace
        if not self.is_current or workspace is None or self._read_lock.locked():
            return
        if signatures(workspace) != self.seen:
            self.read_worker()

    def on_hierarchy_loaded(self, message: HierarchyLoaded) -> None:
        """Show a fresh read, keeping cursors and filter."""
        try:
            previous, self.model = self.model, message.model
            self.swap_model(previous, message.model)
            hot = self.query_one("#hot-panel", LineView)
            hot.set_lines(self.model.hot, top=not previous.complete)
            hot.border_title = self.model.hot_title
            self.warm.border_title = self.model.warm_title
            self.cold.border_title = self.model.cold_title
            if not self.painted:
                self.painted = True
                self.call_after_refresh(self._painted)
            row = self.table.current
            self.show_pane(row)
            if row is not None:
                self.load_pane(row.id)
        except NoMatches:
            pass

    def _painted(self) -> None:
        """The panels are on screen: note when (the benchmark reads it)."""
        self.painted_at = time.perf_counter()

    def apply_view(self) -> None:
        """Filter the warm and cold rows into their tables, keeping each cursor."""
        words = self.filter_text.lower().split()
        now = clock.now()
        with self.app.batch_update():
            for table, rows in ((self.warm, self.model.warm), (self.cold, self.model.cold)):
                keep = table.current.id if table.current else None
                shown = [r for r in rows if all(w in r.haystack() for w in words)]
                table.empty_text = "" if shown else self.why_empty(bool(rows))
                table.set_rows(shown, now, keep)
            self._update_status()

    def why_empty(self, has_rows: bool) -> str:
        """Why a panel shows no row."""
        if self.model.problem:
            return self.model.problem
        if has_rows and self.filter_text:
            return f"nothing matches “{self.filter_text}” (escape in the filter box clears it)"
        return "nothing here yet" if self.model.complete else "reading…"

    def _update_status(self) -> None:
        """The workspace and the lint summary."""
        model = self.model
        if model.workspace is None:
            text = f"△ hierarchy · {model.problem or 'reading…'}"
        else:
            counts: dict[str, int] = {}
            for f in model.findings:
                counts[f.severity] = counts.get(f.severity, 0) + 1
            lint = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no finding"
            text = f"△ hierarchy {model.workspace} · lint: {lint} (l lists them)"
            if self.filter_text:
                text += f" · filter “{self.filter_text}”"
        self.query_one(f"#{IDS.status}", Static).update(text)

    # -- the pane ---------------------------------------------------------------------------

    def show_pane(self, row: HierarchyRow | None) -> None:
        """The selected item (read in a worker); no row: what the panel says."""
        view = self.query_one(f"#{IDS.pane}", LineView)
        if row is None:
            view.set_lines([ViewLine(self.table.empty_text or "Nothing selected.", "muted")])
        elif self.pane_id != row.id:
            view.set_lines([ViewLine(f"{row.kind} · {row.key}", "headline"), ViewLine("loading…", "muted")])

    @work(thread=True, exclusive=True, group="hierarchy-pane")
    def load_pane(self, row_id: str) -> None:
        """Read the selected item off the UI thread."""
        workspace = self.model.workspace
        row = next((r for r in self.model.rows if r.id == row_id), None)
        if workspace is None or row is None:
            return
        self.post_message(HierarchyPaneLoaded(row_id, open_lines(workspace, row)))

    def on_hierarchy_pane_loaded(self, message: HierarchyPaneLoaded) -> None:
        """Show a read item if it is still selected."""
        try:
            row = self.table.current
            if row is not None and row.id == message.row_id:
                self.pane_id = row.id
                self.query_one(f"#{IDS.pane}", LineView).set_lines(message.lines, top=False)
        except NoMatches:
            pass

    def pane_cleared(self) -> None:
        """No row: no item in the pane."""
        self.pane_id = None

    def action_back(self) -> None:
        """Leave the full-width view, else go back to the session table."""
        if self.has_class("-expanded"):
            self.action_leave_pane()
            return
        self.app.pop_screen()

    def action_leave_pane(self) -> None:
        """Leave the full-width pane: the focus goes back to the panel it came from."""
        if self.has_class("-expanded"):
            self.remove_class("-expanded")
            self.table.focus()
            self.call_after_refresh(self.update_footer)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`/` yields while text is being typed, so the key reaches the input."""
        if action == "filter" and isinstance(self.focused, Input):
            return False
        return super().check_action(action, parameters)

    # -- keys -------------------------------------------------------------------------------

    def action_search(self) -> None:
        """Search everything (as `f` on the session table)."""
        self.host.sessions.action_search()

    def action_lint(self) -> None:
        """The lint findings, in a message."""
        from .screens import MessageScreen  # lazy: loaded on first use (opening the screen stays light)

        found = self.model.findings
        text = "\n".join(f.describe() for f in found) or "no finding"
        self.app.push_screen(
            MessageScreen(
                f"Lint · {len(found)} finding{'' if len(found) == 1 else 's'}",
                text,
                footnote="A read: nothing was written.",
                error=False,
            )
        )

    def action_migrate(self) -> None:
        """The migration plan as a table of lines and destinations, then the preview (hierarchy migrate's)."""
        if self.model.workspace is not None:
            self.flows.start_flow("migrate", self.flows.flow_migrate_hot, self.model.workspace)

    def selected_fact(self) -> HierarchyRow | None:
        """The fact under the Warm cursor, or None with a hint."""
        row = self.warm.current if not self.cold_active else None
        if row is None or row.kind != "fact" or row.problem:
            self.notify("Select a fact in the Warm panel to edit it", severity="warning")
            return None
        return row

    def action_edit_fact(self) -> None:
        """Edit the selected fact's value (facts set), previewed first."""
        row = self.selected_fact()
        if row is not None and self.model.workspace is not None:
            self.flows.start_flow("facts set", self.flows.flow_set, self.model.workspace, row.key, row.value)

    def action_todos(self) -> None:
        """A todo under the cursor: mark it done (it moves to today's log); else add one."""
        if self.model.workspace is None:
            return
        row = self.warm.current if not self.cold_active else None
        done = row.key.split(".", 1)[1] if row is not None and row.key.startswith("todos.") else None
        which = str(int(done) + 1) if done is not None and done.isdigit() else None
        self.flows.start_flow("todo", self.flows.flow_todo, self.model.workspace, which, row.value if row else "")

    def action_log(self) -> None:
        """Append a line to today's daily log, previewed first."""
        if self.model.workspace is not None:
            self.flows.start_flow("log", self.flows.flow_log, self.model.workspace)

    def on_space_flow_finished(self, message: SpaceFlowFinished) -> None:
        """A flow ended: say so, re-read when it wrote, and let the flow end."""
        try:
            if message.outcome:
                self.notify(message.outcome, title=message.op, severity=message.severity)
            if message.applied:
                self.pane_id = None
                self.read_worker()
        finally:
            message.shown.set_result(None)

    def flow_running(self) -> bool:
        """Whether one of this screen's flows is open."""
        return self._flows is not None and self._flows.running()
