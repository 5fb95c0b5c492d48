"""The notes view, driven like a person drives it: `n` from the session table, filters and counts, the
pane with the note's last change, the supersede chain, the jumps to and from sessions, live updates."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from textual.widgets import Static, Tree

from memboard.board.actions import ACTIONS, bindings
from memboard.board.browse import BrowseFilter
from memboard.board.notes.dialogs import ConflictScreen, NoteChainScreen, NoteEditScreen
from memboard.board.notes.screen import NotesScreen
from memboard.core.formats.clock import now
from memboard.core.ops.demo import build_demo, demo_ids
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.note_pane import NotePane
from memboard.widgets.note_table import NoteTable, layout_for, middle_cut
from memboard.widgets.notes_status import NotesStatus
from tests.support.faults import memboard_module
from tests.support.notes import (
    EMBEDDINGS,
    LOCKS,
    PROSE,
    STORAGE,
    board,
    notes_root,
    notes_screen,
    open_notes,
    select,
    settle_notes,
    shown_ids,
)


@pytest.fixture
def root_with_notes(tmp_path):
    """The demo root and its notes."""
    return notes_root(tmp_path / "memory")


def plain(widget: Static) -> str:
    """What a Static shows, as plain text."""
    return str(widget.render())


def status_text(screen: NotesScreen) -> str:
    """The notes view's two status lines."""
    return plain(screen.query_one(NotesStatus))


async def test_n_opens_the_notes_view_and_n_goes_back_to_the_session_table(root_with_notes):
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        assert app.screen is app.screen_stack[0]  # the session table stays the default view
        screen = await open_notes(pilot)
        ids = shown_ids(screen)
        assert ids == sorted(ids) and len(ids) == 13 and f"{PROSE}~1" in ids
        footer = plain(screen.query_one(KeyBar))
        for words in (
            "/ filter",
            "123 status",
            "t type",
            "e edit",
            "s supersede",
            "m mark",
            "g chain",
            "o session",
            "n sessions",
            "? help",
        ):
            assert words in footer, footer
        assert "archive" not in footer
        await pilot.click(KeyBar, offset=(footer.index("n sessions"), 0))  # a click on a key runs it, here
        await pilot.pause()
        assert app.screen is app.screen_stack[0] and app.focused is app.sessions.table
        board_footer = plain(app.query_one("#keys", KeyBar))
        assert "n notes" in board_footer
        await pilot.press("n")  # again: the view kept what it read, and its place
        await pilot.pause()
        assert notes_screen(app) is screen and shown_ids(screen) == ids


async def test_text_status_and_type_filters_with_counts_per_status_and_type(root_with_notes):
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_notes(pilot)
        counts = status_text(screen)
        assert "all 13" in counts and "active 10" in counts and "superseded 3" in counts
        assert "decision 4" in counts and "preference 2" in counts and "bugfix 2" in counts
        await pilot.press("slash", *"vault", "enter")
        await pilot.pause()
        assert shown_ids(screen) == ["ops/fact/obsidian-fcedd8b5", "project/vault/sync", "project/vault/sync.ops"]
        assert "showing 3" in status_text(screen) and "filter vault" in status_text(screen)
        await pilot.press("3")
        assert shown_ids(screen) == []
        why = "No note matches “vault” among the superseded notes: escape in the filter box (/) clears it"
        assert screen.query_one(NoteTable).empty_text.startswith(why)
        assert why in plain(screen.query_one("#note-meta", Static))  # the pane says it too
        await pilot.press("1", "escape")  # escape in the table leaves the filter as it is
        assert len(shown_ids(screen)) == 3
        await pilot.press("slash", "escape")  # escape in the box clears it
        assert len(shown_ids(screen)) == 13
        await pilot.press("3")
        assert shown_ids(screen) == [f"{PROSE}~1", EMBEDDINGS, "tool/bugfix/hook-timed-out-on-a-100k-row-index"]
        await pilot.press("1", "t")
        assert screen.type_filter == "preference" and shown_ids(screen) == [PROSE, f"{PROSE}~1"]
        await pilot.press("t", "t")
        assert screen.type_filter == "decision" and len(shown_ids(screen)) == 4
        await pilot.press("T")  # T goes back the same way
        assert screen.type_filter == "fact"
        await pilot.press("T", "T")  # before the first type: every type, then the last
        assert screen.type_filter == "all" and len(shown_ids(screen)) == 13
        await pilot.press("T")
        assert screen.type_filter == "bugfix" and len(shown_ids(screen)) == 2
        await pilot.press("t")
        assert screen.type_filter == "all"
        await pilot.press("t", "t", "t")
        assert screen.type_filter == "decision"
        await pilot.press("slash", *"ops")  # filters combine: decisions whose text says ops
        assert shown_ids(screen) == ["project/vault/sync.ops"]
        await pilot.press("enter", "3")
        assert shown_ids(screen) == []
        why = screen.query_one(NoteTable).empty_text
        assert why.startswith("No note matches “ops” among the superseded decision notes: escape"), why
        assert "1 shows every status" in why and "t / T the other types" in why


