"""The board's one table of actions: every key binding, the footer, the help screen's key
tables and the command palette are generated from ACTIONS.

Plain data and Textual's Binding only (no widget): the App, its screens and widgets read
their BINDINGS from here, the KeyBar draws the App's shown bindings, the help screen and
the palette provider render the same entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

from textual.binding import Binding, BindingType
from textual.keys import format_key

Owner = Literal[
    "",
    "app",
    "table",
    "filter",
    "preview",
    "message",
    "picker",
    "stale",
    "update",
    "chain",
    "help",
    "search",
    "archived",
    "session",
    "notes",
    "conflict",
]
"""Whose BINDINGS hold an entry ("" = nobody's: a widget handles the key itself, or a mouse gesture)."""


class Where(Enum):
    """Where an action applies; the value heads its part of the help screen (in this order)."""

    BOARD = "On the board"
    FILTER = "In the filter box"
    PANE = "The snapshot pane"
    FLOWS = "Changes (each one is previewed first; nothing is written before you confirm)"
    NOTES = "In the notes view (changes are previewed first, like every other change)"
    PREVIEW = "In a preview or a message"
    EDITOR = "In the update editor and the note editor"
    PICKER = "In a session picker or organize's stale-days question"
    CONFLICT = "In a decision conflict (the store refused a save that drops earlier statements)"
    CHAIN = "In the reference chain or a supersede chain"
    SEARCH = "In search (f)"
    ARCHIVE = "In the archive (A)"
    SESSION = "In a read-only session (opened from search or the archive)"
    ANYWHERE = "Anywhere"
    MOUSE = "With the mouse"
    HELP = "In this help"


@dataclass(frozen=True)
class Action:
    """One entry of the table: its keys, what it runs, and how each place names it."""

    keys: str
    """Textual key names, comma-separated as Binding takes them; for a mouse gesture, its words."""
    action: str
    """The action string run by the owner ("" when a widget handles the key itself)."""
    label: str
    """The short name: the footer's label and the binding's description."""
    help: str
    """One line for the help screen and the palette."""
    where: Where
    owner: Owner = ""
    palette: str = ""
    """The command palette's name for it ("" = not offered there)."""
    footer: bool = False
    group: str = ""
    """Consecutive footer entries of one group share its label (`1234 status`)."""
    priority: bool = False
    key_display: str | None = None

    @property
    def action_name(self) -> str:
        """The action without its arguments (`status` for `status('idle')`)."""
        return self.action.split("(", 1)[0]

    @property
    def key_text(self) -> str:
        """The keys as a person reads them (`esc / n`, `[`, `ctrl+s`); a gesture as written."""
        if self.where is Where.MOUSE:
            return self.keys
        if self.key_display:
            return self.key_display
        return " / ".join(key_label(key) for key in self.keys.split(","))


def key_label(key: str) -> str:
    """One Textual key name as shown to a person (`question_mark` → `?`, `ctrl+s` stays)."""
    *modifiers, name = key.strip().split("+")
    return "+".join([*modifiers, format_key(name)])


STATUS = "status"  # the footer group of the four status filters

ACTIONS: tuple[Action, ...] = (
    # the App's keys, in footer order
    Action(
        "slash",
        "filter",
        "filter",
        "filter by text (ID, agent, topic, summary, keywords)",
        Where.BOARD,
        "app",
        palette="Filter by text",
        footer=True,
        priority=True,
    ),
    Action(
        "1",
        "status('all')",
        "all",
        "show all rows",
        Where.BOARD,
        "app",
        palette="Show all sessions",
        footer=True,
        group=STATUS,
    ),
    Action(
        "2",
        "status('idle')",
        "idle",
        "show only idle rows",
        Where.BOARD,
        "app",
        palette="Show idle sessions",
        footer=True,
        group=STATUS,
    ),
    Action(
        "3",
        "status('active')",
        "active",
        "show only active rows",
        Where.BOARD,
        "app",
        palette="Show active sessions",
        footer=True,
        group=STATUS,
    ),
    Action(
        "4",
        "status('stale')",
        "stale",
        "show only stale rows",
        Where.BOARD,
        "app",
        palette="Show stale sessions",
        footer=True,
        group=STATUS,
    ),
    Action(
        "n",
        "notes",
        "notes",
        "the notes view: typed notes, their changes and supersede chains",
        Where.BOARD,
        "app",
        palette="Notes view",
        footer=True,
    ),
    Action(
        "N",
        "session_notes",
        "its notes",
        "the notes view, filtered to the selected session's notes",
        Where.BOARD,
        "app",
        palette="Notes of the selected session",
    ),
    Action(
        "enter",
        "open",
        "open",
        "open the snapshot pane full width (again to go back)",
        Where.PANE,
        "app",
        palette="Open snapshot",
        footer=True,
    ),
    Action(
        "space",
        "mark",
        "mark",
        "mark or unmark the row (archive acts on every marked row)",
        Where.BOARD,
        "app",
        palette="Mark session",
        footer=True,
        key_display="␣",
    ),
    Action(
        "c",
        "continue_session",
        "continue",
        "continue from the selected session (pick the one that continues)",
        Where.FLOWS,
        "app",
        palette="Continue session",
        footer=True,
    ),
    Action(
        "r",
        "release",
        "release",
        "release one of the selected session's references",
        Where.FLOWS,
        "app",
        palette="Release reference",
        footer=True,
    ),
    Action(
        "a",
        "archive",
        "archive",
        "archive the selected session, or every marked one",
        Where.FLOWS,
        "app",
        palette="Archive",
        footer=True,
    ),
    Action(
        "o",
        "organize",
        "organize",
        "organize: delete idle rows, mark overdue active rows stale",
        Where.FLOWS,
        "app",
        palette="Organize memory",
        footer=True,
    ),
    Action(
        "u",
        "update",
        "update",
        "update topic, summary, keywords and the snapshot",
        Where.FLOWS,
        "app",
        palette="Update session",
        footer=True,
    ),
    Action(
        "g",
        "chain",
        "chain",
        "the reference chain of the selected session",
        Where.FLOWS,
        "app",
        palette="Reference chain",
        footer=True,
    ),
    Action(
        "d",
        "doctor",
        "doctor",
        "doctor: find and repair inconsistencies",
        Where.FLOWS,
        "app",
        palette="Doctor",
        footer=True,
    ),
    Action(
        "f",
        "search",
        "find",
        "search everything: rows, snapshots and the archive, as you type",
        Where.BOARD,
        "app",
        palette="Search everything",
        footer=True,
    ),
    Action(
        "A",
        "archived",
        "archived",
        "browse the archived sessions (read-only)",
        Where.BOARD,
        "app",
        palette="Browse the archive",
        footer=True,
    ),
    Action("s", "sort", "sort", "sort by the next column", Where.BOARD, "app"),
    Action(
        "S", "reverse_sort", "reverse sort", "reverse the sort order", Where.BOARD, "app", palette="Reverse sort order"
    ),
    Action(
        "left_square_bracket",
        "revision(-1)",
        "older revision",
        "step to an older snapshot revision",
        Where.PANE,
        "app",
        palette="Older snapshot revision",
    ),
    Action(
        "right_square_bracket",
        "revision(1)",
        "newer revision",
        "step to a newer snapshot revision",
        Where.PANE,
        "app",
        palette="Newer snapshot revision",
    ),
    Action("escape", "leave_pane", "back", "leave the full-width pane", Where.PANE, "app"),
    Action("question_mark", "help", "help", "this help", Where.ANYWHERE, "app", palette="Help", footer=True),
    Action("q", "quit", "quit", "quit memboard", Where.ANYWHERE, "app", palette="Quit", footer=True),
    Action("ctrl+p", "", "commands", "the command palette: every action by name, and themes", Where.ANYWHERE),
    # the notes view's keys, in footer order
    Action(
        "slash",
        "filter",
        "filter",
        "filter notes by text (ID, title, type, scope, project, session)",
        Where.NOTES,
        "notes",
        palette="Filter notes by text",
        footer=True,
    ),
    Action(
        "1",
        "status('all')",
        "all",
        "show notes of every status",
        Where.NOTES,
        "notes",
        palette="Show all notes",
        footer=True,
        group=STATUS,
    ),
    Action(
        "2",
        "status('active')",
        "active",
        "show only active notes",
        Where.NOTES,
        "notes",
        palette="Show active notes",
        footer=True,
        group=STATUS,
    ),
    Action(
        "3",
        "status('superseded')",
        "superseded",
        "show only superseded notes",
        Where.NOTES,
        "notes",
        palette="Show superseded notes",
        footer=True,
        group=STATUS,
    ),
    Action(
        "n",
        "sessions",
        "sessions",
        "back to the session table",
        Where.NOTES,
        "notes",
        palette="Session table",
        footer=True,
    ),
    Action(
        "t",
        "next_type",
        "type",
        "show one type of note; again for the next type, then every type",
        Where.NOTES,
        "notes",
        palette="Next note type",
        footer=True,
    ),
    Action(
        "enter",
        "open",
        "open",
        "open the note pane full width (again to go back)",
        Where.NOTES,
        "notes",
        palette="Open note",
        footer=True,
    ),
    Action("escape", "leave_pane", "back", "leave the full-width note pane", Where.NOTES, "notes"),
    Action(
        "e",
        "edit",
        "edit",
        "edit the note: title, type, scope, project, What / Why / Where / Learned",
        Where.NOTES,
        "notes",
        palette="Edit note",
        footer=True,
    ),
    Action(
        "s",
        "supersede",
        "supersede",
        "supersede the note with another (pick the note that replaces it)",
        Where.NOTES,
        "notes",
        palette="Supersede note",
        footer=True,
    ),
    Action(
        "m",
        "mark",
        "mark",
        "mark the note superseded (a superseded one: active again)",
        Where.NOTES,
        "notes",
        palette="Mark note superseded or active",
        footer=True,
    ),
    Action(
        "g",
        "chain",
        "chain",
        "the note's supersede chain: what it replaced and what replaced it",
        Where.NOTES,
        "notes",
        palette="Supersede chain",
        footer=True,
    ),
    Action(
        "o",
        "session",
        "session",
        "go to the note's session on the board",
        Where.NOTES,
        "notes",
        palette="Session of the note",
        footer=True,
    ),
    # moving in the table
    Action("up,k", "cursor_up", "up", "move up a row", Where.BOARD, "table"),
    Action("down,j", "cursor_down", "down", "move down a row", Where.BOARD, "table"),
    Action("pageup", "page_up", "page up", "move up a page", Where.BOARD, "table"),
    Action("pagedown", "page_down", "page down", "move down a page", Where.BOARD, "table"),
    Action("home", "first", "first", "go to the first row", Where.BOARD, "table"),
    Action("end", "last", "last", "go to the last row", Where.BOARD, "table"),
    # the filter box
    Action("enter", "", "keep", "keep the filter and go back to the table", Where.FILTER),
    Action(
        "escape", "clear_filter", "clear filter", "clear the filter and go back to the table", Where.FILTER, "filter"
    ),
    # modals
    Action("enter,y", "confirm", "apply", "apply exactly the plan shown", Where.PREVIEW, "preview"),
    Action("escape,n", "cancel", "cancel", "cancel: nothing is written", Where.PREVIEW, "preview"),
    Action("enter,escape,space", "close", "OK", "close a message", Where.PREVIEW, "message"),
    Action(
        "ctrl+s",
        "preview",
        "preview",
        "preview the merged result (nothing is written yet)",
        Where.EDITOR,
        "update",
        priority=True,
    ),
    Action("escape", "cancel", "cancel", "close the editor without writing", Where.EDITOR, "update"),
    Action("enter", "", "choose", "choose the highlighted session, or preview with these days", Where.PICKER),
    Action("down", "move(1)", "next", "highlight the next session while typing a filter", Where.PICKER, "picker"),
    Action("up", "move(-1)", "previous", "highlight the previous session", Where.PICKER, "picker"),
    Action("escape", "cancel", "cancel", "cancel the flow: nothing is written", Where.PICKER, "picker"),
    Action("escape", "cancel", "cancel", "cancel organize: nothing is written", Where.PICKER, "stale"),
    Action(
        "s",
        "choose('supersede')",
        "supersede",
        "save the edit as the topic's note; the current one moves aside, marked superseded",
        Where.CONFLICT,
        "conflict",
    ),
    Action(
        "k",
        "choose('keep_both')",
        "keep both",
        "save the edit beside the current note, under its own key; both stay active",
        Where.CONFLICT,
        "conflict",
    ),
    Action("e", "choose('edit')", "edit", "back to the editor", Where.CONFLICT, "conflict"),
    Action("escape", "cancel", "cancel", "cancel: nothing is written", Where.CONFLICT, "conflict"),
    Action("enter", "", "jump", "jump to the live session (or the note) under the cursor", Where.CHAIN),
    Action("space", "", "fold", "fold or unfold a branch", Where.CHAIN),
    Action("escape,q", "close", "close", "close the chain", Where.CHAIN, "chain"),
    # search and the archive: a text box keeps the focus, the arrows move in the list below it
    Action("down", "move(1)", "next", "highlight the next result while typing", Where.SEARCH, "search"),
    Action("up", "move(-1)", "previous", "highlight the previous result", Where.SEARCH, "search"),
    Action(
        "enter",
        "",
        "open",
        "a live result: select its row on the table; an archived one: open it read-only",
        Where.SEARCH,
    ),
    Action("escape", "close", "close", "close search", Where.SEARCH, "search"),
    Action(
        "down",
        "move(1)",
        "next",
        "highlight the next archived session while typing a filter",
        Where.ARCHIVE,
        "archived",
    ),
    Action("up", "move(-1)", "previous", "highlight the previous archived session", Where.ARCHIVE, "archived"),
    Action("enter", "", "open", "open the highlighted session read-only (metadata and snapshot)", Where.ARCHIVE),
    Action("escape", "close", "close", "close the archive", Where.ARCHIVE, "archived"),
    Action("up,down,pageup,pagedown", "", "scroll", "scroll its metadata and snapshot", Where.SESSION),
    Action("escape,q", "close", "close", "close it (nothing in it can change a file)", Where.SESSION, "session"),
    # the mouse
    Action("click a row", "", "select", "select it", Where.MOUSE),
    Action("click a column header", "", "sort", "sort by it (again to reverse)", Where.MOUSE),
    Action("click a key below", "", "run", "run it", Where.MOUSE),
    Action("wheel", "", "scroll", "scroll the table, the pane or a preview", Where.MOUSE),
    # this help
    Action("escape,q,question_mark", "close", "close", "close this help", Where.HELP, "help"),
)


def bindings(owner: Owner, table: tuple[Action, ...] = ACTIONS) -> list[BindingType]:
    """The BINDINGS of one owner, in table order (footer entries are shown, grouped ones share a group)."""
    groups: dict[str, Binding.Group] = {}
    out: list[BindingType] = []
    for entry in table:
        if not owner or entry.owner != owner:
            continue
        group = None
        if entry.group:
            group = groups.setdefault(entry.group, Binding.Group(entry.group, compact=True))
        out.append(
            Binding(
                entry.keys,
                entry.action,
                entry.label,
                show=entry.footer,
                key_display=entry.key_display,
                priority=entry.priority,
                group=group,
            )
        )
    return out


def board_only(table: tuple[Action, ...] = ACTIONS) -> frozenset[str]:
    """Action names of the App's keys that act on the board only (not under a modal, help or the palette)."""
    return frozenset(e.action_name for e in table if e.owner == "app" and e.where is not Where.ANYWHERE)


def palette_entries(table: tuple[Action, ...] = ACTIONS, owner: Owner = "app") -> list[Action]:
    """The entries the command palette offers for one owner's screen (the board's App, the notes view), in table order."""
    return [entry for entry in table if entry.palette and entry.owner == owner]


def help_sections(table: tuple[Action, ...] = ACTIONS) -> list[tuple[str, list[tuple[str, str]]]]:
    """Every entry for the help screen: (heading, [(keys, what it does)]) per place, in Where's order."""
    out = []
    for where in Where:
        rows = [(entry.key_text, entry.help) for entry in table if entry.where is where]
        if rows:
            out.append((where.value, rows))
    return out


def key_hints(where: Where, owner: Owner, table: tuple[Action, ...] = ACTIONS) -> str:
    """One line of a screen's keys: its owner's entries of that place and the keys its widgets handle
    (`↓ next · ↑ previous · ⏎ open · esc close`)."""
    return " · ".join(f"{e.key_text} {e.label}" for e in table if e.where is where and e.owner in (owner, ""))


def close_hint(owner: Owner, table: tuple[Action, ...] = ACTIONS) -> str:
    """How to close the owner's screen, from its `close` entry (`esc / q / ? close`)."""
    for entry in table:
        if entry.owner == owner and entry.action == "close":
            return f"{entry.key_text} {entry.label}"
    return ""
