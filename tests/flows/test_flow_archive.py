"""Archive from the board: preview, confirm, cancel, refusal, stale preview, marked rows."""

from __future__ import annotations

from memboard.board.screens import MessageScreen, PreviewScreen
from tests.support.tree import tree

from .driving import (
    live_ids,
    make_app,
    mark,
    open_on,
    preview_diff,
    preview_words,
    ready,
    wait_for_flow,
    wait_for_screen,
)
from .sample import FOLLOWER, LONER, OVERDUE, SOURCE


async def test_archive_confirm_writes_exactly_the_previewed_plan(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_on(pilot, LONER, "a", PreviewScreen)
        plan = screen.plan
        assert f"+++ b/archive/{LONER}/index.md" in preview_diff(screen)
        assert f"-| {LONER} |" in preview_diff(screen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
    for ch in plan.changes:
        target = ch.dest or ch.path
        assert (sample_root / target).read_bytes() == (ch.after if ch.after is not None else ch.before)
    assert not (sample_root / "sessions" / f"{LONER}.md").exists()
    assert LONER not in live_ids(app)


async def test_archive_cancel_writes_nothing(sample_root):
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        for key in ("escape", "n"):
            await open_on(pilot, LONER, "a", PreviewScreen)
            await pilot.press(key)
            await wait_for_flow(pilot)
            assert not isinstance(app.screen, PreviewScreen)
    assert tree(sample_root, skip=(".memboard",)) == before
    assert LONER in live_ids(app)


async def test_archive_while_referenced_is_refused_in_a_modal(sample_root):
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_on(pilot, SOURCE, "a", MessageScreen)
        assert "still referenced by" in screen.message and FOLLOWER in screen.message
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert tree(sample_root, skip=(".memboard",)) == before


async def test_files_changed_meanwhile_show_a_new_preview_and_write_nothing(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        first = await open_on(pilot, LONER, "a", PreviewScreen)
        index = sample_root / "index.md"
        index.write_bytes(index.read_bytes() + b"Edited by someone else.\n")
        during = tree(sample_root, skip=(".memboard",))
        await pilot.press("y")
        await wait_for_screen(pilot, PreviewScreen, not_this=first)
        second = app.screen
        assert isinstance(second, PreviewScreen) and second is not first
        assert "changed since the last preview" in " ".join(second.notes)
        assert tree(sample_root, skip=(".memboard",)) == during
        assert second.plan.changes[-1].before == index.read_bytes()
        await pilot.press("y")
        await wait_for_flow(pilot)
    text = (sample_root / "index.md").read_text(encoding="utf-8")
    assert LONER not in text and text.endswith("Edited by someone else.\n")
    assert (sample_root / "archive" / LONER / "session.md").exists()


async def test_marked_rows_archive_in_one_preview_in_reference_order(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        mark(app, SOURCE)
        mark(app, FOLLOWER)
        await pilot.press("a")
        screen = await wait_for_screen(pilot, PreviewScreen)
        words = preview_words(screen)
        assert words.index(f"1. Will archive {FOLLOWER}") < words.index(f"2. Will archive {SOURCE}")
        assert "Will not archive" not in words
        diff = preview_diff(screen)
        assert f"archive/{FOLLOWER}/index.md" in diff and f"archive/{SOURCE}/index.md" in diff
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert app.marked_session_ids == []
    for sid in (SOURCE, FOLLOWER):
        assert (sample_root / "archive" / sid / "index.md").exists()
        assert (sample_root / "archive" / sid / "session.md").exists()
    text = (sample_root / "index.md").read_text(encoding="utf-8")
    assert SOURCE not in text and FOLLOWER not in text and OVERDUE in text


async def test_marked_rows_with_a_refusal_archive_the_rest_and_say_which(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        mark(app, SOURCE)
        mark(app, OVERDUE)
        await pilot.press("a")
        screen = await wait_for_screen(pilot, PreviewScreen)
        refusals = [line for line in preview_words(screen).splitlines() if "Will not archive" in line]
        assert len(refusals) == 2 and refusals[1].strip().startswith(f"Will not archive {SOURCE}: ")
        assert f"archive/{SOURCE}/" not in preview_diff(screen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert (sample_root / "archive" / OVERDUE / "index.md").exists()
    assert not (sample_root / "archive" / SOURCE).exists()
    assert any(f"archived {OVERDUE}" in e.outcome and f"not archived: {SOURCE}" in e.outcome for e in app.run_log)


async def test_archive_of_a_placeholder_deletes_its_row(sample_root):
    from .sample import PLACEHOLDER

    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_on(pilot, PLACEHOLDER, "a", PreviewScreen)
        assert screen.view.headline == [
            f"Will delete the placeholder row {PLACEHOLDER}: it has no snapshot, so there is nothing to archive."
        ]
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert PLACEHOLDER not in (sample_root / "index.md").read_text(encoding="utf-8")
    assert not (sample_root / "archive").exists()
