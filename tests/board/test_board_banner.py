"""The board's banner (under the status line) names what is wrong with the root itself:
a read-only root (known up front), merge-conflict markers in index.md, sync-conflict copies to merge,
each cell a merge left open, a file with so many copies that Syncthing starts deleting them.
Also: the board keeps its revisions in local state, not in the root."""

from __future__ import annotations

import os
import subprocess

import pytest

from memboard.board.app import MemboardApp
from memboard.core.files.localstate import folder_of
from memboard.widgets.board_status import BoardBanner
from tests.support.roots import index_text, table_line
from tests.support.sync_findings import SYNCTHING

SIZE = (120, 40)
A = "2026-05-01-1000-alpha"
B = "2026-05-02-1000-beta"
C = "2026-05-03-1000-gamma"


async def settle(app, pilot):
    """Let callbacks run and workers finish (twice: a worker's result can start another)."""
    for _ in range(2):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


def banner(app) -> BoardBanner:
    """The banner widget."""
    return app.query_one("#banner", BoardBanner)


def snapshot(sid: str) -> str:
    """A minimal snapshot naming sid in its title and Metadata."""
    return f"# Session: {sid}\n\n## Metadata\n\n| Field | Value |\n|---|---|\n| Session ID | {sid} |\n\n## Current Context\n\nWork.\n"


