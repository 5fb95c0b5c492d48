"""A table-less host App that keeps the board's contract with FlowsMixin, for the flow tests."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Static

from memboard.board.flows import FlowsMixin
from memboard.core.ops.common import load_index
from memboard.core.root import MemoryRoot


class HostApp(FlowsMixin, App):
    """Shows the current session ID and the index's IDs; provides what the flows need."""

    BINDINGS = [
        Binding("c", "continue_session", "Continue"),
        Binding("r", "release", "Release"),
        Binding("a", "archive", "Archive"),
        Binding("o", "organize", "Organize"),
        Binding("u", "update", "Update"),
        Binding("g", "chain", "Chain"),
        Binding("d", "doctor", "Doctor"),
    ]

    def __init__(self, root_path: str | Path, *, watch: bool = False):
        """Open root_path (no watcher: tests refresh by hand)."""
        super().__init__()
        self.memory_root = MemoryRoot(root_path)
        self.agent_name = "cursor-main-agent"
        self.theme = "textual-dark"
        self._current: str | None = None
        self._marked: list[str] = []
        self.ids: list[str] = []
        self.refreshes = 0

    def compose(self) -> ComposeResult:
        """The current ID and the IDs on disk."""
        yield Static(id="current")
        yield Static(id="ids")
        yield Footer()

    def on_mount(self) -> None:
        """Read the index and select its first row."""
        self.refresh_model()
        if self.ids:
            self.select_session(self.ids[0])

    @property
    def current_session_id(self) -> str | None:
        """The selected session."""
        return self._current

    @property
    def marked_session_ids(self) -> list[str]:
        """The marked sessions, in marking order."""
        return list(self._marked)

    def mark(self, session_id: str) -> None:
        """Mark a session (the board does this with space)."""
        self._marked.append(session_id)

    def clear_marks(self) -> None:
        """Unmark every session."""
        self._marked.clear()

    def refresh_model(self) -> None:
        """Re-read the index from disk."""
        self.refreshes += 1
        self.ids = [r.id for r in load_index(self.memory_root).rows]
        self.query_one("#ids", Static).update(Text("\n".join(self.ids)))

    def select_session(self, session_id: str) -> None:
        """Move the cursor to session_id."""
        self._current = session_id
        self.query_one("#current", Static).update(Text(f"current: {session_id}"))
