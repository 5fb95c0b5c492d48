"""The board: a thin App over its views, the sessions view (its default screen) and the notes view.

The App holds what every view shares: the memory root, the config, the flows (flows.py, which
see this App as their FlowHost: it asks the user through Textual's push_screen_wait for them and
tells the view that shows a flow's result), the result log, quitting, the themes and the footer's
action table (with the user's keymap applied). Each view is a browse screen (browse.py): the
sessions view (sessions.py) and the notes view (notes/screen.py), with their own keys.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from textual.app import App
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState

from memboard.styles import BOARD_TCSS, FLOWS_TCSS, SPACES_TCSS
from memboard.widgets.key_bar import FooterKey

from ..core.config import Settings, settings
from ..core.errors import MemboardError
from ..core.files.root import MemoryRoot
from ..core.files.settle import settle_seconds
from ..core.formats import clock
from ..core.formats.ids import DEFAULT_AGENT, ID_SHAPE_RE
from .actions import KeyTable, Where, bindings, read_keymap, rebound, where_of
from .messages import (
    AskScreen,
    BoardClosed,
    FlowFinished,
    FlowsShown,
    JumpToSession,
    LogEntry,
    Logged,
)
from .sessions import SessionsScreen

if TYPE_CHECKING:
    from .flows import BoardFlows

Answer = TypeVar("Answer")

DEFAULT_THEME = "textual-dark"
NOTES_VIEW = "notes"  # the name the notes view is installed under
SPACES_VIEW = "spaces"  # the Spaces screen's name
HIERARCHY_VIEW = "hierarchy"  # the Hierarchy screen's name
TOAST_SECONDS = 4.0
TOAST_WIDTH = 72  # a toast says this much of a flow's outcome; the result log (`l`) keeps all of it


def board_commands():
    """The palette provider, imported when the palette first opens (keeps start-up light)."""
    # lazy: the palette loads when it first opens (start-up stays light)
    from .commands import BoardCommands

    return BoardCommands


def short(text: str, width: int = TOAST_WIDTH) -> str:
    """A toast's text: the first line of text, cut at width with an ellipsis, never inside a Session ID (one the
    cut would fall in is left out whole, or kept whole when it starts in the first half)."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    if len(first) <= width:
        return first
    cut = width - 1
    for found in ID_SHAPE_RE.finditer(first):
        if found.start() < cut < found.end():
            cut = found.end() if found.start() < width // 2 else found.start()
            break
    return first if cut >= len(first) else first[:cut].rstrip() + "…"


