"""`memboard completion bash|zsh|fish`: scripts generated from the parser, that complete commands, options and values."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from memboard.cli.completion import describe
from memboard.cli.parser import build_parser


@pytest.fixture(scope="module")
def scripts(tmp_path_factory) -> dict:
    """Each shell's script, printed by the command line and saved to a file."""
    import sys

    folder = tmp_path_factory.mktemp("completion")
    out = {}
    for shell in ("bash", "zsh", "fish"):
        res = subprocess.run(
            [sys.executable, "-m", "memboard", "completion", shell], capture_output=True, text=True, timeout=60
        )
        assert res.returncode == 0 and res.stderr == "", res.stderr
        (folder / shell).write_text(res.stdout)
        out[shell] = folder / shell
    return out


def on_path() -> dict:
    """The environment with this memboard first on PATH (the scripts ask `memboard` for a root's words)."""
    import os
    import sys
    from pathlib import Path

    folder = Path(sys.executable).parent
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"}


def bash_complete(script, *words: str) -> list[str]:
    """What bash offers after `words` (the last one is the word being completed)."""
    line = " ".join(f"'{w}'" for w in words)
    program = (
        f"source '{script}'; COMP_WORDS=({line}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); "
        "_memboard; printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    res = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program], capture_output=True, text=True, timeout=60, env=on_path()
    )
    assert res.returncode == 0, res.stderr
    return [w for w in res.stdout.splitlines() if w]


def test_bash_completes_a_command(scripts):
    assert bash_complete(scripts["bash"], "memboard", "ar") == ["archive"]
    assert "uninstall-hook" in bash_complete(scripts["bash"], "memboard", "")


def test_bash_completes_a_subcommands_options(scripts):
    assert bash_complete(scripts["bash"], "memboard", "archive", "--d") == ["--dry-run"]
    assert set(bash_complete(scripts["bash"], "memboard", "uninstall-hook", "claude", "--")) == {
        "--help",
        "--user",
        "--project",
        "--dry-run",
        "--json",
        "--root",
    }
    assert bash_complete(scripts["bash"], "memboard", "--root", "/tmp", "organize", "--st") == ["--stale-days"]


def test_bash_completes_choices_and_config_keys(scripts):
    assert bash_complete(scripts["bash"], "memboard", "install-hook", "c") == ["claude", "codex", "cursor"]
    assert bash_complete(scripts["bash"], "memboard", "list", "--status", "a") == ["active"]
    assert bash_complete(scripts["bash"], "memboard", "config", "set", "st") == ["stale_days"]
    assert bash_complete(scripts["bash"], "memboard", "completion", "") == ["bash", "zsh", "fish"]
    assert bash_complete(scripts["bash"], "memboard", "register", "--agent", "") == []


def test_bash_completes_folders_for_dir_options(scripts, tmp_path):
    (tmp_path / "My Memory").mkdir()
    assert bash_complete(scripts["bash"], "memboard", "install-hook", "claude", "--project", f"{tmp_path}/My") == [
        f"{tmp_path}/My Memory"
    ]


def test_every_command_and_option_of_the_parser_is_in_each_script(scripts):
    texts = {shell: path.read_text() for shell, path in scripts.items()}
    root = describe(build_parser())
    for name, node in root.subcommands.items():
        for shell, text in texts.items():
            assert name in text, (shell, name)
        for flags, _, _ in node.flags:
            long = next(f for f in flags if f.startswith("--"))
            assert long in texts["bash"] and long in texts["zsh"], long
            assert f"-l {long[2:]}" in texts["fish"], long


