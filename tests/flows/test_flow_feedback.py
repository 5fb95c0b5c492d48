"""What the board says after a flow (a short toast, the whole result in the log) and the flows the
issue found wanting: update keeps Summary and Current Context aligned and keeps its draft, release
works in both directions."""

from __future__ import annotations

from datetime import datetime

from rich.cells import cell_len
from textual.widgets import Button, Input, Label, OptionList, TextArea

from memboard.board.screens import LogScreen, MessageScreen, PreviewScreen, QuestionScreen, SessionPicker, UpdateScreen
from memboard.core.formats.ids import ID_SHAPE_RE
from memboard.core.formats.snapshot import Snapshot
from tests.support.tree import tree

from .driving import make_app, mark, open_on, ready, wait_for_flow, wait_for_screen
from .sample import FOLLOWER, LONER, OVERDUE, SOURCE
from .test_flow_maintenance import row_of


def toasts(app) -> list[str]:
    """The messages of the toasts on screen now."""
    return [n.message for n in app._notifications]


async def test_a_toast_is_one_short_line_and_the_log_keeps_the_whole_result(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        mark(app, SOURCE)  # refused: still referenced
        mark(app, OVERDUE)
        await pilot.press("a")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        (toast,) = toasts(app)
        assert "\n" not in toast and len(toast) <= 100 and toast.endswith("(l: the whole result)")
        assert toast.startswith(f"archived {OVERDUE}; not archived:…")  # the Session ID it would cut is left out
        await open_on(pilot, LONER, "a", PreviewScreen)
        await pilot.press("escape")
        await wait_for_flow(pilot)
        assert toasts(app) == ["archive cancelled: nothing written"]  # the earlier toast is gone
        await pilot.press("l")
        log = await wait_for_screen(pilot, LogScreen)
        text = log.query_one("#log-body").text
        first, second = text.index("archive   archive cancelled"), text.index(f"archive   archived {OVERDUE}")
        assert first < second  # newest first
        assert f"archived {OVERDUE}; not archived: {SOURCE}" in text
        assert f"          {SOURCE}: {SOURCE} is still referenced by {FOLLOWER}" in text  # the details, in full
        assert f"select {SOURCE} and press r" in text and "memboard release" not in text  # in the board's keys
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LogScreen)


