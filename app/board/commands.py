"""The command palette provider: every board action, by name."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .model import SORT_COLUMNS

ACTIONS = (
    ("Filter by text", "filter", "Type to narrow the table by ID, agent, topic, summary, keywords"),
    ("Show all sessions", "status('all')", "Clear the status filter"),
    ("Show idle sessions", "status('idle')", "Only idle rows"),
    ("Show active sessions", "status('active')", "Only active rows"),
    ("Show stale sessions", "status('stale')", "Only stale rows"),
    ("Open snapshot", "open", "Expand the snapshot pane"),
    ("Mark session", "mark", "Mark or unmark the row under the cursor"),
    ("Continue session", "continue_session", "Continue from the selected session"),
    ("Release reference", "release", "Release a reference of the selected session"),
    ("Archive", "archive", "Archive the selected or marked sessions"),
    ("Organize memory", "organize", "Delete idle rows, mark overdue active rows stale"),
    ("Update session", "update", "Edit topic, summary, keywords and the snapshot"),
    ("Reference chain", "chain", "Walk Continues From / Referenced By"),
    ("Doctor", "doctor", "Find and repair inconsistencies"),
    ("Older snapshot revision", "revision(-1)", "Step back through recorded revisions"),
    ("Newer snapshot revision", "revision(1)", "Step forward through recorded revisions"),
    ("Reverse sort order", "reverse_sort", "Flip ascending / descending"),
    ("Help", "help", "Keys and what the board shows"),
    ("Quit", "quit", "Leave memboard"),
)


class BoardCommands(Provider):
    """Board actions and sorting for the command palette."""

    def _commands(self) -> list[tuple[str, object, str]]:
        """(name, callback, help) for every command."""
        app = self.app
        out = [(name, partial(app.run_action, action), help_text) for name, action, help_text in ACTIONS]
        out += [
            (f"Sort by {title}", partial(app.sort_by, key), f"Order the table by {title}")
            for key, title in SORT_COLUMNS.items()
        ]
        if app.marks:
            out.append(("Clear marks", app.clear_marks, "Unmark every row"))
        return out

    async def discover(self) -> Hits:
        """All commands, for the empty palette."""
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        """Commands matching the query."""
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