@pytest.mark.skipif(not shutil.which("zsh"), reason="zsh is not installed")
def test_zsh_script_parses_and_completes(scripts):
    program = (
        f"compdef() {{ :; }}; source '{scripts['zsh']}'; "
        'compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }; '
        "words=(memboard ar); CURRENT=2; _memboard; print -- ---; "
        "words=(memboard archive --); CURRENT=3; _memboard"
    )
    res = subprocess.run(["zsh", "-f", "-c", program], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    commands, options = res.stdout.split("---\n")
    assert "archive" in commands.split() and "--dry-run" in options.split()


@pytest.mark.skipif(not shutil.which("fish"), reason="fish is not installed")
def test_fish_script_completes(scripts):
    program = f"source '{scripts['fish']}'; complete -C 'memboard ar'; echo ---; complete -C 'memboard archive --d'"
    res = subprocess.run(["fish", "--no-config", "-c", program], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    commands, options = res.stdout.split("---\n")
    assert [line.split("\t")[0] for line in commands.splitlines()] == ["archive"]
    assert [line.split("\t")[0] for line in options.splitlines()] == ["--dry-run"]


def test_unknown_shell_is_a_usage_error(cli):
    res = cli("completion", "tcsh", use_root=False)
    assert res.code == 2 and "invalid choice" in res.err and res.out == ""


@pytest.fixture
def filled(cli, tmp_path) -> tuple[str, str, str]:
    """A root holding one session and one note: (root, Session ID, topic key)."""
    import json

    root = tmp_path / "mem"
    root.mkdir()
    sid = json.loads(cli("register", "--root", str(root), "--json", use_root=False).out)["session_id"]
    saved = cli(
        "note",
        "save",
        "--root",
        str(root),
        "--title",
        "Use tabs",
        "--type",
        "preference",
        "--scope",
        "global",
        "--what",
        "tabs",
        "--json",
        use_root=False,
    )
    assert saved.code == 0, saved.err
    return str(root), sid, "global/preference/use-tabs"


def test_bash_completes_session_ids_and_topic_keys_from_the_root_typed_on_the_line(scripts, filled):
    root, sid, key = filled
    bash = scripts["bash"]
    assert bash_complete(bash, "memboard", "--root", root, "show", "") == [sid]
    assert bash_complete(bash, "memboard", "archive", "--root", root, sid[:4]) == [sid]
    assert bash_complete(bash, "memboard", "--root", root, "continue", "x", "--as", "") == [sid]
    assert bash_complete(bash, "memboard", "--root", root, "note", "show", "g") == [key]
    assert bash_complete(bash, "memboard", "--root", root, "note", "save", "--topic-key", "") == [key]
    assert bash_complete(bash, "memboard", "config", "get", "hot_max_l") == ["hot_max_lines"]


def test_completion_lists_what_the_root_holds(cli, filled):
    root, sid, key = filled
    assert cli("completion", "--list", "ids", "--root", root, use_root=False).out == sid + "\n"
    assert cli("completion", "--list", "keys", "--root", root, use_root=False).out == key + "\n"


@pytest.mark.skipif(not shutil.which("zsh"), reason="zsh is not installed")
def test_zsh_completes_session_ids(scripts, filled):
    root, sid, _ = filled
    program = (
        f"compdef() {{ :; }}; source '{scripts['zsh']}'; "
        'compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }; '
        f"words=(memboard --root '{root}' show ''); CURRENT=5; _memboard"
    )
    res = subprocess.run(["zsh", "-f", "-c", program], capture_output=True, text=True, timeout=60, env=on_path())
    assert res.returncode == 0, res.stderr
    assert sid in res.stdout.split()


@pytest.mark.skipif(not shutil.which("fish"), reason="fish is not installed")
def test_fish_completes_session_ids_and_topic_keys(scripts, filled):
    root, sid, key = filled
    program = (
        f"source '{scripts['fish']}'; complete -C 'memboard --root {root} show '; echo ---; "
        f"complete -C 'memboard --root {root} note show '"
    )
    res = subprocess.run(
        ["fish", "--no-config", "-c", program], capture_output=True, text=True, timeout=60, env=on_path()
    )
    assert res.returncode == 0, res.stderr
    ids, keys = res.stdout.split("---\n")
    assert sid in [line.split("\t")[0] for line in ids.splitlines()]
    assert key in [line.split("\t")[0] for line in keys.splitlines()]