async def test_the_pane_shows_the_note_and_its_change_since_the_previous_revision(root_with_notes):
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_notes(pilot)
        screen = await select(pilot, STORAGE)
        pane = screen.query_one(NotePane)
        meta = plain(pane.query_one("#note-meta", Static))
        assert "Keep notes as Markdown under notes/" in meta and "decision · project" in meta
        assert demo_ids(now())["typednotes"] in meta
        assert "Changed since its previous revision" in plain(pane.query_one("#note-revision", Static))
        change = pane.query_one("#note-change", Static)
        assert change.display
        text = plain(change)
        assert "✓ every earlier statement kept" in text
        assert "## What" in text and "+- Revisions stay in local state." in text
        assert "## Learned" in text and "+Obsidian shows the metadata table as is." in text
        assert "Updated: 2026-05-20 09:30 → 2026-05-30 09:30" in text
        markdown = pane.query_one("#note-markdown")
        assert "## Why" in markdown.source and "Search and review need no database." in markdown.source
        screen = await select(pilot, "tool/gotcha/crlf-breaks-the-table-parser")  # saved once: nothing to diff
        assert "No earlier revision differs" in plain(pane.query_one("#note-revision", Static))
        assert not pane.query_one("#note-change", Static).display


async def test_a_note_whose_statements_were_dropped_says_which(root_with_notes):
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_notes(pilot)
        screen = await select(pilot, PROSE)
        text = plain(screen.query_one("#note-change", Static))
        assert "2 earlier statement(s) left out" in text and "✗ - Wrap Markdown prose at 100 columns." in text
        assert screen.query_one("#note-change", Static).has_class("-left-out")


def chain_labels(chain: NoteChainScreen) -> list[str]:
    """Every line of the chain's tree."""
    tree = chain.query_one(Tree)
    out = []

    def walk(node) -> None:
        out.append(str(node.label))
        for child in node.children:
            walk(child)

    walk(tree.root)
    return out


async def open_chain(pilot, note_id: str) -> NoteChainScreen:
    """Select a note and press g."""
    await select(pilot, note_id)
    await pilot.press("g")
    for _ in range(100):
        if isinstance(pilot.app.screen, NoteChainScreen):
            break
        await pilot.pause(0.01)
    await pilot.pause()
    chain = pilot.app.screen
    assert isinstance(chain, NoteChainScreen)
    return chain


async def test_g_walks_the_supersede_chain_both_ways_and_enter_jumps(root_with_notes):
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_notes(pilot)
        chain = await open_chain(pilot, f"{PROSE}~1")
        labels = chain_labels(chain)
        assert labels[0].startswith(f"{PROSE}~1  [superseded]")
        assert "Supersedes (older notes it replaced): 0" in labels[1]
        assert any(line.startswith(f"{PROSE}  [active]  preference · Wrap prose at 120 columns") for line in labels)
        tree = chain.query_one(Tree)
        newer = next(node for node in tree.root.children[1].children if node.data is not None)
        tree.select_node(newer)
        await pilot.pause()
        screen = await settle_notes(pilot)
        assert screen.table.current is not None and screen.table.current.id == PROSE


async def test_the_chain_marks_links_written_on_one_side_and_missing_notes(root_with_notes):
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_notes(pilot)
        chain = await open_chain(pilot, EMBEDDINGS)
        labels = chain_labels(chain)
        assert any(STORAGE in line and "↔? written on the note above only" in line for line in labels), labels
        await pilot.press("escape")
        chain = await open_chain(pilot, STORAGE)  # from the other side, the link is found all the same
        assert any(EMBEDDINGS in line and "↔? written on this note only" in line for line in chain_labels(chain))
        await pilot.press("escape")
        chain = await open_chain(pilot, LOCKS)
        labels = chain_labels(chain)
        assert any(line.startswith("ops/config/lock-files-in-the-vault  ⊘ missing") for line in labels), labels
        tree = chain.query_one(Tree)
        missing = next(node for node in tree.root.children[0].children if node.data is not None)
        tree.select_node(missing)  # a missing note: it says so and stays open
        await pilot.pause()
        assert app.screen is chain


