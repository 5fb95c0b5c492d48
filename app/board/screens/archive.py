"""The archive (`A`): every archived session, read-only and filterable; enter opens one.

The archive is read in a thread worker through the core (`list_archived`: each
`archive/<id>/index.md`'s metadata); nothing on this screen can write.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Static

from memboard.styles import VIEWS_TCSS
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.rows import printable

from ...core.errors import MemboardError
from ...core.files.root import MemoryRoot
from ...core.ops.query import list_archived
from ...core.results import RowView
from ..actions import bindings
from .session import SessionScreen

FRAME = 6  # the dialog's border and padding, and the table's scroll bar
MIN_TOPIC = 20  # narrower than this, the Topic column takes the room of the columns named last
COLUMNS = (
    ("Session ID", "id"),
    ("Agent", "agent"),
    ("Topic", "topic"),
    ("Archived At", "archived_at"),
    ("Updated At", "updated_at"),
)
DROPPED_FIRST = ("updated_at", "agent")  # the columns a narrow screen leaves out, in this order
EMPTY = (
    "No archived sessions yet. Archiving a session (a on the table) moves its snapshot to archive/<id>/, "
    "where it stays readable here and in search (f)."
)


@dataclass
class ArchiveRead(Message):
    """The archived sessions, or why the archive could not be read."""

    rows: list[RowView] = field(default_factory=list)
    error: str = ""


def matches(row: RowView, needle: str) -> bool:
    """Whether the filter text occurs (any case) in the row's ID, agent, topic, summary or keywords."""
    needle = needle.casefold()
    return any(needle in value.casefold() for value in (row.id, row.agent, row.topic, row.summary, row.keywords))


def cell(row: RowView, key: str) -> str:
    """One cell of an archived row as shown, printable (a row whose metadata is missing says why under Topic)."""
    if key == "topic" and row.problem:
        return printable(f"?? {row.problem}")
    return printable(str(getattr(row, key) or ""))


def layout(rows: list[RowView], width: int) -> list[tuple[str, str, int | None]]:
    """The columns that fit width as (title, field, width): Topic gets the room left (None: as wide as
    its text), and when that is under MIN_TOPIC the columns of DROPPED_FIRST go, in that order."""
    widths = {key: max([len(title)] + [len(cell(r, key)) for r in rows]) for title, key in COLUMNS}
    keys = [key for _, key in COLUMNS]
    for drop in (None, *DROPPED_FIRST):
        if drop is not None:
            keys.remove(drop)
        room = width - sum(widths[k] + 2 for k in keys if k != "topic") - 2
        if room >= MIN_TOPIC:
            break
    topic = None if room >= widths["topic"] else max(room, MIN_TOPIC)
    return [(title, key, topic if key == "topic" else None) for title, key in COLUMNS if key in keys]


class ArchiveScreen(ModalScreen[None]):
    """Browse the archived sessions: a filter box over a table; enter opens one read-only."""

    CSS_PATH = VIEWS_TCSS
    BINDINGS = bindings("archived")

    def __init__(self, root: MemoryRoot):
        """Browse root's archive (read when the screen mounts)."""
        super().__init__()
        self.root = root
        self.rows: list[RowView] | None = None  # None until the archive is read
        self.shown: list[RowView] = []

    def compose(self) -> ComposeResult:
        """Title, the filter box, a status line, the table and the footer of its keys."""
        with Vertical(id="archive-dialog"):
            yield Label("Archive: sessions that ended (read-only)", id="archive-title")
            with Horizontal(id="archive-bar"):
                yield Static("filter ›", id="archive-label")
                yield Input(placeholder="ID, agent, topic, summary, keywords", id="archive-filter", compact=True)
            yield Static(Text("reading the archive…"), id="archive-status")
            yield DataTable(id="archive-table", cursor_type="row", zebra_stripes=True)
        yield KeyBar("archived")

    def on_mount(self) -> None:
        """Focus the filter and read the archive."""
        self.query_one(Input).focus()
        self.read_archive()

    @work(thread=True, exclusive=True, group="archive")
    def read_archive(self) -> None:
        """Read every archived session's metadata off the UI thread."""
        try:
            self.post_message(ArchiveRead(list_archived(self.root)))
        except MemboardError as exc:
            self.post_message(ArchiveRead(error=str(exc)))
        except Exception as exc:
            self.post_message(ArchiveRead(error=f"cannot read the archive: {exc}"))

    def on_archive_read(self, message: ArchiveRead) -> None:
        """Show the archive (or why it cannot be read)."""
        if message.error:
            status = self.query_one("#archive-status", Static)
            status.add_class("-error")
            status.update(Text(message.error))
            return
        self.rows = message.rows
        self.fill()

    @on(Input.Changed, "#archive-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        """Narrow the table on every keystroke."""
        self.fill()

    def on_resize(self, event: Resize) -> None:
        """Fit the columns to the new width."""
        self.fill()

    def fill(self) -> None:
        """Put the archived sessions that pass the filter in the table, keeping the highlighted one."""
        if self.rows is None:
            return
        needle = self.query_one(Input).value.strip()
        table = self.query_one(DataTable)
        keep = self.shown_id(table.cursor_row)
        self.shown = [r for r in self.rows if not needle or matches(r, needle)]
        table.clear(columns=True)
        columns = layout(self.shown or self.rows, self.size.width - FRAME)
        for title, key, width in columns:
            table.add_column(title, key=key, width=width)
        for row in self.shown:
            table.add_row(
                *(Text(cell(row, key), no_wrap=True, overflow="ellipsis") for _, key, _ in columns), key=row.id
            )
        ids = [r.id for r in self.shown]
        if keep in ids:
            table.move_cursor(row=ids.index(keep))
        self.say(needle)

    def shown_id(self, index: int) -> str | None:
        """The Session ID at a row of the table (None past its end)."""
        return self.shown[index].id if 0 <= index < len(self.shown) else None

    def say(self, needle: str) -> None:
        """The status line: how many sessions are shown, or why none is."""
        total = len(self.rows or [])
        if not total:
            text = EMPTY
        elif not self.shown:
            text = f"No archived session matches «{needle}» ({total:,} in the archive)."
        elif needle:
            n = len(self.shown)
            sessions = "archived session" if total == 1 else "archived sessions"
            text = f"{n:,} of {total:,} {sessions} {'matches' if n == 1 else 'match'} «{needle}»; last archived first."
        else:
            text = f"{total:,} archived session{'s' if total != 1 else ''}, last archived first."
        self.query_one("#archive-status", Static).update(Text(text))

    @on(Input.Submitted, "#archive-filter")
    def _submitted(self, event: Input.Submitted) -> None:
        """Enter opens the highlighted session."""
        event.stop()
        self.open(self.shown_id(self.query_one(DataTable).cursor_row))

    @on(DataTable.RowSelected, "#archive-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        """A click (or enter in the table) opens that session."""
        event.stop()
        self.open(self.shown_id(event.cursor_row))

    def open(self, session_id: str | None) -> None:
        """Open a session read-only (a bell when there is none)."""
        if session_id is None:
            self.app.bell()
            return
        self.app.push_screen(SessionScreen(self.root, session_id))

    def action_move(self, step: int) -> None:
        """Move the highlight while the filter box keeps the focus."""
        table = self.query_one(DataTable)
        if step > 0:
            table.action_cursor_down()
        else:
            table.action_cursor_up()

    def action_close(self) -> None:
        """Close the archive."""
        self.dismiss(None)
