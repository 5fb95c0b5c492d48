"""Keys on the board through Pilot: each screen's footer, ctrl+c, the theme saved from the palette."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import Button, Input, Static

from memboard.board.app import MemboardApp
from memboard.board.screens import PreviewScreen, QuestionScreen, StaleDaysScreen, UpdateScreen
from memboard.board.screens.help import HelpScreen
from memboard.widgets.key_bar import KeyBar
from tests.flows.driving import make_app, ready, wait_for_flow, wait_for_screen
from tests.flows.sample import LONER, make_root


def footer(app) -> str:
    """What the footer in front says (the screen's own KeyBar)."""
    return app.screen.query_one(KeyBar).text


async def test_the_footer_shows_the_keys_of_what_is_in_front_with_help_and_quit_at_any_width(root):
    make_root(root)
    app = make_app(root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        board = footer(app)
        assert board.startswith(" / filter 1234 status") and board.rstrip().endswith("? help q quit")
        assert len(board) <= 100
        await pilot.press("enter")  # the full-width pane
        await pilot.pause()
        assert footer(app).split()[:4] == ["esc", "back", "[]", "revision"]
        await pilot.press("escape", "slash")  # the filter box: letters go to the box
        await pilot.pause()
        assert footer(app).split()[:4] == ["⏎", "keep", "esc", "clear"]
        assert footer(app).rstrip().endswith("f1 help ctrl+q quit")
        await pilot.press("escape")
        app.sessions.select_session(LONER)
        await pilot.press("a")
        await wait_for_screen(pilot, PreviewScreen)
        assert footer(app).split()[:6] == ["⏎/y", "apply", "esc/n", "cancel", "d", "exact"]
        assert footer(app).rstrip().endswith("? help q quit")
        await pilot.press("escape")
        await wait_for_flow(pilot)
        assert footer(app) == board


async def test_ctrl_c_with_a_flow_open_asks_first_and_no_keeps_it(root):
    make_root(root)
    app = make_app(root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("o")
        await wait_for_screen(pilot, StaleDaysScreen)
        await pilot.press("escape")  # ctrl+c in the stale-days box would copy; leave the box first
        await wait_for_flow(pilot)
        app.sessions.select_session(LONER)
        await pilot.press("a")
        preview = await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("ctrl+c")
        question = await wait_for_screen(pilot, QuestionScreen)
        assert "A change is open" in question.text
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is preview and not app._exit
        await pilot.press("question_mark")  # help and quit work over a modal too
        await wait_for_screen(pilot, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is preview
        await pilot.press("q")
        await wait_for_screen(pilot, QuestionScreen)
        await pilot.press("y")
        await pilot.pause()
        assert app._exit


async def test_ctrl_c_copies_in_a_text_box_and_quits_on_the_table(root):
    make_root(root)
    app = make_app(root)
    copied = []
    app.copy_to_clipboard = copied.append
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.sessions.select_session(LONER)
        await pilot.press("u")
        editor = await wait_for_screen(pilot, UpdateScreen)
        topic = editor.query_one("#update-topic", Input)
        topic.select_all()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert copied == ["Demo root"] and app.screen is editor and not app._exit
        await pilot.press("escape")
        await wait_for_flow(pilot)
        await pilot.press("slash", *"parser")
        app.query_one("#filter", Input).select_all()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert copied[-1] == "parser" and not app._exit
        await pilot.press("escape")  # back on the table
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app._exit


async def test_a_kept_draft_makes_quit_ask_first(root):
    make_root(root)
    app = make_app(root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.sessions.select_session(LONER)
        await pilot.press("u")
        editor = await wait_for_screen(pilot, UpdateScreen)
        editor.query_one("#update-topic", Input).value = "Draft topic"
        await pilot.press("escape")
        await wait_for_screen(pilot, QuestionScreen)
        await pilot.press("k")  # keep the draft for later
        await wait_for_flow(pilot)
        await pilot.press("q")
        question = await wait_for_screen(pilot, QuestionScreen)
        assert f"update draft of {LONER} is kept only while the board runs" in question.text  # one: not "are"
        await pilot.press("escape")
        await pilot.pause()
        assert not app._exit


async def test_a_theme_chosen_in_the_palette_is_saved_in_the_config_keeping_its_comments(root, tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('# my settings\nagent_name = "codex"  # who I am\n', encoding="utf-8")
    monkeypatch.setenv("MEMBOARD_CONFIG", str(config))
    make_root(root)
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.action_change_theme()
        palette = await wait_for_screen(pilot, CommandPalette)
        await pilot.press(*"nord")
        for _ in range(100):
            if palette.query("CommandList Option"):
                break
            await pilot.pause(0.02)
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "nord"
    text = config.read_text(encoding="utf-8")
    assert text.startswith('# my settings\nagent_name = "codex"  # who I am\n') and 'theme = "nord"' in text
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert app.theme == "nord"


async def test_no_key_quits_while_a_change_is_being_written(root):
    from memboard.board.screens import ProgressScreen, Tally

    make_root(root)
    app = make_app(root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        tally = Tally(300, 120)
        app.push_screen(ProgressScreen("Doctor", tally))
        screen = await wait_for_screen(pilot, ProgressScreen)
        assert "writing 120 of 300 file changes" in str(screen.query_one("#progress-line").render())
        for key in ("q", "ctrl+c", "ctrl+q"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen and not app._exit, key
        assert [n.message for n in app._notifications][-1] == "A change is being written: quit once it is done."
        await pilot.press("question_mark")  # the footer's ? help works here too
        await wait_for_screen(pilot, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        tally.done = 300
        await pilot.pause(0.3)
        assert "verifying" in str(screen.query_one("#progress-line").render())
        tally.ended = True
        await pilot.pause(0.3)
        assert not isinstance(app.screen, ProgressScreen)


async def test_quit_asks_first_while_a_note_is_being_edited(tmp_path):
    from memboard.board.notes.dialogs import NoteEditScreen
    from tests.support.notes import STORAGE, board, notes_root, open_notes, select

    app = board(notes_root(tmp_path / "memory"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        await select(pilot, STORAGE)
        await pilot.press("e")
        editor = await wait_for_screen(pilot, NoteEditScreen)
        await pilot.press("ctrl+q")
        question = await wait_for_screen(pilot, QuestionScreen)
        assert "A change is open" in question.text
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is editor and not app._exit


async def test_while_the_palette_is_open_the_footer_shows_its_keys_then_the_table_s_again(tmp_path):
    app = make_app(make_root(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        table_keys = app.sessions.query_one(KeyBar).text
        await pilot.press("ctrl+p")
        await wait_for_screen(pilot, CommandPalette)
        await pilot.pause()
        shown = app.sessions.query_one(KeyBar).text  # the bar drawn under the palette
        assert "↑↓ move" in shown and "enter run" in shown.replace("⏎", "enter") and "esc close" in shown
        assert "c continue" not in shown
        # its box takes letters (? and q type into it): the footer says the keys that work there, and they do
        assert "f1 help" in shown and "ctrl+q quit" in shown and "? help" not in shown, shown
        palette = app.screen
        await pilot.press("f1")
        help_screen = await wait_for_screen(pilot, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is palette and help_screen not in app.screen_stack
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        assert app.sessions.query_one(KeyBar).text == table_keys


async def test_a_plan_with_nothing_to_do_offers_no_apply_and_closing_it_is_no_cancellation(root, write_index, make_row):
    # issue 27 §4: doctor on a sound root previewed an empty plan with `⏎/y apply` and `esc/n cancel` in its
    # footer and a Cancel button, and escape logged "doctor cancelled" though there was nothing to cancel
    write_index([make_row("2026-05-30-1000-a", "idle")])
    app = make_app(root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("d")
        preview = await wait_for_screen(pilot, PreviewScreen)
        keys = footer(app)
        assert keys.startswith(" ⏎/esc close ") and "apply" not in keys and "cancel" not in keys, keys
        assert "leave out" not in keys  # x would list no kind: doctor repairs nothing here
        assert preview.query_one("#preview-body").border_title == "nothing will change"
        assert [str(button.label) for button in preview.query(Button)] == ["Close (enter / esc)"]
        assert "nothing to repair" in str(preview.query_one("#preview-headline", Static).render())
        await pilot.press("escape")
        await wait_for_flow(pilot)
        assert app.run_log[-1].outcome == "doctor: nothing to change" and not app.run_log[-1].applied


async def test_after_the_first_y_of_a_large_plan_the_footer_says_y_again_not_apply(root):
    from tests.flows.test_previews import add_sessions

    make_root(root)
    ids = add_sessions(root, 70)
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        for sid in ids:
            app.sessions.select_session(sid)
            app.sessions.action_mark()
        await pilot.press("a")
        preview = await wait_for_screen(pilot, PreviewScreen)
        assert footer(app).startswith(" ⏎/y apply ")
        await pilot.press("y")
        await pilot.pause()
        assert "press y again" in str(preview.query_one("#preview-again", Static).render())
        keys = footer(app)
        assert keys.startswith(" y apply (again) esc/n cancel ") and "⏎/y" not in keys, keys
