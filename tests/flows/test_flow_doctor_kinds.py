"""Doctor's preview leaves out a kind of finding (issue 27 §5): a root with many missing snapshots can fix its
three one-sided links alone, and what is applied is exactly the kinds left on."""

from __future__ import annotations

from textual.widgets import OptionList

from memboard.board.screens import KindsScreen, PreviewScreen
from memboard.core.files.root import MemoryRoot
from memboard.core.ops.doctor import diagnose
from tests.support.roots import index_text, row_line, snapshot_text
from tests.support.tree import tree

from .driving import make_app, preview_words, ready, wait_for_flow, wait_for_screen

MISSING = [f"2026-05-{day:02d}-{hour:02d}00-codex" for day in range(1, 11) for hour in (8, 9, 10)]  # 30 rows
SOURCES = [f"2026-06-0{n}-1000-cursor-main-agent" for n in (1, 2, 3)]
FOLLOWERS = [f"2026-06-0{n}-1200-claude-code" for n in (1, 2, 3)]


def make_root(path):
    """Three sessions that continue from three others whose rows do not list them, and 30 active rows without a
    snapshot."""
    path.mkdir()
    rows = [row_line(sid) for sid in SOURCES + FOLLOWERS + MISSING]
    (path / "index.md").write_text(index_text(rows), encoding="utf-8")
    (path / "sessions").mkdir()
    for sid in SOURCES:
        (path / "sessions" / f"{sid}.md").write_text(snapshot_text(sid), encoding="utf-8")
    for sid, src in zip(FOLLOWERS, SOURCES):
        (path / "sessions" / f"{sid}.md").write_text(snapshot_text(sid, continues=[src]), encoding="utf-8")
    return path


def refs_of(root, sid: str) -> str:
    """sid's Referenced By cell as index.md holds it."""
    for line in (root / "index.md").read_text(encoding="utf-8").splitlines():
        if line.startswith(f"| {sid} |"):
            return line.strip().strip("|").split("|")[6].strip()
    raise AssertionError(f"no row {sid}")


async def leave_out(pilot, kind: str) -> PreviewScreen:
    """In doctor's preview: x, the kind highlighted, space, enter; the preview worked out again."""
    first = pilot.app.screen
    await pilot.press("x")
    kinds = await wait_for_screen(pilot, KindsScreen)
    assert isinstance(kinds, KindsScreen)
    listing = kinds.query_one("#picker-list", OptionList)
    listing.highlighted = [k.name for k in kinds.kinds].index(kind)
    await pilot.press("space")
    await pilot.press("enter")
    screen = await wait_for_screen(pilot, PreviewScreen, not_this=first)
    assert isinstance(screen, PreviewScreen)
    return screen


async def test_doctor_fixes_three_links_alone_when_missing_snapshots_are_left_out(tmp_path):
    root = make_root(tmp_path / "memory")
    before = tree(root, skip=(".memboard",))
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("d")
        first = await wait_for_screen(pilot, PreviewScreen)
        assert isinstance(first, PreviewScreen)
        assert "33 will be repaired" in preview_words(first)
        screen = await leave_out(pilot, "missing_snapshot")
        words = preview_words(screen)
        assert "3 will be repaired" in words and "30 left out" in words, words
        assert "missing_snapshot (30): 30 left out" in words
        assert "(left out: missing_snapshot)" in screen.title_text
        assert [change.path for change in screen.plan.changes] == ["index.md"]
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert app.run_log[-1].outcome == "doctor repaired 3 of 33 inconsistencies (30 left out: missing_snapshot)"
    after = tree(root, skip=(".memboard",))
    assert {path for path in after if after[path] != before.get(path)} == {"index.md"}  # no snapshot written
    for src, follower in zip(SOURCES, FOLLOWERS):
        assert refs_of(root, src) == follower
    found, _ = diagnose(MemoryRoot(str(root)))
    assert {f.kind for f in found} == {"missing_snapshot"} and len(found) == 30


async def test_escape_in_the_kinds_goes_back_to_the_preview_as_it_was(tmp_path):
    root = make_root(tmp_path / "memory")
    before = tree(root, skip=(".memboard",))
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("d")
        first = await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("x")
        kinds = await wait_for_screen(pilot, KindsScreen)
        await pilot.press("space", "escape")
        screen = await wait_for_screen(pilot, PreviewScreen, not_this=first)
        assert isinstance(screen, PreviewScreen) and isinstance(kinds, KindsScreen)
        assert "33 will be repaired" in preview_words(screen) and "left out" not in screen.title_text
        await pilot.press("escape")
        await wait_for_flow(pilot)
    assert tree(root, skip=(".memboard",)) == before


async def test_x_rings_the_bell_in_a_preview_that_is_not_doctors(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("o")
        await pilot.press("enter")  # organize's stale days as they are
        screen = await wait_for_screen(pilot, PreviewScreen)
        await pilot.press("x")
        await pilot.pause()
        assert app.screen is screen  # still the preview: nothing left out, nothing applied
        await pilot.press("escape", "escape")
        await wait_for_flow(pilot)


def test_an_orphan_snapshot_left_out_is_no_missing_session_to_drop_from_referenced_by(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    orphan = "2026-06-05-1000-codex"
    (root / "index.md").write_text(index_text([row_line(SOURCES[0], refs=orphan)]), encoding="utf-8")
    (root / "sessions").mkdir()
    (root / "sessions" / f"{SOURCES[0]}.md").write_text(snapshot_text(SOURCES[0]), encoding="utf-8")
    (root / "sessions" / f"{orphan}.md").write_text(snapshot_text(orphan, continues=[SOURCES[0]]), encoding="utf-8")
    found, plan = diagnose(MemoryRoot(str(root)), left_out=frozenset({"orphan_snapshot"}))
    assert [f.kind for f in found] == ["orphan_snapshot"] and plan.empty  # its reference is kept, not dropped
    found, plan = diagnose(MemoryRoot(str(root)))
    assert [f.kind for f in found] == ["orphan_snapshot"] and [c.path for c in plan.changes] == ["index.md"]
