"""Flows when things go wrong: a half-written apply, a row gone meanwhile, an unexpected error, a busy board."""

from __future__ import annotations

from memboard.board.screens import MessageScreen, PreviewScreen
from memboard.core.files import probe
from tests.support.faults import Faults
from tests.support.tree import tree

from .driving import count_refreshes, make_app, mark, open_on, ready, wait_for_flow, wait_for_screen
from .sample import FOLLOWER, LONER, OVERDUE, SOURCE


async def test_a_failure_half_way_is_explained_and_points_to_doctor(sample_root, monkeypatch):
    import memboard.core.files.execute as apply

    real_step = apply._step
    steps = []

    def failing_step(root, ch, *guard):
        steps.append(ch)
        if len(steps) == 2:
            raise OSError(5, "Input/output error")
        return real_step(root, ch, *guard)

    monkeypatch.setattr(apply, "_step", failing_step)
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_on(pilot, LONER, "a", PreviewScreen)
        refreshes = count_refreshes(app)
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, MessageScreen)
        assert "incomplete" in screen.title_text and "doctor" in screen.footnote
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert refreshes
    assert (sample_root / "archive" / LONER / "index.md").exists()
    assert LONER in (sample_root / "index.md").read_text(encoding="utf-8")


async def test_a_crash_after_a_step_is_explained_and_points_to_doctor(sample_root, monkeypatch):
    fault = Faults(1)
    monkeypatch.setattr(probe, "current", lambda: fault)
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_on(pilot, LONER, "a", PreviewScreen)
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, MessageScreen)
        assert "injected fault" in screen.message and "doctor" in screen.footnote
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert LONER in (sample_root / "index.md").read_text(encoding="utf-8")


async def test_row_gone_since_the_preview_is_refused_and_nothing_written(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_on(pilot, LONER, "a", PreviewScreen)
        index = sample_root / "index.md"
        index.write_text(
            "".join(l for l in index.read_text(encoding="utf-8").splitlines(True) if LONER not in l), encoding="utf-8"
        )
        during = tree(sample_root, skip=(".memboard",))
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, MessageScreen)
        assert f"unknown session {LONER}" in screen.message
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert tree(sample_root, skip=(".memboard",)) == during


async def test_an_unexpected_error_is_shown_not_raised(sample_root, monkeypatch):
    import memboard.board.flows as flows

    def broken(*args, **kwargs):
        raise ValueError("disk on fire")

    monkeypatch.setattr(flows, "plan_organize", broken)
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("o")
        await pilot.pause()
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, MessageScreen)
        assert "disk on fire" in screen.message
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert app.is_running
    assert tree(sample_root, skip=(".memboard",)) == before


async def test_a_second_flow_does_not_start_while_one_is_open(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        first = await open_on(pilot, LONER, "a", PreviewScreen)
        await pilot.press("d", "o", "g")
        await pilot.pause()
        assert app.screen is first and len(app.screen_stack) == 2
        await pilot.press("escape")
        await wait_for_flow(pilot)
        assert len(app.screen_stack) == 1


async def test_marked_archive_with_stale_files_previews_the_sequence_again(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        mark(app, OVERDUE)
        mark(app, LONER)
        await pilot.press("a")
        first = await wait_for_screen(pilot, PreviewScreen)
        index = sample_root / "index.md"
        index.write_bytes(index.read_bytes() + b"late edit\n")
        during = tree(sample_root, skip=(".memboard",))
        await pilot.press("enter")
        await wait_for_screen(pilot, PreviewScreen, not_this=first)
        second = app.screen
        assert second is not first and "changed since the last preview" in second.notes[0]
        assert tree(sample_root, skip=(".memboard",)) == during
        await pilot.press("enter")
        await wait_for_flow(pilot)
    text = (sample_root / "index.md").read_text(encoding="utf-8")
    assert OVERDUE not in text and LONER not in text and text.endswith("late edit\n")
    assert SOURCE in text and FOLLOWER in text


async def test_a_conflicted_index_refuses_a_flow_before_any_preview(sample_root):
    index = sample_root / "index.md"
    lines = index.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(f"| {LONER} "))
    lines[at : at + 1] = ["<<<<<<< HEAD\n", lines[at], "=======\n", lines[at], ">>>>>>> laptop\n"]
    index.write_text("".join(lines), encoding="utf-8")
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_on(pilot, LONER, "a", MessageScreen)
        assert "refused" in screen.title_text and "merge-conflict markers" in screen.message
        await pilot.press("enter")
        await wait_for_flow(pilot)
    assert tree(sample_root, skip=(".memboard",)) == before