@pytest.fixture
def read_only_root(root, write_index, make_row):
    """A root with one row, then made read-only for real: its mode for a normal user, a read-only
    bind mount for root (whom permissions do not bind); skipped where neither can be had."""
    write_index([make_row(A)])
    if os.name == "nt":
        pytest.skip("POSIX permissions and mounts")
    if os.geteuid() != 0:
        root.chmod(0o555)
        yield root
        root.chmod(0o755)
        return
    done = subprocess.run(["mount", "--bind", "-o", "ro", str(root), str(root)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("cannot make a read-only mount here")
    try:
        yield root
    finally:
        subprocess.run(["umount", str(root)], capture_output=True, check=False)


async def test_the_banner_is_hidden_on_a_healthy_root(write_index, make_row, root):
    write_index([make_row(A), make_row(B)])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert banner(app).display is False and banner(app).lines == []


async def test_a_read_only_root_is_named_up_front(read_only_root):
    app = MemboardApp(read_only_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # no write was tried, no worker waited for
        assert banner(app).display is True and banner(app).has_class("-error")
        assert banner(app).lines[0][1].startswith("read-only: the memory root ")


async def test_conflict_markers_are_named_and_both_sides_rows_shown(write_index, make_row, root):
    conflict = (
        "<<<<<<< HEAD\n| "
        + " | ".join(make_row(B, topic="ours"))
        + " |\n=======\n| "
        + " | ".join(make_row(B, topic="theirs"))
        + " |\n>>>>>>> laptop\n| "
        + " | ".join(make_row(C))
        + " |\n"
    )
    write_index([make_row(A)], extra=conflict)
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert [(r.id, r.topic) for r in app.sessions.table.rows] == [
            (A, "topic"),
            (B, "ours"),
            (B, "theirs"),
            (C, "topic"),
        ]
        assert banner(app).display is True and banner(app).has_class("-error")
        assert [text for _, text in banner(app).lines] == [
            (
                "index.md has merge-conflict markers (lines 6, 8, 10): both sides shown; changes refused until "
                "resolved (R: resolve)"
            )
        ]


async def test_sync_conflict_copies_are_named_and_never_rows(write_index, make_row, root):
    write_index([make_row(A), make_row(B)])
    (root / "index (Laptop's conflicted copy 2026-05-31).md").write_bytes((root / "index.md").read_bytes())
    (root / "sessions").mkdir()
    (root / "sessions" / f"{A}.md").write_text(snapshot(A), encoding="utf-8")
    (root / "sessions" / f"{A}-laptop.md").write_text(snapshot(A), encoding="utf-8")  # OneDrive-style
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert [r.id for r in app.sessions.table.rows] == [A, B]
        assert banner(app).lines == [("warning", "2 sync-conflict copies to merge (d: doctor)")]
        assert not banner(app).has_class("-error")


async def test_a_copy_that_syncs_in_while_the_board_is_open_appears(write_index, make_row, root):
    write_index([make_row(A)])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert banner(app).display is False
        (root / "index.sync-conflict-20260531-101500-ABCDEF7.md").write_bytes((root / "index.md").read_bytes())
        assert app.sessions.check_files() is True
        await settle(app, pilot)
        assert banner(app).lines == [("warning", "1 sync-conflict copy to merge (d: doctor)")]


async def test_the_board_keeps_revisions_in_local_state(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
    assert not (demo_root / ".memboard").exists()
    assert len(list((folder_of(demo_root.resolve()) / "revisions" / ids["broken"]).iterdir())) == 2


def copy_of_index(root, rows: list[list[str]]) -> None:
    """A Syncthing copy of index.md holding these rows (changed in the minute index.md was: the same Updated At)."""
    (root / SYNCTHING).write_text(index_text([table_line(r) for r in rows]), encoding="utf-8")


async def test_each_open_cell_has_its_line_and_offers_resolve(write_index, make_row, root):
    write_index([make_row(A), make_row(B)])
    copy_of_index(root, [make_row(A, summary="laptop"), make_row(B, topic="laptop")])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert banner(app).lines == [  # the copy waits for resolve alone: no "to merge" line
            ("warning", f"index.md: open conflict: {A} Summary (R: resolve)"),
            ("warning", f"index.md: open conflict: {B} Topic (R: resolve)"),
        ]
        assert not banner(app).has_class("-error")


async def test_a_copy_doctor_can_still_merge_is_counted_beside_its_open_cells(write_index, make_row, root):
    write_index([make_row(A)])
    copy_of_index(root, [make_row(A, summary="laptop"), make_row(B)])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert [text for _, text in banner(app).lines] == [
            "1 sync-conflict copy to merge (d: doctor)",
            f"index.md: open conflict: {A} Summary (R: resolve)",
        ]


async def test_many_open_cells_end_in_one_counting_line(write_index, make_row, root):
    ids = [f"2026-05-0{n}-1000-agent" for n in range(1, 9)]
    write_index([make_row(sid) for sid in ids])
    copy_of_index(root, [make_row(sid, summary="laptop") for sid in ids])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        lines = [text for _, text in banner(app).lines]
        assert lines[:5] == [f"index.md: open conflict: {sid} Summary (R: resolve)" for sid in ids[:5]]
        assert lines[5:] == ["… and 3 more open conflicts (R: resolve)"]


async def test_a_file_with_eight_copies_is_warned_about(write_index, make_row, root):
    write_index([make_row(A)])
    data = (root / "index.md").read_bytes()
    names = [f"index.sync-conflict-20260531-1015{n:02d}-ABCDEF7.md" for n in range(8)]
    for name in names:
        (root / name).write_bytes(data)
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert [text for _, text in banner(app).lines] == [
            "8 sync-conflict copies to merge (d: doctor)",
            "index.md has 8 sync-conflict copies: Syncthing deletes copies beyond 10, merge them now (d: doctor)",
        ]


async def test_doctor_runs_for_the_banner_only_while_there_is_a_copy(write_index, make_row, root, doctor_says):
    write_index([make_row(A)])
    calls = doctor_says()
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert calls == [] and banner(app).display is False
        (root / SYNCTHING).write_bytes((root / "index.md").read_bytes())
        assert app.sessions.check_files() is True
        await settle(app, pilot)
        assert len(calls) == 1
        app.sessions.refresh_model()
        await settle(app, pilot)
        assert len(calls) == 1  # nothing changed: doctor's findings are kept, not read again


async def test_an_original_that_is_missing_is_said_beside_its_copies(write_index, make_row, root):
    """rclone bisync renames both versions of a file both machines changed (`index.md..path1`, `..path2`):
    index.md is gone, the board shows no row, and the banner says why and what restores it."""
    write_index([make_row(A), make_row(B)])
    data = (root / "index.md").read_bytes()
    for end in ("path1", "path2"):
        (root / f"index.md..{end}").write_bytes(data)
    (root / "index.md").unlink()
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        lines = [text for _, text in banner(app).lines]
        assert "index.md is missing: 2 sync-conflict copies hold it (d: doctor restores it from them)" in lines, lines
