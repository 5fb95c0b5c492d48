"""The one table of actions: bindings, the footer, the help screen and the palette all come from it."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App

from memboard.board.actions import (
    ACTIONS,
    Action,
    KeyTable,
    Where,
    bindings,
    board_only,
    help_sections,
    palette_entries,
)
from memboard.board.app import MemboardApp
from memboard.board.browse import BrowseFilter
from memboard.board.commands import commands
from memboard.board.hierarchy import HierarchyScreen
from memboard.board.notes.dialogs import ConflictScreen, NoteChainScreen, NoteEditScreen
from memboard.board.screens import (
    ChainScreen,
    LogScreen,
    MessageScreen,
    PlanningScreen,
    PreviewScreen,
    ProgressScreen,
    QuestionScreen,
    ResolveScreen,
    SessionPicker,
    StaleDaysScreen,
    UpdateScreen,
)
from memboard.board.screens.archive import ArchiveScreen
from memboard.board.screens.help import HelpScreen, key_table
from memboard.board.screens.search import SearchScreen
from memboard.board.screens.session import SessionScreen
from memboard.board.sessions import SessionsScreen
from memboard.board.spaceflows import DraftScreen, MigrationScreen, ResearchForm, TextForm
from memboard.board.spaces import SpacesScreen
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.session_table import SessionTable


def changed(table: tuple[Action, ...], action: str, **fields) -> tuple[Action, ...]:
    """The table with one entry (found by its action) changed."""
    return tuple(replace(e, **fields) if e.action == action and e.owner in ("app", "board") else e for e in table)


class StubApp:
    """What the palette provider reads from the board, without a board."""

    marks: set[str] = set()

    def run_action(self, action: str) -> None:
        """Unused: the test only lists commands."""

    def sort_by(self, column: str, reverse: bool = False) -> None:
        """Unused: the test only lists commands."""

    def clear_marks(self) -> None:
        """Unused: the test only lists commands."""


async def footer_text(context: str = "board", table: tuple[Action, ...] = ACTIONS, width: int = 200) -> str:
    """What a KeyBar of this place draws at width."""

    class Bare(App):
        def compose(self):
            yield KeyBar(context, keys=KeyTable(table))

    app = Bare()
    async with app.run_test(size=(width, 5)) as pilot:
        await pilot.pause()
        return app.query_one(KeyBar).text


async def test_changing_one_entry_changes_bindings_footer_help_and_palette():
    table = changed(ACTIONS, "archive", keys="x", label="stash", palette="Stash sessions", help="stash them away")
    keys = bindings("board", table)
    assert [(b.key, b.description) for b in keys if b.action == "archive"] == [("x", "stash")]
    assert not any(b.key == "a" for b in keys)
    footer = await footer_text(table=table)
    assert " x stash " in footer and " a archive " not in footer
    help_lines = key_table(table).plain.splitlines()
    assert any(line.split() == ["x", "stash", "them", "away"] for line in help_lines)
    assert not any("archive the selected" in line for line in help_lines)
    listed = {c.name: c.key for c in commands(StubApp(), table)}
    assert listed["Stash sessions"] == "x" and "Archive" not in listed


async def test_the_board_footer_draws_the_tables_footer_entries_in_order():
    footer = await footer_text()
    assert footer.split() == [
        "/",
        "filter",
        "1234",
        "status",
        "n",
        "notes",
        "p",
        "spaces",
        "h",
        "hierarchy",
        "⏎",
        "open",
        "␣",
        "mark",
        "c",
        "continue",
        "r",
        "release",
        "a",
        "archive",
        "o",
        "organize",
        "u",
        "update",
        "g",
        "chain",
        "d",
        "doctor",
        "f",
        "find",
        "A",
        "archived",
        "l",
        "log",
        "s",
        "sort",
        "?",
        "help",
        "q",
        "quit",
    ]


async def test_help_and_quit_stay_in_the_footer_at_any_width_and_the_rest_gives_way():
    for width in (100, 80, 40):
        footer = await footer_text(width=width)
        assert footer.rstrip().endswith("? help q quit"), (width, footer)
        assert len(footer) <= width
    narrow = await footer_text(width=80)
    assert "…" in narrow and " / filter" in narrow and " d doctor" not in narrow


async def test_each_place_has_its_own_footer_and_text_boxes_show_f1_and_ctrl_q():
    preview = (await footer_text("preview")).split()
    assert preview[:6] == ["⏎/y", "apply", "esc/n", "cancel", "d", "exact"] and preview[-4:] == [
        "?",
        "help",
        "q",
        "quit",
    ]
    assert (await footer_text("pane")).split() == ["esc", "back", "[]", "revision", "?", "help", "q", "quit"]
    editor = (await footer_text("update")).split()
    assert editor[:2] == ["ctrl+s", "preview"] and editor[-4:] == ["f1", "help", "ctrl+q", "quit"]
    assert (await footer_text("filter")).split()[-4:] == ["f1", "help", "ctrl+q", "quit"]


def test_every_binding_of_the_board_comes_from_the_table():
    assert bindings("app") == MemboardApp.BINDINGS
    assert bindings("board") == SessionsScreen.BINDINGS
    assert bindings("filter") == BrowseFilter.BINDINGS
    assert bindings("table") == SessionTable.BINDINGS
    for screen, owner in (
        (PreviewScreen, "preview"),
        (MessageScreen, "message"),
        (SessionPicker, "picker"),
        (StaleDaysScreen, "stale"),
        (UpdateScreen, "update"),
        (ChainScreen, "chain"),
        (HelpScreen, "help"),
        (LogScreen, "log"),
        (QuestionScreen, "confirm"),
        (PlanningScreen, "planning"),
        (ProgressScreen, "progress"),
        (SearchScreen, "search"),
        (ArchiveScreen, "archived"),
        (SessionScreen, "session"),
        (NoteEditScreen, "update"),
        (ConflictScreen, "conflict"),
        (ResolveScreen, "resolve"),
        (NoteChainScreen, "chain"),
        (SpacesScreen, "spaces"),
        (HierarchyScreen, "hierarchy"),
        (DraftScreen, "draft"),
        (ResearchForm, "update"),
        (TextForm, "update"),
        (MigrationScreen, "migration"),
    ):
        assert bindings(owner) == screen.BINDINGS, screen
    # every bound action exists on the class that binds it
    for entry in ACTIONS:
        if entry.owner == "app":
            assert hasattr(MemboardApp, f"action_{entry.action_name}"), entry
        if entry.owner == "board":
            assert hasattr(SessionsScreen, f"action_{entry.action_name}"), entry
    assert board_only() == {
        "filter",
        "status",
        "notes",
        "session_notes",
        "open",
        "mark",
        "continue_session",
        "release",
        "archive",
        "organize",
        "update",
        "chain",
        "doctor",
        "resolve",
        "search",
        "archived",
        "log",
        "sort",
        "reverse_sort",
        "revision",
        "leave_pane",
        "spaces",
        "hierarchy",
        "copy_id",
        "copy_phrase",
    }


def test_help_lists_every_entry_with_navigation_mouse_ctrl_s_and_a_close_hint():
    text = key_table().plain
    for entry in ACTIONS:
        assert f"{entry.key_text}" in text and entry.help in text, entry
    headings = [heading for heading, _ in help_sections()]
    assert headings == [where.value for where in Where]
    assert "ctrl+s" in text and "↑ / k" in text and "click a column header" in text and "ctrl+p" in text
    assert "? / f1" in text and "ctrl+c" in text and "wheel" in text
    assert Where.SEARCH.value in text and Where.ARCHIVE.value in text and Where.SESSION.value in text


def test_the_palette_offers_each_board_action_with_its_key():
    listed = {c.name: (c.key, c.help) for c in commands(StubApp())}
    for entry in palette_entries():
        assert listed[entry.palette][0] == entry.key_text
    assert listed["Archive"][0] == "a" and listed["Filter by text"][0] == "/"
    assert listed["Search everything"][0] == "f" and listed["Browse the archive"][0] == "A"
    assert listed["Sort by Topic"][0] == ""  # no key sorts by one column


async def test_help_screen_and_palette_on_the_running_board(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        assert screen.query_one("#help-keys").render().plain == key_table().plain
        assert screen.query_one("#help-box").border_subtitle == "esc / ? close"
        await pilot.press("escape", "ctrl+p", *"archive")
        await pilot.pause(0.3)
        shown = [
            str(app.screen.query_one("CommandList").get_option_at_index(i).prompt)
            for i in range(app.screen.query_one("CommandList").option_count)
        ]
        assert any(line.startswith("Archive  a") for line in shown), shown


async def test_a_keymap_in_the_config_rebinds_a_key_in_the_footer_help_palette_and_on_the_board(demo_root):
    import os
    from pathlib import Path

    Path(os.environ["MEMBOARD_CONFIG"]).write_text(
        '[keymap]\n"board.archive" = "x"\n"app.help" = "H"\n"board.nothing" = "z"\n', encoding="utf-8"
    )
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=(200, 40)) as pilot:
        await pilot.pause()
        footer = app.sessions.query_one(KeyBar).text
        assert " x archive " in footer and " a archive " not in footer and " H help " in footer
        assert any("no key is bound as 'board.nothing'" in n.message for n in app._notifications)
        await pilot.press("H")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_lines = app.screen.query_one("#help-keys").render().plain.splitlines()
        assert any(line.split()[:3] == ["x", "archive", "the"] for line in help_lines), help_lines
        await pilot.press("escape", "ctrl+p", *"archive")
        await pilot.pause(0.3)
        palette = app.screen.query_one("CommandList")
        shown = [str(palette.get_option_at_index(i).prompt) for i in range(palette.option_count)]
        assert any(line.startswith("Archive  x") for line in shown), shown
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("a")  # the old key does nothing now
        await pilot.pause(0.3)
        assert app.screen is app.sessions and app._flows is None
        await pilot.press("x")  # the new key starts the archive flow
        await pilot.pause(0.3)
        assert app._flows is not None and app.flows.worker is not None and app.flows.worker.name == "archive"


def test_every_binding_has_its_own_id_for_a_keymap_to_name():
    ids = [entry.binding_id for entry in ACTIONS if entry.owner]
    assert len(ids) == len(set(ids))
    assert {"board.archive", "board.status.idle", "app.help", "app.quit", "table.cursor_up", "notes.edit"} <= set(ids)
    assert all(b.id for owner in ("app", "board", "notes", "preview") for b in bindings(owner) if hasattr(b, "id"))
