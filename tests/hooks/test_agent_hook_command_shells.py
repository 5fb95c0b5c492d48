"""The hook command install-hook writes, read back by each shell's quoting rules.

PowerShell and cmd.exe cannot run here, so each rule is a small parser below: POSIX sh
(shlex), PowerShell (a command that starts with a quoted string is an expression; `&` calls a
quoted path; '...' strings double their quotes), and `cmd /C` as Codex calls it (the command
is one argument of Rust's std::process::Command, which writes `"` as `\\"`; cmd strips the
first and the last quote of the line, toggles quoting at each `"` and stops at `& | < > ( ) ^`
outside quotes; `%` expands everywhere). A command survives a shell when its parser gives back
exactly the program and the words `hook <tool>`.
"""

from __future__ import annotations

import json
import shlex

import pytest

from memboard.cli import install as install_hook
from memboard.cli.install import hook_command, plan_install
from memboard.core.errors import Refused

NASTY_WINDOWS = r"C:\Users\Jane Doe\My & Co (x86)\it's $HOME `x` ‘q’\Scripts\memboard.exe"
NASTY_POSIX = '/home/Jane Doe/My & Co/it\'s $HOME `x` "q"/bin/memboard'
PLAIN_WINDOWS = r"C:\Users\jane\AppData\Local\Programs\Python\Python311\Scripts\memboard.exe"
SHORT = r"C:\Users\JANEDO~1\MYCO~1\Scripts\memboard.exe"

PS_SINGLE = "'\u2018\u2019\u201a\u201b"
PS_DOUBLE = '"\u201c\u201d\u201e'
PS_SPECIAL = set("$`&|;(){}@,<>#") | set(PS_SINGLE) | set(PS_DOUBLE)
CMD_SPECIAL = set("&|<>()^")


def powershell(line: str) -> list[str]:
    """The argv PowerShell runs for a command line, or ValueError where it would not run it."""
    line = line.strip()
    if line.startswith("&"):
        rest = line[1:].lstrip()
        if not rest or rest[0] not in PS_SINGLE:
            raise ValueError("expected a single-quoted path after &")
        program, i = "", 1
        while True:
            if i >= len(rest):
                raise ValueError("unterminated string")
            if rest[i] in PS_SINGLE:
                if i + 1 < len(rest) and rest[i + 1] in PS_SINGLE:
                    program, i = program + rest[i + 1], i + 2
                    continue
                break
            program, i = program + rest[i], i + 1
        rest = rest[i + 1 :]
        if rest[:1] not in ("", " "):
            raise ValueError("text right after the string")
    else:
        if line[:1] in PS_SINGLE + PS_DOUBLE:
            raise ValueError("a quoted string first is an expression: the words after it are unexpected tokens")
        program, _, rest = line.partition(" ")
        if set(program) & PS_SPECIAL:
            raise ValueError(f"special character in {program!r}")
    args = rest.split()
    if any(set(a) & PS_SPECIAL for a in args):
        raise ValueError("special character in an argument")
    return [program, *args]


def rust_windows_arg(arg: str) -> str:
    """One argument as Rust's std::process::Command writes it on a Windows command line."""
    quote = not arg or " " in arg or "\t" in arg
    out, backslashes = ['"'] if quote else [], 0
    for c in arg:
        if c == "\\":
            backslashes += 1
        else:
            if c == '"':
                out.append("\\" * (backslashes + 1))
            backslashes = 0
        out.append(c)
    if quote:
        out += ["\\" * backslashes, '"']
    return "".join(out)


def cmd_c(line: str, executables: frozenset[str] = frozenset()) -> list[str]:
    """The argv `cmd.exe /C line` runs, or ValueError where cmd would not run it as one command.

    /C keeps the quotes when the line holds exactly two, around the name of an existing
    executable with whitespace and no special character in it; otherwise a leading quote is
    stripped together with the last quote on the line."""
    quotes = [i for i, c in enumerate(line) if c == '"']
    inner = line[quotes[0] + 1 : quotes[1]] if len(quotes) == 2 else ""
    keep = inner in executables and any(c.isspace() for c in inner) and not set(inner) & set("&<>()@^|")
    if line.startswith('"') and not keep:
        last = line.rindex('"')
        line = line[1:last] + line[last + 1 :]
    if "%" in line:
        raise ValueError("% expands variables, even inside quotes")
    words, word, quoted = [], "", False
    for c in line:
        if c == '"':
            quoted = not quoted
            continue
        if not quoted and c in CMD_SPECIAL:
            raise ValueError(f"{c!r} outside quotes ends or redirects the command")
        if not quoted and c in " \t":
            if word:
                words.append(word)
            word = ""
            continue
        word += c
    if quoted:
        raise ValueError("unbalanced quote")
    return words + ([word] if word else [])


def codex_cmd(command: str, executables: frozenset[str] = frozenset()) -> list[str]:
    """What Codex on Windows runs: `%COMSPEC% /C` with the command as one Rust argument."""
    return cmd_c(rust_windows_arg(command), executables)


@pytest.fixture
def program(monkeypatch):
    """Make install-hook see memboard at a given path."""

    def at(path: str, *rest: str) -> None:
        monkeypatch.setattr(install_hook, "memboard_words", lambda: [path, *rest])

    return at


