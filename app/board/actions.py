"""The board's one table of actions: every key binding, the footer, the help screen's key
tables and the command palette are generated from ACTIONS.

Plain data and Textual's Binding only (no widget): the App, its screens and widgets read
their BINDINGS from here, the KeyBar draws the App's shown bindings, the help screen and
the palette provider render the same entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import Enum
from typing import Literal

from textual.binding import Binding, BindingType
from textual.keys import format_key

from memboard.widgets.key_bar import FooterKey

Owner = Literal[
    "",
    "app",
    "board",
    "table",
    "filter",
    "preview",
    "message",
    "picker",
    "stale",
    "update",
    "chain",
    "help",
    "log",
    "planning",
    "confirm",
    "progress",
    "search",
    "archived",
    "session",
    "notes",
    "conflict",
    "resolve",
    "kinds",
    "palette",
    "applied",
    "spaces",
    "hierarchy",
    "draft",
    "migration",
]
"""Whose BINDINGS hold an entry ("" = nobody's: a widget handles the key itself, or a mouse gesture)."""


class Where(Enum):
    """Where an action applies; the value heads its part of the help screen (in this order)."""

    BOARD = "On the board"
    FILTER = "In the filter box"
    PANE = "The snapshot pane"
    FLOWS = "Changes (each one is previewed first; nothing is written before you confirm)"
    NOTES = "In the notes view (changes are previewed first, like every other change)"
    SPACES = "On the Spaces screen (p): session-memory spaces; every change is previewed first"
    HIERARCHY = "On the Hierarchy screen (h): MEMORY.md, facts, lookup and daily logs; changes are previewed first"
    PREVIEW = "In a preview or a message"
    EDITOR = "In the update editor and the note editor"
    PICKER = "In a session picker or organize's stale-days question"
    CONFLICT = "In a decision conflict (the store refused a save that drops earlier statements)"
    RESOLVE = "In resolve's question (R): whose value decides each open conflict"
    CHAIN = "In the reference chain or a supersede chain"
    SEARCH = "In search (f)"
    ARCHIVE = "In the archive (A)"
    SESSION = "In a read-only session (opened from search or the archive)"
    LOG = "In the result log"
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
    footer: tuple[str, ...] = ()
    """The footers that show it: `board`, `pane`, `filter`, or a screen's (its owner name)."""
    group: str = ""
    """Consecutive footer entries of one group share its label (`1234 status`)."""
    priority: bool = False
    key_display: str | None = None
    pinned: bool = False
    """Shown at the right of every footer, whatever its width (help and quit); bound on every modal too."""
    in_modals: bool = False
    """Bound on every modal as well, though not shown in footers (ctrl+c: quit, asking first)."""
    text_key: str = ""
    """The key a footer shows where a text box takes the others (`f1` for help, `ctrl+q` for quit)."""
    id: str = ""
    """The binding id a user keymap names it by, where the one made of owner and action is taken."""

    @property
    def binding_id(self) -> str:
        """The id a user keymap rebinds it by: `owner.action`, with its argument (`app.archive`,
        `app.status.idle`, `table.cursor_up`, `notes.edit`)."""
        if self.id:
            return self.id
        name, _, args = self.action.partition("(")
        argument = args.rstrip(")").strip("'\" ")
        return ".".join(part for part in (self.owner, name, argument) if part)

    @property
    def action_name(self) -> str:
        """The action without its arguments (`status` for `status('idle')`)."""
        return self.action.split("(", 1)[0]

    @property
    def key_text(self) -> str:
        """Every key as a person reads it (`esc / n`, `[`, `ctrl+s`); a gesture as written."""
        if self.where is Where.MOUSE:
            return self.keys
        return " / ".join(key_label(key) for key in self.keys.split(","))


def key_label(key: str) -> str:
    """One Textual key name as shown to a person (`question_mark` → `?`, `ctrl+s` stays)."""
    *modifiers, name = key.strip().split("+")
    return "+".join([*modifiers, format_key(name)])


STATUS = "status"  # the footer group of the four status filters
BOARD, PANE, FILTER, NOTES = ("board",), ("pane",), ("filter",), ("notes",)
SPACES, HIERARCHY = ("spaces",), ("hierarchy",)
TEXT_FOOTERS = frozenset({"filter", "update", "picker", "stale", "search", "archived", "palette"})
"""Footers of places where a text box takes letters (help and quit show their text_key there)."""
MODALS = frozenset(
    {
        "preview",
        "message",
        "picker",
        "stale",
        "update",
        "chain",
        "help",
        "log",
        "planning",
        "confirm",
        "progress",
        "search",
        "archived",
        "session",
        "conflict",
        "resolve",
        "kinds",
        "applied",
        "draft",
        "migration",
    }
)
"""Owners that are modal screens: the App's keys do not reach past them, so each binds help and quit itself."""

ACTIONS: tuple[Action, ...] = (
    # the App's keys, in footer order
    Action(
        "slash",
        "filter",
        "filter",
        "filter by text (ID, agent, topic, summary, keywords)",
        Where.BOARD,
        "board",
        palette="Filter by text",
        footer=BOARD,
        priority=True,
    ),
    Action(
        "1",
        "status('all')",
        "all",
        "show all rows",
        Where.BOARD,
        "board",
        palette="Show all sessions",
        footer=BOARD,
        group=STATUS,
    ),
    Action(
        "2",
        "status('idle')",
        "idle",
        "show only idle rows",
        Where.BOARD,
        "board",
        palette="Show idle sessions",
        footer=BOARD,
        group=STATUS,
    ),
    Action(
        "3",
        "status('active')",
        "active",
        "show only active rows",
        Where.BOARD,
        "board",
        palette="Show active sessions",
        footer=BOARD,
        group=STATUS,
    ),
    Action(
        "4",
        "status('stale')",
        "stale",
        "show only stale rows",
        Where.BOARD,
        "board",
        palette="Show stale sessions",
        footer=BOARD,
        group=STATUS,
    ),
    Action(
        "n",
        "notes",
        "notes",
        "the notes view: typed notes, their changes and supersede chains",
        Where.BOARD,
        "board",
        palette="Notes view",
        footer=BOARD,
    ),
    Action(
        "N",
        "session_notes",
        "its notes",
        "the notes view, filtered to the selected session's notes",
        Where.BOARD,
        "board",
        palette="Notes of the selected session",
    ),
    Action(
        "p",
        "spaces",
        "spaces",
        "the Spaces screen: every known session-memory space, live",
        Where.BOARD,
        "board",
        palette="Spaces (session memory)",
        footer=BOARD,
    ),
    Action(
        "h",
        "hierarchy",
        "hierarchy",
        "the Hierarchy screen: MEMORY.md, facts.yaml, the lookup index and daily logs, live",
        Where.BOARD,
        "board",
        palette="Memory hierarchy",
        footer=BOARD,
    ),
    Action(
        "enter",
        "open",
        "open",
        "open the snapshot pane full width (again to go back)",
        Where.PANE,
        "board",
        palette="Open snapshot",
        footer=BOARD,
    ),
    Action(
        "space",
        "mark",
        "mark",
        "mark or unmark the row (archive acts on every marked row)",
        Where.BOARD,
        "board",
        palette="Mark session",
        footer=BOARD,
        key_display="␣",
    ),
    Action(
        "c",
        "continue_session",
        "continue",
        "continue from the selected session (pick the one that continues)",
        Where.FLOWS,
        "board",
        palette="Continue session",
        footer=BOARD,
    ),
    Action(
        "r",
        "release",
        "release",
        "release a reference of the selected session: one that continues from it, or one it continues from",
        Where.FLOWS,
        "board",
        palette="Release reference",
        footer=BOARD,
    ),
    Action(
        "a",
        "archive",
        "archive",
        "archive the selected session, or every marked one",
        Where.FLOWS,
        "board",
        palette="Archive",
        footer=BOARD,
    ),
    Action(
        "o",
        "organize",
        "organize",
        "organize: delete idle rows, mark overdue active rows stale",
        Where.FLOWS,
        "board",
        palette="Organize memory",
        footer=BOARD,
    ),
    Action(
        "u",
        "update",
        "update",
        "update topic, summary, keywords and the snapshot",
        Where.FLOWS,
        "board",
        palette="Update session",
        footer=BOARD,
    ),
    Action(
        "g",
        "chain",
        "chain",
        "the reference chain of the selected session",
        Where.FLOWS,
        "board",
        palette="Reference chain",
        footer=BOARD,
    ),
    Action(
        "d",
        "doctor",
        "doctor",
        "doctor: find and repair inconsistencies",
        Where.FLOWS,
        "board",
        palette="Doctor",
        footer=BOARD,
    ),
    Action(
        "R",
        "resolve",
        "resolve",
        "resolve open conflicts: the cells a sync-conflict copy's merge left open and the git merge driver's "
        "conflict blocks (keep ours or take theirs, previewed)",
        Where.FLOWS,
        "board",
        palette="Resolve open conflicts",
    ),
    Action(
        "f",
        "search",
        "find",
        "search everything: rows, snapshots and the archive, as you type",
        Where.BOARD,
        "board",
        palette="Search everything",
        footer=BOARD,
    ),
    Action(
        "A",
        "archived",
        "archived",
        "browse the archived sessions (read-only)",
        Where.BOARD,
        "board",
        palette="Browse the archive",
        footer=BOARD,
    ),
    Action(
        "l",
        "log",
        "log",
        "the result log: what each change did in this run",
        Where.BOARD,
        "board",
        palette="Result log",
        footer=BOARD,
    ),
    Action(
        "s",
        "sort",
        "sort",
        "sort by the next column on screen (then back to file order)",
        Where.BOARD,
        "board",
        footer=BOARD,
    ),
    Action(
        "y",
        "copy_id",
        "copy ID",
        "copy the selected Session ID to the clipboard (OSC 52, where the terminal allows it)",
        Where.BOARD,
        "board",
        palette="Copy Session ID",
    ),
    Action(
        "Y",
        "copy_phrase",
        "copy 接續",
        "copy the continue phrase `接續 memory <id>` of the selected session, to paste into a chat",
        Where.BOARD,
        "board",
        palette="Copy the continue phrase",
    ),
    Action(
        "S",
        "reverse_sort",
        "reverse sort",
        "reverse the sort order",
        Where.BOARD,
        "board",
        palette="Reverse sort order",
    ),
    Action(
        "escape",
        "leave_pane",
        "back",
        "leave the full-width pane; on the table, clear the kept filters (text and status)",
        Where.PANE,
        "board",
        footer=PANE,
    ),
    Action(
        "left_square_bracket",
        "revision(-1)",
        "older",
        "step to an older snapshot revision",
        Where.PANE,
        "board",
        palette="Older snapshot revision",
        footer=PANE,
        group="revision",
    ),
    Action(
        "right_square_bracket",
        "revision(1)",
        "newer",
        "step to a newer snapshot revision",
        Where.PANE,
        "board",
        palette="Newer snapshot revision",
        footer=PANE,
        group="revision",
    ),
    Action(
        "question_mark,f1",
        "help",
        "help",
        "this help",
        Where.ANYWHERE,
        "app",
        palette="Help",
        pinned=True,
        key_display="?",
        text_key="f1",
    ),
    Action(
        "q",
        "quit",
        "quit",
        "quit memboard (asks first while a change or a draft is open)",
        Where.ANYWHERE,
        "app",
        palette="Quit",
        pinned=True,
        text_key="ctrl+q",
    ),
    Action(
        "ctrl+q",
        "quit",
        "quit",
        "quit, also from a text box",
        Where.ANYWHERE,
        "app",
        priority=True,
        id="app.quit_anywhere",
    ),
    Action(
        "ctrl+c",
        "quit",
        "quit",
        "quit, asking first while a change or a draft is open (in a text box it copies the selection instead)",
        Where.ANYWHERE,
        "app",
        in_modals=True,
        id="app.quit_ctrl_c",
    ),
    Action(
        "ctrl+p",
        "",
        "commands",
        "the command palette: every action by name, and themes (a theme chosen there is saved in the config)",
        Where.ANYWHERE,
    ),
    # the command palette's own keys (Textual's palette binds them; shown in the footer while it is open)
    Action(
        "up,down",
        "",
        "move",
        "in the command palette: move through the commands",
        Where.ANYWHERE,
        footer=("palette",),
        key_display="↑↓",
    ),
    Action("enter", "", "run", "in the command palette: run the chosen command", Where.ANYWHERE, footer=("palette",)),
    Action("escape", "", "close", "in the command palette: close it, nothing run", Where.ANYWHERE, footer=("palette",)),
    # the notes view's keys, in footer order
    Action(
        "slash",
        "filter",
        "filter",
        "filter notes by text (ID, title, type, scope, project, session)",
        Where.NOTES,
        "notes",
        palette="Filter notes by text",
        footer=NOTES,
    ),
    Action(
        "1",
        "status('all')",
        "all",
        "show notes of every status",
        Where.NOTES,
        "notes",
        palette="Show all notes",
        footer=NOTES,
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
        footer=NOTES,
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
        footer=NOTES,
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
        footer=NOTES,
    ),
    Action(
        "t",
        "next_type",
        "type",
        "show one type of note; again for the next type, then every type",
        Where.NOTES,
        "notes",
        palette="Next note type",
        footer=NOTES,
    ),
    Action(
        "T",
        "previous_type",
        "type back",
        "show the previous type of note (t's cycle the other way); again for the one before, then every type",
        Where.NOTES,
        "notes",
        palette="Previous note type",
    ),
    Action(
        "enter",
        "open",
        "open",
        "open the note pane full width (again to go back)",
        Where.NOTES,
        "notes",
        palette="Open note",
        footer=NOTES,
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
        footer=NOTES,
    ),
    Action(
        "s",
        "supersede",
        "supersede",
        "supersede the note with another (pick the note that replaces it)",
        Where.NOTES,
        "notes",
        palette="Supersede note",
        footer=NOTES,
    ),
    Action(
        "m",
        "mark",
        "mark",
        "mark the note superseded (a superseded one: active again)",
        Where.NOTES,
        "notes",
        palette="Mark note superseded or active",
        footer=NOTES,
    ),
    Action(
        "g",
        "chain",
        "chain",
        "the note's supersede chain: what it replaced and what replaced it",
        Where.NOTES,
        "notes",
        palette="Supersede chain",
        footer=NOTES,
    ),
    Action(
        "o",
        "session",
        "session",
        "go to the note's session on the board",
        Where.NOTES,
        "notes",
        palette="Session of the note",
        footer=NOTES,
    ),
    Action(
        "f",
        "search",
        "find",
        "search everything, as you type (a note found opens here, a session on the board)",
        Where.NOTES,
        "notes",
        palette="Search everything (from notes)",
        footer=NOTES,
    ),
    # the Spaces screen's keys, in footer order
    Action(
        "slash",
        "filter",
        "filter",
        "filter spaces by text (name, folder, project, rule, flags, problem)",
        Where.SPACES,
        "spaces",
        palette="Filter spaces by text",
        footer=SPACES,
        priority=True,
    ),
    Action(
        "f",
        "search",
        "find",
        "search everything, as you type",
        Where.SPACES,
        "spaces",
        palette="Search everything (from Spaces)",
        footer=SPACES,
    ),
    Action(
        "enter",
        "open",
        "restore",
        "the restore view full width: current.md, dream-notes.md, every history entry (again to go back)",
        Where.SPACES,
        "spaces",
        palette="Restore view of the space",
        footer=SPACES,
    ),
    Action(
        "escape",
        "back",
        "back",
        "leave the full-width view, else back to the session table",
        Where.SPACES,
        "spaces",
        footer=SPACES,
    ),
    Action(
        "w",
        "save",
        "save",
        "save: $EDITOR on a copy of current.md, then the layering preview (lines it displaces move to history.md)",
        Where.SPACES,
        "spaces",
        palette="Save the space (current.md)",
        footer=SPACES,
    ),
    Action(
        "R",
        "research",
        "research",
        "research-save: a form with the skill's fields, appended to research.md",
        Where.SPACES,
        "spaces",
        palette="Research-save",
        footer=SPACES,
    ),
    Action(
        "D",
        "dream",
        "dream",
        "dream: the extraction as a draft (e edits it in $EDITOR), then the preview",
        Where.SPACES,
        "spaces",
        palette="Dream (distil into dream-notes.md)",
        footer=SPACES,
    ),
    Action(
        "A",
        "archive",
        "archive",
        "archive entries a dream covers to archive/ (disabled, with the reason, while no dream covers them)",
        Where.SPACES,
        "spaces",
        palette="Archive the space",
        footer=SPACES,
    ),
    Action(
        "M",
        "migrate",
        "migrate",
        "migrate legacy data (.codex/ or .claude/ session-memory) into the space",
        Where.SPACES,
        "spaces",
        palette="Migrate legacy data",
        footer=SPACES,
    ),
    Action(
        "i",
        "init",
        "init",
        "init a missing space from the skill's templates (create-only)",
        Where.SPACES,
        "spaces",
        palette="Init the space",
        footer=SPACES,
    ),
    Action(
        "x",
        "check",
        "check",
        "the space's check findings (the save gate's decision too)",
        Where.SPACES,
        "spaces",
        palette="Check findings of the space",
        footer=SPACES,
    ),
    # the Hierarchy screen's keys, in footer order
    Action(
        "slash",
        "filter",
        "filter",
        "filter facts, lookup rows, project files and daily logs by text",
        Where.HIERARCHY,
        "hierarchy",
        palette="Filter the hierarchy by text",
        footer=HIERARCHY,
        priority=True,
    ),
    Action(
        "f",
        "search",
        "find",
        "search everything, as you type",
        Where.HIERARCHY,
        "hierarchy",
        palette="Search everything (from Hierarchy)",
        footer=HIERARCHY,
    ),
    Action(
        "enter",
        "open",
        "open",
        "open the selected fact, lookup target, project file or daily log full width (again to go back)",
        Where.HIERARCHY,
        "hierarchy",
        palette="Open the selected item",
        footer=HIERARCHY,
    ),
    Action(
        "escape",
        "back",
        "back",
        "leave the full-width view, else back to the session table",
        Where.HIERARCHY,
        "hierarchy",
        footer=HIERARCHY,
    ),
    Action(
        "l",
        "lint",
        "lint",
        "the lint findings of the workspace",
        Where.HIERARCHY,
        "hierarchy",
        palette="Lint findings",
        footer=HIERARCHY,
    ),
    Action(
        "m",
        "migrate",
        "migrate",
        "migrate: every line of MEMORY.md with its proposed destination (k f p d K), then the preview",
        Where.HIERARCHY,
        "hierarchy",
        palette="Migration plan",
        footer=HIERARCHY,
    ),
    Action(
        "e",
        "edit_fact",
        "edit",
        "edit the selected fact's value (facts set), previewed first",
        Where.HIERARCHY,
        "hierarchy",
        palette="Edit fact",
        footer=HIERARCHY,
    ),
    Action(
        "t",
        "todos",
        "todos",
        "the todos: add one, or mark the selected one done (it moves to today's log)",
        Where.HIERARCHY,
        "hierarchy",
        palette="Todos",
        footer=HIERARCHY,
    ),
    Action(
        "L",
        "log",
        "log",
        "append a line to today's daily log, previewed first",
        Where.HIERARCHY,
        "hierarchy",
        palette="Append to today's log",
        footer=HIERARCHY,
    ),
    # the dream draft (Spaces, D)
    Action("enter", "preview", "preview", "preview the dream as drafted", Where.SPACES, "draft", footer=("draft",)),
    Action("e", "edit", "edit", "edit the draft in $EDITOR", Where.SPACES, "draft", footer=("draft",)),
    Action(
        "escape", "cancel", "cancel", "cancel the dream: nothing is written", Where.SPACES, "draft", footer=("draft",)
    ),
    # the migration plan (Hierarchy, m)
    Action(
        "k", "to('keep')", "keep", "keep the line in MEMORY.md", Where.HIERARCHY, "migration", footer=("migration",)
    ),
    Action(
        "f",
        "to('facts')",
        "facts",
        "move the line to facts.yaml (K sets its key and value)",
        Where.HIERARCHY,
        "migration",
        footer=("migration",),
    ),
    Action(
        "p",
        "to('project')",
        "project",
        "move the line to a project file (asks its name)",
        Where.HIERARCHY,
        "migration",
        footer=("migration",),
    ),
    Action(
        "d",
        "to('daily')",
        "daily",
        "move the line to today's daily log",
        Where.HIERARCHY,
        "migration",
        footer=("migration",),
    ),
    Action(
        "K",
        "key",
        "key",
        "edit the line's facts key and value (`key = value`)",
        Where.HIERARCHY,
        "migration",
        footer=("migration",),
    ),
    Action(
        "enter",
        "preview",
        "preview",
        "preview the whole migration as decided",
        Where.HIERARCHY,
        "migration",
        footer=("migration",),
    ),
    Action(
        "escape",
        "cancel",
        "cancel",
        "close the plan: nothing is written",
        Where.HIERARCHY,
        "migration",
        footer=("migration",),
    ),
    # moving in the table
    Action("up,k", "cursor_up", "up", "move up a row", Where.BOARD, "table"),
    Action("down,j", "cursor_down", "down", "move down a row", Where.BOARD, "table"),
    Action("pageup,ctrl+b", "page_up", "page up", "move up a page", Where.BOARD, "table"),
    Action("pagedown,ctrl+f", "page_down", "page down", "move down a page", Where.BOARD, "table"),
    Action("ctrl+u", "half_page_up", "half page up", "move up half a page", Where.BOARD, "table"),
    Action("ctrl+d", "half_page_down", "half page down", "move down half a page", Where.BOARD, "table"),
    Action("home", "first", "first", "go to the first row", Where.BOARD, "table"),
    Action("end,G", "last", "last", "go to the last row", Where.BOARD, "table"),
    # the filter box
    Action("enter", "", "keep", "keep the filter and go back to the table", Where.FILTER, footer=FILTER),
    Action(
        "escape",
        "clear_filter",
        "clear",
        "clear the filter and go back to the table",
        Where.FILTER,
        "filter",
        footer=FILTER,
    ),
    # modals
    Action(
        "enter,y",
        "confirm",
        "apply",
        "apply exactly the plan shown (above 200 file changes or index rows: press y twice)",
        Where.PREVIEW,
        "preview",
        footer=("preview", "preview-doctor"),
        key_display="⏎/y",
    ),
    Action(
        "y",
        "confirm",
        "apply (again)",
        "after the first y of a large plan: y again applies it",
        Where.PREVIEW,
        "preview",
        footer=("preview-again",),
        id="preview.confirm_again",
    ),
    Action(
        "enter,y",
        "confirm",
        "close",
        "a plan with nothing to do (it writes nothing): enter, y or esc closes it",
        Where.PREVIEW,
        "preview",
        footer=("preview-empty", "preview-doctor-empty"),
        key_display="⏎/esc",
        id="preview.close_empty",
    ),
    Action(
        "escape,n",
        "cancel",
        "cancel",
        "cancel: nothing is written",
        Where.PREVIEW,
        "preview",
        footer=("preview", "preview-doctor", "preview-again"),
        key_display="esc/n",
    ),
    Action(
        "d",
        "toggle_diff",
        "exact diff",
        "switch between the changes in words and the exact diff (the bytes --dry-run prints)",
        Where.PREVIEW,
        "preview",
        footer=("preview", "preview-doctor", "preview-again"),
    ),
    Action(
        "s",
        "next_group",
        "skip",
        "skip to the next group of the changes in words (a file, what is left and why, a kind of finding)",
        Where.PREVIEW,
        "preview",
        footer=("preview", "preview-doctor", "preview-again", "preview-empty", "preview-doctor-empty"),
    ),
    Action(
        "z",
        "fold",
        "fold",
        "fold every group of the changes in words into its first line, or unfold them",
        Where.PREVIEW,
        "preview",
        footer=("preview", "preview-doctor", "preview-again", "preview-empty", "preview-doctor-empty"),
    ),
    Action(
        "x",
        "leave_out",
        "leave out",
        "in doctor's preview: leave out a kind of finding (or put it back); the plan is worked out again without its "
        "repairs",
        Where.PREVIEW,
        "preview",
        footer=("preview-doctor", "preview-doctor-empty"),
    ),
    Action(
        "space,x",
        "flip",
        "leave out / back",
        "in doctor's kinds (x): leave the highlighted kind out of the repairs, or put it back",
        Where.PREVIEW,
        "kinds",
        footer=("kinds",),
        key_display="␣",
    ),
    Action(
        "enter",
        "",
        "preview",
        "in doctor's kinds: preview the plan without the kinds left out",
        Where.PREVIEW,
        footer=("kinds",),
        key_display="⏎",
    ),
    Action(
        "escape",
        "cancel",
        "back",
        "in doctor's kinds: back to the preview as it was",
        Where.PREVIEW,
        "kinds",
        footer=("kinds",),
    ),
    Action(
        "up,down,pageup,pagedown",
        "",
        "scroll",
        "scroll the changes",
        Where.PREVIEW,
        footer=("preview", "preview-doctor", "preview-again", "preview-empty", "preview-doctor-empty"),
        key_display="↑↓",
    ),
    Action(
        "enter,escape,space",
        "close",
        "OK",
        "close a message",
        Where.PREVIEW,
        "message",
        footer=("message", "message-plain"),
        key_display="⏎",
    ),
    Action(
        "f",
        "fix",
        "fix",
        "run the fix a message offers (release, update or doctor)",
        Where.PREVIEW,
        "message",
        footer=("message",),
    ),
    Action(
        "escape",
        "cancel",
        "cancel",
        "stop building a plan that takes long: nothing is written",
        Where.PREVIEW,
        "planning",
        footer=("planning",),
    ),
    Action(
        "y",
        "yes",
        "yes",
        "answer yes to a question (quit, discard a draft)",
        Where.PREVIEW,
        "confirm",
        footer=("confirm", "confirm-draft"),
    ),
    Action(
        "k",
        "keep",
        "keep draft",
        "close the editor but keep the draft: u on the session opens it again",
        Where.PREVIEW,
        "confirm",
        footer=("confirm-draft",),
    ),
    Action(
        "escape,n",
        "no",
        "no",
        "answer no",
        Where.PREVIEW,
        "confirm",
        footer=("confirm", "confirm-draft"),
        key_display="esc/n",
    ),
    Action(
        "ctrl+s",
        "preview",
        "preview",
        "preview the merged result (nothing is written yet)",
        Where.EDITOR,
        "update",
        priority=True,
        footer=("update",),
    ),
    Action("tab", "", "next field", "move to the next field (shift+tab: back)", Where.EDITOR, footer=("update",)),
    Action(
        "escape",
        "cancel",
        "close",
        "close the editor (asks first when the draft changed; the draft can be kept for later)",
        Where.EDITOR,
        "update",
        footer=("update",),
    ),
    Action("enter", "", "choose", "choose the highlighted session", Where.PICKER, footer=("picker",)),
    Action(
        "down",
        "move(1)",
        "next",
        "highlight the next session while typing a filter",
        Where.PICKER,
        "picker",
        footer=("picker",),
        group="move",
        key_display="↓",
    ),
    Action(
        "up",
        "move(-1)",
        "previous",
        "highlight the previous session",
        Where.PICKER,
        "picker",
        footer=("picker",),
        group="move",
        key_display="↑",
    ),
    Action(
        "escape", "cancel", "cancel", "cancel the flow: nothing is written", Where.PICKER, "picker", footer=("picker",)
    ),
    Action("enter", "", "preview", "preview organize with these stale days", Where.PICKER, footer=("stale",)),
    Action(
        "escape", "cancel", "cancel", "cancel organize: nothing is written", Where.PICKER, "stale", footer=("stale",)
    ),
    Action(
        "s",
        "choose('supersede')",
        "supersede",
        "save the edit as the topic's note; the current one moves aside, marked superseded",
        Where.CONFLICT,
        "conflict",
        footer=("conflict",),
    ),
    Action(
        "k",
        "choose('keep_both')",
        "keep both",
        "save the edit beside the current note, under its own key; both stay active",
        Where.CONFLICT,
        "conflict",
        footer=("conflict",),
    ),
    Action("e", "choose('edit')", "edit", "back to the editor", Where.CONFLICT, "conflict", footer=("conflict",)),
    Action(
        "escape", "cancel", "cancel", "cancel: nothing is written", Where.CONFLICT, "conflict", footer=("conflict",)
    ),
    Action(
        "o",
        "prefer('ours')",
        "keep ours",
        "keep ours: this machine's value (the original file's; in a git merge, the branch you are on)",
        Where.RESOLVE,
        "resolve",
        footer=("resolve",),
    ),
    Action(
        "t",
        "prefer('theirs')",
        "take theirs",
        "take theirs: the sync-conflict copy's value (in a git merge, the branch merged in)",
        Where.RESOLVE,
        "resolve",
        footer=("resolve",),
    ),
    Action(
        "s",
        "scope",
        "only this",
        "decide only the selected session's open conflicts, or again every one",
        Where.RESOLVE,
        "resolve",
        footer=("resolve",),
    ),
    Action("escape", "cancel", "cancel", "cancel: nothing is written", Where.RESOLVE, "resolve", footer=("resolve",)),
    Action(
        "enter", "", "jump", "jump to the live session (or the note) under the cursor", Where.CHAIN, footer=("chain",)
    ),
    Action("space", "", "fold", "fold or unfold a branch", Where.CHAIN, footer=("chain",), key_display="␣"),
    Action("escape", "close", "close", "close the chain", Where.CHAIN, "chain", footer=("chain",)),
    Action(
        "up,k",
        "move(-1)",
        "previous",
        "the newer line of the result log",
        Where.LOG,
        "log",
        footer=("log",),
        group="line",
        priority=True,
        key_display="↑",
    ),
    Action(
        "down,j",
        "move(1)",
        "next",
        "the older line of the result log",
        Where.LOG,
        "log",
        footer=("log",),
        group="line",
        priority=True,
        key_display="↓",
    ),
    Action(
        "enter",
        "open",
        "open",
        "what the change on the line wrote (its files, d: the exact diff), or the session a flow that wrote nothing "
        "was about",
        Where.LOG,
        "log",
        footer=("log",),
        priority=True,
        key_display="⏎",
    ),
    Action("escape,l", "close", "close", "close the result log", Where.LOG, "log", footer=("log",)),
    Action(
        "d",
        "toggle_diff",
        "exact diff",
        "in a change opened from the result log: switch between its files in words and the exact diff it wrote",
        Where.LOG,
        "applied",
        footer=("applied",),
    ),
    Action(
        "escape",
        "close",
        "back",
        "in a change opened from the result log: back to the log",
        Where.LOG,
        "applied",
        footer=("applied",),
    ),
    # search and the archive: a text box keeps the focus, the arrows move in the list below it
    Action(
        "down",
        "move(1)",
        "next",
        "highlight the next result while typing",
        Where.SEARCH,
        "search",
        footer=("search",),
        group="move",
        key_display="↓",
    ),
    Action(
        "up",
        "move(-1)",
        "previous",
        "highlight the previous result",
        Where.SEARCH,
        "search",
        footer=("search",),
        group="move",
        key_display="↑",
    ),
    Action(
        "enter",
        "",
        "open",
        "a live result: select its row on the table; an archived one: open it read-only",
        Where.SEARCH,
        footer=("search",),
    ),
    Action("escape", "close", "close", "close search", Where.SEARCH, "search", footer=("search",)),
    Action(
        "down",
        "move(1)",
        "next",
        "highlight the next archived session while typing a filter",
        Where.ARCHIVE,
        "archived",
        footer=("archived",),
        group="move",
        key_display="↓",
    ),
    Action(
        "up",
        "move(-1)",
        "previous",
        "highlight the previous archived session",
        Where.ARCHIVE,
        "archived",
        footer=("archived",),
        group="move",
        key_display="↑",
    ),
    Action(
        "enter",
        "",
        "open",
        "open the highlighted session read-only (metadata and snapshot)",
        Where.ARCHIVE,
        footer=("archived",),
    ),
    Action("escape", "close", "close", "close the archive", Where.ARCHIVE, "archived", footer=("archived",)),
    Action(
        "up,down,pageup,pagedown",
        "",
        "scroll",
        "scroll its metadata and snapshot",
        Where.SESSION,
        footer=("session",),
        key_display="↑↓",
    ),
    Action(
        "escape",
        "close",
        "close",
        "close it (nothing in it can change a file)",
        Where.SESSION,
        "session",
        footer=("session",),
    ),
    # the mouse
    Action("click a row", "", "select", "select it", Where.MOUSE),
    Action("click a column header", "", "sort", "sort by it (again to reverse)", Where.MOUSE),
    Action("click a key below", "", "run", "run it", Where.MOUSE),
    Action("wheel", "", "scroll", "scroll the table, the pane or a preview", Where.MOUSE),
    # this help
    Action("escape,question_mark", "close", "close", "close this help", Where.HELP, "help", footer=("help",)),
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
                show=bool(entry.footer),
                key_display=entry.key_display,
                priority=entry.priority,
                group=group,
                id=entry.binding_id,
            )
        )
    if owner in MODALS:
        out += pinned_bindings(owner, table)
    return out


