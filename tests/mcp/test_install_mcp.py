"""`memboard install-mcp|uninstall-mcp claude|cursor|codex`: added beside every other entry, previewed, backed up,
idempotent, and removed again to the very bytes the file had."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tomllib
from pathlib import Path

import pytest

from tests.mcp.conftest import connect_in, server_env

CLAUDE_USER = (
    json.dumps(
        {
            "numStartups": 12,
            "projects": {"/home/u/proj": {"mcpServers": {}, "allowedTools": []}},
            "mcpServers": {
                "github": {"type": "stdio", "command": "npx", "args": ["-y", "@mcp/github"], "env": {"GH": "$GH"}}
            },
            "userID": "abc",
        },
        indent=2,
    )
    + "\n"
)
CURSOR_USER = (
    '{\n    "mcpServers": {\n        "playwright": {"command": "npx", "args": ["@playwright/mcp@latest"]}\n    }\n}\n'
)
CODEX_USER = (
    "# Codex settings\n"
    'model = "gpt-5"  # the default\n'
    "\n"
    "[mcp_servers.docs]\n"
    'command = "docs-mcp"\n'
    "args = []  # none needed\n"
    "\n"
    "# profiles below\n"
    "[profiles.fast]\n"
    'model = "gpt-5-mini"\n'
)
USER_FILES = {
    "claude": (".claude.json", CLAUDE_USER),
    "cursor": (".cursor/mcp.json", CURSOR_USER),
    "codex": (".codex/config.toml", CODEX_USER),
}
PROJECT_FILES = {"claude": ".mcp.json", "cursor": ".cursor/mcp.json", "codex": ".codex/config.toml"}


@pytest.fixture
def run(cli, home):
    """`memboard ARGS` with HOME pointing at the fake home."""
    return lambda *args: cli(*args, env={"HOME": str(home)}, use_root=False)


def servers(path: Path, tool: str) -> dict:
    """The MCP servers the agent reads from its file."""
    if tool == "codex":
        return tomllib.loads(path.read_text(encoding="utf-8"))["mcp_servers"]
    return json.loads(path.read_text(encoding="utf-8"))["mcpServers"]


def backups(path: Path) -> list[Path]:
    """Backups memboard left beside path."""
    return sorted(path.parent.glob(path.name + ".bak-*"))


@pytest.mark.parametrize("tool", ["claude", "cursor", "codex"])
def test_install_adds_one_entry_beside_the_others_and_uninstall_gives_back_the_same_bytes(run, home, tool):
    name, text = USER_FILES[tool]
    path = home / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    done = run("install-mcp", tool)
    assert done.code == 0, done.err
    assert "+++ b/" in done.out and "backup:" in done.out
    found = servers(path, tool)
    entry = found.pop("memboard")
    assert entry["args"][-1] == "mcp" and Path(entry["command"]).is_absolute()
    assert entry.get("type") == ("stdio" if tool == "claude" else None)
    assert found == servers_before(text, tool)
    after = path.read_text(encoding="utf-8")
    assert after.startswith(text[: text.index("mcp")])  # what comes before the servers is untouched
    assert [b.read_text(encoding="utf-8") for b in backups(path)] == [text]

    again = run("install-mcp", tool)
    assert again.code == 0 and again.out.startswith("nothing to change:") and path.read_text(encoding="utf-8") == after

    removed = run("uninstall-mcp", tool)
    assert removed.code == 0, removed.err
    assert "--- a/" in removed.out and "removed the memboard server" in removed.out
    assert path.read_bytes() == text.encode("utf-8")
    assert run("uninstall-mcp", tool).out.startswith("nothing to remove:")


def servers_before(text: str, tool: str) -> dict:
    """The servers of the original file."""
    return tomllib.loads(text)["mcp_servers"] if tool == "codex" else json.loads(text)["mcpServers"]


@pytest.mark.parametrize("tool", ["claude", "cursor", "codex"])
def test_a_project_file_is_created_and_deleted_again(run, tmp_path, tool):
    project = tmp_path / "proj"
    project.mkdir()
    path = project / PROJECT_FILES[tool]
    done = run("install-mcp", tool, "--project", str(project))
    assert done.code == 0, done.err
    assert list(servers(path, tool)) == ["memboard"]
    gone = run("uninstall-mcp", tool, "--project", str(project))
    assert gone.code == 0 and "deleted it" in gone.out and not path.exists()


@pytest.mark.parametrize("tool", ["claude", "cursor", "codex"])
def test_dry_runs_preview_and_write_nothing(run, home, tool):
    name, text = USER_FILES[tool]
    path = home / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    preview = run("install-mcp", tool, "--dry-run")
    assert preview.code == 0 and "+++ b/" in preview.out and "dry run: nothing written" in preview.err
    assert path.read_text(encoding="utf-8") == text and backups(path) == []
    assert run("install-mcp", tool).code == 0
    installed = path.read_bytes()
    preview = run("uninstall-mcp", tool, "--dry-run")
    assert preview.code == 0 and "--- a/" in preview.out and path.read_bytes() == installed


def test_an_existing_entry_is_brought_up_to_date_keeping_its_other_keys(run, home):
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"mcpServers": {"memboard": {"command": "/old/memboard", "args": ["mcp"], "env": {"A": "1"}}}}\n')
    assert run("install-mcp", "cursor").code == 0
    entry = servers(path, "cursor")["memboard"]
    assert entry["env"] == {"A": "1"} and entry["command"] != "/old/memboard"
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text(
        '[mcp_servers.memboard]\n# mine\ncommand = "/old/memboard"  # old path\nargs = ["mcp"]\nenv = { A = "1" }\n'
    )
    assert run("install-mcp", "codex").code == 0
    text = codex.read_text()
    assert "# mine\n" in text and "# old path" in text and servers(codex, "codex")["memboard"]["env"] == {"A": "1"}
    assert run("uninstall-mcp", "codex").code == 0
    assert codex.read_text() == "# mine\n"  # the table goes, the line someone wrote in it stays


def test_crlf_and_a_byte_order_mark_survive_install_and_uninstall(run, tmp_path):
    project = tmp_path / "proj"
    (project / ".cursor").mkdir(parents=True)
    path = project / ".cursor" / "mcp.json"
    original = b'\xef\xbb\xbf{\r\n\t"mcpServers": {\r\n\t\t"x": {"command": "x"}\r\n\t}\r\n}\r\n'
    path.write_bytes(original)
    assert run("install-mcp", "cursor", "--project", str(project)).code == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\n" not in data.replace(b"\r\n", b"") and b'\t\t"memboard": {' in data
    assert run("uninstall-mcp", "cursor", "--project", str(project)).code == 0
    assert path.read_bytes() == original


@pytest.mark.parametrize(
    ("tool", "text", "says"),
    [
        (
            "claude",
            '{"mcpServers": {"a": 1}',
            "is not valid JSON or JSONC (line 1, column 24: Expecting ',' delimiter)",
        ),
        ("cursor", '{"mcpServers": ["memboard"]}', "mcpServers is not an object"),
        ("codex", "[mcp_servers\ncommand = 1\n", "is not valid TOML"),
        ("codex", 'mcp_servers = { other = { command = "x" } }\n', "cannot add mcp_servers.memboard"),
    ],
)
def test_a_file_memboard_cannot_read_or_extend_is_refused_and_left_alone(run, tmp_path, tool, text, says):
    project = tmp_path / "proj"
    path = project / PROJECT_FILES[tool]
    path.parent.mkdir(parents=True)
    path.write_text(text)
    done = run("install-mcp", tool, "--project", str(project))
    assert done.code == 1 and says in done.err and done.err.count("\n") == 1
    assert path.read_text() == text and backups(path) == []


def test_install_with_root_writes_an_entry_that_starts_a_working_server(run, tmp_path, root):
    # The project holds the root (tmp_path/memory): its shared file names it relative to the project folder,
    # where the agent starts a project's server.
    project = tmp_path
    assert run("install-mcp", "claude", "--project", str(project), "--root", str(root)).code == 0
    entry = servers(project / ".mcp.json", "claude")["memboard"]
    assert entry["args"][-2:] == ["--root", "memory"]
    missing = run("install-mcp", "claude", "--project", str(project), "--root", str(tmp_path / "nowhere"))
    assert missing.code == 2 and "does not exist" in missing.err

    async def handshake() -> list[str]:
        # A project's file runs `memboard` from PATH: the PATH of a user who installed this memboard.
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        env = server_env(tmp_path / "state", PATH=path)
        async with connect_in([entry["command"], *entry["args"]], env, project) as session:
            return [tool.name for tool in (await session.list_tools()).tools]

    assert "session_update" in asyncio.run(handshake())