def test_posix_command_survives_sh_with_spaces_ampersand_quotes_and_dollars(program):
    program(NASTY_POSIX)
    for tool in ("claude", "codex", "cursor"):
        assert shlex.split(hook_command(tool, windows=False)) == [NASTY_POSIX, "hook", tool]


def test_claude_on_windows_is_powershell_with_the_call_operator(program):
    program(NASTY_WINDOWS)
    command = hook_command("claude", windows=True)
    assert command.startswith("& '")
    assert powershell(command) == [NASTY_WINDOWS, "hook", "claude"]


def test_claude_on_windows_gets_the_powershell_shell_field(tmp_path, program):
    program(NASTY_WINDOWS)
    command = hook_command("claude", windows=True)
    after = plan_install("claude", str(tmp_path), command, windows=True)[2]
    entry = json.loads(after)["hooks"]["SessionStart"][0]["hooks"][0]
    assert entry == {"type": "command", "command": command, "timeout": 10, "shell": "powershell"}
    posix = plan_install("claude", str(tmp_path), "memboard hook claude", windows=False)[2]
    assert "shell" not in json.loads(posix)["hooks"]["SessionStart"][0]["hooks"][0]


@pytest.mark.parametrize("tool", ["codex", "cursor"])
def test_plain_windows_path_is_written_bare_and_runs_under_cmd_and_powershell(program, tool):
    program(PLAIN_WINDOWS)
    command = hook_command(tool, windows=True, short_path=lambda p: pytest.fail("no short form needed"))
    assert command == f"{PLAIN_WINDOWS} hook {tool}"
    words = [PLAIN_WINDOWS, "hook", tool]
    assert codex_cmd(command) == words and cmd_c(command) == words and powershell(command) == words


@pytest.mark.parametrize("tool", ["codex", "cursor"])
def test_path_with_spaces_and_ampersand_uses_its_short_form(program, tool):
    program(NASTY_WINDOWS)
    command = hook_command(tool, windows=True, short_path={NASTY_WINDOWS: SHORT}.get)
    words = [SHORT, "hook", tool]
    assert codex_cmd(command) == words and cmd_c(command) == words and powershell(command) == words


def test_python_module_form_uses_the_short_form_of_python(program):
    python = r"C:\Program Files\Python311\python.exe"
    program(python, "-m", "memboard")
    command = hook_command("codex", windows=True, short_path={python: r"C:\PROGRA~1\Python311\python.exe"}.get)
    assert (
        codex_cmd(command)
        == powershell(command)
        == [r"C:\PROGRA~1\Python311\python.exe", "-m", "memboard", "hook", "codex"]
    )


def test_memboard_on_path_is_used_when_there_is_no_short_form(program, tmp_path, monkeypatch):
    exe = tmp_path / "My Drive" / "memboard.exe"
    exe.parent.mkdir()
    exe.write_text("")
    program(str(exe))
    monkeypatch.setattr(install_hook.shutil, "which", lambda name: str(exe) if name == "memboard" else None)
    command = hook_command("codex", windows=True, short_path=lambda p: p)
    assert command == "memboard hook codex" and codex_cmd(command) == powershell(command) == [
        "memboard",
        "hook",
        "codex",
    ]


def test_no_safe_form_is_refused_rather_than_written_broken(program, monkeypatch):
    program(NASTY_WINDOWS)
    monkeypatch.setattr(install_hook.shutil, "which", lambda name: None)
    with pytest.raises(Refused, match="pass --command CMD"):
        hook_command("cursor", windows=True, short_path=lambda p: p)


def test_the_old_double_quoted_form_fails_where_the_new_ones_do_not():
    """Why the forms changed: the quoted path install wrote before dies under PowerShell and under Codex's cmd /C."""
    exe = r"C:\My Drive\venv\Scripts\memboard.exe"
    old = f'"{exe}" hook codex'
    with pytest.raises(ValueError, match="expression"):
        powershell(old)
    assert codex_cmd(old, frozenset({exe}))[0] != exe
    assert cmd_c(old, frozenset({exe})) == [exe, "hook", "codex"]  # typed at a cmd prompt, it did run


def test_reinstall_on_windows_updates_an_old_entry_in_place(tmp_path, program):
    (tmp_path / ".claude").mkdir()
    old = {
        "hooks": {
            "SessionStart": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": r'"G:\My Drive\venv\Scripts\memboard.exe" hook claude',
                            "timeout": 5,
                        }
                    ]
                }
            ]
        }
    }
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(old, indent=2))
    program(r"G:\My Drive\venv\Scripts\memboard.exe")
    command = hook_command("claude", windows=True)
    _, _, after = plan_install("claude", str(tmp_path), command, windows=True)
    groups = json.loads(after)["hooks"]["SessionStart"]
    assert groups == [{"hooks": [{"type": "command", "command": command, "timeout": 5, "shell": "powershell"}]}]
    (tmp_path / ".claude" / "settings.json").write_bytes(after)
    assert plan_install("claude", str(tmp_path), command, windows=True)[2] is None
