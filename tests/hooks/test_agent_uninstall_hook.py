"""`memboard uninstall-hook cursor|claude|codex`: removes exactly what install-hook added, with a preview and a backup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def run(cli, home):
    """Run `memboard install-hook|uninstall-hook ...` with HOME pointing at the fake home."""

    def go(*args):
        """One run."""
        return cli(*args, env={"HOME": str(home)}, use_root=False)

    return go


def backups(path: Path) -> list[Path]:
    """Backup files memboard left next to path."""
    return sorted(path.parent.glob(path.name + ".bak-*"))


OURS = "'/opt/My Drive/bin/memboard' hook {tool}"
# A hand-formatted file (4-space indent, one-line entries, a key after "hooks") with memboard's
# group last in SessionStart; KEEP is the same file without that group, byte for byte.
CLAUDE_STYLE_HEAD = """{
    "model": "opus",
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}],
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}"""
CLAUDE_STYLE_OURS = """,
            {
                "hooks": [
                    {"type": "command", "command": "%s", "timeout": 10}
                ]
            }"""
CLAUDE_STYLE_TAIL = """
        ]
    },
    "permissions": {"allow": ["Bash(git status)"]}
}
"""
FILES = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json", "cursor": ".cursor/hooks.json"}


def claude_style(tool: str) -> tuple[str, str]:
    """(file with memboard's group, the same file without it) for Claude Code or Codex."""
    ours = CLAUDE_STYLE_OURS.replace("%s", OURS.format(tool=tool).replace('"', '\\"'))
    return CLAUDE_STYLE_HEAD + ours + CLAUDE_STYLE_TAIL, CLAUDE_STYLE_HEAD + CLAUDE_STYLE_TAIL


def cursor_style() -> tuple[str, str]:
    """(file with memboard's entry in the middle, the same file without it) for Cursor."""
    head = '{\n  "version": 1,\n  "hooks": {\n    "sessionStart": [\n      {"command": "./hello.sh"},\n'
    ours = '      {"command": "' + OURS.format(tool="cursor") + '"},\n'
    tail = '      {"command": "memboard hook claude"}\n    ],\n    "afterFileEdit": [{"command": "./fmt.sh"}]\n  }\n}\n'
    return head + ours + tail, head + tail


@pytest.mark.parametrize("tool", ["claude", "codex", "cursor"])
def test_uninstall_removes_only_memboards_entry_and_keeps_the_formatting(run, home, tool):
    with_ours, without = cursor_style() if tool == "cursor" else claude_style(tool)
    path = home / FILES[tool]
    path.parent.mkdir()
    path.write_text(with_ours)
    res = run("uninstall-hook", tool)
    assert res.code == 0, res.err
    assert path.read_text() == without
    assert "\n--- a/" in res.out and "+++ b/" in res.out  # the diff was shown
    assert [line for line in res.out.splitlines() if line.startswith("-") and f"hook {tool}" in line]
    [backup] = backups(path)
    assert backup.read_text() == with_ours and "backup:" in res.out


@pytest.mark.parametrize("tool", ["claude", "codex", "cursor"])
def test_second_uninstall_has_nothing_to_remove(run, home, tool):
    with_ours, without = cursor_style() if tool == "cursor" else claude_style(tool)
    path = home / FILES[tool]
    path.parent.mkdir()
    path.write_text(with_ours)
    assert run("uninstall-hook", tool).code == 0
    again = run("uninstall-hook", tool)
    assert again.code == 0 and again.out.startswith("nothing to remove:")
    assert path.read_text() == without and len(backups(path)) == 1


@pytest.mark.parametrize("tool", ["claude", "codex", "cursor"])
def test_install_then_uninstall_leaves_no_file_when_install_created_it(run, home, tool):
    path = home / FILES[tool]
    assert run("install-hook", tool).code == 0 and path.exists()
    res = run("uninstall-hook", tool)
    assert res.code == 0 and "uninstalled: deleted" in res.out and "+++ /dev/null" in res.out
    assert not path.exists()
    assert run("uninstall-hook", tool).out.startswith("nothing to remove:")


@pytest.mark.parametrize("tool", ["claude", "codex"])
def test_install_then_uninstall_gives_back_the_installed_over_file(run, home, tool):
    path = home / FILES[tool]
    path.parent.mkdir()
    original = (
        json.dumps({"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}, indent=2)
        + "\n"
    )
    path.write_text(original)
    assert run("install-hook", tool).code == 0
    assert run("uninstall-hook", tool).code == 0
    assert path.read_text() == original


def test_dry_run_previews_and_writes_nothing(run, home):
    with_ours, _ = claude_style("codex")
    path = home / FILES["codex"]
    path.parent.mkdir()
    path.write_text(with_ours)
    res = run("uninstall-hook", "codex", "--dry-run")
    assert res.code == 0 and '-                    {"type": "command"' in res.out
    assert "dry run: nothing written" in res.err
    assert path.read_text() == with_ours and backups(path) == []


def test_an_entry_inside_someone_elses_group_goes_alone(run, home):
    path = home / FILES["claude"]
    path.parent.mkdir()
    group = {
        "matcher": "startup",
        "hooks": [
            {"type": "command", "command": "echo hi"},
            {"type": "command", "command": OURS.format(tool="claude")},
        ],
    }
    path.write_text(json.dumps({"hooks": {"SessionStart": [group]}}, indent=2))
    assert run("uninstall-hook", "claude").code == 0
    assert json.loads(path.read_text()) == {
        "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]}
    }


def test_project_file_and_other_tools_entries_stay(run, tmp_path):
    project = tmp_path / "proj"
    (project / ".cursor").mkdir(parents=True)
    path = project / ".cursor" / "hooks.json"
    path.write_text('{"version": 1, "hooks": {"sessionStart": [{"command": "memboard hook claude"}]}}')
    res = run("uninstall-hook", "cursor", "--project", str(project))
    assert res.code == 0 and res.out.startswith("nothing to remove:")
    assert path.read_text() == '{"version": 1, "hooks": {"sessionStart": [{"command": "memboard hook claude"}]}}'


def test_broken_json_is_refused_and_nothing_is_written(run, home):
    path = home / FILES["claude"]
    path.parent.mkdir()
    path.write_text('{"hooks": [')
    res = run("uninstall-hook", "claude")
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1 and "is not valid JSON" in res.err
    assert path.read_text() == '{"hooks": [' and backups(path) == []


def test_missing_file_has_nothing_to_remove(run, home):
    res = run("uninstall-hook", "cursor")
    assert res.code == 0 and res.out.startswith("nothing to remove:")
    assert not (home / ".cursor").exists()


def test_a_file_changed_after_the_preview_is_left_alone(tmp_path):
    from memboard.cli import install as install_hook
    from memboard.core.errors import MemboardError

    with_ours, _ = claude_style("claude")
    path = tmp_path / FILES["claude"]
    path.parent.mkdir()
    path.write_text(with_ours)
    _, before, after = install_hook.plan_uninstall("claude", str(tmp_path))
    path.write_text(with_ours.replace("opus", "sonnet"))  # the user saves the file meanwhile
    with pytest.raises(MemboardError, match="changed while memboard was writing it; nothing was written"):
        install_hook.write_config(path, before, after)
    assert path.read_text() == with_ours.replace("opus", "sonnet") and backups(path) == []