async def test_o_goes_to_the_notes_session_and_capital_n_shows_a_sessions_notes(root_with_notes):
    ids = demo_ids(now())
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_notes(pilot)
        await select(pilot, STORAGE)
        await pilot.press("o")
        await pilot.pause()
        assert app.screen is app.screen_stack[0]
        assert app.sessions.table.current is not None and app.sessions.table.current.id == ids["typednotes"]
        screen = await open_notes(pilot, "N")
        assert screen.filter_text == ids["typednotes"] and shown_ids(screen) == [STORAGE]
        assert screen.query_one("#notes-filter-bar").display
        await select(pilot, STORAGE)
        await pilot.press("escape")  # in the table: nothing to leave; the view stays
        await pilot.press("slash", "escape", "n")
        await pilot.pause()
        app.sessions.select_session(ids["hook"])
        screen = await open_notes(pilot, "N")
        assert shown_ids(screen) == ["tool/pattern/hook-registration-stays-under-100-ms"]


async def test_o_on_a_note_without_a_session_on_the_board_stays_and_says_why(root_with_notes):
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_notes(pilot)
        await select(pilot, PROSE)  # names no session
        await pilot.press("o")
        await pilot.pause()
        assert app.screen is screen
        assert any("names no session" in str(n.message) for n in app._notifications)


