"""`memboard config show|set|path` and the order in which the memory root is found."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest


@pytest.fixture
def config_file() -> Path:
    """The isolated config path (MEMBOARD_CONFIG)."""
    return Path(os.environ["MEMBOARD_CONFIG"])


def test_path_prints_the_config_file(cli, config_file):
    res = cli("config", "path", use_root=False)
    assert (res.code, res.out.strip()) == (0, str(config_file))


def test_show_without_a_file_says_so(cli, config_file):
    res = cli("config", "show", use_root=False)
    assert res.code == 0 and "not created yet" in res.out
    assert not config_file.exists()


def test_set_writes_toml_and_show_prints_it(cli, config_file, root):
    assert cli("config", "set", "root", str(root), use_root=False).code == 0
    assert cli("config", "set", "agent_name", "team-agent", use_root=False).code == 0
    assert cli("config", "set", "stale_days", "7", use_root=False).code == 0
    assert cli("config", "set", "theme", "nord", use_root=False).code == 0
    data = tomllib.loads(config_file.read_text())
    assert data == {"root": str(root), "agent_name": "team-agent", "stale_days": 7, "theme": "nord"}
    shown = cli("config", "show", use_root=False)
    assert shown.out.splitlines()[0] == f"# {config_file}"
    assert tomllib.loads(shown.out) == data
    again = cli("config", "set", "stale_days", "7", use_root=False)
    assert again.code == 0 and "already" in again.out


def test_set_keeps_keys_it_does_not_touch(cli, config_file):
    config_file.write_text('theme = "nord"\nlock_timeout = 5.0\n')
    assert cli("config", "set", "agent_name", "a-agent", use_root=False).code == 0
    assert tomllib.loads(config_file.read_text()) == {"theme": "nord", "lock_timeout": 5.0, "agent_name": "a-agent"}


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("colour", "red", "unknown config key 'colour'"),
        ("agent_name", "Bad Name", "invalid agent name"),
        ("stale_days", "soon", "stale_days must be a whole number"),
        ("stale_days", "-3", "stale_days must be 0 or more"),
        ("theme", "My Theme!", "theme must be a theme name"),
        ("lock_timeout", "forever", "lock_timeout must be a number"),
    ],
)
def test_bad_settings_are_refused_in_one_line(cli, config_file, key, value, message):
    config_file.write_text('theme = "nord"\n')
    res = cli("config", "set", key, value, use_root=False)
    assert res.code == 2
    assert len(res.err.strip().splitlines()) == 1 and message in res.err
    assert config_file.read_text() == 'theme = "nord"\n'


def test_root_that_is_a_file_is_refused(cli, tmp_path, config_file):
    f = tmp_path / "file"
    f.write_text("x")
    res = cli("config", "set", "root", str(f), use_root=False)
    assert res.code == 2 and "is not a folder" in res.err
    assert not config_file.exists()


def test_broken_config_is_a_one_line_error(cli, config_file):
    config_file.write_text("root = [unclosed\n")
    res = cli("config", "show", use_root=False)
    assert res.code == 2 and "is not valid TOML" in res.err and len(res.err.strip().splitlines()) == 1


def _register_json(cli, *args, env=None):
    """Run `register --json` without the fixture's --root."""
    res = cli("register", "--json", *args, env=env, use_root=False)
    return res, (json.loads(res.out) if res.code == 0 else None)


def test_root_resolution_order(cli, tmp_path, config_file):
    from_config, from_env, from_flag = (tmp_path / n for n in ("cfg-root", "env-root", "flag-root"))
    for p in (from_config, from_env, from_flag):
        p.mkdir()
    cli("config", "set", "root", str(from_config), use_root=False)
    _register_json(cli)
    assert (from_config / "index.md").exists()
    _register_json(cli, env={"MEMBOARD_ROOT": str(from_env)})
    assert (from_env / "index.md").exists()
    _register_json(cli, "--root", str(from_flag), env={"MEMBOARD_ROOT": str(from_env)})
    assert (from_flag / "index.md").exists()
    assert len((from_env / "index.md").read_text().splitlines()) == 3  # header, separator, one row


def test_no_root_anywhere_says_how_to_set_it(cli, tmp_path):
    res = cli("list", use_root=False)
    assert res.code == 2
    assert (
        res.err.strip()
        == "memboard: no memory root: pass --root DIR, set MEMBOARD_ROOT, or run `memboard config set root DIR`"
    )


def test_config_root_then_hook_registers_there(cli, root):
    cli("config", "set", "root", str(root), use_root=False)
    cli("config", "set", "agent_name", "team-agent", use_root=False)
    res = cli("hook", "claude", input=b'{"session_id": "c1"}', use_root=False)
    assert "2026-06-01-0930-team-agent" in res.out
    assert (root / "index.md").exists()


