"""The command line's conventions (issue 28 §6): --json wherever a command prints something, errors under --json
as one JSON object on stderr, and --root accepted after the command as before it, everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def run(cli, tmp_path):
    """`memboard ARGS` with HOME at a fake home (no --root added)."""
    home = tmp_path / "home"
    home.mkdir()
    return lambda *args: cli(*args, env={"HOME": str(home)}, use_root=False)


def test_config_set_takes_root_after_the_command(cli, root):
    res = cli("config", "set", "theme", "nord", "--dry-run", use_root=False)
    assert res.code == 0
    after = cli("config", "set", "theme", "nord", "--dry-run", "--root", str(root), use_root=False)
    assert after.code == 0 and after.out == res.out


@pytest.mark.parametrize(
    "argv",
    [
        ["config", "path"],
        ["config", "list"],
        ["note", "key", "--scope", "global", "--type", "fact", "--title", "x"],
        ["space", "list"],
        ["hierarchy", "show"],
        ["lookup", "x"],
        ["completion", "bash"],
        ["list"],
    ],
)
def test_root_is_accepted_after_every_command_as_before_it(cli, root, argv):
    before = cli("--root", str(root), *argv, use_root=False)
    after = cli(*argv, "--root", str(root), use_root=False)
    assert "unrecognized arguments" not in after.err
    assert (after.code, after.out) == (before.code, before.out)


def test_config_and_note_key_print_json(run, root):
    assert json.loads(run("config", "path", "--json").out)["path"].endswith("config.toml")
    shown = json.loads(run("config", "show", "--json").out)
    assert shown["exists"] is False and shown["settings"] == {}
    set_out = json.loads(run("config", "set", "stale_days", "9", "--json").out)
    assert set_out["key"] == "stale_days" and set_out["value"] == 9 and set_out["changed"] is True
    assert json.loads(run("config", "get", "stale_days", "--json").out) == {
        "key": "stale_days",
        "value": 9,
        "default": False,
    }
    listed = {item["key"]: item for item in json.loads(run("config", "list", "--json").out)}
    assert listed["stale_days"]["set"] is True and listed["theme"]["set"] is False
    key = run("note", "key", "--scope", "global", "--type", "fact", "--title", "Hello world", "--json")
    assert json.loads(key.out) == {"topic_key": "global/fact/hello-world"}


def test_install_commands_print_json(run, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    dry = json.loads(run("install-mcp", "claude", "--project", str(project), "--dry-run", "--json").out)
    assert dry["changed"] is True and dry["dry_run"] is True and dry["patch"].startswith("diff --git")
    assert not (project / ".mcp.json").exists()
    done = json.loads(run("install-mcp", "claude", "--project", str(project), "--json").out)
    assert done["file"] == str(project / ".mcp.json") and done["changed"] is True and done["backup"] is None
    again = json.loads(run("install-mcp", "claude", "--project", str(project), "--json").out)
    assert again["changed"] is False and again["message"].startswith("nothing to change")
    gone = json.loads(run("uninstall-mcp", "claude", "--project", str(project), "--json").out)
    assert gone["deleted"] is True and not (project / ".mcp.json").exists()
    hook = json.loads(run("install-hook", "claude", "--project", str(project), "--json").out)
    assert hook["changed"] is True and Path(hook["file"]).is_file()


@pytest.mark.parametrize(
    ("argv", "code", "says"),
    [
        (["show", "2026-01-01-0000-nobody", "--json"], 1, "2026-01-01-0000-nobody"),
        (["list", "--status", "bogus", "--json"], 2, "invalid choice"),
        (["config", "get", "nokey", "--json"], 2, "unknown config key"),
    ],
)
def test_errors_under_json_are_one_json_object_on_stderr_with_the_same_message(cli, argv, code, says):
    plain = cli(*[a for a in argv if a != "--json"])
    res = cli(*argv)
    assert res.code == code == plain.code and res.out == ""
    assert res.err.count("\n") == 1
    error = json.loads(res.err)
    assert error == {"error": plain.err.strip(), "exit_code": code} and says in error["error"]
