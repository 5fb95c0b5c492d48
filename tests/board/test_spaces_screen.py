"""The Spaces screen (issue 24 §5) through the board: `p` opens it, `escape` goes back, the filter, a file an
agent saves shows within a second keeping cursor and filter, a save previews the layering and applies exactly
the plan shown, escape writes nothing, archive is disabled with its reason while no dream covers the entries."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from bench.board_spaces import make_spaces, write_space
from memboard.board.app import MemboardApp
from memboard.board.screens import PreviewScreen
from memboard.board.spaceflows import DraftScreen, ResearchForm
from memboard.board.spaces import SpacesScreen
from memboard.core.formats.clock import now
from memboard.core.ops.demo import build_demo

PATIENCE = 30.0


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """The global session-memory home (and the legacy homes) inside the test's folder."""
    folder = tmp_path / "home"
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(folder))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("CLAUDE_HOME", str(tmp_path / "claude"))
    return folder


@pytest.fixture
def spaces(tmp_path, home) -> list[Path]:
    """Three known spaces (git projects); the third has no dream yet."""
    folders = make_spaces(tmp_path / "projects", 2)
    third = tmp_path / "projects" / "project-002"
    (third / ".git").mkdir(parents=True)
    write_space(third / ".session-memory", "project-002", dream=None, entries=3)
    make_known(third / ".session-memory")
    return [*folders, third / ".session-memory"]


def make_known(folder: Path) -> None:
    """Add a space to memboard's record of known spaces."""
    from memboard.core.files import statepaths

    record = statepaths.known_spaces()
    record.write_text(record.read_text(encoding="utf-8") + f"{folder}\tauto\n", encoding="utf-8")


def board(tmp_path: Path, watch: bool = False) -> MemboardApp:
    """The board on a demo root, at a fixed theme."""
    app = MemboardApp(build_demo(tmp_path / "memory", now()), watch=watch)
    app.theme = "textual-dark"
    return app


async def settle(pilot) -> None:
    """Let the workers finish and the screen repaint."""
    for _ in range(3):
        await pilot.pause()
        await asyncio.wait_for(pilot.app.workers.wait_for_complete(), PATIENCE)
    await pilot.pause()


async def open_spaces(pilot) -> SpacesScreen:
    """Press `p` on the session table and wait for the spaces and the first pane to be read."""
    await settle(pilot)
    await pilot.press("p")
    screen = pilot.app.screen
    assert isinstance(screen, SpacesScreen)
    for _ in range(500):
        row = screen.table.current
        if screen.model.complete and (row is None or (screen.pane is not None and screen.pane.space_id == row.id)):
            break
        await pilot.pause(0.01)
    await settle(pilot)
    return screen


async def wait_for(pilot, kind, rounds: int = 1000):
    """Wait until a screen of this kind is in front; it."""
    for _ in range(rounds):
        if isinstance(pilot.app.screen, kind):
            await pilot.pause()
            return pilot.app.screen
        await pilot.pause(0.01)
    raise AssertionError(f"no {kind.__name__} in front: {pilot.app.screen!r}")


def select(screen: SpacesScreen, folder: Path) -> None:
    """Put the cursor on a space."""
    assert screen.select_space(str(folder)), [r.id for r in screen.table.rows]


def editor(tmp_path: Path, monkeypatch, old: str, new: str) -> None:
    """$EDITOR: a script replacing old by new in the file it is given."""
    script = tmp_path / "edit.py"
    script.write_text(
        "import sys, pathlib\n"
        "p = pathlib.Path(sys.argv[1])\n"
        f"p.write_text(p.read_text(encoding='utf-8').replace({old!r}, {new!r}), encoding='utf-8')\n",
        encoding="utf-8",
    )
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under folder by its relative path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


async def test_p_opens_the_known_spaces_and_escape_goes_back(tmp_path, spaces):
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        ids = {row.id for row in screen.table.rows}
        assert ids == {str(f) for f in spaces}
        row = screen.model.by_id[str(spaces[0])]
        assert (row.name, row.rule, row.history, row.research) == ("project-000", "git-root", 30, "1/2")
        assert "[current.md]" in screen.query_one("#space-pane").text
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.sessions


