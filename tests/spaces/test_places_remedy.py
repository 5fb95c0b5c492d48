"""A write over places that stops half-way names what shows the state it left: `space check` for a space,
`hierarchy lint` for a workspace — never `memboard doctor`, which needs a memory root and knows neither."""

from __future__ import annotations

import subprocess


def test_a_space_write_stopped_after_its_first_step_names_space_check(cli, tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    res = cli("space", "init", "--workspace", str(project), use_root=False, env={"FAULT_AFTER_STEP": "1"})
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1, res.err
    assert "incomplete" in res.err and "run `memboard space check`" in res.err and "doctor" not in res.err
    assert len(list((project / ".session-memory").iterdir())) == 1  # the first step, and no more


def test_a_workspace_write_stopped_after_its_first_step_names_hierarchy_lint(cli, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "MEMORY.md").write_text("# Me\n", encoding="utf-8")
    res = cli("hierarchy", "init", "--workspace", str(workspace), use_root=False, env={"FAULT_AFTER_STEP": "1"})
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1, res.err
    assert "incomplete" in res.err and "run `memboard hierarchy lint`" in res.err and "doctor" not in res.err


def test_one_displaced_line_and_one_archived_entry_are_said_in_the_singular(cli, tmp_path):
    project = tmp_path / "q"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (tmp_path / "a.md").write_text("# 会话记忆\n\n## 下一步\n- one\n- two\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# 会话记忆\n\n## 下一步\n- two\n", encoding="utf-8")
    ws = ("--workspace", str(project))
    assert cli("space", "save", "--current", str(tmp_path / "a.md"), *ws, use_root=False).code == 0
    res = cli("space", "save", "--current", str(tmp_path / "b.md"), *ws, use_root=False)
    assert res.code == 0, res.err
    assert "1 line moves to .session-memory/history.md" in res.err + res.out
    assert "(1 displaced line kept in history.md)" in res.out + res.err
