"""The settings table and the settings a command reads once (memboard.core.config)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memboard.core import config
from memboard.core.errors import UsageError


def test_every_key_in_the_table_is_one_config_set_names_with_its_help():
    assert list(config.KEYS) == [key.name for key in config.TABLE]
    assert set(config.KEYS) == {
        "root",
        "agent_name",
        "stale_days",
        "theme",
        "lock_timeout",
        "settle_seconds",
        "space_roots",
        "space_stale_days",
        "hierarchy_workspace",
        "hot_max_lines",
        "hot_max_tokens",
        "facts_stale_days",
        "mcp_tools",
        "hook_context",
        "hook_context_bytes",
        "keymap",
    }
    for key in config.TABLE:
        assert key.help and isinstance(key.kind, type)


def test_config_set_help_lists_every_key_with_its_help(cli):
    res = cli("config", "set", "--help", use_root=False)
    assert res.code == 0
    for key in config.TABLE:
        assert any(line.split()[:1] == [key.name] and key.help in line for line in res.out.splitlines()), key.name


def test_within_a_command_the_file_is_read_once(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    monkeypatch.setenv("MEMBOARD_CONFIG", os.fspath(path))
    path.write_text("stale_days = 3\n")
    with config.once():
        first = config.settings()
        path.write_text("stale_days = 9\n")
        assert config.settings() is first and config.stale_days() == 3
        config.forget()
        assert config.stale_days() == 9
    path.write_text("stale_days = 5\n")
    assert config.stale_days() == 5  # outside a command: the file as it is now


def test_settings_are_frozen_and_typed(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    monkeypatch.setenv("MEMBOARD_CONFIG", os.fspath(path))
    path.write_text('root = "/srv/m"\nagent_name = "a-agent"\nlock_timeout = 2\nsettle_seconds = "x"\n')
    cfg = config.settings()
    assert (cfg.root, cfg.agent_name, cfg.theme, cfg.stale_days) == ("/srv/m", "a-agent", None, 14)
    assert (cfg.lock_timeout, cfg.settle_seconds) == (2.0, None)  # a value that is no number keeps the default
    assert cfg.exists and cfg.path == Path(path)
    with pytest.raises(AttributeError):
        cfg.root = "elsewhere"
    with pytest.raises(TypeError):
        cfg.stored["root"] = "elsewhere"


def test_a_bad_stored_value_is_refused_only_where_it_is_used(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    monkeypatch.setenv("MEMBOARD_CONFIG", os.fspath(path))
    path.write_text("stale_days = -1\n")
    cfg = config.settings()
    assert cfg.root is None
    with pytest.raises(UsageError, match="config stale_days must be a whole number of days, 0 or more, not -1"):
        _ = cfg.stale_days


def test_the_tables_defaults_are_the_ones_their_users_fall_back_to():
    from memboard.board.app import DEFAULT_THEME
    from memboard.core.files.lock import DEFAULT_LOCK_TIMEOUT
    from memboard.core.files.settle import SETTLE_WINDOW
    from memboard.core.formats.ids import DEFAULT_AGENT

    defaults = {key.name: key.default for key in config.TABLE}
    assert defaults == {
        "root": None,
        "agent_name": DEFAULT_AGENT,
        "stale_days": 14,
        "theme": DEFAULT_THEME,
        "lock_timeout": DEFAULT_LOCK_TIMEOUT,
        "settle_seconds": SETTLE_WINDOW,
        "space_roots": None,
        "space_stale_days": 14,
        "hierarchy_workspace": None,
        "hot_max_lines": 80,
        "hot_max_tokens": 1000,
        "facts_stale_days": 30,
        "mcp_tools": "agent",  # service/mcp_tools.py's DEFAULT_PROFILE
        "hook_context": "id",  # cli/hook.py's context_of: the Session ID line alone
        "hook_context_bytes": 2000,  # cli/hook.py's context_of falls back to 2000 too
        "keymap": None,
    }


def test_the_spaces_and_hierarchy_keys_parse_store_and_read_strictly(cli, tmp_path, monkeypatch):
    import os

    path = tmp_path / "config.toml"
    monkeypatch.setenv("MEMBOARD_CONFIG", str(path))
    res = cli("config", "set", "space_roots", f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}", use_root=False)
    assert res.code == 0, res.err
    assert config.settings().value("space_roots") == (str(tmp_path / "a"), str(tmp_path / "b"))
    res = cli("config", "set", "hot_max_lines", "0", use_root=False)
    assert res.code == 2 and res.err.strip().splitlines() == ["memboard: hot_max_lines must be 1 or more"]
    res = cli("config", "set", "facts_stale_days", "soon", use_root=False)
    assert res.code == 2 and "facts_stale_days must be a whole number, not 'soon'" in res.err
    (tmp_path / "file").write_text("x")
    res = cli("config", "set", "hierarchy_workspace", str(tmp_path / "file"), use_root=False)
    assert res.code == 2 and "is not a folder" in res.err
    path.write_text("space_stale_days = -3\nspace_roots = 7\n", encoding="utf-8")
    with pytest.raises(UsageError, match="config space_stale_days must be a whole number, 0 or more, not -3"):
        config.settings().value("space_stale_days")
    with pytest.raises(UsageError, match="config space_roots must be an array of folder names"):
        config.settings().value("space_roots")


def test_the_keymap_is_a_table_in_the_file_that_config_reads_and_set_refuses_in_one_line(cli, tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    monkeypatch.setenv("MEMBOARD_CONFIG", os.fspath(path))
    path.write_text('[keymap]\n"board.archive" = "x"\n', encoding="utf-8")
    res = cli("config", "set", "keymap", "x", use_root=False)
    assert res.code == 2 and "keymap is a table" in res.err and len(res.err.strip().splitlines()) == 1
    assert path.read_text(encoding="utf-8") == '[keymap]\n"board.archive" = "x"\n'
    got = cli("config", "get", "keymap", use_root=False)
    assert got.code == 0 and got.out == '{ "board.archive" = "x" }\n'
    listed = cli("config", "list", use_root=False)
    assert any(line.startswith("keymap") and '"board.archive" = "x"' in line for line in listed.out.splitlines())
    with config.once():
        assert config.settings().keymap == {"board.archive": "x"}
