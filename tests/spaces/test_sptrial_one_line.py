"""Defect found by using the spaces as a new user would (issue 24 §3, §9): a line break in a value that goes into one
line of an entry (save's --reason and --context, research-save's fields).

`--reason $'a\\n### 2026-01-01 00:00 [context: x]'` ended the 触发原因 field and started a second entry with a
made-up time, so the quoted lines the save displaced belonged to an entry nobody wrote (archive would move it by that
time, every reader counted two). Such a value is bad usage: exit 2, one line, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def homes(tmp_path, monkeypatch):
    """A private global home."""
    home = tmp_path / "smhome"
    home.mkdir()
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codexhome"))
    monkeypatch.setenv("CLAUDE_HOME", str(tmp_path / "claudehome"))
    return home


def _space(cli, tmp_path: Path) -> Path:
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    assert cli("space", "init", "--workspace", str(p), use_root=False).code == 0
    (p / ".session-memory" / "current.md").write_text("# c\n\n## 当前目标\n- one\n", encoding="utf-8")
    return p


def _files(p: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in (p / ".session-memory").iterdir()}


FAKE = "a\n### 2026-01-01 00:00 [context: fake]"


@pytest.mark.parametrize("option", ["--reason", "--context"])
def test_save_refuses_a_line_break_in_a_value_of_the_entry(cli, tmp_path, option):
    p = _space(cli, tmp_path)
    before = _files(p)
    res = cli("space", "save", "--workspace", str(p), "--current", "-", option, FAKE, input="# c\n", use_root=False)
    assert res.code == 2
    assert len(res.err.strip().splitlines()) == 1 and option in res.err
    assert _files(p) == before


@pytest.mark.parametrize(
    "extra",
    [
        ["--topic", FAKE, "--conclusion", "c"],
        ["--topic", "t", "--conclusion", FAKE],
        ["--topic", "t", "--conclusion", "c", "--evidence", "ok", "--evidence", FAKE],
        ["--topic", "t", "--conclusion", "c", "--next-step", "x\r\ny"],
        ["--topic", "t", "--conclusion", "c", "--work-context", FAKE],
    ],
)
def test_research_save_refuses_a_line_break_in_a_field(cli, tmp_path, extra):
    p = _space(cli, tmp_path)
    before = _files(p)
    res = cli("space", "research-save", "--workspace", str(p), *extra, use_root=False)
    assert res.code == 2
    assert len(res.err.strip().splitlines()) == 1
    assert _files(p) == before
