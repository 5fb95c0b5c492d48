"""Issue 25's facts todos as a new user meets them (htrial's findings): done on the last todo leaves `[]`,
which memboard's own next `todo done` must read as the empty list it is, not as a hand-written flow sequence."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace whose facts.yaml holds one todo."""
    w = tmp_path / "workspace"
    (w / "memory").mkdir(parents=True)
    (w / "MEMORY.md").write_text("# Me\n")
    (w / "memory" / "facts.yaml").write_text("# Last updated: 2026-05-01\ntodos:\n  - only one\n")
    return w


def run(cli, ws: Path, *args: str):
    """A facts command on the workspace."""
    return cli(*args, "--workspace", str(ws), use_root=False)


def test_done_after_the_last_todo_says_there_is_no_such_todo(cli, ws):
    assert run(cli, ws, "facts", "todo", "done", "1").code == 0
    before = (ws / "memory" / "facts.yaml").read_bytes()
    r = run(cli, ws, "facts", "todo", "done", "1")
    assert (r.code, r.err) == (1, "memboard: no todo '1' (todos has 0 items)\n")
    assert (ws / "memory" / "facts.yaml").read_bytes() == before
    assert run(cli, ws, "facts", "todo", "add", "next").code == 0
    assert run(cli, ws, "facts", "todo", "done", "next").code == 0
