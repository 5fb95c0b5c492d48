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


def bash_complete(script, *words: str) -> list[str]:
    """What bash offers after `words` (the last one is the word being completed)."""
    line = " ".join(f"'{w}'" for w in words)
    program = (
        f"source '{script}'; COMP_WORDS=({line}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); "
        "_memboard; printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    res = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], capture_output=True, text=True, timeout=60)
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
