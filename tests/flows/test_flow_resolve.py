"""Resolve from the board (R, issue 26 §6): what is open is listed, ours or theirs is asked in a small modal,
the exact plan is previewed and applied like every other flow; escape in the preview goes back to the question.

The plan comes from the resolve builder the command line shares (service/sync.py), on copies whose merge
(doctor's) leaves cells open.
"""

from __future__ import annotations

import pytest

from memboard.board import results
from memboard.board.screens import MessageScreen, PreviewScreen, ResolveScreen
from memboard.core.formats.layout import INDEX
from memboard.core.merge.result import conflict_block
from memboard.widgets.board_status import BoardBanner
from tests.support.roots import Mem, index_text, row_line
from tests.support.sync_findings import SYNCTHING
from tests.support.tree import tree

from .driving import make_app, open_on, preview_diff, preview_words, ready, wait_for_flow, wait_for_screen
from .sample import FOLLOWER, SOURCE

KEPT = f".memboard/conflicts/{SYNCTHING}"


@pytest.fixture
def conflicted(sample_root):
    """The sample root with a copy of index.md that changed SOURCE's Summary and FOLLOWER's Topic in the minute
    this machine's index.md was last written (the same Updated At): the merge leaves both cells open."""
    data = (sample_root / INDEX).read_bytes()
    theirs = data.replace(b"keeps every byte.", b"keeps every byte, on the laptop.").replace(
        b"| Board flows |", b"| Board flows (laptop) |"
    )
    (sample_root / SYNCTHING).write_bytes(theirs)
    return sample_root


@pytest.fixture
def builds(monkeypatch):
    """Record each (prefer, only) the board asks the resolve builder for (the real one builds the plan)."""
    asked: list[tuple[str, str | None]] = []
    real = results.resolve_builder

    def resolve_builder(prefer, only):
        asked.append((prefer, only))
        return real(prefer, only)

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


async def test_with_the_real_merge_the_banner_names_each_open_cell_and_r_theirs_finishes_it(root):
    a, b = "2026-05-31-0900-claude-agent", "2026-05-31-0930-cursor-main-agent"
    for sid in (a, b):
        Mem(root).snapshot(sid)
    Mem(root).index(row_line(a, summary="Desktop A."), row_line(b, summary="Desktop B."))
    copy = index_text([row_line(a, summary="Laptop A."), row_line(b, summary="Laptop B.")]).encode()
    (root / SYNCTHING).write_bytes(copy)
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await ready(pilot)
        banner = app.query_one("#banner", BoardBanner)
        assert [text for _, text in banner.lines] == [
            f"index.md: open conflict: {a} Summary (R: resolve)",
            f"index.md: open conflict: {b} Summary (R: resolve)",
        ]
        await pilot.press("R")
        question = await wait_for_screen(pilot, ResolveScreen)
        assert [(c.file, c.id, c.column) for c in question.conflicts] == [
            ("index.md", a, "Summary"),
            ("index.md", b, "Summary"),
        ]
        await pilot.press("t")
        preview = await wait_for_screen(pilot, PreviewScreen)
        diff = preview_diff(preview)
        assert "Laptop A." in diff and f"rename from {SYNCTHING}" in diff and f"rename to {KEPT}" in diff
        await pilot.press("enter")
        await wait_for_flow(pilot)
        await ready(pilot)
        assert app.run_log[-1].applied and banner.lines == []
    assert (root / INDEX).read_text(encoding="utf-8") == index_text(
        [row_line(a, summary="Laptop A."), row_line(b, summary="Laptop B.")]
    )
    assert not (root / SYNCTHING).exists() and (root / KEPT).read_bytes() == copy


async def test_doctor_previews_the_merge_of_a_copy_with_its_rows_and_its_move_then_applies_it(sample_root):
    data = (sample_root / INDEX).read_bytes()
    extra = row_line("2026-05-31-1000-laptop-agent", summary="Registered on the laptop.")
    below = data.index(b"\nNotes below the table stay.")  # the copy's row ends its table, as a machine appends it
    theirs = data[:below] + extra.encode() + b"\n" + data[below:]
    (sample_root / SYNCTHING).write_bytes(theirs)
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await ready(pilot)
        banner = app.query_one("#banner", BoardBanner)
        assert [text for _, text in banner.lines] == ["1 sync-conflict copy to merge (d: doctor)"]
        await pilot.press("d")
        preview = await wait_for_screen(pilot, PreviewScreen)
        words, diff = preview_words(preview), preview_diff(preview)
        assert "✓ sync_conflict_copy" in words and "will fix: merge into index.md: +1 row" in words
        assert "\n+" + extra + "\n" in diff
        assert f"rename from {SYNCTHING}" in diff and f"rename to {KEPT}" in diff
        await pilot.press("enter")
        await wait_for_flow(pilot)
        await ready(pilot)
        assert banner.lines == []
    assert (sample_root / INDEX).read_bytes() == theirs
    assert (sample_root / KEPT).exists() and not (sample_root / SYNCTHING).exists()


async def test_doctor_says_r_decides_a_cell_its_merge_left_open(conflicted):
    app = make_app(conflicted)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("d")
        preview = await wait_for_screen(pilot, PreviewScreen)
        words = preview_words(preview)
        assert f"✗ conflict_cell {SOURCE}: " in words
        assert "not repaired automatically: R (resolve) decides it, keeping ours or taking theirs" in words
        await pilot.press("escape")
        await wait_for_flow(pilot)


async def test_the_git_drivers_conflict_block_is_named_offers_resolve_and_r_ours_decides_it(root):
    a = "2026-05-31-0900-claude-agent"
    ours, theirs = row_line(a, summary="On main."), row_line(a, summary="On the branch.")
    Mem(root).snapshot(a)
    (root / INDEX).write_text(index_text([ours], extra=conflict_block([ours], [theirs])), encoding="utf-8")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        banner = app.query_one("#banner", BoardBanner)
        assert banner.lines[0][1].endswith("changes refused until resolved (R: resolve)")
        await pilot.press("R")
        question = await wait_for_screen(pilot, ResolveScreen)
        assert [(c.file, c.column) for c in question.conflicts] == [("index.md", "")]
        await pilot.press("o")
        preview = await wait_for_screen(pilot, PreviewScreen)
        assert "-<<<<<<< ours" in preview_diff(preview)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        await ready(pilot)
        assert banner.lines == []
    assert (root / INDEX).read_text(encoding="utf-8") == index_text([ours])