def pinned_bindings(owner: Owner, table: tuple[Action, ...] = ACTIONS) -> list[BindingType]:
    """A modal's own bindings of the App keys that work everywhere (help, quit, ctrl+c), run in the App's
    namespace: where a text box takes letters only their text keys (f1; ctrl+q has priority anyway; a text
    box's own ctrl+c copies first), none for help over the help."""
    out: list[BindingType] = []
    for entry in table:
        if not (entry.pinned or entry.in_modals) or (owner == "help" and entry.action == "help"):
            continue
        keys = entry.text_key if owner in TEXT_FOOTERS and entry.text_key else entry.keys
        if keys and not any(Binding(keys, "").key == b.key for b in out if isinstance(b, Binding)):
            out.append(Binding(keys, f"app.{entry.action}", entry.label, show=False, id=entry.binding_id))
    return out


def board_only(table: tuple[Action, ...] = ACTIONS) -> frozenset[str]:
    """Action names of the sessions view's own keys: they act on that view only (not under a modal, help, the
    palette or another view)."""
    return frozenset(e.action_name for e in table if e.owner == "board")


def palette_entries(table: tuple[Action, ...] = ACTIONS, owner: Owner = "board") -> list[Action]:
    """The entries the command palette offers on one view (the sessions view, the notes view), in table order:
    the view's own, and on the sessions view the App's too (help, quit)."""
    owners = {owner, "app"} if owner == "board" else {owner}
    return [entry for entry in table if entry.palette and entry.owner in owners]