async def test_update_puts_a_new_summary_into_current_context_also_when_the_snapshot_is_edited(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        editor = await open_on(pilot, LONER, "u", UpdateScreen)
        editor.query_one("#update-summary", Input).value = "Screenshots regenerated for round two."
        area = editor.query_one(TextArea)  # and an item added elsewhere in the snapshot
        area.text = area.text.replace("- app/board/demo.py", "- app/board/demo.py\n- screenshots/make.py")
        await pilot.press("ctrl+s")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert row_of(sample_root, LONER)[3] == "Screenshots regenerated for round two."
    context = [
        item.text for item in Snapshot((sample_root / "sessions" / f"{LONER}.md").read_bytes()).items("Current Context")
    ]
    assert any("Screenshots regenerated for round two." in text for text in context)
    assert any("Demo root generator." in text for text in context)  # nothing lost
    files = [
        item.text
        for item in Snapshot((sample_root / "sessions" / f"{LONER}.md").read_bytes()).items("Files / Artifacts")
    ]
    assert "app/board/demo.py" in " ".join(files) and "screenshots/make.py" in " ".join(files)


async def test_the_update_draft_survives_a_cancelled_preview_and_can_be_kept_for_later(sample_root):
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        editor = await open_on(pilot, LONER, "u", UpdateScreen)
        editor.query_one("#update-topic", Input).value = "Draft topic"
        await pilot.press("ctrl+s")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("escape")  # cancel the preview: back to the editor, the draft as it was
        again = await wait_for_screen(pilot, UpdateScreen, not_this=editor)
        assert again.query_one("#update-topic", Input).value == "Draft topic"
        await pilot.press("escape")
        question = await wait_for_screen(pilot, QuestionScreen)
        assert "Discard" in question.text and "keep it for later" in question.text
        await pilot.press("k")
        await wait_for_flow(pilot)
        assert app.run_log[-1].outcome == "update closed: draft kept (u on the session opens it again)"
        await pilot.press("u")
        kept = await wait_for_screen(pilot, UpdateScreen, not_this=again)
        assert kept.query_one("#update-topic", Input).value == "Draft topic"
        assert "(your draft: not written yet)" in str(kept.query_one("#update-title").render())
        await pilot.press("escape")
        await wait_for_screen(pilot, QuestionScreen)
        await pilot.press("y")  # discard it now
        await wait_for_flow(pilot)
        await pilot.press("u")
        fresh = await wait_for_screen(pilot, UpdateScreen, not_this=kept)
        assert fresh.query_one("#update-topic", Input).value == "Demo root"
        await pilot.press("escape")
        await wait_for_flow(pilot)
    assert tree(sample_root, skip=(".memboard",)) == before


async def test_the_close_the_editor_question_shows_each_answer_whole_at_every_width(sample_root):
    for size in ((80, 24), (120, 40), (200, 60)):
        app = make_app(sample_root)
        async with app.run_test(size=size) as pilot:
            await ready(pilot)
            editor = await open_on(pilot, LONER, "u", UpdateScreen)
            editor.query_one("#update-topic", Input).value = "Draft topic"
            await pilot.press("escape")
            question = await wait_for_screen(pilot, QuestionScreen)
            await pilot.pause()
            dialog = question.query_one("#question-dialog").content_region
            buttons = list(question.query(Button))
            assert [str(b.label) for b in buttons] == [
                "Discard the draft (y)",
                "Close, keep the draft (k)",
                "Back to editing (esc / n)",
            ]
            for button in buttons:
                label = str(button.label)
                region = button.content_region
                assert region.width >= cell_len(label), (size, label, region)
                assert dialog.contains_region(button.region), (size, label, button.region, dialog)
            await pilot.press("escape")


async def test_release_on_a_follower_releases_what_it_continues_from(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        picker = await open_on(pilot, FOLLOWER, "r", SessionPicker)
        listing = picker.query_one(OptionList)
        labels = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert labels == [f"{SOURCE}  {FOLLOWER} continues from it"]
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, PreviewScreen)
        assert screen.view.headline == [
            f"{FOLLOWER} will stop continuing from {SOURCE}: it leaves {SOURCE}'s "
            f"Referenced By, and {SOURCE} leaves its Continues From."
        ]
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert row_of(sample_root, SOURCE)[6] == "-"
    assert Snapshot((sample_root / "sessions" / f"{FOLLOWER}.md").read_bytes()).continues_from() == []


async def test_an_update_refused_at_apply_goes_back_to_the_editor_with_the_draft(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        editor = await open_on(pilot, LONER, "u", UpdateScreen)
        editor.query_one("#update-topic", Input).value = "Draft topic"
        await pilot.press("ctrl+s")
        await wait_for_screen(pilot, PreviewScreen)
        index = sample_root / "index.md"  # the row goes while the preview is open
        index.write_text(
            "".join(line for line in index.read_text(encoding="utf-8").splitlines(True) if LONER not in line),
            encoding="utf-8",
        )
        during = tree(sample_root, skip=(".memboard",))
        await pilot.press("enter")
        message = await wait_for_screen(pilot, MessageScreen)
        assert f"unknown session {LONER}" in message.message
        await pilot.press("enter")
        again = await wait_for_screen(pilot, UpdateScreen, not_this=editor)
        assert again.query_one("#update-topic", Input).value == "Draft topic"  # not lost
        await pilot.press("escape")
        await wait_for_screen(pilot, QuestionScreen)
        await pilot.press("y")
        await wait_for_flow(pilot)
    assert tree(sample_root, skip=(".memboard",)) == during


async def test_the_result_log_counts_what_was_written_to_the_second_and_each_line_once(sample_root, monkeypatch):
    monkeypatch.delenv("MEMBOARD_NOW")  # the log's own clock, to the second
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        for _ in range(2):  # two cancellations change nothing
            await open_on(pilot, LONER, "a", PreviewScreen)
            await pilot.press("escape")
            await wait_for_flow(pilot)
        await open_on(pilot, FOLLOWER, "r", SessionPicker)  # a release: its success line once
        await pilot.press("enter")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        mark(app, LONER)
        mark(app, OVERDUE)
        await pilot.press("a")
        preview = await wait_for_screen(pilot, PreviewScreen)
        assert preview.view.counts[0] == "5 file changes: 2 created, 1 changed, 2 moved"  # index.md once
        before = datetime.now().replace(microsecond=0)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        after = datetime.now()
        await pilot.press("l")
        log = await wait_for_screen(pilot, LogScreen)
        title = str(log.query_one("#log-title", Label).render())
        assert title == "Result log: 2 changes applied in this run; 2 flows ended without writing"
        lines = log.query_one("#log-body").text.splitlines()
        stamp = datetime.combine(before.date(), datetime.strptime(lines[0][:8], "%H:%M:%S").time())
        assert before <= stamp <= after and lines[0][8:10] == "  "
        said = lines[0][10:].split(None, 1)[1]
        assert said.startswith("archived ") and {OVERDUE, LONER} == set(said.removeprefix("archived ").split(", "))
        assert not [line for line in lines if line.startswith("   ")]  # nothing said twice, nothing more to say


async def test_a_toast_never_cuts_a_session_id(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        mark(app, SOURCE)  # refused: still referenced; the outcome names both, longer than a toast
        mark(app, OVERDUE)
        await pilot.press("a")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        (toast,) = toasts(app)
        assert len(app.run_log[-1].outcome) > 72 and toast.endswith("…  (l: the whole result)")
        assert ID_SHAPE_RE.findall(toast) and set(ID_SHAPE_RE.findall(toast)) <= {SOURCE, OVERDUE}, toast


async def test_a_line_of_the_result_log_opens_what_its_change_wrote_or_the_session_it_is_about(sample_root):
    # issue 27 §4: the result log's lines could not be opened
    from memboard.board.screens.applied import AppliedScreen

    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_on(pilot, LONER, "a", PreviewScreen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        await open_on(pilot, OVERDUE, "a", PreviewScreen)
        await pilot.press("escape")  # cancelled: nothing written, about OVERDUE
        await wait_for_flow(pilot)
        app.sessions.select_session(SOURCE)
        await pilot.press("l")
        log = await wait_for_screen(pilot, LogScreen)
        await pilot.press("down")  # the older line: the archive applied
        await pilot.press("enter")
        opened = await wait_for_screen(pilot, AppliedScreen)
        for _ in range(100):
            if opened.view is not None:
                break
            await pilot.pause(0.05)
        words = opened.query_one("#preview-body").text
        assert f"sessions/{LONER}.md → archive/{LONER}/session.md" in words, words
        await pilot.press("d")
        assert f"rename to archive/{LONER}/session.md" in opened.query_one("#preview-body").text
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is log
        await pilot.press("up", "enter")  # the cancelled archive: the session it was about
        await pilot.pause()
        await pilot.pause()
        assert not isinstance(app.screen, LogScreen) and app.sessions.current_session_id == OVERDUE