async def test_board_keys_do_not_act_in_the_notes_view(root_with_notes):
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_notes(pilot)
        for key in ("a", "c", "r", "u", "d", "4", "space"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen, key
        assert not app.sessions.marks


async def test_the_palette_offers_the_notes_view_commands_in_it(root_with_notes):
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_notes(pilot)
        await pilot.press("ctrl+p", *"supersede")
        await pilot.pause(0.3)
        listing = app.screen.query_one("CommandList")
        shown = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert any(line.startswith("Supersede note  s") for line in shown), shown
        await pilot.press("escape", "ctrl+p", *"Show ")
        await pilot.pause(0.3)
        listing = app.screen.query_one("CommandList")
        shown = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        for name in ("preference", "fact", "decision", "gotcha", "episode", "pattern", "config", "bugfix"):
            assert any(line.startswith(f"Show {name} notes") for line in shown), (name, shown)
        assert any(line.startswith("Show every type of note") for line in shown), shown
        await pilot.press("escape", "ctrl+p", *"Show bugfix notes")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert screen.type_filter == "bugfix" and len(shown_ids(screen)) == 2
        await pilot.press("escape", "ctrl+p", *"archive")
        await pilot.pause(0.3)
        listing = app.screen.query_one("CommandList")
        shown = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert not any(line.startswith("Archive") for line in shown), shown


def save_note(root, *args: str) -> None:
    """`memboard note save ARGS` in another process, as an agent runs it."""
    cmd = [sys.executable, "-m", *memboard_module(dict(os.environ)), "note", "save", *args, "--root", str(root)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


async def wait_until(pilot, condition, seconds: float = 15.0) -> None:
    """Let the board run until condition() holds (a test failure after seconds)."""
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the board never showed it")


async def test_a_note_saved_by_another_process_appears_keeping_cursor_and_filters(root_with_notes):
    app = board(root_with_notes, watch=True)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_notes(pilot)
        await pilot.press("slash", *"vault", "enter", "2", "down")
        before = shown_ids(screen)
        assert screen.table.current is not None and screen.table.current.id == before[1]
        await asyncio.to_thread(
            save_note,
            root_with_notes,
            "--title",
            "Vault offline copies",
            "--type",
            "fact",
            "--scope",
            "ops",
            "--topic-key",
            "ops/vault/offline",
            "--what",
            "- Phones keep a copy.",
        )
        await wait_until(pilot, lambda: "ops/vault/offline" in shown_ids(screen))
        assert screen.table.current.id == before[1]  # the cursor stayed on its note
        assert screen.filter_text == "vault" and screen.status_filter == "active"
        assert "ops/vault/offline" in screen.table.fresh
        assert "all 14" in status_text(screen)
        (root_with_notes / "notes" / "ops" / "vault" / "offline.md").unlink()  # a note removed by hand goes too
        await wait_until(pilot, lambda: "ops/vault/offline" not in shown_ids(screen))
        assert screen.table.current.id == before[1]


async def test_the_pane_follows_its_note_when_another_process_changes_it(root_with_notes):
    app = board(root_with_notes, watch=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_notes(pilot)
        screen = await select(pilot, "tool/gotcha/crlf-breaks-the-table-parser")
        await asyncio.to_thread(
            save_note,
            root_with_notes,
            "--title",
            "CRLF breaks the table parser",
            "--type",
            "gotcha",
            "--scope",
            "tool",
            "--what",
            "- A row ending in CRLF kept the CR in its last cell.\n- Also in the header.",
        )
        await wait_until(pilot, lambda: screen.query_one("#note-change", Static).display)
        assert "+- Also in the header." in plain(screen.query_one("#note-change", Static))


def test_every_key_of_the_notes_view_comes_from_the_action_table():
    assert bindings("notes") == NotesScreen.BINDINGS and bindings("table") == NoteTable.BINDINGS
    assert bindings("filter") == BrowseFilter.BINDINGS and bindings("conflict") == ConflictScreen.BINDINGS
    assert bindings("chain") == NoteChainScreen.BINDINGS and bindings("update") == NoteEditScreen.BINDINGS
    for entry in ACTIONS:
        if entry.owner == "notes":
            assert hasattr(NotesScreen, f"action_{entry.action_name}"), entry
        if entry.owner == "conflict":
            assert hasattr(ConflictScreen, f"action_{entry.action_name}"), entry


async def test_at_80_columns_the_pane_folds_away_and_no_two_keys_read_alike(root_with_notes):
    app = board(root_with_notes)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_notes(pilot)
        await pilot.pause()
        assert not screen.query_one(NotePane).display  # below the session table's fold width
        table = screen.query_one(NoteTable)
        width = {c.key: w for c, w in layout_for(table.scrollable_content_region.width)}["id"]
        cells = [table.render_line(y).text[2 : 2 + width] for y in range(1, 1 + len(table.rows))]
        assert len(set(cells)) == len(cells), cells
        for row, cell in zip(table.rows, cells, strict=True):
            assert cell.rstrip() == row.id or ("…" in cell and cell.startswith(row.id[:4])), (row.id, cell)
        await pilot.press("enter")  # enter opens the pane full width
        await pilot.pause()
        assert screen.query_one(NotePane).display and not table.display
        await pilot.press("escape")


def test_a_key_too_long_is_cut_in_the_middle():
    assert middle_cut("global/preference/prose-style", 12) == "global…style"
    assert middle_cut("global/preference/prose-style~1", 12) == "global…yle~1"
    assert middle_cut("short", 8) == "short   "


async def test_a_root_without_notes_says_how_they_come(tmp_path):
    root = build_demo(tmp_path / "memory", now())
    app = board(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_notes(pilot)
        assert shown_ids(screen) == [] and "all 0" in status_text(screen)
        assert "No notes under notes/ yet" in plain(screen.query_one("#note-meta", Static))


async def test_notes_with_broken_metadata_are_shown_and_counted_never_hidden(root_with_notes, tmp_path):
    folder = root_with_notes / "notes" / "hand"
    folder.mkdir()
    (folder / "broken.md").write_bytes(
        b"# Broken\n\n## Metadata\n\n| Field | Value |\n|---|---|\n| Title | Broken \xff |\n"
        b"| Type | wizard |\n| Scope | tool |\n| Topic Key | hand/broken |\n\n## What\n\nx\n"
    )
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n", encoding="utf-8")
    (folder / "linked.md").symlink_to(outside)  # a symlink is no note (the store leaves it out too)
    (folder / "Not A Key.md").write_text("# no\n", encoding="utf-8")
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_notes(pilot)
        screen = await select(pilot, "hand/broken")
        assert "hand/linked" not in shown_ids(screen) and len(shown_ids(screen)) == 14
        assert "! 1 with metadata problems" in status_text(screen) and "other 1" in status_text(screen)
        meta = plain(screen.query_one("#note-meta", Static))
        assert "Broken \ufffd" in meta and "Type 'wizard' is not one of" in meta and "Status '(none)'" in meta
        await pilot.press("2")
        assert "hand/broken" not in shown_ids(screen)  # no status: shown under all only


async def test_clicking_a_column_header_sorts_by_it(root_with_notes):
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_notes(pilot)
        table = screen.table
        x = 2
        for column, width in layout_for(table.scrollable_content_region.width):
            if column.key == "updated":
                break
            x += width + 1
        await pilot.click(NoteTable, offset=(x + 1, 0))
        updated = [row.view.updated for row in table.rows]
        assert updated == sorted(updated, reverse=True)  # newest first
        await pilot.click(NoteTable, offset=(x + 1, 0))
        assert [row.view.updated for row in table.rows] == sorted(updated)


async def test_a_note_edited_in_place_by_hand_shows_too(root_with_notes):
    for folder in [root_with_notes / "notes", *(p for p in (root_with_notes / "notes").rglob("*") if p.is_dir())]:
        os.utime(folder, (1_700_000_000, 1_700_000_000))  # folders unchanged for long: only the sweep looks in them
    app = board(root_with_notes, watch=True)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_notes(pilot)
        path = root_with_notes / "notes" / "tool" / "gotcha" / "crlf-breaks-the-table-parser.md"
        text = path.read_text(encoding="utf-8").replace("CRLF breaks the table parser", "CRLF broke the parser")
        with open(path, "r+", encoding="utf-8") as fh:  # in place, as some editors save: its folder does not change
            fh.write(text)
            fh.truncate()
        await wait_until(
            pilot,
            lambda: (
                screen.model.by_id["tool/gotcha/crlf-breaks-the-table-parser"].view.title == "CRLF broke the parser"
            ),
        )


async def test_escape_sequences_in_a_note_never_reach_the_terminal(tmp_path):
    """A hand edit can leave an escape sequence in a note (clear the screen, set the window title); the view
    shows it as U+FFFD in the table, the pane, the chain and the editor."""
    root = notes_root(tmp_path / "memory")
    path = root / "notes" / "tool" / "gotcha" / "crlf-breaks-the-table-parser.md"
    text = path.read_text(encoding="utf-8").replace(
        "| Title | CRLF breaks the table parser |", "| Title | CRLF \x1b[2J\x1b[31mbreaks \u202eit |"
    )
    path.write_text(text.replace("- A row ending", "- \x1b]0;pwned\x07A row ending"), encoding="utf-8")
    app = board(root)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_notes(pilot)
        screen = await select(pilot, "tool/gotcha/crlf-breaks-the-table-parser")
        await pilot.press("g")
        await pilot.pause(0.2)
        await pilot.press("escape", "e")
        await pilot.pause(0.3)
        shown = [app.screen, screen]
        for each in shown:
            for widget in each.query("*"):
                rendered = str(widget.render()) if hasattr(widget, "render") else ""
                assert "\x1b" not in rendered and "\u202e" not in rendered, widget
        editor = app.screen
        assert isinstance(editor, NoteEditScreen)
        assert "\x1b" not in editor.query_one("#note-edit-text").text
        assert "CRLF \ufffd[2J\ufffd[31mbreaks \ufffdit" in plain(screen.query_one("#note-meta", Static))
        lines = [screen.table.render_line(y).text for y in range(1, 16)]
        assert not any("\x1b" in line for line in lines)


async def test_a_sync_tool_s_copy_of_a_note_is_not_shown_as_a_note(root_with_notes):
    """`<key>_conflict-….md` (ownCloud's naming, a note ID by form) naming the original's topic key is no note."""
    original = root_with_notes / "notes" / "project" / "vault" / "sync.md"
    original.with_name("sync_conflict-20260531-101500.md").write_bytes(original.read_bytes())
    app = board(root_with_notes)
    async with app.run_test(size=(160, 45)) as pilot:
        ids = shown_ids(await open_notes(pilot))
        assert "project/vault/sync" in ids and len(ids) == 13
        assert "project/vault/sync_conflict-20260531-101500" not in ids


async def test_a_count_line_cut_at_80_columns_ends_with_an_ellipsis(root_with_notes):
    # issue 27 §4 (text cut without `…`): at 80x24 the counts per type were cut mid-word (`… · config`, its count
    # gone) with nothing saying so
    app = board(root_with_notes)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_notes(pilot)
        status = view.query_one("#notes-status")
        await pilot.pause()
        types = status.render_line(1).text.rstrip()
        assert types.endswith("…"), types


async def test_the_session_table_s_status_line_cut_at_80_columns_ends_with_an_ellipsis(root_with_notes):
    # the demo's counts, its unparseable row and `│ showing 36` take more than 80 columns: `showing` was cut away
    app = board(root_with_notes)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_notes(pilot)  # (the board's rows are read by then)
        await pilot.press("n")
        await pilot.pause()
        line = app.sessions.query_one("#status").render_line(0).text.rstrip()
        assert line.endswith("…") and "unparseable" in line, line
