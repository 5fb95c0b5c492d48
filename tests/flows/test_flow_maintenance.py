"""Update, organize and doctor from the board."""

from __future__ import annotations

from textual.widgets import Input, TextArea

from memboard.board.screens import MessageScreen, PreviewScreen, QuestionScreen, StaleDaysScreen, UpdateScreen
from memboard.core.formats.clock import now
from memboard.core.formats.snapshot import Snapshot
from memboard.core.ops.demo import build_demo
from tests.support.tree import tree

from .driving import (
    cancel_through,
    make_app,
    open_on,
    preview_diff,
    preview_words,
    ready,
    wait_for_flow,
    wait_for_screen,
)
from .sample import FOLLOWER, LONER, OVERDUE, PLACEHOLDER, SOURCE


def row_of(root, sid: str) -> list[str]:
    """The cells of sid's row."""
    for line in (root / "index.md").read_text(encoding="utf-8").splitlines():
        if line.startswith(f"| {sid} |"):
            return [c.strip() for c in line.strip().strip("|").split("|")]
    raise AssertionError(f"no row {sid}")


async def test_update_edits_fields_and_merges_the_snapshot(sample_root):
    old = (sample_root / "sessions" / f"{LONER}.md").read_text(encoding="utf-8")
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        editor = await open_on(pilot, LONER, "u", UpdateScreen)
        editor.query_one("#update-topic", Input).value = "Demo root v2"
        area = editor.query_one(TextArea)
        assert area.text == old
        area.text = old.replace("- app/board/demo.py", "- app/board/demo.py\n- screenshots/make.py")
        await pilot.press("ctrl+s")
        screen = await wait_for_screen(pilot, PreviewScreen)
        diff = preview_diff(screen)
        assert "+- screenshots/make.py" in diff and "+| Topic | Demo root v2 |" in diff
        await pilot.press("enter")
        await wait_for_flow(pilot)
    cells = row_of(sample_root, LONER)
    assert cells[2] == "Demo root v2" and cells[5] == "active" and cells[8] == "2026-06-01 09:30"
    snap = Snapshot((sample_root / "sessions" / f"{LONER}.md").read_bytes())
    texts = [it.text for it in snap.items("Files / Artifacts")]
    assert "app/board/demo.py" in " ".join(texts) and "screenshots/make.py" in " ".join(texts)


async def test_update_of_a_snapshot_without_sections_goes_back_to_the_editor(sample_root):
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        editor = await open_on(pilot, LONER, "u", UpdateScreen)
        editor.query_one(TextArea).text = "just a line, no sections"
        await pilot.press("ctrl+s")
        message = await wait_for_screen(pilot, MessageScreen)
        assert "no '## ' sections" in message.message
        await pilot.press("enter")
        again = await wait_for_screen(pilot, UpdateScreen)
        assert again.query_one(TextArea).text == "just a line, no sections"
        await pilot.press("escape")
        question = await wait_for_screen(pilot, QuestionScreen)
        assert "draft" in question.text
        await pilot.press("y")
        await wait_for_flow(pilot)
    assert tree(sample_root, skip=(".memboard",)) == before


