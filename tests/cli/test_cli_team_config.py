"""install-hook and install-mcp write files a team can commit and keep a user's private files private.

A project's file (`.mcp.json`, `.claude/settings.json`, `.cursor/...`, `.codex/...`) runs `memboard`
from PATH unless --command says otherwise; a user's file runs this memboard by absolute path; the
preview says which. Backups keep the original's permission bits and are one per file; a user's
file memboard creates is 0600.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path

import pytest

POSIX = pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
HOOK_FILES = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json", "cursor": ".cursor/hooks.json"}
MCP_PROJECT = {"claude": ".mcp.json", "cursor": ".cursor/mcp.json", "codex": ".codex/config.toml"}
MCP_USER = {"claude": ".claude.json", "cursor": ".cursor/mcp.json", "codex": ".codex/config.toml"}


@pytest.fixture
def project(tmp_path) -> Path:
    """A project folder."""
    path = tmp_path / "proj"
    path.mkdir()
    return path


@pytest.fixture
def run(cli, home):
    """`memboard ARGS` with HOME at the fake home."""
    return lambda *args: cli(*args, env={"HOME": str(home)}, use_root=False)


def hook_commands(path: Path) -> list[str]:
    """The hook commands a settings file holds (any tool's shape)."""
    hooks = json.loads(path.read_text(encoding="utf-8"))["hooks"]
    if "sessionStart" in hooks:
        return [e["command"] for e in hooks["sessionStart"]]
    return [e["command"] for group in hooks["SessionStart"] for e in group["hooks"]]


def mcp_entry(path: Path, tool: str) -> dict:
    """The memboard server entry of an MCP config file."""
    if tool == "codex":
        return tomllib.loads(path.read_text(encoding="utf-8"))["mcp_servers"]["memboard"]
    return json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["memboard"]


def mode(path: Path) -> int:
    """A file's permission bits."""
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("tool", ["claude", "codex", "cursor"])
def test_a_project_hook_runs_memboard_from_path_and_the_preview_says_so(run, project, tool):
    res = run("install-hook", tool, "--project", str(project))
    assert res.code == 0, res.err
    assert hook_commands(project / HOOK_FILES[tool]) == [f"memboard hook {tool}"]
    assert "runs `memboard` from PATH: a project's file is shared" in res.err


@pytest.mark.parametrize("tool", ["claude", "codex", "cursor"])
def test_a_project_mcp_entry_runs_memboard_from_path_and_the_preview_says_so(run, project, tool):
    res = run("install-mcp", tool, "--project", str(project), "--dry-run")
    assert res.code == 0, res.err
    assert "runs `memboard` from PATH: a project's file is shared" in res.err
    assert not (project / MCP_PROJECT[tool]).exists()
    assert run("install-mcp", tool, "--project", str(project)).code == 0
    entry = mcp_entry(project / MCP_PROJECT[tool], tool)
    assert (entry["command"], entry["args"]) == ("memboard", ["mcp"])


def test_a_user_file_keeps_this_memboard_by_absolute_path_and_says_why(run, home):
    res = run("install-mcp", "cursor")
    assert res.code == 0, res.err
    assert Path(mcp_entry(home / MCP_USER["cursor"], "cursor")["command"]).is_absolute()
    assert "by absolute path: a user's file stays on this machine" in res.err
    res = run("install-hook", "claude")
    assert Path(hook_commands(home / HOOK_FILES["claude"])[0].split()[0].strip("'")).is_absolute()
    assert "by absolute path" in res.err


@pytest.mark.parametrize("tool", ["claude", "codex"])
def test_command_chooses_uvx_or_a_path_for_the_mcp_entry(run, project, home, tool):
    assert run("install-mcp", tool, "--project", str(project), "--command", "uvx memboard").code == 0
    entry = mcp_entry(project / MCP_PROJECT[tool], tool)
    assert (entry["command"], entry["args"]) == ("uvx", ["memboard", "mcp"])
    tool_path = home / "my tools" / "memboard"
    tool_path.parent.mkdir()
    tool_path.write_text("#!/bin/sh\n")
    res = run("install-mcp", tool, "--project", str(project), "--command", str(tool_path))
    assert res.code == 0 and "(--command)" in res.err
    entry = mcp_entry(project / MCP_PROJECT[tool], tool)
    assert (entry["command"], entry["args"]) == (str(tool_path), ["mcp"])
    assert run("install-hook", tool, "--project", str(project), "--command", "uvx memboard").code == 0
    assert hook_commands(project / HOOK_FILES[tool]) == [f"uvx memboard hook {tool}"]


def test_an_empty_command_is_a_usage_error(run, project):
    res = run("install-mcp", "claude", "--project", str(project), "--command", " ")
    assert res.code == 2 and "--command must not be empty" in res.err
    assert not (project / ".mcp.json").exists()


@POSIX
@pytest.mark.parametrize("tool", ["claude", "cursor", "codex"])
def test_a_new_user_file_is_0600_and_a_new_project_file_follows_the_umask(run, home, project, tool):
    assert run("install-mcp", tool).code == 0
    assert mode(home / MCP_USER[tool]) == 0o600
    assert run("install-hook", tool).code == 0
    assert mode(home / HOOK_FILES[tool]) == 0o600
    old = os.umask(0o022)
    try:
        assert run("install-mcp", tool, "--project", str(project)).code == 0
    finally:
        os.umask(old)
    assert mode(project / MCP_PROJECT[tool]) == 0o644


@POSIX
def test_the_backup_of_a_private_file_is_as_private_and_there_is_one_per_file(run, home):
    path = home / ".claude.json"
    path.write_text('{"userID": "abc", "mcpServers": {}}\n')
    path.chmod(0o600)
    assert run("install-mcp", "claude").code == 0
    assert mode(path) == 0o600
    [backup] = sorted(home.glob(".claude.json.bak*"))
    assert backup.name == ".claude.json.bak-memboard" and mode(backup) == 0o600
    assert backup.read_text() == '{"userID": "abc", "mcpServers": {}}\n'
    after_install = path.read_text()
    for _ in range(3):
        assert run("uninstall-mcp", "claude").code == 0
        assert run("install-mcp", "claude").code == 0
    assert sorted(home.glob(".claude.json.bak*")) == [backup]  # replaced, never piled up
    assert backup.read_text() != after_install and mode(backup) == 0o600


@POSIX
def test_a_backup_an_older_write_left_readable_gets_the_original_mode_again(run, home):
    path = home / ".claude.json"
    path.write_text("{}\n")
    path.chmod(0o600)
    stale = home / ".claude.json.bak-memboard"
    stale.write_text("old")
    stale.chmod(0o644)
    assert run("install-mcp", "claude").code == 0
    assert stale.read_text() == "{}\n" and mode(stale) == 0o600


CURSOR_JSONC = """// Cursor's MCP servers (this file is shared: see docs/agents.md)
{
  "mcpServers": {
    /* the browser tools */
    "playwright": {"command": "npx", "args": ["@playwright/mcp@latest"]}, // pinned later
  },
}
"""
CLAUDE_JSONC = """{
  // team settings
  "model": "opus", /* keep */
  "hooks": {
    "SessionStart": [
      {"hooks": [{"type": "command", "command": "echo hi"}]}, // greet
    ],
  },
}
"""


def test_a_jsonc_mcp_file_gets_the_entry_and_keeps_every_comment_and_uninstall_restores_its_bytes(run, project):
    path = project / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text(CURSOR_JSONC)
    res = run("install-mcp", "cursor", "--project", str(project))
    assert res.code == 0, res.err
    text = path.read_text()
    for comment in ("// Cursor's MCP servers", "/* the browser tools */", "// pinned later"):
        assert comment in text
    assert mcp_entry_jsonc(path)["command"] == "memboard"
    assert run("install-mcp", "cursor", "--project", str(project)).out.startswith("nothing to change:")
    assert run("uninstall-mcp", "cursor", "--project", str(project)).code == 0
    assert path.read_text() == CURSOR_JSONC


def test_a_jsonc_hook_file_gets_the_hook_and_keeps_every_comment_and_uninstall_restores_its_bytes(run, project):
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(CLAUDE_JSONC)
    res = run("install-hook", "claude", "--project", str(project))
    assert res.code == 0, res.err
    text = path.read_text()
    assert text.startswith('{\n  // team settings\n  "model": "opus", /* keep */\n') and "// greet" in text
    assert "memboard hook claude" in text
    assert run("install-hook", "claude", "--project", str(project)).out.startswith("nothing to change:")
    assert run("uninstall-hook", "claude", "--project", str(project)).code == 0
    assert path.read_text() == CLAUDE_JSONC


def test_a_comment_inside_what_memboard_must_replace_is_refused_in_one_line_with_nothing_written(run, project):
    path = project / ".mcp.json"
    text = '{"mcpServers": {"memboard": {"command": "old" /* mine */}}}\n'
    path.write_text(text)
    res = run("install-mcp", "claude", "--project", str(project))
    assert res.code == 1 and res.err.count("\n") == 1 and "comments must go" in res.err
    assert path.read_text() == text and list(project.glob(".mcp.json.bak*")) == []


def test_broken_json_is_refused_with_where_and_what(run, project):
    path = project / ".mcp.json"
    path.write_text('{\n  "mcpServers": {"a": 1\n')
    res = run("install-mcp", "claude", "--project", str(project))
    assert res.code == 1 and res.err.count("\n") == 1
    assert "is not valid JSON or JSONC (line 3, column 1: Expecting ',' delimiter); fix it there first" in res.err


def mcp_entry_jsonc(path: Path) -> dict:
    """The memboard entry of a JSONC MCP file."""
    from memboard.cli import jsonedit  # lazy: only these tests read JSONC

    loaded = jsonedit.loads(path.read_text())
    assert isinstance(loaded, dict)
    return loaded["mcpServers"]["memboard"]


def test_a_comment_in_a_file_memboard_empties_keeps_the_file_and_the_comment(run, project):
    path = project / ".mcp.json"
    text = '{\n  // servers go here\n  "mcpServers": {\n    /* none yet */\n  }\n}\n'
    path.write_text(text)
    assert run("install-mcp", "claude", "--project", str(project)).code == 0
    assert "/* none yet */" in path.read_text()
    assert run("uninstall-mcp", "claude", "--project", str(project)).code == 0
    left = path.read_text()
    assert "// servers go here" in left and "/* none yet */" in left
    assert mcp_jsonc_value(path) in ({}, {"mcpServers": {}})


def test_uninstall_of_a_hook_file_left_with_only_a_comment_keeps_it(run, project):
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{\n  // team settings\n}\n")
    assert run("install-hook", "claude", "--project", str(project)).code == 0
    assert run("uninstall-hook", "claude", "--project", str(project)).code == 0
    assert path.read_text() == "{\n  // team settings\n}\n"


def mcp_jsonc_value(path: Path) -> object:
    """The whole value of a JSONC file."""
    from memboard.cli import jsonedit  # lazy: only these tests read JSONC

    return jsonedit.loads(path.read_text())