async def test_a_space_that_cannot_be_resolved_shows_its_problem(tmp_path, spaces):
    bad = tmp_path / "projects" / "project-000" / ".session-memory" / "config.toml"
    bad.write_text("[spaces\n", encoding="utf-8")
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        row = screen.model.by_id[str(spaces[0])]
        assert row.config_invalid and row.problem and "config.toml" in row.problem
        assert row.flags.startswith("!")
        line = "".join(seg.text for seg in screen.table.render_line(1 + screen.table.rows.index(row)))
        assert line.startswith("! ") and "invalid config" in line


async def test_the_filter_keeps_the_matching_spaces(tmp_path, spaces):
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        await pilot.press("slash", *"project-001", "enter")
        await pilot.pause()
        assert [row.id for row in screen.table.rows] == [str(spaces[1])]
        assert screen.filter_text == "project-001"


async def test_a_file_an_agent_saves_shows_within_a_second_keeping_cursor_and_filter(tmp_path, spaces):
    app = board(tmp_path, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        await pilot.press("slash", *"project-00", "enter")
        select(screen, spaces[1])
        await settle(pilot)
        history = spaces[1] / "history.md"
        history.write_text(
            history.read_text(encoding="utf-8") + "### 2026-06-01 09:00 [context: main]\n- 触发原因：agent\n",
            encoding="utf-8",
        )
        for _ in range(150):  # 1.5 s at most
            await pilot.pause(0.01)
            if screen.model.by_id[str(spaces[1])].history == 31:
                break
        assert screen.model.by_id[str(spaces[1])].history == 31
        assert screen.table.current.id == str(spaces[1])
        assert screen.filter_text == "project-00"
        await settle(pilot)
        assert "触发原因：agent" in screen.query_one("#space-pane").text


async def test_save_previews_the_layering_and_applies_exactly_the_plan_shown(tmp_path, spaces, monkeypatch):
    editor(tmp_path, monkeypatch, "- 继续 project-000\n", "- 新的下一步\n")
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        select(screen, spaces[0])
        await settle(pilot)
        await pilot.press("w")
        preview = await wait_for(pilot, PreviewScreen)
        headline = "\n".join(preview.view.headline)
        assert "1 line moves to .session-memory/history.md" in headline
        assert f"patch base: {spaces[0].parent}" in headline
        plan = preview.plan
        await pilot.press("y")
        await settle(pilot)
        for change in plan.changes:
            assert (spaces[0].parent / change.path).read_bytes() == change.after
        assert "- 新的下一步" in (spaces[0] / "current.md").read_text(encoding="utf-8")
        assert "> - 继续 project-000" in (spaces[0] / "history.md").read_text(encoding="utf-8")


async def test_escape_at_the_preview_writes_nothing(tmp_path, spaces, monkeypatch):
    editor(tmp_path, monkeypatch, "- 继续 project-000\n", "- 新的下一步\n")
    before = snapshot(tmp_path / "projects")
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        select(screen, spaces[0])
        await settle(pilot)
        await pilot.press("w")
        await wait_for(pilot, PreviewScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
    assert snapshot(tmp_path / "projects") == before


async def test_a_file_changed_under_the_preview_rebuilds_it(tmp_path, spaces, monkeypatch):
    editor(tmp_path, monkeypatch, "- 继续 project-000\n", "- 新的下一步\n")
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        select(screen, spaces[0])
        await settle(pilot)
        await pilot.press("w")
        first = await wait_for(pilot, PreviewScreen)
        history = spaces[0] / "history.md"
        history.write_text(history.read_text(encoding="utf-8") + "### 2026-06-01 09:10 [context: skill]\n- x：y\n")
        await pilot.pause(0.2)
        await pilot.press("y")
        for _ in range(500):
            if isinstance(app.screen, PreviewScreen) and app.screen is not first:
                break
            await pilot.pause(0.01)
        again = app.screen
        assert isinstance(again, PreviewScreen) and again is not first
        assert any("changed since the last preview" in note for note in again.notes)
        await pilot.press("y")
        await settle(pilot)
        text = history.read_text(encoding="utf-8")
        assert text.index("[context: skill]") < text.index("> - 继续 project-000")


async def test_archive_is_disabled_with_its_reason_while_no_dream_covers_the_entries(tmp_path, spaces):
    before = snapshot(tmp_path / "projects")
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        select(screen, spaces[2])
        await settle(pilot)
        await pilot.press("A")
        await pilot.pause()
        assert app.screen is screen
        said = [n.message for n in app._notifications]
        assert any("archive is disabled" in m and "no dream" in m for m in said), said
    assert snapshot(tmp_path / "projects") == before


async def test_archive_previews_the_moves_when_a_dream_covers_them(tmp_path, spaces):
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        select(screen, spaces[0])
        await settle(pilot)
        assert screen.model.by_id[str(spaces[0])].archive_due
        await pilot.press("A")
        preview = await wait_for(pilot, PreviewScreen)
        assert any("10 entries move to archive/history-archive.md" in line for line in preview.view.headline)
        await pilot.press("y")
        await settle(pilot)
    assert (spaces[0] / "archive" / "history-archive.md").is_file()


async def test_research_form_appends_the_skills_entry(tmp_path, spaces):
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        select(screen, spaces[1])
        await settle(pilot)
        await pilot.press("R")
        form = await wait_for(pilot, ResearchForm)
        form.query_one("#research-topic").value = "索引"
        form.query_one("#research-conclusion").value = "FTS5 够用"
        await pilot.press("ctrl+s")
        preview = await wait_for(pilot, PreviewScreen)
        plan = preview.plan
        await pilot.press("y")
        await settle(pilot)
    text = (spaces[1] / "research.md").read_text(encoding="utf-8")
    assert "- 研究主题：索引\n- 当前结论：FTS5 够用\n- 是否有效：unknown\n" in text
    assert (spaces[1].parent / plan.changes[0].path).read_bytes() == plan.changes[0].after


async def test_dream_shows_the_extraction_as_a_draft_then_previews_it(tmp_path, spaces, home):
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        select(screen, spaces[2])
        await settle(pilot)
        await pilot.press("D")
        draft = await wait_for(pilot, DraftScreen)
        assert "## 正确轨迹" in draft.draft and "- 先写测试再改代码" in draft.draft
        await pilot.press("enter")
        preview = await wait_for(pilot, PreviewScreen)
        assert any(line.startswith("places: ") and "home" in line for line in preview.view.headline)
        await pilot.press("escape")
        await settle(pilot)
    assert not (spaces[2] / "dream-notes.md").exists()
    assert not (home / "dreams").exists()


async def test_current_md_changed_since_memboards_revision_flags_lines_that_left_it(tmp_path, spaces):
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        select(screen, spaces[1])
        await settle(pilot)  # memboard sees current.md: its first revision
        current = spaces[1] / "current.md"
        current.write_text(current.read_text(encoding="utf-8").replace("- 大文件的搜索速度\n", ""), encoding="utf-8")
        await pilot.press("down", "up")
        select(screen, spaces[1])
        screen.load_pane(str(spaces[1]))
        await settle(pilot)
        assert screen.pane is not None and screen.pane.lost == ["- 大文件的搜索速度"]
        assert "without reaching history.md" in screen.query_one("#space-pane").text


async def test_migrate_moves_legacy_data_as_previewed(tmp_path, spaces):
    project = tmp_path / "projects" / "project-001"
    legacy = project / ".codex" / "session-memory"
    legacy.mkdir(parents=True)
    (legacy / "research.md").write_text("# 研究记录\n\n### 2026-05-01 09:00 [context: old]\n- 研究主题：旧\n")
    (spaces[1] / "research.md").unlink()
    app = board(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_spaces(pilot)
        assert "L" in screen.model.by_id[str(spaces[1])].flags
        select(screen, spaces[1])
        await settle(pilot)
        await pilot.press("M")
        preview = await wait_for(pilot, PreviewScreen)
        assert f"patch base: {project}" in preview.view.headline
        await pilot.press("y")
        await settle(pilot)
        assert "L" not in screen.model.by_id[str(spaces[1])].flags
    assert "- 研究主题：旧" in (spaces[1] / "research.md").read_text(encoding="utf-8")
    assert not (project / ".codex").exists()