async def test_update_stale_preview_is_shown_again(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_on(pilot, LONER, "u", UpdateScreen)
        await pilot.press("ctrl+s")
        first = await wait_for_screen(pilot, PreviewScreen)
        snap = sample_root / "sessions" / f"{LONER}.md"
        snap.write_text(
            snap.read_text(encoding="utf-8").replace("- app/board/demo.py", "- app/board/demo.py\n- added.md"),
            encoding="utf-8",
        )
        during = tree(sample_root, skip=(".memboard",))
        await pilot.press("enter")
        await wait_for_screen(pilot, PreviewScreen, not_this=first)
        assert app.screen is not first and app.screen.notes
        assert tree(sample_root, skip=(".memboard",)) == during
        await pilot.press("escape")
        await wait_for_screen(pilot, UpdateScreen)  # a cancelled preview goes back to the editor
        await pilot.press("escape")  # nothing edited: it closes without asking
        await wait_for_flow(pilot)
    assert tree(sample_root, skip=(".memboard",)) == during


async def test_organize_previews_the_whole_pass_and_applies_it(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("o")
        days = await wait_for_screen(pilot, StaleDaysScreen)
        assert days.query_one(Input).value == "14"
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, PreviewScreen)
        assert screen.view.headline == [
            "Will delete 1 idle row and mark 1 active row stale (not updated for more than 14 days).",
            "Leaves 2 active, 0 already stale, 1 protected, 0 blocked, 0 skipped.",
        ]
        words = preview_words(screen)
        assert (
            f"{OVERDUE}  (stale · Hook latency)\n      Status  active → stale\n"
            "      why: not updated for more than 14 days" in words
        )
        assert f"{PLACEHOLDER}  will be deleted  (idle · 未設定)\n      why: idle, referenced by nobody" in words
        assert f"Protected: something still refers to it (1)\n  {SOURCE}  Referenced By {FOLLOWER}" in words
        diff = preview_diff(screen)
        assert f"-| {PLACEHOLDER} |" in diff
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert app.run_log[-1].outcome == "organize deleted 1 idle row and marked 1 row stale"
    assert PLACEHOLDER not in (sample_root / "index.md").read_text(encoding="utf-8")
    assert row_of(sample_root, OVERDUE)[5] == "stale"
    assert row_of(sample_root, OVERDUE)[8] == "2026-04-02 16:00"


async def test_organize_stale_days_come_from_config_and_the_input(sample_root, monkeypatch, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("stale_days = 30\n", encoding="utf-8")
    monkeypatch.setenv("MEMBOARD_CONFIG", str(config))
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("o")
        days = await wait_for_screen(pilot, StaleDaysScreen)
        field = days.query_one(Input)
        assert field.value == "30"
        field.value = "1"
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, PreviewScreen)
        assert "stale after 1 days" in screen.title_text
        assert "mark 2 active rows stale (not updated for more than 1 days)" in screen.view.headline[0]
        again = await cancel_through(pilot, StaleDaysScreen)
        assert again.days == 1  # back to the question with the days as entered
    assert tree(sample_root, skip=(".memboard",)) == before


async def test_doctor_shows_findings_and_applies_repairs(sample_root):
    (sample_root / "sessions" / f"{PLACEHOLDER}.md").write_text(
        (sample_root / "sessions" / f"{LONER}.md").read_text(encoding="utf-8").replace(LONER, PLACEHOLDER),
        encoding="utf-8",
    )
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("d")
        screen = await wait_for_screen(pilot, PreviewScreen)
        words = preview_words(screen)
        assert f"✓ idle_with_snapshot {PLACEHOLDER}: " in words and "will fix: set Status to active" in words
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert app.run_log[-1].outcome == "doctor repaired 1 of 1 inconsistency"  # no command line in it
    assert row_of(sample_root, PLACEHOLDER)[5] == "active"


async def test_doctor_on_a_healthy_root_has_nothing_to_write(sample_root):
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("d")
        screen = await wait_for_screen(pilot, PreviewScreen)
        assert screen.view.headline == ["No inconsistencies found: nothing to repair."] and screen.plan.empty
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert tree(sample_root, skip=(".memboard",)) == before


async def test_doctor_counts_a_link_to_an_archived_session_as_history_not_as_needing_a_hand(tmp_path):
    root = build_demo(tmp_path / "memory", now())
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("d")
        screen = await wait_for_screen(pilot, PreviewScreen)
        headline = "\n".join(screen.view.headline)
        words = preview_words(screen)
        hands = sum(1 for line in words.splitlines() if line.lstrip().startswith("✗ "))
        assert (
            "1 is history (nothing to do)" in headline
            and f" {hands} {'needs' if hands == 1 else 'need'} a hand" in headline
        ), headline
        line = next(line for line in words.splitlines() if "link_to_archived" in line and line.startswith("  "))
        assert line.lstrip().startswith("· link_to_archived"), line  # not ✗, the mark of what needs a hand
        await pilot.press("escape")
