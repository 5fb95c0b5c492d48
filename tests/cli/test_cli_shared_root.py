"""A project's agent file names no path of this machine: install-mcp's and install-hook's --root there is relative to
the project (or left out when memboard finds the root by itself), a user's file keeps the absolute path, and the
preview says which.

A project's `.mcp.json`, `.cursor/...`, `.codex/...` and `.claude/settings.json` are committed and shared: an
absolute `--root /home/me/proj/memory` would send a teammate's agent to a folder their machine does not have.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

MCP_PROJECT = {"claude": ".mcp.json", "cursor": ".cursor/mcp.json", "codex": ".codex/config.toml"}
HOOK_PROJECT = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json", "cursor": ".cursor/hooks.json"}
NAMED = {"claude": "memory", "codex": "memory", "cursor": "${workspaceFolder}/memory"}


@pytest.fixture
def project(tmp_path) -> Path:
    """A project folder holding its memory root (project/memory)."""
    path = tmp_path / "proj"
    (path / "memory").mkdir(parents=True)
    return path


@pytest.fixture
def run(cli, home, tmp_path):
    """`memboard ARGS` with HOME at the fake home and MEMBOARD_ROOT at a root of neither the project nor the test."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def go(*args: str, env: dict | None = None):
        return cli(*args, env={"HOME": str(home), "MEMBOARD_ROOT": str(elsewhere), **(env or {})}, use_root=False)

    return go


def mcp_args(path: Path, tool: str) -> list[str]:
    """The memboard server entry's args in an MCP config file."""
    if tool == "codex":
        return tomllib.loads(path.read_text(encoding="utf-8"))["mcp_servers"]["memboard"]["args"]
    return json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["memboard"]["args"]


def hook_command(path: Path) -> str:
    """The one hook command a settings file holds (any tool's shape)."""
    hooks = json.loads(path.read_text(encoding="utf-8"))["hooks"]
    if "sessionStart" in hooks:
        return hooks["sessionStart"][0]["command"]
    return hooks["SessionStart"][0]["hooks"][0]["command"]


@pytest.mark.parametrize("tool", ["claude", "cursor", "codex"])
def test_a_project_mcp_file_names_its_root_relative_to_the_project_and_the_preview_says_so(
    run, project, tmp_path, tool
):
    res = run("install-mcp", tool, "--project", str(project), "--root", str(project / "memory"))
    assert res.code == 0, res.err
    path = project / MCP_PROJECT[tool]
    assert mcp_args(path, tool) == ["mcp", "--root", NAMED[tool]]
    assert str(tmp_path) not in path.read_text(encoding="utf-8")
    assert f"names the root as `--root {NAMED[tool]}`, relative to the project folder" in res.err


def test_the_global_root_before_the_command_is_placed_the_same_way(run, project, tmp_path):
    res = run("--root", str(project / "memory"), "install-mcp", "claude", "--project", str(project))
    assert res.code == 0, res.err
    assert mcp_args(project / ".mcp.json", "claude") == ["mcp", "--root", "memory"]


def test_the_project_folder_itself_as_root_is_named_dot(run, project):
    res = run("install-mcp", "codex", "--project", str(project / "memory"), "--root", str(project / "memory"))
    assert res.code == 0, res.err
    assert mcp_args(project / "memory" / ".codex" / "config.toml", "codex") == ["mcp", "--root", "."]


def test_a_user_mcp_file_keeps_the_absolute_root_and_says_so(run, home, project):
    res = run("install-mcp", "codex", "--root", str(project / "memory"))
    assert res.code == 0, res.err
    assert mcp_args(home / ".codex" / "config.toml", "codex")[-3:] == ["mcp", "--root", str(project / "memory")]
    assert f"names the root {project / 'memory'} by absolute path: a user's file stays on this machine" in res.err


@pytest.mark.parametrize("command", ["install-mcp", "install-hook"])
def test_a_root_outside_the_project_that_memboard_would_not_find_is_refused_with_nothing_written(
    run, project, tmp_path, command
):
    outside = tmp_path / "mine"
    outside.mkdir()
    res = run(command, "claude", "--project", str(project), "--root", str(outside))
    assert res.code == 1
    assert "is outside the project folder" in res.err and "nothing was written" in res.err
    assert res.err.count("\n") == 1
    assert not (project / ".mcp.json").exists() and not (project / ".claude").exists()


@pytest.mark.parametrize("command", ["install-mcp", "install-hook"])
def test_a_root_outside_the_project_that_memboard_finds_by_itself_is_left_out(run, project, tmp_path, command):
    mine = tmp_path / "mine"
    mine.mkdir()
    res = run(command, "claude", "--project", str(project), "--root", str(mine), env={"MEMBOARD_ROOT": str(mine)})
    assert res.code == 0, res.err
    assert "names no root" in res.err
    if command == "install-mcp":
        assert mcp_args(project / ".mcp.json", "claude") == ["mcp"]
    else:
        assert hook_command(project / ".claude" / "settings.json") == "memboard hook claude"


@pytest.mark.parametrize("tool", ["claude", "cursor", "codex"])
def test_a_project_hook_names_its_root_relative_to_the_project(run, project, tmp_path, tool):
    res = run("install-hook", tool, "--project", str(project), "--root", str(project / "memory"))
    assert res.code == 0, res.err
    path = project / HOOK_PROJECT[tool]
    assert hook_command(path) == f"memboard hook {tool} --root memory"
    assert str(tmp_path) not in path.read_text(encoding="utf-8")
    assert "names the root as `--root memory`, relative to the project folder" in res.err


def test_a_user_hook_keeps_the_absolute_root(run, home, project):
    res = run("install-hook", "codex", "--root", str(project / "memory"))
    assert res.code == 0, res.err
    assert hook_command(home / ".codex" / "hooks.json").endswith(f" hook codex --root {project / 'memory'}")
    assert "by absolute path: a user's file stays on this machine" in res.err


def test_the_hook_finds_a_relative_root_in_the_payload_s_project_folder(cli, project):
    # The command a project's file runs, started wherever the agent starts it: the payload names the project.
    payload = json.dumps({"session_id": "conv-1", "cwd": str(project), "hook_event_name": "SessionStart"})
    res = cli("hook", "claude", "--root", "memory", input=payload, use_root=False)
    assert res.code == 0, res.err
    rows = (project / "memory" / "index.md").read_text(encoding="utf-8").splitlines()[2:]
    assert len(rows) == 1 and "sessionStart, claude-agent" in rows[0]


def test_a_project_install_without_root_counts_the_project_s_memory_folder_not_this_folder_s(
    cli, home, tmp_path, monkeypatch
):
    # The agent starts a project's server in the project folder: its memory/ is the root the server finds there.
    here = tmp_path / "here"
    (here / "memory").mkdir(parents=True)
    bare = tmp_path / "bare"
    bare.mkdir()
    with_memory = tmp_path / "with"
    (with_memory / "memory").mkdir(parents=True)
    monkeypatch.chdir(here)
    env = {"HOME": str(home)}
    said = cli("install-mcp", "claude", "--project", str(bare), "--dry-run", env=env, use_root=False).err
    assert "no memory root is configured" in said and "or a memory/ folder in the project" in said
    said = cli("install-mcp", "claude", "--project", str(with_memory), "--dry-run", env=env, use_root=False).err
    assert "no memory root" not in said
