"""The command palette provider: every board action of the action table by name, with its key."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, ClassVar, cast

from textual.binding import BindingType
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.theme import ThemeProvider

from .actions import ACTIONS, Action, Where, palette_entries, pinned_bindings
from .model import SORT_COLUMNS

if TYPE_CHECKING:
    from .app import MemboardApp

KEY_STYLE = "$footer-key-foreground"  # the key bar's key colour


@dataclass(frozen=True)
class Command:
    """One palette line: its name, the key that does the same ("" for none), what runs, its help."""

    name: str
    key: str
    run: Callable[[], object]
    help: str

    def display(self, name: Content | str) -> Content:
        """The line as shown: the (highlighted) name, then the key in the key bar's colour."""
        if not self.key:
            return Content(name) if isinstance(name, str) else name
        return Content.assemble(name, ("  " + self.key, KEY_STYLE))


def sentence(text: str) -> str:
    """Text with its first letter capitalised (the rest kept: `ID` stays)."""
    return text[:1].upper() + text[1:]


def commands(view, table: tuple[Action, ...] = ACTIONS) -> list[Command]:
    """Every command for the sessions view: the table's palette entries (the App's run in its namespace),
    sorting by each column, clearing marks."""
    out = [
        Command(
            entry.palette,
            entry.key_text,
            partial(view.run_action, f"app.{entry.action}" if entry.owner == "app" else entry.action),
            sentence(entry.help),
        )
        for entry in palette_entries(table)
    ]
    out += [
        Command(f"Sort by {title}", "", partial(view.sort_by, key), f"Order the table by {title}")
        for key, title in SORT_COLUMNS.items()
    ]
    if view.marks:
        out.append(Command("Clear marks", "", view.clear_marks, "Unmark every row"))
    return out


class BoardCommands(Provider):
    """Board actions and sorting for the command palette."""

    def offered(self) -> list[Command]:
        """The board's commands; over another screen (the notes view) only those that act anywhere."""
        board = cast("MemboardApp", self.app)
        listed = commands(board.sessions, board.key_table.entries)
        if self.screen is self.app.screen_stack[0]:
            return listed
        anywhere = {entry.palette for entry in board.key_table.entries if entry.where is Where.ANYWHERE}
        return [command for command in listed if command.name in anywhere]

    async def discover(self) -> Hits:
        """All commands, for the empty palette."""
        for command in self.offered():
            yield DiscoveryHit(command.display(command.name), command.run, text=command.name, help=command.help)

    async def search(self, query: str) -> Hits:
        """Commands matching the query (by name; the key is shown beside it)."""
        matcher = self.matcher(query)
        for command in self.offered():
            score = matcher.match(command.name)
            if score > 0:
                yield Hit(
                    score,
                    command.display(matcher.highlight(command.name)),
                    command.run,
                    text=command.name,
                    help=command.help,
                )


class SavedThemes(ThemeProvider):
    """The palette's theme list; the theme chosen is applied and saved in the config (`theme`)."""

    @property
    def commands(self) -> list[tuple[str, Callable[[], None]]]:
        """Each theme by name, choosing it through the board (which saves it)."""
        board = cast("MemboardApp", self.app)
        return [(name, partial(board.choose_theme, name)) for name in sorted(board.available_themes)]


class BoardPalette(CommandPalette):
    """Textual's command palette with the keys its footer shows where its box takes letters: f1 help, ctrl+q quit
    (`?` and `q` type into the search)."""

    BINDINGS: ClassVar[list[BindingType]] = [*CommandPalette.BINDINGS, *pinned_bindings("palette")]