def help_sections(
    table: tuple[Action, ...] = ACTIONS, first: Where | None = None
) -> list[tuple[str, list[tuple[str, str]]]]:
    """Every entry for the help screen: (heading, [(keys, what it does)]) per place, in Where's order (first, the
    place in front, before the others)."""
    out = []
    for where in sorted(Where, key=lambda w: w is not first):
        rows = [(entry.key_text, entry.help) for entry in table if entry.where is where]
        if rows:
            out.append((where.value, rows))
    return out


def where_of(owner: str, table: tuple[Action, ...] = ACTIONS) -> Where | None:
    """The place an owner's keys are listed under in the help (None for an owner with no entry)."""
    return next((entry.where for entry in table if entry.owner == owner), None)


def footer_entries(context: str, table: tuple[Action, ...] = ACTIONS) -> list[Action]:
    """What a footer shows in a place: its entries in table order, then the pinned ones (help, quit; not help
    in the help itself)."""
    pinned = [e for e in table if e.pinned and not (context == "help" and e.action == "help")]
    return [e for e in table if context in e.footer] + pinned


def footer_key(entry: Action, context: str) -> str:
    """The key a footer shows for an entry: its text_key where a text box takes letters, else its first key."""
    if entry.text_key and context in TEXT_FOOTERS:
        return key_label(entry.text_key)
    if entry.key_display:
        return entry.key_display
    return key_label(entry.keys.split(",")[0])


