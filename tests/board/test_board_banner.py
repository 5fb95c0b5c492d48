"""The board's banner (under the status line) names what is wrong with the root itself:
a read-only root (known up front), merge-conflict markers in index.md, sync-conflict copies.
Also: the board keeps its revisions in local state, not in the root."""

from __future__ import annotations

import os
import subprocess

import pytest

from memboard.board.app import MemboardApp
from memboard.core.files.localstate import folder_of
from memboard.widgets.board_status import BoardBanner

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
                "resolved by hand"
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
        assert banner(app).lines == [
            (
                "warning",
                (
                    "2 sync-conflict copies: index (Laptop's conflicted copy 2026-05-31).md, "
                    f"sessions/{A}-laptop.md; merge by hand (d: doctor)"
                ),
            )
        ]
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
        assert (
            banner(app).display is True and "index.sync-conflict-20260531-101500-ABCDEF7.md" in banner(app).lines[0][1]
        )


async def test_the_board_keeps_revisions_in_local_state(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
    assert not (demo_root / ".memboard").exists()
    assert len(list((folder_of(demo_root.resolve()) / "revisions" / ids["broken"]).iterdir())) == 2
