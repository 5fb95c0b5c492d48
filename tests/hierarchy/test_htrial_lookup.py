"""Issue 25's lookup as a new user types it: options anywhere on the line, as every other memboard command
takes them (htrial's findings)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace with a project file and the seed's empty lookup table."""
    w = tmp_path / "workspace"
    (w / "memory").mkdir(parents=True)
    (w / "MEMORY.md").write_text("# Me\n")
    (w / "memory" / "project-book.md").write_text("# Book\n")
    (w / "memory" / "lookup-index.md").write_text("| I need to know... | Go here |\n|---|---|\n")
    return w


def test_lookup_add_takes_workspace_before_need_and_target(cli, ws):
    r = cli("lookup", "add", "--workspace", str(ws), "book status", "memory/project-book.md", use_root=False)
    assert r.code == 0, r.err
    assert "| book status | memory/project-book.md |" in (ws / "memory" / "lookup-index.md").read_text()
    q = cli("lookup", "book", "--json", "status", "--workspace", str(ws), use_root=False)
    assert q.code == 0, q.err
    assert '"need": "book status"' in q.out


def test_lookup_still_refuses_an_unknown_option_in_one_line(cli, ws):
    r = cli("lookup", "book", "--workspace", str(ws), "--bogus", use_root=False)
    assert r.code == 2
    assert len(r.err.splitlines()) == 1 and "--bogus" in r.err