def namespaced(entry: Action) -> str:
    """The action a click on its footer key runs, with the namespace of its owner ("" when a widget handles the key)."""
    if not entry.action:
        return "app.focus_next" if entry.keys == "tab" else ""
    if entry.owner == "app" or not entry.owner:
        return f"app.{entry.action}"
    return f"screen.{entry.action}"


def footer_keys(context: str, table: tuple[Action, ...] = ACTIONS) -> list[FooterKey]:
    """What a footer draws in a place (the KeyBar's entries): key as shown, click action, label, group."""
    return [
        FooterKey(footer_key(entry, context), namespaced(entry), entry.label, entry.group, entry.pinned)
        for entry in footer_entries(context, table)
    ]


@dataclass(frozen=True)
class KeyTable:
    """An action table as a footer's KeySource (the App's is the table with the user's keymap applied)."""

    entries: tuple[Action, ...] = ACTIONS

    def footer_keys(self, context: str) -> list[FooterKey]:
        """The place's footer entries, in order."""
        return footer_keys(context, self.entries)


def close_hint(owner: Owner, table: tuple[Action, ...] = ACTIONS) -> str:
    """How to close the owner's screen, from its `close` entry (`esc / q / ? close`)."""
    for entry in table:
        if entry.owner == owner and entry.action == "close":
            return f"{entry.key_text} {entry.label}"
    return ""


