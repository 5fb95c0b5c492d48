"""Revisions are recorded from settled, non-empty reads only (revisions.record_settled)."""

from __future__ import annotations

import time

from memboard.core.files import revisions
from memboard.core.files.root import MemoryRoot
from tests.support.roots import snapshot_text

SID = "2026-05-31-0900-cursor-main-agent"


def test_a_truncated_snapshot_is_no_revision_and_the_save_after_it_is_one(tmp_path):
    (tmp_path / "sessions").mkdir()
    path = tmp_path / "sessions" / f"{SID}.md"
    root = MemoryRoot(tmp_path)
    root.window = 0.05
    first = snapshot_text(SID).encode()
    path.write_bytes(first)
    assert revisions.record_settled(root, {SID}) == ({SID}, set())
    path.write_bytes(b"")  # an editor's save: truncate...
    assert revisions.record_settled(root, {SID}) == (set(), set())
    time.sleep(0.2)
    second = snapshot_text(SID, decisions=["Use plain Markdown.", "One save is one revision."]).encode()
    path.write_bytes(second)  # ...then write back
    assert revisions.record_settled(root, {SID}) == ({SID}, set())
    assert revisions.contents(root, SID) == [first, second]


def test_a_cut_read_is_no_revision(tmp_path):
    (tmp_path / "sessions").mkdir()
    path = tmp_path / "sessions" / f"{SID}.md"
    root = MemoryRoot(tmp_path)
    root.window = 0.05
    first = snapshot_text(SID).encode()
    path.write_bytes(first)
    revisions.record_settled(root, {SID})
    path.write_bytes(first[: len(first) // 2].rstrip(b"\n") + b" cut")  # stopped mid-line
    assert revisions.record_settled(root, {SID}) == (set(), set())
    assert revisions.contents(root, SID) == [first]


def test_a_snapshot_that_keeps_changing_is_looked_at_again(tmp_path, monkeypatch):
    (tmp_path / "sessions").mkdir()
    path = tmp_path / "sessions" / f"{SID}.md"
    root = MemoryRoot(tmp_path)
    root.window = 10.0
    path.write_bytes(snapshot_text(SID).encode())
    assert revisions.record_settled(root, {SID}, wait=0.1) == (set(), {SID})
    assert revisions.contents(root, SID) == []
