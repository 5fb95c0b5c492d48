"""Issue 25's `hierarchy log` on a disk that fills up mid-append (htrial's findings): refused in one line
with nothing written — no half block left in the daily log for OpenClaw's next append to land on."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace whose 2026-05-31 log has content."""
    w = tmp_path / "workspace"
    (w / "memory").mkdir(parents=True)
    (w / "MEMORY.md").write_text("# Me\n")
    (w / "memory" / "2026-05-31.md").write_bytes(b"# 2026-05-31\n\nexisting line\n")
    return w


@pytest.fixture
def full_disk(monkeypatch):
    """os.write to a daily log writes 5 bytes, then fails with ENOSPC, as a full disk does."""
    real = os.write
    state = {"n": 0}

    def write(fd: int, data) -> int:
        target = os.readlink(f"/proc/self/fd/{fd}")
        if "/memory/20" not in target or not target.endswith(".md"):
            return real(fd, data)
        state["n"] += 1
        if state["n"] == 1:
            return real(fd, bytes(data[:5]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", write)


def run(cli, ws: Path, *args: str):
    """A hierarchy command on the workspace."""
    return cli(*args, "--workspace", str(ws), use_root=False)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to tell the log's fd")
def test_append_on_a_full_disk_leaves_the_log_as_it_was(cli, ws, full_disk):
    log = ws / "memory" / "2026-05-31.md"
    before = log.read_bytes()
    r = run(cli, ws, "hierarchy", "log", "--date", "2026-05-31", "--text", "a new block of text")
    assert r.code == 1
    assert len(r.err.splitlines()) == 1 and "2026-05-31.md" in r.err
    assert log.read_bytes() == before


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to tell the log's fd")
def test_a_new_log_on_a_full_disk_is_not_left_behind(cli, ws, full_disk):
    r = run(cli, ws, "hierarchy", "log", "--date", "2026-05-30", "--text", "a new block of text")
    assert r.code == 1
    assert not (ws / "memory" / "2026-05-30.md").exists()
