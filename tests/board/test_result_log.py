"""The result log (`l`) over a board session: what it keeps of each change (never the plan's bytes, bounded), and
a line for every flow of every view (sessions, notes, spaces, hierarchy), a cancellation not counted as a change."""

from __future__ import annotations

import gc
from collections.abc import Iterator

from memboard.board.screens import LogScreen, PreviewScreen
from memboard.board.screens.applied import AppliedScreen
from memboard.core.plan import Change, Plan
from tests.flows.driving import make_app, open_on, ready, wait_for_flow, wait_for_screen
from tests.flows.sample import LONER, make_root
from tests.flows.test_previews import insert_rows, organize_preview


def held(root: object) -> Iterator[object]:
    """Every object reachable from root (classes, functions and modules not followed)."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type) or (callable(obj) and not hasattr(obj, "__dict__")):
            continue
        seen.add(id(obj))
        yield obj
        todo += [o for o in gc.get_referents(obj) if not isinstance(o, type) and type(o).__name__ != "module"]


def kept_characters(log: object) -> int:
    """How many characters and bytes the log holds in its strings and byte strings."""
    return sum(len(o) for o in held(log) if isinstance(o, str | bytes))


async def opened(pilot, down: int = 0) -> AppliedScreen:
    """Open the result log and the line down lines below its newest; what it wrote, once worked out."""
    await pilot.press("l")
    await wait_for_screen(pilot, LogScreen)
    for _ in range(down):
        await pilot.press("down")
    await pilot.press("enter")
    screen = await wait_for_screen(pilot, AppliedScreen)
    assert isinstance(screen, AppliedScreen)
    for _ in range(200):
        if screen.view is not None:
            break
        await pilot.pause(0.02)
    return screen


async def test_the_log_keeps_what_a_change_wrote_in_words_and_its_diff_not_the_plan_s_bytes(root):
    # the log kept each applied Plan (every file's bytes before and after) for as long as the board ran
    make_root(root)
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_on(pilot, LONER, "a", PreviewScreen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert app.run_log[-1].applied
        kept = list(held(app.run_log))
        assert not [o for o in kept if isinstance(o, Plan | Change | bytes)]
        screen = await opened(pilot)
        assert f"sessions/{LONER}.md → archive/{LONER}/session.md" in screen.query_one("#preview-body").text
        await pilot.press("d")
        assert f"rename to archive/{LONER}/session.md" in screen.query_one("#preview-body").text


async def test_a_large_change_keeps_its_files_names_and_counts_and_says_what_it_does_not_keep(root):
    make_root(root)
    rows = 6000  # index.md over 1 MB: organize deletes every idle row
    filler = "x" * 120
    ids = [f"2026-04-{1 + n // 1440:02d}-{n % 1440 // 60:02d}{n % 60:02d}-idle-agent" for n in range(rows)]
    cells = [(sid, "idle-agent", "t", filler, "k", "idle", "-") for sid in ids]
    insert_rows(root, [(*c, "2026-04-01 10:00", "2026-04-01 10:00") for c in cells])
    size = (root / "index.md").stat().st_size
    assert size > 1 << 20
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await organize_preview(pilot)
        await pilot.press("y", "y")
        await wait_for_flow(pilot)
        assert app.run_log[-1].applied and "deleted 6,0" in app.run_log[-1].outcome, app.run_log[-1]
        assert kept_characters(app.run_log) < size // 20  # the plan held index.md twice (before and after)
        screen = await opened(pilot)
        text = " ".join(str(w.render()) for w in screen.query("#preview-counts"))
        assert "index.md" in screen.query_one("#preview-body").text and "names and the counts are kept" in text
        await pilot.press("d")
        assert "names and the counts are kept" in screen.query_one("#preview-body").text  # no diff: says why


async def test_past_its_budget_the_log_keeps_the_oldest_changes_files_by_name_and_says_so(root, monkeypatch):
    from memboard.board import written
    from tests.flows.sample import OVERDUE

    monkeypatch.setattr(written, "LOG_BUDGET", 1)
    make_root(root)
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        for sid in (LONER, OVERDUE):
            await open_on(pilot, sid, "a", PreviewScreen)
            await pilot.press("enter")
            await wait_for_flow(pilot)
        screen = await opened(pilot, down=1)  # the older change
        assert f"sessions/{LONER}.md → archive/{LONER}/session.md" in screen.query_one("#preview-body").text
        assert written.AGED in str(screen.query_one("#preview-counts").render())
        await pilot.press("d")
        assert written.AGED in screen.query_one("#preview-body").text


def log_lines(app) -> list[tuple[str, str, bool]]:
    """The result log as (op, outcome, applied), oldest first."""
    return [(entry.op, entry.outcome, entry.applied) for entry in app.run_log]


async def test_the_notes_view_s_flows_add_their_lines_to_the_log_a_cancellation_not_counted_as_a_change(tmp_path):
    # the notes view's flows (edit, supersede, mark) told their toast and left the log empty
    from tests.support.notes import STORAGE, board, notes_root, open_notes, select, settle_notes

    app = board(notes_root(tmp_path / "memory"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_notes(pilot)
        await select(pilot, STORAGE)
        await pilot.press("m")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("escape")  # cancelled
        await wait_for_flow(pilot)
        await pilot.press("m")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        await settle_notes(pilot)
        (cancelled, marked) = app.run_log
        assert (cancelled.op, cancelled.outcome, cancelled.applied) == (
            "mark",
            "mark cancelled: nothing written",
            False,
        )
        assert marked.op == "mark" and marked.applied and STORAGE in marked.outcome
        await pilot.press("n")  # back to the session table, where l opens the log
        await pilot.pause()
        await pilot.press("l")
        log = await wait_for_screen(pilot, LogScreen)
        assert log.query_one("#log-title").render().plain.startswith("Result log: 1 change applied in this run; 1 flow")
        assert log.query_one("#log-body").text.count("mark cancelled") == 1
        await pilot.press("enter")  # the newest line: what the mark wrote
        screen = await wait_for_screen(pilot, AppliedScreen)
        for _ in range(200):
            if screen.view is not None:
                break
            await pilot.pause(0.02)
        assert f"notes/{STORAGE}.md" in screen.query_one("#preview-body").text


async def test_the_spaces_and_hierarchy_flows_add_their_lines_to_the_log(tmp_path, monkeypatch):
    from textual.widgets import Input

    from bench.board_spaces import make_spaces, make_workspace
    from memboard.board.spaceflows import TextForm
    from tests.board.test_hierarchy_screen import open_hierarchy
    from tests.board.test_spaces_screen import board, editor, open_spaces, select, settle, wait_for

    monkeypatch.setenv("SESSION_MEMORY_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("CLAUDE_HOME", str(tmp_path / "claude"))
    folders = make_spaces(tmp_path / "projects", 1)
    monkeypatch.setenv("OPENCLAW_WORKSPACE_DIR", str(make_workspace(tmp_path / "workspace")))
    editor(tmp_path, monkeypatch, "- 继续 project-000\n", "- 新的下一步\n")
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        select(screen, folders[0])
        await settle(pilot)
        await pilot.press("w")
        await wait_for(pilot, PreviewScreen)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        await open_hierarchy(pilot)
        await pilot.press("L")
        form = await wait_for(pilot, TextForm)
        form.query_one(Input).value = "met the printer"
        await pilot.press("enter")
        await wait_for(pilot, PreviewScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert [(op, applied) for op, _, applied in log_lines(app)] == [("save", True), ("log", False)], log_lines(app)
        assert log_lines(app)[1][1] == "log cancelled: nothing written"
