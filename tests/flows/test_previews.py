"""Previews a person reads at a glance: rows as the cells that change, files under headers, the exact
diff one key away, large plans asked twice and written under a progress bar, planning that can be
stopped, organize's reasons at any size."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Button

from memboard.board import flows as board_flows
from memboard.board import planview
from memboard.board.planview import ViewLine
from memboard.board.screens import (
    MessageScreen,
    PlanningScreen,
    PreviewScreen,
    SessionPicker,
    StaleDaysScreen,
    waiting,
)
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.clock import now
from memboard.core.formats.snapshot import render_template
from memboard.core.ops.archive import plan_archive
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.line_view import LineView
from tests.support.roots import table_line
from tests.support.tree import tree

from .driving import S, cancel_through, make_app, mark, open_on, preview_words, ready, wait_for_flow, wait_for_screen
from .sample import FOLLOWER, LONER, OVERDUE, PLACEHOLDER, SOURCE


def body(screen: PreviewScreen) -> str:
    """What the preview's scrollable part holds now."""
    return screen.body_text


async def test_a_row_change_reads_as_the_cells_that_change_per_session(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_on(pilot, LONER, "c", SessionPicker)
        await pilot.press(*"codex", "enter")
        screen = await wait_for_screen(pilot, PreviewScreen)
        words = body(screen)
        assert screen.view.headline[0].startswith(f"{OVERDUE} will continue from {LONER}")
        assert "~ index.md  will change (+2 −2 lines)" in words
        assert f"  {LONER}  (active · Demo root)\n      Referenced By  - → {OVERDUE}" in words
        assert (
            f"  {OVERDUE}  (active · Hook latency)\n      Updated At     2026-04-02 16:00 → 2026-06-01 09:30" in words
        )
        assert f"~ sessions/{OVERDUE}.md  will change" in words and "    ## Continues From" in words
        assert "|" not in "".join(line for line in words.splitlines() if "→" in line)  # no table lines
        await cancel_through(pilot, SessionPicker)


async def test_each_file_has_a_header_saying_what_will_happen_and_d_shows_the_dry_run_bytes(sample_root, cli):
    dry = cli("archive", LONER, "--dry-run")
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_on(pilot, LONER, "a", PreviewScreen)
        assert screen.view.headline == [
            f"Will archive {LONER}: its row leaves index.md, its snapshot moves to archive/{LONER}/session.md and its "
            f"row is kept in archive/{LONER}/index.md."
        ]
        assert screen.view.counts == ["3 file changes: 1 created, 1 changed, 1 moved", "index.md: 1 row deleted"]
        headers = [line.text for line in screen.view.readable if line.kind == "file"]
        assert headers == [
            f"+ archive/{LONER}/index.md  will be created (20 lines)",
            f"→ sessions/{LONER}.md → archive/{LONER}/session.md  will move (unchanged)",
            "~ index.md  will change (+0 −1 lines)",
        ]
        assert f"  {LONER}  will be deleted  (active · Demo root)" in body(screen)
        await pilot.press("d")
        assert dry.out.startswith(screen.view.diff) and screen.view.diff.startswith("diff --git")
        assert body(screen) == screen.view.diff.rstrip("\n")  # the exact diff, line for line
        await pilot.press("d")
        assert body(screen).startswith("+ archive/")
        await pilot.press("escape")
        await wait_for_flow(pilot)


def insert_rows(root, rows) -> None:
    """Add these rows (each a tuple of the nine cells) at the end of the sample root's table."""
    index = root / "index.md"
    lines = "".join(table_line(list(r)) + "\n" for r in rows)
    index.write_text(
        index.read_text(encoding="utf-8").replace("\nNotes below", lines + "\nNotes below"), encoding="utf-8"
    )


async def ask_organize(pilot, until: type[S]) -> S:
    """Ask for organize, keep the stale days offered, and wait for a screen of this kind."""
    await pilot.press("o")
    await wait_for_screen(pilot, StaleDaysScreen)
    await pilot.press("enter")
    screen = await wait_for_screen(pilot, until)
    assert isinstance(screen, until)
    return screen


async def organize_preview(pilot) -> PreviewScreen:
    """Ask for organize, keep the stale days offered, and wait for its preview."""
    return await ask_organize(pilot, PreviewScreen)


def slow_organize(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """Make the board's organize plan wait for the first event (set it to let the plan be built); the second is
    set once the plan is built."""
    release, built = threading.Event(), threading.Event()
    organize = board_flows.plan_organize

    def slow(root, when, days):
        release.wait(10)
        plan = organize(root, when, days)
        built.set()
        return plan

    monkeypatch.setattr(board_flows, "plan_organize", slow)
    return release, built


def add_sessions(root, count: int) -> list[str]:
    """Add count active sessions with snapshots to the sample root's index; their IDs."""
    ids = [f"2026-05-{1 + n // 60:02d}-{n // 60:02d}{n % 60:02d}-bulk-agent" for n in range(count)]
    insert_rows(
        root,
        [
            (sid, "bulk-agent", "Bulk", "Bulk work.", "bulk", "active", "-", "2026-05-01 10:00", "2026-05-01 10:00")
            for sid in ids
        ],
    )
    for sid in ids:
        (root / "sessions" / f"{sid}.md").write_text(
            render_template(
                sid, "bulk-agent", "Bulk", "2026-05-01 10:00", "2026-05-01 10:00", status="active", context="Bulk."
            ),
            encoding="utf-8",
        )
    return ids


async def test_a_large_plan_asks_twice_and_is_written_under_a_progress_bar_a_small_one_not(sample_root):
    ids = add_sessions(sample_root, 70)  # 3 steps each (210 writes), index.md one file: 141 files
    app = make_app(sample_root)
    pushed: list[str] = []
    push = app.push_screen

    def recorded(screen, *args, **kwargs):
        pushed.append(type(screen).__name__)
        return push(screen, *args, **kwargs)

    app.push_screen = recorded
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.sessions.select_session(LONER)  # a small plan: one y, no progress bar
        await pilot.press("a")
        await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("y")
        await wait_for_flow(pilot)
        assert (sample_root / "archive" / LONER / "session.md").exists() and "ProgressScreen" not in pushed
        for sid in ids:
            mark(app, sid)
        await pilot.press("a")
        screen = await wait_for_screen(pilot, PreviewScreen)
        assert screen.view.counts[0] == "141 file changes: 70 created, 1 changed, 70 moved"
        before = tree(sample_root, skip=(".memboard",))
        await pilot.press("y")
        await pilot.pause()
        assert app.screen is screen and tree(sample_root, skip=(".memboard",)) == before
        again = screen.query_one("#preview-again")
        assert again.display and "141 file changes" in str(again.render()) and "press y again" in str(again.render())
        assert str(screen.query_one("#confirm", Button).label) == "Apply: y again"
        footer = screen.query_one(KeyBar).text
        assert "y apply (again)" in footer and "⏎/y" not in footer and "esc/n cancel" in footer
        await pilot.press("y")
        await wait_for_flow(pilot)
    assert "ProgressScreen" in pushed
    assert all((sample_root / "archive" / sid / "session.md").exists() for sid in ids)


async def test_planning_shows_the_time_it_takes_and_escape_drops_the_plan(sample_root, monkeypatch):
    release, built = slow_organize(monkeypatch)
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        planning = await ask_organize(pilot, PlanningScreen)
        await pilot.pause(0.3)
        line = str(planning.query_one("#planning-line").render())
        assert line.startswith("planning… ") and line.endswith(" s") and float(line.split()[1]) >= 0.3
        await pilot.press("escape")
        await wait_for_flow(pilot)
        assert not isinstance(app.screen, (PlanningScreen, PreviewScreen))
        assert app.run_log[-1].outcome == "organize cancelled while planning: nothing written"
        release.set()
        assert built.wait(10)
        await pilot.pause(0.2)
        assert not isinstance(app.screen, PreviewScreen)  # the plan built late is dropped
    assert tree(sample_root, skip=(".memboard",)) == before


async def test_planning_closes_the_moment_its_plan_is_built_not_at_its_next_look(sample_root, monkeypatch):
    release, _built = slow_organize(monkeypatch)
    monkeypatch.setattr(waiting, "TICK", 600.0)  # its next look at the work would come in ten minutes
    app = make_app(sample_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await ask_organize(pilot, PlanningScreen)
        release.set()
        await wait_for_screen(pilot, PreviewScreen)


async def test_organize_shows_every_reason_and_keeps_the_buttons_in_view_at_80x24(sample_root):
    extra = [
        (
            f"2026-05-0{n}-1000-idle-agent",
            "idle-agent",
            "未設定",
            "x",
            "k",
            "idle",
            SOURCE if n == 1 else "-",
            "2026-05-01 10:00",
            "2026-05-01 10:00",
        )
        for n in range(1, 8)
    ]
    insert_rows(sample_root, extra)
    app = make_app(sample_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        screen = await organize_preview(pilot)
        words = preview_words(screen)
        for sid, why in (
            (SOURCE, f"Referenced By {FOLLOWER}"),
            (extra[0][0], f"Referenced By {SOURCE}"),
            (FOLLOWER, "updated 2026-05-31 11:00, within 14 days"),
        ):
            assert f"  {sid}  {why}" in words
        assert f"  {PLACEHOLDER}  will be deleted  (idle · 未設定)\n      why: idle, referenced by nobody" in words
        assert (
            f"  {OVERDUE}  (stale · Hook latency)\n      Status  active → stale\n"
            "      why: not updated for more than 14 days" in words
        )
        for button in screen.query(Button):
            assert button.region.height and button.region.bottom <= 24, button  # on screen
        view = screen.query_one("#preview-body")
        assert view.max_scroll_y > 0  # the rest scrolls
        await pilot.press("end")
        await pilot.pause()
        assert view.scroll_y == view.max_scroll_y
        await cancel_through(pilot, StaleDaysScreen)


async def test_a_refusal_speaks_in_board_keys_and_offers_its_fix(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        message = await open_on(pilot, SOURCE, "a", MessageScreen)
        assert "memboard release" not in message.message and f"select {SOURCE} and press r" in message.message
        assert str(message.query_one("#fix", Button).label) == "Release its references (f)"
        await pilot.press("f")
        picker = await wait_for_screen(pilot, SessionPicker)  # the fix flow, on the session refused
        assert [c.session_id for c in picker.choices] == [FOLLOWER]
        await pilot.press("escape")
        await wait_for_flow(pilot)


@pytest.mark.parametrize(
    "remedy, label",
    [
        ("release", "Release its references (f)"),
        ("update", "Write its snapshot (update) (f)"),
        ("doctor", "Run doctor (f)"),
    ],
)
async def test_the_fix_a_refusal_offers_follows_its_remedy_not_its_words(sample_root, monkeypatch, remedy, label):
    from memboard.core.errors import REMEDY_HERE, Refused

    def refuse(root, session_id, when):
        raise Refused(f"blocked for a reason said in new words; {REMEDY_HERE}", remedy=remedy, subject=session_id)

    monkeypatch.setattr(board_flows, "plan_archive", refuse)
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        message = await open_on(pilot, SOURCE, "a", MessageScreen)
        assert "blocked for a reason said in new words; " in message.message and "memboard" not in message.message
        assert str(message.query_one("#fix", Button).label) == label
        await pilot.press("escape")
        await wait_for_flow(pilot)


async def test_a_refusal_without_a_remedy_offers_no_fix_whatever_its_words(sample_root, monkeypatch):
    from memboard.core.errors import Refused

    def refuse(root, session_id, when):
        raise Refused(f"{session_id} is still referenced by someone; run `memboard doctor` (duplicate ID)")

    monkeypatch.setattr(board_flows, "plan_archive", refuse)
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        message = await open_on(pilot, SOURCE, "a", MessageScreen)
        assert "still referenced by someone" in message.message
        assert not message.query("#fix")
        await pilot.press("escape")
        await wait_for_flow(pilot)


async def test_a_read_only_root_refuses_changing_flows_up_front(sample_root, monkeypatch):
    from memboard.core.files.root import MemoryRoot

    monkeypatch.setattr(MemoryRoot, "read_only_reason", lambda self: "the memory root folder is not writable")
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        for key in ("o", "d", "a", "u", "c", "r"):
            app.sessions.select_session(LONER)
            await pilot.press(key)
            message = await wait_for_screen(pilot, MessageScreen)
            assert "the memory root folder is not writable" in message.message, key
            await pilot.press("enter")
            await wait_for_flow(pilot)
    assert tree(sample_root, skip=(".memboard",)) == before


async def test_marked_archive_says_deleted_for_a_placeholder(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        mark(app, PLACEHOLDER)
        mark(app, LONER)
        await pilot.press("a")
        screen = await wait_for_screen(pilot, PreviewScreen)
        assert screen.view.headline[0] == (
            "Will archive 1 session and delete 1 placeholder row, one after another in the order below."
        )
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert app.run_log[-1].outcome == f"archived {LONER}; deleted placeholder row {PLACEHOLDER}"
    assert not (sample_root / "archive" / PLACEHOLDER).exists()


async def test_one_file_with_many_row_changes_asks_twice_too(sample_root):
    idle = [
        (
            f"2026-05-{1 + n // 60:02d}-{n // 60:02d}{n % 60:02d}-idle-agent",
            "idle-agent",
            "未設定",
            "x",
            "k",
            "idle",
            "-",
            "2026-05-01 10:00",
            "2026-05-01 10:00",
        )
        for n in range(201)
    ]
    insert_rows(sample_root, idle)
    app = make_app(sample_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await organize_preview(pilot)
        assert screen.view.counts == ["1 file change: 1 changed", "index.md: 202 rows deleted, 1 row changed"]
        before = tree(sample_root, skip=(".memboard",))
        await pilot.press("y")
        await pilot.pause()
        assert app.screen is screen and screen.armed and tree(sample_root, skip=(".memboard",)) == before
        await pilot.press("y")
        await wait_for_flow(pilot)
    assert "idle-agent" not in (sample_root / "index.md").read_text(encoding="utf-8")


def hold_completion(monkeypatch, *, files: int = 2000) -> tuple[threading.Event, list[bool]]:
    """Make every plan that touches index.md (or has more than files changes) large enough to be completed
    after its preview shows, and hold that completion until the event is set; the list gets whether the
    preview still wanted the view when it was let go."""
    release = threading.Event()
    wanted: list[bool] = []
    whole = planview.whole

    def held(plan, headline, blocks=None, reasons=None, stop=None, **left):
        assert release.wait(10)
        wanted.append(not (stop is not None and stop()))
        return whole(plan, headline, blocks, reasons, stop, **left)

    monkeypatch.setattr(planview, "LATER_BYTES", 0)
    monkeypatch.setattr(planview, "LATER_FILES", files)
    monkeypatch.setattr(planview, "whole", held)
    return release, wanted


async def until_listed(pilot, screen: PreviewScreen) -> None:
    """Let the preview finish working out its rows."""
    for _ in range(500):
        if not screen.view.pending:
            await pilot.pause()
            return
        await pilot.pause(0.01)
    raise AssertionError("the preview never listed its rows")


async def test_a_large_plan_shows_its_outline_at_once_and_its_rows_when_worked_out(sample_root, monkeypatch, cli):
    dry = cli("archive", LONER, "--dry-run")
    release, wanted = hold_completion(monkeypatch)
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_on(pilot, LONER, "a", PreviewScreen)
        assert screen.view.pending and screen.view.headline[0].startswith(f"Will archive {LONER}")
        assert screen.view.counts == ["3 file changes: 1 created, 1 changed, 1 moved", planview.ROWS_PENDING]
        assert body(screen).endswith(planview.ROWS_PENDING)
        await pilot.pause(0.6)
        counts = str(screen.query_one("#preview-counts").render())
        assert counts.startswith(f"3 file changes: 1 created, 1 changed, 1 moved\n{planview.ROWS_PENDING} ")
        assert counts.endswith(" s")  # how long it has taken so far
        await pilot.press("d")
        assert body(screen) == planview.DIFF_PENDING
        await pilot.press("y")  # three file changes, but its rows are not known yet: asked again
        await pilot.pause()
        assert app.screen is screen and tree(sample_root, skip=(".memboard",)) == before
        again = str(screen.query_one("#preview-again").render())
        assert "still being worked out" in again and "press y again to apply it as it is" in again
        release.set()
        await until_listed(pilot, screen)
        assert wanted == [True]
        assert screen.view.counts == ["3 file changes: 1 created, 1 changed, 1 moved", "index.md: 1 row deleted"]
        assert dry.out.startswith(screen.view.diff) and body(screen) == screen.view.diff.rstrip("\n")
        await pilot.press("d")
        assert f"  {LONER}  will be deleted  (active · Demo root)" in body(screen)
        await pilot.press("y")
        await wait_for_flow(pilot)
    assert (sample_root / "archive" / LONER / "session.md").exists()


async def test_escape_while_rows_are_worked_out_writes_nothing_and_drops_them(sample_root, monkeypatch):
    release, wanted = hold_completion(monkeypatch)
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await organize_preview(pilot)
        assert screen.view.pending
        await cancel_through(pilot, StaleDaysScreen)
        assert not isinstance(app.screen, PreviewScreen)
        assert app.run_log[-1].outcome == "organize cancelled: nothing written"
        release.set()
        for _ in range(100):
            if wanted:
                break
            await pilot.pause(0.01)
        assert wanted == [False]  # the closed preview's view is not worked out to the end
        await pilot.pause(0.1)
        assert not isinstance(app.screen, PreviewScreen)
    assert tree(sample_root, skip=(".memboard",)) == before


def test_a_large_plan_s_outline_completes_to_the_view_a_small_one_gets_at_once(sample_root, monkeypatch):
    plan = plan_archive(MemoryRoot(sample_root), LONER, now())
    small = planview.build(plan, ["headline"], [ViewLine("kept")], {LONER: "why"})
    assert not small.pending
    monkeypatch.setattr(planview, "LATER_FILES", 2)  # three file changes: more than that
    outline = planview.build(plan, ["headline"], [ViewLine("kept")], {LONER: "why"})
    assert outline.pending and outline.later is not None
    assert outline.readable == [ViewLine("kept"), ViewLine(""), ViewLine(planview.FILES_PENDING, "muted")]
    done = outline.later(lambda: False)
    assert not done.pending
    assert (done.headline, done.counts, done.readable, done.diff, done.total, done.rows, done.notes) == (
        small.headline,
        small.counts,
        small.readable,
        small.diff,
        small.total,
        small.rows,
        small.notes,
    )
    with pytest.raises(planview.Dropped):
        outline.later(lambda: True)


async def test_rows_that_cannot_be_worked_out_leave_the_exact_plan_to_apply_or_cancel(sample_root, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("a describing bug")

    monkeypatch.setattr(planview, "LATER_BYTES", 0)
    monkeypatch.setattr(planview, "whole", broken)
    before = tree(sample_root, skip=(".memboard",))
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_on(pilot, LONER, "a", PreviewScreen)
        for _ in range(100):
            if screen.failed:
                break
            await pilot.pause(0.01)
        assert "could not be worked out" in body(screen) and "ValueError: a describing bug" in body(screen)
        await pilot.press("d")
        assert "could not be worked out" in body(screen)
        await pilot.press("y")  # the board stays up; the exact plan is asked for twice
        await pilot.pause()
        assert app.screen is screen and tree(sample_root, skip=(".memboard",)) == before
        await pilot.press("y")
        await wait_for_flow(pilot)
    assert (sample_root / "archive" / LONER / "session.md").exists()


async def test_a_preview_is_built_by_the_same_settled_build_as_dry_run(sample_root, monkeypatch):
    from memboard.board import flowrun
    from memboard.core.files import execute

    built: list[object] = []

    def recorded(root, build, budget):
        built.append(build)
        return execute.settled_build(root, build, budget)

    monkeypatch.setattr(flowrun, "settled_build", recorded)
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_on(pilot, LONER, "a", PreviewScreen)
        assert len(built) == 1 and LONER in preview_words(screen)


async def test_organize_lists_its_changes_first_then_what_it_leaves_each_group_skipped_by_s_folded_by_z(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        screen = await organize_preview(pilot)
        words = screen.body_text.splitlines()
        first_change = next(n for n, line in enumerate(words) if line.startswith("~ index.md  will change"))
        left = [n for n, line in enumerate(words) if line.startswith(("Protected", "Kept active", "Already stale"))]
        assert left and first_change < min(left), words  # the changes first, then what is left and why
        footer = screen.query_one(KeyBar).text
        assert "s skip" in footer and "z fold" in footer, footer
        view = screen.query_one("#preview-body", LineView)
        heads = [n for n, line in enumerate(screen.words) if line.kind in ("group", "file")]
        for head in heads[1:]:  # s: from one group to the next
            await pilot.press("s")
            await pilot.pause()
            assert view.top_line == head or view.scroll_y == view.max_scroll_y, (head, view.top_line)
        await pilot.press("z")
        await pilot.pause()
        shown = screen.body_text.splitlines()
        assert len(shown) < len(words) and shown[0].startswith("~ index.md  will change")
        assert any(line.startswith("Kept active (") and "folded (z shows them)" in line for line in shown), shown
        assert not any(line.startswith("  ") for line in shown)  # each group is its first line alone
        await pilot.press("z")
        await pilot.pause()
        assert screen.body_text.splitlines() == words
        await cancel_through(pilot, StaleDaysScreen)
