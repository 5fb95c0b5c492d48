"""`memboard install-hook cursor|claude|codex`: merged into existing configs, idempotent, previewed, backed up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memboard.cli.install import hook_command, is_ours
from tests.support.hooks import claude_payload, encoded


@pytest.fixture
def install(cli, home):
    """Run `memboard install-hook ...` with HOME pointing at the fake home."""

    def run(*args, env=None):
        """One install-hook run."""
        return cli("install-hook", *args, env={"HOME": str(home), **(env or {})}, use_root=False)

    return run


def backups(path: Path) -> list[Path]:
    """Backup files memboard left next to path."""
    return sorted(path.parent.glob(path.name + ".bak-*"))


EXISTING_CLAUDE = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
    },
}


def test_claude_user_install_merges_without_disturbing_other_hooks(install, home):
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    original = json.dumps(EXISTING_CLAUDE, indent=4).encode()
    path.write_bytes(original)
    res = install("claude", "--user")
    assert res.code == 0, res.err
    assert "+++ b/" in res.out and "hook claude" in res.out  # the diff was shown
    data = json.loads(path.read_text())
    assert data["model"] == "opus" and data["permissions"] == EXISTING_CLAUDE["permissions"]
    assert data["hooks"]["PreToolUse"] == EXISTING_CLAUDE["hooks"]["PreToolUse"]
    groups = data["hooks"]["SessionStart"]
    assert groups[0] == EXISTING_CLAUDE["hooks"]["SessionStart"][0]
    assert len(groups) == 2
    entry = groups[1]["hooks"][0]
    assert entry["type"] == "command" and entry["command"].endswith(" hook claude") and entry["timeout"] == 10
    assert "    " in path.read_text()  # the file's own 4-space indentation is kept
    [backup] = backups(path)
    assert backup.read_bytes() == original
    assert "backup:" in res.out


def test_second_install_changes_nothing(install, home):
    assert install("claude").code == 0
    path = home / ".claude" / "settings.json"
    before = path.read_bytes()
    again = install("claude")
    assert again.code == 0
    assert again.out.startswith("nothing to change:")
    assert path.read_bytes() == before
    assert backups(path) == []  # the first run created the file: nothing to back up, ever


def test_dry_run_previews_and_writes_nothing(install, home):
    path = home / ".codex" / "hooks.json"
    res = install("codex", "--dry-run")
    assert res.code == 0
    assert "--- /dev/null" in res.out and '"SessionStart"' in res.out and "hook codex" in res.out
    assert "dry run: nothing written" in res.err
    assert not path.exists()


def test_broken_json_is_refused_in_one_line_and_nothing_is_written(install, home):
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {"SessionStart": [ }')
    res = install("claude")
    assert res.code == 1
    assert len(res.err.strip().splitlines()) == 1 and "is not valid JSON" in res.err
    assert path.read_text() == '{"hooks": {"SessionStart": [ }'
    assert backups(path) == [] and res.out == ""


@pytest.mark.parametrize(
    "content, what",
    [
        ('["a list"]', "expected an object"),
        ('{"hooks": []}', "hooks is not an object"),
        ('{"hooks": {"SessionStart": {}}}', "is not a list"),
    ],
)
def test_unexpected_shapes_are_refused(install, home, content, what):
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(content)
    res = install("claude")
    assert res.code == 1 and what in res.err
    assert path.read_text() == content


def test_cursor_project_install_keeps_version_and_other_hooks(install, tmp_path):
    project = tmp_path / "my project"
    (project / ".cursor").mkdir(parents=True)
    path = project / ".cursor" / "hooks.json"
    existing = {
        "version": 1,
        "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}], "sessionStart": [{"command": "./hello.sh"}]},
    }
    path.write_text(json.dumps(existing, indent=2) + "\n")
    res = install("cursor", "--project", str(project))
    assert res.code == 0, res.err
    data = json.loads(path.read_text())
    assert data["version"] == 1
    assert data["hooks"]["afterFileEdit"] == [{"command": "./fmt.sh"}]
    assert data["hooks"]["sessionStart"][0] == {"command": "./hello.sh"}
    assert data["hooks"]["sessionStart"][1]["command"].endswith(" hook cursor")
    assert len(backups(path)) == 1
    assert install("cursor", "--project", str(project)).out.startswith("nothing to change:")


def test_cursor_new_file_gets_version_1(install, home):
    assert install("cursor").code == 0
    data = json.loads((home / ".cursor" / "hooks.json").read_text())
    assert list(data) == ["version", "hooks"] and data["version"] == 1
    assert [e["command"].split()[-2:] for e in data["hooks"]["sessionStart"]] == [["hook", "cursor"]]


def test_an_old_memboard_entry_is_updated_in_place_not_duplicated(install, home):
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    old = {
        "hooks": {
            "SessionStart": [
                {"hooks": [{"type": "command", "command": "/old/venv/bin/memboard hook claude", "timeout": 5}]}
            ]
        }
    }
    path.write_text(json.dumps(old))
    res = install("claude")
    assert res.code == 0
    groups = json.loads(path.read_text())["hooks"]["SessionStart"]
    assert len(groups) == 1 and len(groups[0]["hooks"]) == 1
    assert groups[0]["hooks"][0]["command"] != "/old/venv/bin/memboard hook claude"
    assert groups[0]["hooks"][0]["timeout"] == 5


def test_user_and_project_together_is_a_usage_error(install, tmp_path):
    res = install("claude", "--user", "--project", str(tmp_path))
    assert res.code == 2


def test_missing_project_folder_is_a_usage_error(install, tmp_path):
    res = install("claude", "--project", str(tmp_path / "nope"))
    assert res.code == 2 and "does not exist" in res.err
    assert not (tmp_path / "nope").exists()


def test_every_form_install_ever_wrote_is_recognised_as_ours():
    assert hook_command("cursor", "memboard") == "memboard hook cursor"
    assert is_ours(r'"G:\My Drive\venv\Scripts\memboard.exe" hook cursor', "cursor")  # before PowerShell forms
    assert is_ours(r"& 'G:\My Drive\venv\Scripts\memboard.exe' hook claude", "claude")
    assert is_ours(r"C:\Users\JANEDO~1\venv\Scripts\memboard.exe hook codex", "codex")
    assert is_ours("'/home/me/My Drive/bin/memboard' hook claude --agent team-agent", "claude")
    assert is_ours("/usr/bin/python3 -m memboard hook claude", "claude")
    assert is_ours(r"C:\Tools\MEMBOARD.EXE hook Cursor", "cursor")
    assert not is_ours("memboard hook claude", "cursor") and not is_ours("echo memboard", "claude")


@pytest.mark.skipif(os.name == "nt", reason="runs the command through sh")
def test_installed_command_from_a_path_with_spaces_runs_the_hook(tmp_path, home, root):
    """A memboard script living under `My Drive` is quoted, and the written command really works."""
    bindir = tmp_path / "My Drive" / "bin"
    bindir.mkdir(parents=True)
    script = bindir / "memboard"
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom memboard.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)
    env = dict(os.environ, HOME=str(home), MEMBOARD_ROOT=str(root))
    res = subprocess.run([str(script), "install-hook", "claude"], capture_output=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert command == f"'{script}' hook claude"
    ran = subprocess.run(
        ["sh", "-c", command], input=encoded(claude_payload()), capture_output=True, env=env, timeout=60
    )
    assert ran.returncode == 0
    assert "Your Memory Session ID is:" in json.loads(ran.stdout)["hookSpecificOutput"]["additionalContext"]