def rebound(keymap: Mapping[str, str], table: tuple[Action, ...] = ACTIONS) -> tuple[Action, ...]:
    """The table with a user keymap applied (binding id -> keys, as Textual's App.set_keymap takes it): each
    entry it names shows and is bound to its new keys, in the footers, the help and the palette alike."""
    return tuple(
        replace(entry, keys=keymap[entry.binding_id], key_display=None, text_key="")
        if entry.owner and entry.binding_id in keymap
        else entry
        for entry in table
    )


def read_keymap(value: object, table: tuple[Action, ...] = ACTIONS) -> tuple[dict[str, str], list[str]]:
    """The config's `[keymap]` table (binding id = "keys") as a keymap, and what in it cannot be used, in words."""
    if value is None:
        return {}, []
    if not isinstance(value, Mapping):
        return {}, ['keymap: expected a table of binding id = "keys"']
    known = {entry.binding_id for entry in table if entry.owner}
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for name, keys in value.items():
        if name not in known:
            problems.append(f"keymap: no key is bound as {name!r}")
        elif not isinstance(keys, str) or not keys.strip():
            problems.append(f'keymap: {name} takes keys as text, such as "x" or "ctrl+x,y"')
        else:
            keymap[name] = ",".join(key.strip() for key in keys.split(","))
    return keymap, problems