class MemboardApp(App):
    """The memboard board; its flows (BoardFlows) see it as their FlowHost."""

    TITLE = "memboard"
    CSS_PATH = [BOARD_TCSS]
    # read once the first rows are on screen (preload_styles): the previews' and questions', Spaces', Hierarchy's
    LATER_CSS = (FLOWS_TCSS, SPACES_TCSS)
    COMMANDS = App.COMMANDS | {board_commands}
    # below 110 columns the pane folds away (enter opens it full width); the table gets the width
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-roomy")]

    # the keys that work anywhere (help, quit); each view binds its own
    BINDINGS = bindings("app")

    def __init__(self, root_path: str | os.PathLike, *, watch: bool = True) -> None:
        """A board on the memory root at root_path; watch=False turns the file poller off."""
        super().__init__()
        self.memory_root = MemoryRoot(root_path)
        self.memory_root.window = settle_seconds()
        try:
            self.settings: Settings | None = settings()  # read once: the board's agent name, theme and keymap
        except MemboardError:
            self.settings = None
        self.agent_name: str = (self.settings.agent_name if self.settings else None) or DEFAULT_AGENT
        self.watch_files = watch
        self._flows: BoardFlows | None = None  # built when a flow first starts: its modules load then
        self.run_log: list[LogEntry] = []  # what each flow did in this run (the `l` screen)
        self._follow_up: tuple[str, str | None] | None = None  # a fix flow to start once the current flow ends
        self._asking_quit = False
        self._flow_waits: set[asyncio.Task[Any]] = set()  # flows' asks and waits on the board's loop
        self._closed = False
        self.sub_title = self.memory_root.path.name or str(self.memory_root.path)
        # the user's keymap (config `[keymap]`: binding id = "keys") rebinds keys as Textual's keymap does;
        # the footers, the help and the palette show the table with it applied
        self.keymap, self.keymap_problems = read_keymap(self.settings.keymap if self.settings else None)
        self.key_table = KeyTable(rebound(self.keymap))  # what every footer draws (a KeySource)
        self.set_keymap(self.keymap)
        self.sessions = SessionsScreen(self.memory_root, self.sub_title, watch=watch)

    def get_default_screen(self) -> Screen:
        """The sessions view is the board's first screen."""
        return self.sessions

    @property
    def flows(self) -> BoardFlows:
        """The modal flows (continue, release, archive, update, organize, doctor, chain), built on first use."""
        if self._flows is None:
            # lazy: the flows and their screens load when the first flow starts (start-up stays light)
            from .flows import BoardFlows

            self._flows = BoardFlows(self)
        return self._flows

    def preload_styles(self) -> None:
        """Read the stylesheets of the screens the board opens later (LATER_CSS) in one pass, once the first rows
        are on screen. A screen that brings its own has Textual re-parse and restyle every screen when it first
        opens (doctor's first preview waited 70 ms under load for it, Spaces 0.5 s); read with the App's, they
        made the first paint later. A screen opened before this has run still reads its own (CSS_PATH)."""
        sheet = self.stylesheet
        later = [path for path in self.LATER_CSS if not sheet.has_source(os.path.abspath(path), "")]
        if not later or not self.is_running:
            return
        for path in later:
            sheet.read(path)
        sheet.reparse()
        sheet.update(self)

    def footer_keys(self, context: str) -> list[FooterKey]:
        """The footer entries of a place on the board (the KeyBars' KeySource)."""
        return self.key_table.footer_keys(context)

    def on_mount(self) -> None:
        """Apply the theme; say what of the keymap cannot be used."""
        theme = (self.settings.theme if self.settings else None) or DEFAULT_THEME
        try:
            self.theme = theme
        except Exception:
            self.theme = DEFAULT_THEME
        for problem in self.keymap_problems:
            self.notify(problem, severity="warning")

    # -- what the flows see (FlowHost) ----------------------------------------------------

    @property
    def current_session_id(self) -> str | None:
        """The Session ID of the row under the sessions view's cursor (None if none or not a valid ID)."""
        return self.sessions.current_session_id

    @property
    def marked_session_ids(self) -> list[str]:
        """The sessions view's marked rows' IDs in table order."""
        return self.sessions.marked_session_ids

    def ask(self, screen: Screen[Answer]) -> Answer | None:
        """From a flow's thread: show screen and wait for its answer, with Textual's push_screen_wait
        run on the board's loop; BoardClosed when the board closes first."""
        return self._on_board(lambda: self.push_screen_wait(screen))

    def wait(self, future: concurrent.futures.Future[Answer]) -> Answer:
        """From a flow's thread: wait for future on the board's loop; BoardClosed when the board closes first."""
        return self._on_board(lambda: asyncio.shield(asyncio.wrap_future(future)))

    def _on_board(self, work: Callable[[], Awaitable[Answer]]) -> Answer:
        """Await work() on the board's loop from a flow's thread; the board cancels it as it closes."""

        async def run() -> Answer:
            """Await work, known to the board until it ends (so that closing can end it)."""
            task = asyncio.current_task()
            if self._closed or task is None:
                raise BoardClosed()
            self._flow_waits.add(task)
            try:
                return await work()
            finally:
                self._flow_waits.discard(task)

        try:
            return cast(Answer, self.call_from_thread(cast(Callable[[], Any], run)))
        except (asyncio.CancelledError, concurrent.futures.CancelledError) as exc:
            raise BoardClosed() from exc  # the board closed under the wait
        except RuntimeError as exc:
            if self.is_running and not self._closed:
                raise
            raise BoardClosed() from exc  # closed: its loop no longer runs anything for the flow

    def on_unmount(self) -> None:
        """The board is closing: end the waits of flows still running (they end without a word or a write)."""
        self._closed = True
        for task in list(self._flow_waits):
            task.cancel()

    def modal_open(self) -> bool:
        """Whether a modal (a flow's, help, the palette) is on top of the board."""
        return isinstance(self.screen, ModalScreen)

    # -- the views ----------------------------------------------------------------------------

    def open_notes(self, text: str | None = None, *, note_id: str | None = None) -> None:
        """Show the notes view over the session table (installed on first use and kept); text, when
        given, becomes its filter (a session's ID shows that session's notes); note_id, a jump to one
        note, clears the filters that would hide it."""
        # lazy: the notes view loads when it is first opened (start-up stays light)
        from .notes.screen import NotesScreen

        if not self.is_screen_installed(NOTES_VIEW):
            self.install_screen(NotesScreen(self, self.sessions, watch=self.watch_files), NOTES_VIEW)
        screen = self.get_screen(NOTES_VIEW)
        if isinstance(screen, NotesScreen) and note_id is not None:
            screen.jump_to(note_id)
        elif isinstance(screen, NotesScreen) and text is not None:
            screen.set_filter(text)
        self.push_screen(NOTES_VIEW)

    def open_spaces(self, space_id: str | None = None) -> None:
        """Show the Spaces screen over the session table (installed on first use and kept); space_id, when
        given, is selected once read."""
        # lazy: the Spaces screen loads when it is first opened (start-up stays light)
        from .spaces import SpacesScreen

        if not self.is_screen_installed(SPACES_VIEW):
            self.install_screen(SpacesScreen(self, watch=self.watch_files), SPACES_VIEW)
        screen = self.get_screen(SPACES_VIEW)
        self.push_screen(SPACES_VIEW)
        if space_id and isinstance(screen, SpacesScreen):
            screen.select_space(space_id)

    def open_hierarchy(self) -> None:
        """Show the Hierarchy screen over the session table (installed on first use and kept)."""
        # lazy: the Hierarchy screen loads when it is first opened (start-up stays light)
        from .hierarchy import HierarchyScreen

        if not self.is_screen_installed(HIERARCHY_VIEW):
            self.install_screen(HierarchyScreen(self, watch=self.watch_files), HIERARCHY_VIEW)
        self.push_screen(HIERARCHY_VIEW)

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

    def _place_flow_running(self) -> bool:
        """Whether the Spaces or Hierarchy screen (once opened) has a flow open."""
        return any(
            self.is_screen_installed(name) and getattr(self.get_screen(name), "flow_running", lambda: False)()
            for name in (SPACES_VIEW, HIERARCHY_VIEW)
        )

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
        busy = (flows is not None and flows.running()) or self._note_flow_running() or self._place_flow_running()
        drafts = list(flows.drafts) if flows is not None else []
        if not busy and not drafts:
            self.exit()
            return
        # lazy: the question's screen loads on first use (start-up stays light)
        from .screens.confirm import QuestionScreen

        what = (
            "a change is open (nothing of it is written yet)"
            if busy
            else f"{'the update draft' if len(drafts) == 1 else 'update drafts'} of {', '.join(drafts)} "
            f"{'is' if len(drafts) == 1 else 'are'} kept only while the board runs"
        )
        self._asking_quit = True

        def answered(answer: str | None) -> None:
            """Quit on yes."""
            self._asking_quit = False
            if answer == "yes":
                self.exit()

        self.push_screen(QuestionScreen("Quit memboard?", f"Quit now? {what[0].upper()}{what[1:]}."), answered)

    def search_themes(self) -> None:
        """The palette's theme search; the theme chosen there is saved in the config."""
        # lazy: the palette loads when it first opens (start-up stays light)
        from .commands import BoardPalette, SavedThemes

        self.push_screen(BoardPalette(providers=[SavedThemes], placeholder="Search for themes… (saved when chosen)"))

    def action_command_palette(self) -> None:
        """The command palette (ctrl+p), with f1 for help and ctrl+q to quit while its box takes letters."""
        # lazy: the palette loads when it first opens (start-up stays light)
        from .commands import BoardPalette

        if self.use_command_palette and not BoardPalette.is_open(self):
            self.push_screen(BoardPalette(id="--command-palette"))

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

        self.push_screen(HelpScreen(self.key_table.entries, self.help_place()))

    def help_place(self) -> Where | None:
        """The help's place of the screen in front: the owner of its own keys (the board's, a preview's, ...)."""
        for binding in self.screen.BINDINGS:
            owner = binding.id.split(".", 1)[0] if isinstance(binding, Binding) and binding.id else ""
            if owner and owner != "app":
                return where_of(owner, self.key_table.entries)
        return None

    # -- the flows --------------------------------------------------------------------------

    def on_ask_screen(self, message: AskScreen) -> None:
        """Show a flow's modal; its answer goes back to the waiting flow."""
        self.push_screen(message.screen, message.answer)

    def on_flow_finished(self, message: FlowFinished) -> None:
        """A flow ended: clear marks if it asked; re-read what it wrote (in the reload worker),
        else finish its report at once."""
        if message.clear_marks:
            self.sessions.clear_marks()
        if message.applied:
            self.sessions.refresh_model(after=message)
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
                self.sessions.select_session(message.select_id)
            if message.outcome:
                self.record(LogEntry.of(message, clock.now_to_the_second()))
                text = short(message.outcome)
                if text != message.outcome or message.details:
                    text += "  (l: the whole result)"
                self.clear_notifications()  # an earlier flow's toast is stale now
                self.notify(text, title=message.op, severity=message.severity, timeout=TOAST_SECONDS)
            self._follow_up = message.follow_up
        finally:
            message.shown.set_result(None)

    def on_logged(self, message: Logged) -> None:
        """A flow of the notes view, Spaces or Hierarchy ended: the result log lists it too."""
        self.record(message.entry)

    def record(self, entry: LogEntry) -> None:
        """Add a flow's end to the result log, which keeps within its budget (the oldest diffs go first)."""
        # lazy: what a change wrote (and the preview's view it keeps) loads with the first flow's end, not at start-up
        from .written import trim

        self.run_log.append(entry)
        trim([e.written for e in self.run_log])

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """When a flow's worker ends, start the fix flow it offered and the user chose."""
        worker = event.worker
        if worker.group != "flow" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        follow, self._follow_up = self._follow_up, None
        if follow is None:
            return
        action, session_id = follow
        if session_id and not self.sessions.select_session(session_id):
            return
        starts = {
            "release": self.flows.release,
            "update": self.flows.update,
            "doctor": self.flows.doctor,
            "resolve": self.flows.resolve,
        }
        if action in starts:
            starts[action]()

    def on_jump_to_session(self, message: JumpToSession) -> None:
        """Move the cursor to the session chosen in the chain view."""
        self.sessions.select_session(message.session_id)