def test_config_lock_timeout_bounds_a_writers_wait(cli, root):
    from memboard.core.files.lock import locked
    from memboard.core.files.root import MemoryRoot

    assert cli("config", "set", "lock_timeout", "0.2", use_root=False).code == 0
    with locked(MemoryRoot(root)):
        res = cli("register")
    assert res.code == 1 and "waited 0.2s" in res.err
    assert not (root / "index.md").exists()


COMMENTED = (
    "# memboard settings, kept by hand\n"
    'theme = "nord"   # dark, easy on the eyes\n'
    "\n"
    "# where the memory lives\n"
    'root = "/srv/memory"\n'
    "stale_days = 14 # the protocol's default\n"
    "\n"
    "[notes]\n"
    "# a table memboard does not know\n"
    'owner = "me"\n'
)


def test_set_keeps_comments_blank_lines_key_order_and_other_tables(cli, config_file):
    config_file.write_text(COMMENTED)
    assert cli("config", "set", "stale_days", "7", use_root=False).code == 0
    assert config_file.read_text() == COMMENTED.replace("stale_days = 14 #", "stale_days = 7 #")
    assert cli("config", "set", "agent_name", "team-agent", use_root=False).code == 0
    expected = COMMENTED.replace("stale_days = 14 #", "stale_days = 7 #").replace(
        "default\n\n[notes]", 'default\nagent_name = "team-agent"\n\n[notes]'
    )
    assert config_file.read_text() == expected
    assert tomllib.loads(expected)["notes"] == {"owner": "me"}


def test_setting_the_value_it_already_has_changes_no_byte(cli, config_file):
    config_file.write_text(COMMENTED)
    res = cli("config", "set", "stale_days", "14", use_root=False)
    assert res.code == 0 and "already" in res.out
    assert config_file.read_text() == COMMENTED


def test_crlf_config_keeps_its_line_endings(cli, config_file):
    config_file.write_bytes(COMMENTED.replace("\n", "\r\n").encode())
    assert cli("config", "set", "lock_timeout", "5", use_root=False).code == 0
    data = config_file.read_bytes()
    assert b"lock_timeout = 5.0\r\n" in data and data.count(b"\n") == data.count(b"\r\n")


@pytest.mark.parametrize("theme", ["no-such-theme", "textual"])
def test_unknown_theme_is_refused_with_the_known_ones(cli, config_file, theme):
    config_file.write_text(COMMENTED)
    res = cli("config", "set", "theme", theme, use_root=False)
    assert res.code == 2
    assert len(res.err.strip().splitlines()) == 1
    assert f"unknown theme '{theme}'" in res.err and "textual-dark" in res.err and "dracula" in res.err
    assert config_file.read_text() == COMMENTED


def test_a_textual_theme_is_accepted(cli, config_file):
    config_file.write_text(COMMENTED)
    assert cli("config", "set", "theme", "dracula", use_root=False).code == 0
    assert config_file.read_text() == COMMENTED.replace('"nord"', '"dracula"')


def test_get_prints_the_value_commands_use_the_configs_else_the_default(cli, config_file):
    config_file.write_text(COMMENTED)
    assert cli("config", "get", "stale_days", use_root=False).out == "14\n"
    assert cli("config", "get", "theme", use_root=False).out == "nord\n"
    assert cli("config", "get", "agent_name", use_root=False).out == "cursor-main-agent\n"  # the default
    assert cli("config", "get", "lock_timeout", use_root=False).out == "20.0\n"
    config_file.write_text('lock_timeout = "soon"\n')  # not a number: commands wait the default
    assert cli("config", "get", "lock_timeout", use_root=False).out == "20.0\n"


def test_get_of_an_unknown_key_or_one_without_value_or_default_is_one_line(cli, config_file):
    res = cli("config", "get", "colour", use_root=False)
    assert res.code == 2 and res.err.strip().splitlines() == [
        "memboard: unknown config key 'colour': use one of root, agent_name, stale_days, theme, lock_timeout, settle_seconds, space_roots, space_stale_days, hierarchy_workspace, hot_max_lines, hot_max_tokens, facts_stale_days, mcp_tools, hook_context, hook_context_bytes, keymap"
    ]
    res = cli("config", "get", "root", use_root=False)
    assert res.code == 1 and res.out == "" and f"root is not set in {config_file}" in res.err
    assert not config_file.exists()


def test_list_names_every_key_with_its_value_or_default_and_help(cli, config_file):
    from memboard.core.config import TABLE

    config_file.write_text(COMMENTED)
    lines = cli("config", "list", use_root=False).out.splitlines()
    assert [line.split()[0] for line in lines] == [key.name for key in TABLE]
    by_name = {line.split()[0]: line for line in lines}
    assert by_name["root"].split()[1] == '"/srv/memory"' and '"nord"' in by_name["theme"]
    assert '"cursor-main-agent" (default)' in by_name["agent_name"] and "0.5 (default)" in by_name["settle_seconds"]
    for key in TABLE:
        assert by_name[key.name].endswith(key.help)
    assert config_file.read_text() == COMMENTED
