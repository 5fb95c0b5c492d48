"""Config files as trees: `config set`, install-hook, install-mcp and their uninstalls write through the engine,
and their --dry-run prints the exact patch, writes nothing, and `git apply` of it writes what the real run does."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from memboard.core.errors import MemboardError
from memboard.core.files import lock
from memboard.core.files.filetree import FileTree, write_edit
from memboard.core.files.trees import AGENT_CONFIG, USER_CONFIG

CLAUDE_SETTINGS = {"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}]}}
CODEX = '# my codex settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other"\n'


def _files(top: Path) -> dict[str, bytes]:
    """Every file under top, by path relative to it, with its bytes."""
    return {p.relative_to(top).as_posix(): p.read_bytes() for p in sorted(top.rglob("*")) if p.is_file()}


def _restore(top: Path, files: dict[str, bytes]) -> None:
    """Put top back to exactly these files."""
    for p in sorted(top.rglob("*"), reverse=True):
        if p.is_file():
            p.unlink()
    for rel, data in files.items():
        (top / rel).parent.mkdir(parents=True, exist_ok=True)
        (top / rel).write_bytes(data)


def _git_apply(patch: str) -> None:
    """Replay a patch that names files by absolute path without the leading `/`."""
    subprocess.run(["git", "apply", "--unsafe-paths", "-"], input=patch.encode(), cwd="/", check=True)


SEEDS = {
    "config set": ("config.toml", b"# my settings\nstale_days = 3\n"),
    "install-hook": ("home/.claude/settings.json", json.dumps(CLAUDE_SETTINGS, indent=2).encode() + b"\n"),
    "install-mcp": ("home/.codex/config.toml", CODEX.encode()),
    "install-mcp new file": ("home/.keep", b""),
}


@pytest.mark.parametrize(
    ("seed", "argv", "target"),
    [
        ("config set", ["config", "set", "stale_days", "9"], "config.toml"),
        ("config set", ["config", "set", "agent_name", "review-bot"], "config.toml"),
        ("install-hook", ["install-hook", "claude", "--user"], "home/.claude/settings.json"),
        ("install-mcp", ["install-mcp", "codex", "--user"], "home/.codex/config.toml"),
        ("install-mcp new file", ["install-mcp", "cursor", "--user"], "home/.cursor/mcp.json"),
    ],
)
def test_a_dry_run_writes_nothing_and_its_patch_replays_what_the_run_writes(cli, tmp_path, seed, argv, target):
    top = tmp_path / "top"
    rel, data = SEEDS[seed]
    (top / rel).parent.mkdir(parents=True)
    (top / rel).write_bytes(data)
    env = {"HOME": str(top / "home"), "MEMBOARD_CONFIG": str(top / "config.toml")}
    before = _files(top)
    dry = cli(*argv, "--dry-run", env=env, use_root=False)
    assert dry.code == 0 and "dry run: nothing written" in dry.err, dry.err
    assert _files(top) == before  # nothing written
    assert dry.out.startswith("diff --git a/") and str(top / target).lstrip("/") in dry.out
    _git_apply(dry.out)
    replayed = _files(top)
    _restore(top, before)
    real = cli(*argv, env=env, use_root=False)
    assert real.code == 0, real.err
    written = {k: v for k, v in _files(top).items() if ".bak-" not in k}
    assert written == replayed and written != before


@pytest.mark.parametrize(
    ("install", "uninstall", "target"),
    [
        (["install-hook", "claude", "--user"], ["uninstall-hook", "claude", "--user"], "home/.claude/settings.json"),
        (["install-mcp", "codex", "--user"], ["uninstall-mcp", "codex", "--user"], "home/.codex/config.toml"),
        (["install-mcp", "cursor", "--user"], ["uninstall-mcp", "cursor", "--user"], "home/.cursor/mcp.json"),
    ],
)
def test_an_uninstall_dry_run_replays_too_deleted_file_included(cli, tmp_path, install, uninstall, target):
    top = tmp_path / "top"
    (top / "home").mkdir(parents=True)
    env = {"HOME": str(top / "home"), "MEMBOARD_CONFIG": str(top / "config.toml")}
    if "codex" in install:
        (top / target).parent.mkdir(parents=True)
        (top / target).write_text(CODEX)
    assert cli(*install, env=env, use_root=False).code == 0
    for backup in (top / target).parent.glob("*.bak-*"):
        backup.unlink()
    before = _files(top)
    dry = cli(*uninstall, "--dry-run", env=env, use_root=False)
    assert dry.code == 0 and _files(top) == before
    _git_apply(dry.out)
    replayed = _files(top)
    _restore(top, before)
    assert cli(*uninstall, env=env, use_root=False).code == 0
    written = {k: v for k, v in _files(top).items() if ".bak-" not in k}
    assert written == replayed and written != before
    if "cursor" in install:
        assert target not in written  # the file held only memboard's entry: deleted, by the patch as by the run


def test_config_set_dry_run_of_a_value_already_set_says_nothing_to_change(cli, tmp_path):
    env = {"MEMBOARD_CONFIG": str(tmp_path / "config.toml")}
    (tmp_path / "config.toml").write_text("stale_days = 9\n")
    dry = cli("config", "set", "stale_days", "9", "--dry-run", env=env, use_root=False)
    assert dry.code == 0 and dry.out == "" and "nothing to change" in dry.err


def test_an_agent_config_write_takes_its_trees_lock(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMBOARD_LOCK_TIMEOUT", "0.05")
    path = tmp_path / "settings.json"
    path.write_text("{}\n")
    tree = FileTree(path, AGENT_CONFIG)
    from filelock import FileLock

    holder = FileLock(str(tree.tree.lock_file))
    tree.tree.lock_file.parent.mkdir(parents=True, exist_ok=True)
    holder.acquire()
    try:
        with pytest.raises(MemboardError, match="is locked by another writer"):
            write_edit(path, AGENT_CONFIG, b"{}\n", b'{"a": 1}\n')
    finally:
        holder.release()
    assert path.read_text() == "{}\n" and list(tmp_path.glob("*.bak-*")) == []
    assert write_edit(path, AGENT_CONFIG, b"{}\n", b'{"a": 1}\n') is not None
    assert path.read_text() == '{"a": 1}\n' and len(list(tmp_path.glob("*.bak-*"))) == 1


def test_a_file_tree_changes_its_file_and_backups_alone(tmp_path):
    path = tmp_path / "config.toml"
    tree = FileTree(path, USER_CONFIG)
    assert tree.tree.allows("config.toml") and not tree.tree.allows("config.toml.bak-1")
    assert FileTree(path, AGENT_CONFIG).tree.allows("config.toml.bak-20260601-093000")
    with pytest.raises(MemboardError, match="memboard changes only"):
        tree.abs("other.toml")
    assert tree.tree.lock_file == lock.statepaths.lock_file(Path(os.path.realpath(tmp_path)))
