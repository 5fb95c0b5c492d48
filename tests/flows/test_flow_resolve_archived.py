"""The board on a session archived on one machine and updated on the other in the same minute (issue 26 §2, §6).

No Updated At decides the Topic and Summary the two machines wrote, so doctor's merge leaves them open: the
banner names each open cell and `R` decides them, the session staying archived either way. The update
comes back as a live row (the desktop's index.md kept its name), in a copy of index.md (the laptop's kept
it), or through real git with memboard's merge driver in both clones; in none of them may `R` answer
"Nothing to resolve".
"""

from __future__ import annotations

import json

import pytest

from memboard.board.screens import PreviewScreen, ResolveScreen
from memboard.widgets.board_status import BoardBanner
from tests.support.gitclones import clone_of, git_home, needs_git, new_repository
from tests.sync.test_sync_archived_same_minute import COPY, EARLIER, NOW, archived_there_updated_here, on

from .driving import make_app, preview_diff, preview_words, ready, wait_for_flow, wait_for_screen

__all__ = ["git_home"]  # (a fixture the git test uses)
LATER = "2026-06-01 09:20"


def open_lines(app) -> list[str]:
    """The banner's open-conflict lines."""
    return [text for _, text in app.query_one("#banner", BoardBanner).lines if "open conflict" in text]


async def resolved_on_the_board(root, sid: str, prefer: str, blocks: str = "") -> list[str]:
    """Open the board on root: the banner names sid's two open cells (and the file with git's conflict blocks);
    R lists them with both values, the answer is previewed (the live snapshot kept under `.memboard/conflicts/`,
    or the blocks decided) and applied; the banner then names nothing. Returns the (ours, theirs) Topic listed."""
    app = make_app(root)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await ready(pilot)
        lines = open_lines(app)
        assert sorted(line.split(": open conflict: ")[1] for line in lines) == [
            f"{sid} Summary (R: resolve)",
            f"{sid} Topic (R: resolve)",
        ], lines
        marked = [text for _, text in app.query_one("#banner", BoardBanner).lines if "markers" in text]
        assert marked == ([f"{blocks} has merge-conflict markers: both sides kept (R: resolve)"] if blocks else [])
        await pilot.press("R")
        question = await wait_for_screen(pilot, ResolveScreen)
        assert isinstance(question, ResolveScreen)
        listed = {c.column: (c.ours, c.theirs) for c in question.conflicts if c.id == sid}
        assert sorted(listed) == (["", "Summary", "Topic"] if blocks else ["Summary", "Topic"]), question.conflicts
        assert "ours is the archive's value, theirs the update's" in question.scope_line()
        await pilot.press(prefer[0])
        preview = await wait_for_screen(pilot, PreviewScreen)
        assert isinstance(preview, PreviewScreen)
        diff = preview_diff(preview)
        words = preview_words(preview)
        if blocks:
            assert f"--- a/{blocks}" in diff and "-<<<<<<< ours" in diff
            assert "an archived session's cells: ours the archive's values, theirs the update's" in words
        else:
            side = "keep ours (the archive's values)" if prefer == "ours" else "take theirs (the update's values)"
            assert words.startswith(f"2 open conflicts: {side}; the session stays archived"), words
            kept = f"rename to .memboard/conflicts/sessions/{sid}.md"
            assert f"rename from sessions/{sid}.md" in diff and kept in diff
        await pilot.press("enter")
        await wait_for_flow(pilot)
        await ready(pilot)
        assert app.run_log[-1].applied, app.run_log[-1]
        assert open_lines(app) == []
    return list(listed["Topic"])


def archived_with(root, sid: str, prefer: str) -> None:
    """The session is archived once, with the values prefer chose and the items of both machines."""
    topic = "Laptop topic" if prefer == "ours" else "Desktop topic"
    meta = (root / "archive" / sid / "index.md").read_text(encoding="utf-8")
    assert f"| Topic | {topic} |" in meta, meta
    archive = (root / "archive" / sid / "session.md").read_text(encoding="utf-8")
    assert "Decided on the laptop." in archive and "Decided on the desktop." in archive
    assert not (root / "sessions" / f"{sid}.md").exists() and sid not in (root / "index.md").read_text("utf-8")


@pytest.mark.parametrize("row_live", [True, False], ids=["row-live", "row-in-copy"])
@pytest.mark.parametrize("prefer", ["ours", "theirs"])
async def test_the_banner_names_the_same_minute_cells_and_r_decides_them(cli, root, tmp_path, row_live, prefer):
    sid, _ = archived_there_updated_here(cli, root, tmp_path, row_live)
    on(cli, root, "doctor", "--fix")
    assert (root / COPY).exists() != row_live  # (the copy holding the row stays while its cell is open)
    topic = await resolved_on_the_board(root, sid, prefer)
    assert topic == ["Laptop topic", "Desktop topic"]  # ours: the archive's; theirs: the update's
    archived_with(root, sid, prefer)
    assert not (root / COPY).exists()
    left = json.loads(on(cli, root, "doctor", "--json"))
    assert [f for f in left if f["fix"] or f["kind"] == "conflict_cell"] == []


@needs_git
@pytest.mark.parametrize("prefer", ["ours", "theirs"])
async def test_through_git_the_banner_names_the_open_cells_and_r_decides_them(tmp_path, git_home, prefer):
    a = new_repository(tmp_path / "a")
    assert (
        a.mb("register", "--manual", "--agent", "claude-agent", "--topic", "Work", now=EARLIER["MEMBOARD_NOW"]).code
        == 0
    )
    assert a.mb("install-merge-driver").code == 0
    a.commit("a session")
    sid = a.ids()[0]
    b = clone_of(a, tmp_path / "b")
    assert b.mb("install-merge-driver").code == 0
    for clone, machine in ((b, "Desktop"), (a, "Laptop")):
        snapshot = f"## Decisions\n\n- Decided on the {machine.lower()}.\n"
        args = ("update", sid, "--topic", f"{machine} topic", "--summary", f"{machine} summary.", "--snapshot", "-")
        ran = clone.mb(*args, now=NOW["MEMBOARD_NOW"], input=snapshot)
        assert ran.code == 0, ran.err
    b.commit("b: updated")
    assert a.mb("archive", sid, now=NOW["MEMBOARD_NOW"]).code == 0
    a.commit("a: updated and archived")
    a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False)  # (git follows the archive's move)
    fixed = a.mb("doctor", "--fix", now=LATER)  # exit 1: the cells both machines changed are left for a hand
    assert fixed.code == 1 and "conflict_cell" in fixed.out + fixed.err, fixed
    topic = await resolved_on_the_board(a.root, sid, prefer, blocks=f"archive/{sid}/session.md")
    assert topic == ["Laptop topic", "Desktop topic"]
    archived_with(a.root, sid, prefer)
    assert "<<<<<<<" not in (a.root / "archive" / sid / "session.md").read_text(encoding="utf-8")
    assert [f for f in json.loads(a.mb("doctor", "--json").out) if f["fix"] or f["kind"] == "conflict_cell"] == []
