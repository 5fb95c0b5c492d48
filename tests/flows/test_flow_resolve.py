"""Resolve from the board (R, issue 26 §6): what is open is listed, ours or theirs is asked in a small modal,
the exact plan is previewed and applied like every other flow; escape in the preview goes back to the question.

The plan comes from the resolve builder the command line shares (service/sync.py): here a stand-in that
writes the chosen side's Summary and moves the copy, so that what the board does with a plan is what is tested.
"""

from __future__ import annotations

import pytest

from memboard.board import results
from memboard.board.screens import MessageScreen, PreviewScreen, ResolveScreen
from memboard.core.formats.layout import INDEX
from memboard.core.plan import Change, Plan
from tests.support.sync_findings import SYNCTHING, cell_finding, copy_finding, doctor_saying
from tests.support.tree import tree

from .driving import make_app, open_on, preview_diff, preview_words, ready, wait_for_flow, wait_for_screen
from .sample import FOLLOWER, SOURCE

KEPT = f".memboard/conflicts/{SYNCTHING}"


@pytest.fixture
def conflicted(sample_root, monkeypatch):
    """The sample root with a copy of index.md whose merge left SOURCE's Summary open (and FOLLOWER's Topic)."""
    data = (sample_root / INDEX).read_bytes()
    (sample_root / SYNCTHING).write_bytes(data.replace(b"keeps every byte.", b"keeps every byte, on the laptop."))
    doctor_saying(
        monkeypatch, copy_finding(SYNCTHING, None), cell_finding(SOURCE, "Summary"), cell_finding(FOLLOWER, "Topic")
    )
    return sample_root


@pytest.fixture
def builds(monkeypatch):
    """Stand in for the resolve builder; returns the (prefer, only) of each build asked for."""
    asked: list[tuple[str, str | None]] = []

    def resolve_builder(prefer, only):
        asked.append((prefer, only))

        def build(root):
            index = root.read(INDEX)
            after = (
                index if prefer == "ours" else index.replace(b"keeps every byte.", b"keeps every byte, on the laptop.")
            )
            copy = root.read(SYNCTHING)
            changes = [Change.write(INDEX, index, after)] if after != index else []
            changes.append(Change("move", SYNCTHING, copy, copy, dest=KEPT))
            return Plan("resolve", None, changes, report=[f"decided {prefer}"])

        return build

    monkeypatch.setattr(results, "resolve_builder", resolve_builder)
    return asked


async def test_r_lists_the_open_conflicts_previews_theirs_and_applies_it(conflicted, builds):
    app = make_app(conflicted)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("R")
        question = await wait_for_screen(pilot, ResolveScreen)
        assert [(c.file, c.id, c.column) for c in question.conflicts] == [
            ("index.md", SOURCE, "Summary"),
            ("index.md", FOLLOWER, "Topic"),
        ]
        await pilot.press("t")
        preview = await wait_for_screen(pilot, PreviewScreen)
        assert builds == [("theirs", None)]
        assert preview_words(preview).startswith("2 open conflicts: take theirs")
        diff = preview_diff(preview)
        assert "+| " + SOURCE in diff and "on the laptop." in diff
        assert f"rename from {SYNCTHING}" in diff and f"rename to {KEPT}" in diff
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert app.run_log[-1].applied
    assert b"keeps every byte, on the laptop." in (conflicted / INDEX).read_bytes()
    assert not (conflicted / SYNCTHING).exists() and (conflicted / KEPT).exists()


async def test_escape_in_the_preview_goes_back_to_the_question_and_escape_there_writes_nothing(conflicted, builds):
    before = tree(conflicted)
    app = make_app(conflicted)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("R")
        question = await wait_for_screen(pilot, ResolveScreen)
        await pilot.press("o")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("escape")
        again = await wait_for_screen(pilot, ResolveScreen, not_this=question)
        assert again.conflicts == question.conflicts
        await pilot.press("escape")
        await wait_for_flow(pilot)
        assert app.run_log[-1].outcome == "resolve cancelled: nothing written" and not app.run_log[-1].applied
    assert builds == [("ours", None)]
    assert tree(conflicted) == before


async def test_s_narrows_the_answer_to_the_selected_sessions_conflicts(conflicted, builds):
    app = make_app(conflicted)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        question = await open_on(pilot, FOLLOWER, "R", ResolveScreen)
        assert question.heading() == "Resolve 2 open conflicts"
        await pilot.press("s")
        assert question.heading() == "Resolve 1 open conflict"
        assert [c.id for c in question.scope] == [FOLLOWER]
        await pilot.press("o")
        preview = await wait_for_screen(pilot, PreviewScreen)
        assert preview_words(preview).startswith(f"1 open conflict of {FOLLOWER}: keep ours")
        await pilot.press("escape")
        again = await wait_for_screen(pilot, ResolveScreen, not_this=question)
        assert again.only and [c.id for c in again.scope] == [FOLLOWER]  # back as it was left
        await pilot.press("escape")
        await wait_for_flow(pilot)
    assert builds == [("ours", FOLLOWER)]


async def test_with_nothing_open_resolve_says_so_and_writes_nothing(sample_root, builds):
    before = tree(sample_root)
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("R")
        message = await wait_for_screen(pilot, MessageScreen)
        assert message.message.startswith("Nothing to resolve")
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert app.run_log[-1].outcome == "resolve: nothing to resolve"
    assert builds == [] and tree(sample_root) == before
