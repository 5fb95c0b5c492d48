"""The board's banner names git's conflict blocks in a note or a snapshot with no copy beside them (issue 26 §6).

memboard's merge driver leaves a block per field no rule decides (a note's Title saved on both clones in the same
minute) and git stops the merge. No sync-conflict copy is there and index.md is whole, yet the banner names the
file with the blocks, `R` decides them, and the banner then names nothing; a block that arrives while the board
is open is named too.
"""

from __future__ import annotations

import os

import pytest

from memboard.board.screens import PreviewScreen, ResolveScreen
from memboard.widgets.board_status import BoardBanner
from tests.support.gitclones import clone_of, git_home, needs_git, new_repository
from tests.sync.test_git_driver_merge import NOTE
from tests.sync.test_git_driver_merge import _note as note_save

from .driving import make_app, preview_diff, ready, wait_for_flow, wait_for_screen

__all__ = ["git_home"]  # (a fixture the git test uses)
NOTE_FILE = f"notes/{NOTE}.md"


def marked_lines(app) -> list[str]:
    """The banner's lines about conflict markers."""
    return [text for _, text in app.query_one("#banner", BoardBanner).lines if "markers" in text]


@needs_git
@pytest.mark.parametrize("prefer", ["ours", "theirs"])
async def test_a_note_with_the_drivers_blocks_is_named_and_r_decides_them(tmp_path, git_home, prefer):
    a = new_repository(tmp_path / "a")
    assert a.mb("register", "--manual", "--agent", "s-one", "--topic", "T1", now="2026-06-01 09:00").code == 0
    assert a.mb(*note_save("Keep the cache in memory."), now="2026-06-01 09:02").code == 0
    assert a.mb("install-merge-driver").code == 0
    a.commit("a session and a note")
    b = clone_of(a, tmp_path / "b")
    assert b.mb("install-merge-driver").code == 0
    for clone, title in ((b, "Cache on the desktop"), (a, "Cache on the laptop")):
        ran = clone.mb(*note_save(f"Keep the cache in memory.\n\n{title}.", title), now="2026-06-01 10:00")
        assert ran.code == 0, ran.err
        clone.commit(title)
    index_before = (a.root / "index.md").read_bytes()
    assert a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False).returncode != 0
    note = (a.root / NOTE_FILE).read_text(encoding="utf-8")
    assert "<<<<<<< ours" in note and (a.root / "index.md").read_bytes() == index_before
    assert not list((a.root / "notes").rglob("*conflict*"))  # no copy: only git's blocks in the note
    app = make_app(a.root)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await ready(pilot)
        assert marked_lines(app) == [f"{NOTE_FILE} has merge-conflict markers: both sides kept (R: resolve)"]
        await pilot.press("R")
        question = await wait_for_screen(pilot, ResolveScreen)
        assert isinstance(question, ResolveScreen)
        assert question.conflicts, "R answered with nothing to resolve"
        await pilot.press(prefer[0])
        preview = await wait_for_screen(pilot, PreviewScreen)
        assert isinstance(preview, PreviewScreen)
        assert f"--- a/{NOTE_FILE}" in preview_diff(preview)
        await pilot.press("enter")
        await wait_for_flow(pilot)
        await ready(pilot)
        assert app.run_log[-1].applied, app.run_log[-1]
        assert marked_lines(app) == []
    note = (a.root / NOTE_FILE).read_text(encoding="utf-8")
    assert "<<<<<<<" not in note and "Cache on the desktop." in note and "Cache on the laptop." in note
    title = "Cache on the laptop" if prefer == "ours" else "Cache on the desktop"
    assert f"| Title | {title} |" in note, note


BLOCK = "<<<<<<< ours\n- The laptop's line.\n=======\n- The desktop's line.\n>>>>>>> theirs\n"


async def test_a_snapshot_that_gains_blocks_while_the_board_is_open_is_named(cli, root):
    assert cli("register", "--manual", "--agent", "claude-agent", "--topic", "Work").code == 0
    (sid,) = [p.stem for p in (root / "sessions").glob("*.md")]
    app = make_app(root)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        assert marked_lines(app) == []
        snapshot = root / "sessions" / f"{sid}.md"
        text = snapshot.read_text(encoding="utf-8").replace("## Decisions\n", "## Decisions\n\n" + BLOCK, 1)
        fresh = snapshot.with_name(f".{sid}.tmp")
        fresh.write_text(text, encoding="utf-8")
        os.replace(fresh, snapshot)  # (as git and the sync tools write a file: a new one in its place)
        app.screen.check_files()
        await ready(pilot)
        await ready(pilot)
        assert marked_lines(app) == [f"sessions/{sid}.md has merge-conflict markers: both sides kept (R: resolve)"]
