"""A session read-only (from search or the archive): its row or archived metadata and its snapshot.

The session is read in a thread worker through the core's `show` (the same view as `memboard
show ID`); nothing on this screen can write. User text is shown as plain Text or as the
snapshot's Markdown, never parsed as markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from memboard.styles import VIEWS_TCSS
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.rows import printable

from ...core.errors import MemboardError
from ...core.files.root import MemoryRoot
from ...core.ops.query import show
from ...core.results import RowView, SessionView
from ..actions import bindings
from ..loader import without_metadata


@dataclass
class SessionRead(Message):
    """The session read for the view, or why it could not be read."""

    view: SessionView | None
    error: str = ""


def session_fields(row: RowView, archived: bool) -> list[tuple[str, str]]:
    """The row's (or archived metadata's) fields as label/value pairs, in the index's order."""
    fields = [
        ("Agent", row.agent),
        ("Topic", row.topic),
        ("Summary", row.summary),
        ("Keywords", row.keywords),
        ("Original status" if archived else "Status", row.status),
        ("Ref. by", ", ".join(row.referenced_by) or "-"),
        ("Started", row.started_at),
        ("Updated", row.updated_at),
    ]
    if archived:
        fields.append(("Archived", row.archived_at or ""))
    return fields


def metadata_text(view: SessionView, label: Style, marked: Style) -> Text:
    """The session's state and fields as plain Text (labels and the archived mark in the given styles)."""
    out = Text()
    out.append(printable(view.id), style="bold")
    if view.archived:
        out.append("  archived", style=marked)
    else:
        out.append("  live (on the table)")
    if view.duplicates:
        out.append(f"  ({view.duplicates} more row(s) with this ID)")
    out.append("\n")
    for name, value in session_fields(view.row, view.archived):
        out.append(f"{name:<16}", style=label)
        out.append(printable(value) + "\n")
    out.append(f"{'Snapshot':<16}", style=label)
    out.append(printable(view.snapshot_path or "none") + "\n")
    return out


class SessionScreen(ModalScreen[None]):
    """One session, read-only: metadata above its snapshot, scrollable; escape or q closes it."""

    CSS_PATH = VIEWS_TCSS
    BINDINGS = bindings("session")
    COMPONENT_CLASSES = {"session--label", "session--archived"}

    def __init__(self, root: MemoryRoot, session_id: str):
        """View session_id of root (read when the screen mounts)."""
        super().__init__()
        self.root = root
        self.session_id = session_id
        self.view: SessionView | None = None

    def compose(self) -> ComposeResult:
        """Title, the scrollable body (metadata, then the snapshot) and the footer of its keys."""
        with Vertical(id="session-dialog"):
            yield Label(Text(f"{self.session_id} · read-only"), id="session-title")
            with VerticalScroll(id="session-body"):
                yield Static(Text("reading…"), id="session-meta")
        yield KeyBar("session")

    def on_mount(self) -> None:
        """Focus the body (the arrows scroll it) and read the session."""
        self.query_one("#session-body").focus()
        self.read_session()

    @work(thread=True, exclusive=True, group="session")
    def read_session(self) -> None:
        """Read the session off the UI thread (through the core's show)."""
        try:
            self.post_message(SessionRead(show(self.root, self.session_id)))
        except MemboardError as exc:
            self.post_message(SessionRead(None, str(exc)))
        except Exception as exc:
            self.post_message(SessionRead(None, f"cannot read {self.session_id}: {exc}"))

    def on_session_read(self, message: SessionRead) -> None:
        """Show what was read: the metadata, then the snapshot as Markdown (or why there is none)."""
        meta = self.query_one("#session-meta", Static)
        view = message.view
        if view is None:
            meta.add_class("-error")
            meta.update(Text(message.error))
            return
        self.view = view
        label = self.get_component_rich_style("session--label", partial=True)
        marked = self.get_component_rich_style("session--archived", partial=True)
        meta.update(metadata_text(view, label, marked))
        body = self.query_one("#session-body", VerticalScroll)
        if view.snapshot is None:
            body.mount(Static(Text("No snapshot: this session has none.", style="dim"), id="session-none"))
            return
        # lazy: the Markdown widget loads on first use (start-up stays light)
        from textual.widgets import Markdown

        body.mount(Markdown(printable(without_metadata(view.snapshot.lstrip("\ufeff"))), id="session-snapshot"))

    def action_close(self) -> None:
        """Close the view."""
        self.dismiss(None)
