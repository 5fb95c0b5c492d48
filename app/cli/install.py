"""`memboard install-hook|uninstall-hook cursor|claude|codex`: add or remove memboard's SessionStart hook.

Each tool's settings file and shape are in tools.py. In a user's file the entry runs this
memboard by absolute path (GUI agents often lack the shell's PATH); in a project's file, which a
team commits, it runs `memboard` from PATH, as this machine's path would not work on another;
`--command` chooses (`memboard`, `uvx memboard`, a path) and the preview says which. The command
is written for the shell the agent runs hook commands with (see `hook_command`). Other hooks and settings are
left as they are; an existing memboard entry for the tool is updated in place, so a second
install changes nothing, and uninstall removes exactly that entry (and the containers install
created around it), keeping the rest of the file's text as it was.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from ..core.config import resolve_root
from ..core.errors import MemboardError, Refused, UsageError
from ..core.files.filetree import patch_of, write_edit
from ..core.files.root import MemoryRoot
from ..core.files.trees import AGENT_CONFIG
from . import jsonedit
from .output import dump
from .tools import NAMES, TOOLS

TIMEOUT_SECONDS = 10
OURS_RE = re.compile(r"memboard(?:\.exe)?[\"']?\s+hook\s+(" + "|".join(NAMES) + r")\b", re.IGNORECASE)
# Which shell runs a hook command on Windows, and what this relies on:
# - Claude Code runs a command hook's string under Git Bash, or PowerShell when Git Bash is not
#   installed, unless the hook's `shell` field ("bash", the default, or "powershell") says which
#   (Claude Code docs, hooks reference: "Command hook fields", "Exec form and shell form"). So
#   memboard sets "shell": "powershell" there and writes PowerShell: `& 'C:\path\memboard.exe' hook
#   claude` (a quoted path alone is a string expression to PowerShell; `&` calls it).
# - Codex runs it as `%COMSPEC% /C <command>`, the command being one argument of Rust's
#   std::process::Command, which escapes each `"` as `\"`; cmd.exe does not read `\"`, so a quoted
#   path never starts (openai/codex: codex-rs/hooks/src/engine/command_runner.rs, issue #32402).
#   Newer builds run it in the session's shell instead, usually PowerShell (openai/codex#46454).
# - Cursor's hooks docs name no shell; on Windows it has been seen running hook commands under
#   cmd.exe and under PowerShell (obra/superpowers#1250, speakeasy-api/gram#3736).
# So for Codex and Cursor the Windows command holds no quote at all and reads the same under
# cmd /C and PowerShell: the path as it is when it has only such characters, else its 8.3 short
# form, else `memboard` when that is this memboard on PATH; otherwise install refuses and asks
# for --command.
PLAIN_WINDOWS = re.compile(r"[\w\\/:.~-]+")
POWERSHELL_QUOTES = "'\u2018\u2019\u201a\u201b"  # PowerShell ends a '...' string at any of these
CLAUDE_SHELL_WINDOWS = "powershell"
PORTABLE = "memboard"  # the command a project's shared file runs by default: memboard on each machine's PATH
USER_FILE_MODE = 0o600  # a user-level agent file memboard creates


def config_file(tool: str, project: str | None) -> Path:
    """The tool's config file: in the home folder, or under the project folder."""
    if project is not None:
        base = Path(project).expanduser()
        if not base.is_dir():
            raise UsageError(f"project folder {base} does not exist")
    else:
        base = Path.home()
    return base / TOOLS[tool].settings


def powershell_quote(word: str) -> str:
    """A PowerShell single-quoted string of word (nothing inside is expanded; quotes are doubled)."""
    return "'" + "".join(c * 2 if c in POWERSHELL_QUOTES else c for c in word) + "'"


def windows_short_path(path: str) -> str:
    """The 8.3 short form of an existing Windows path, or the path itself when there is none."""
    import ctypes  # lazy: Windows only

    size = ctypes.windll.kernel32.GetShortPathNameW(path, None, 0)  # type: ignore[attr-defined]
    if not size:
        return path
    buffer = ctypes.create_unicode_buffer(size)
    return buffer.value if ctypes.windll.kernel32.GetShortPathNameW(path, buffer, size) else path  # type: ignore[attr-defined]


def memboard_words() -> list[str]:
    """How to run this memboard: its console script by absolute path, else `python -m memboard`."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None:
        for candidate in (script, script.with_name(script.name + ".exe")):
            if candidate.stem.lower() == "memboard" and candidate.is_file():
                return [str(candidate.absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "memboard"]


def _on_path(program: str) -> bool:
    """Whether `memboard` on PATH is this very program."""
    found = shutil.which("memboard")
    try:
        return found is not None and os.path.samefile(found, program)
    except OSError:
        return False


def _unquoted_windows(words: list[str], short_path: Callable[[str], str]) -> str:
    """A command line without quotes that cmd /C and PowerShell both read as `words`."""
    program = words[0]
    if not PLAIN_WINDOWS.fullmatch(program):
        program = short_path(program)
    if not PLAIN_WINDOWS.fullmatch(program) and words[1:2] != ["-m"] and _on_path(words[0]):
        program = "memboard"
    if not PLAIN_WINDOWS.fullmatch(program):
        raise Refused(
            f"{words[0]} holds characters cmd.exe and PowerShell read differently and has no short form; "
            "pass --command CMD (for example --command memboard, with memboard on PATH); nothing was written"
        )
    return " ".join([program, *words[1:]])


def hook_command(
    tool: str,
    explicit: str | None = None,
    windows: bool | None = None,
    short_path: Callable[[str], str] | None = None,
    root: str | None = None,
) -> str:
    """The command string the tool runs, `<memboard> hook <tool> [--root DIR]`, for the shell that runs it."""
    windows = os.name == "nt" if windows is None else windows
    tail = "" if root is None else " --root " + _shell_word(root, tool, windows)
    if explicit is not None:
        base = explicit.strip()
        if not base:
            raise UsageError("--command must not be empty")
        return f"{base} hook {tool}{tail}"
    words = [*memboard_words(), "hook", tool]
    if not windows:
        return " ".join(shlex.quote(w) for w in words) + tail
    if tool == "claude":
        return "& " + " ".join([powershell_quote(words[0]), *words[1:]]) + tail
    return _unquoted_windows(words, short_path or windows_short_path) + tail


def _shell_word(word: str, tool: str, windows: bool) -> str:
    """word as one argument for the shell that runs the tool's hook commands (see the notes at the top)."""
    if not windows:
        return shlex.quote(word)
    if tool == "claude":
        return powershell_quote(word)
    if not PLAIN_WINDOWS.fullmatch(word):
        raise Refused(
            f"--root {word} holds characters cmd.exe and PowerShell read differently; give a root whose path has "
            "none, or leave --root out; nothing was written"
        )
    return word


def is_ours(command: object, tool: str) -> bool:
    """Whether a hook command is memboard's hook for this tool (any form install ever wrote)."""
    if not isinstance(command, str):
        return False
    m = OURS_RE.search(command)
    return bool(m and m.group(1).lower() == tool)


def read_config(path: Path) -> tuple[bytes | None, dict]:
    """The file's bytes and JSON (or JSONC: comments, trailing commas) object ({} when absent); text that is
    neither is a one-line refusal naming where and what."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except IsADirectoryError:
        raise Refused(f"{path} is a folder, expected a JSON file") from None
    except OSError as exc:
        raise MemboardError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not data.strip():
        return data, {}
    try:
        obj = jsonedit.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        where = (
            f" (line {exc.lineno}, column {exc.colno}: {exc.msg})"
            if isinstance(exc, json.JSONDecodeError)
            else " (not UTF-8 text)"
        )
        raise Refused(
            f"{path} is not valid JSON or JSONC{where}; fix it there first (an editor shows the spot), "
            "nothing was written"
        ) from None
    if not isinstance(obj, dict):
        raise Refused(f"{path} holds a JSON {type(obj).__name__}, expected an object; nothing was written")
    return data, obj


def _list_at(obj: dict, key: str, path: Path, where: str) -> list:
    """obj[key] as a list (created when missing); another type is a refusal."""
    value = obj.setdefault(key, [])
    if not isinstance(value, list):
        raise Refused(f"{path}: {where}.{key} is not a list; nothing was written")
    return value


def _hooks_of(obj: dict, path: Path) -> dict:
    """obj["hooks"] as an object (created when missing)."""
    hooks = obj.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise Refused(f"{path}: hooks is not an object; nothing was written")
    return hooks


def merge_cursor(obj: dict, command: str, path: Path) -> bool:
    """Put memboard's sessionStart entry into a Cursor hooks.json object; True when it changed."""
    changed = False
    if "version" not in obj:
        rebuilt = {"version": 1}
        rebuilt.update(obj)
        obj.clear()
        obj.update(rebuilt)
        changed = True
    entries = _list_at(_hooks_of(obj, path), "sessionStart", path, "hooks")
    for entry in entries:
        if isinstance(entry, dict) and is_ours(entry.get("command"), "cursor"):
            if entry["command"] != command:
                entry["command"] = command
                changed = True
            return changed
    entries.append({"command": command})
    return True


def _claude_style_entry(command: str, shell: str | None) -> dict:
    """The hook entry memboard adds for Claude Code or Codex."""
    entry: dict = {"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}
    if shell:
        entry["shell"] = shell
    return entry


def _update_entry(entry: dict, command: str, shell: str | None) -> bool:
    """Bring an existing memboard entry to this command (and shell); True when it changed."""
    changed = entry.get("command") != command
    entry["command"] = command
    if shell and entry.get("shell") != shell:
        entry["shell"], changed = shell, True
    elif not shell and entry.get("shell") == CLAUDE_SHELL_WINDOWS:
        del entry["shell"]  # installed on Windows before, a POSIX command now
        changed = True
    return changed


def merge_claude_style(obj: dict, command: str, tool: str, path: Path, shell: str | None = None) -> bool:
    """Put memboard's SessionStart entry into a Claude Code / Codex hooks object; True when it changed."""
    groups = _list_at(_hooks_of(obj, path), "SessionStart", path, "hooks")
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        for entry in group["hooks"]:
            if isinstance(entry, dict) and is_ours(entry.get("command"), tool):
                return _update_entry(entry, command, shell)
    groups.append({"hooks": [_claude_style_entry(command, shell)]})
    return True


def indent_of(data: bytes | None) -> int | str:
    """The indentation the existing file uses (2 spaces when unknown)."""
    if data:
        m = re.search(rb"\n([ \t]+)\S", data)
        if m:
            unit = m.group(1).decode("ascii", "replace")
            return "\t" if unit.startswith("\t") else len(unit)
    return 2


def render(obj: dict, indent: int | str, before: bytes | None) -> bytes:
    """The new file bytes: JSON with the file's indentation, its BOM and line endings kept."""
    text = json.dumps(obj, indent=indent, ensure_ascii=False) + "\n"
    if before and b"\r\n" in before:
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8")
    if before and before.startswith(b"\xef\xbb\xbf"):
        data = b"\xef\xbb\xbf" + data
    return data


def plan_install(
    tool: str, project: str | None, command: str, windows: bool | None = None
) -> tuple[Path, bytes | None, bytes | None]:
    """(path, before, after) for installing the hook; after is None when nothing changes."""
    windows = os.name == "nt" if windows is None else windows
    path = config_file(tool, project)
    before, obj = read_config(path)
    if TOOLS[tool].shape == "cursor":
        changed = merge_cursor(obj, command, path)
    else:
        shell = CLAUDE_SHELL_WINDOWS if windows and tool == "claude" else None
        changed = merge_claude_style(obj, command, tool, path, shell)
    if not changed:
        return path, before, None
    return path, before, rewritten(path, before, obj)


def strict_json(data: bytes | None) -> bool:
    """Whether the file is absent, blank or plain JSON (no comments, no trailing commas)."""
    if data is None or not data.strip():
        return True
    try:
        json.loads(data.decode("utf-8-sig"))
    except ValueError:
        return False
    return True


def rewritten(path: Path, before: bytes | None, obj: dict) -> bytes:
    """The file's new bytes holding obj: plain JSON rendered in the file's indentation; JSONC edited in place,
    member by member, keeping every comment (or refused, nothing written, where a comment is in the way)."""
    if strict_json(before):
        return render(obj, indent_of(before), before)
    raw = before or b""
    bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
    text = raw[len(bom) :].decode("utf-8")
    try:
        for keys, value in jsonedit.edits(jsonedit.loads(text), obj):
            text = jsonedit.put(text, keys, value)
    except jsonedit.CommentsInTheWay as exc:
        raise Refused(f"{path}: {exc}: comments must go from there first; nothing was written") from None
    if jsonedit.loads(text) != obj:
        raise MemboardError(f"{path}: could not place the memboard entry; nothing was written")
    return bom + text.encode("utf-8")


def _ours_paths(obj: dict, tool: str) -> list[jsonedit.Path]:
    """Where memboard's entries for the tool sit, widened to the containers install created for them."""
    hooks = obj.get("hooks")
    event = TOOLS[tool].event
    entries = hooks.get(event) if isinstance(hooks, dict) else None
    if not isinstance(entries, list):
        return []
    found: list[jsonedit.Path] = []
    for i, entry in enumerate(entries):
        if TOOLS[tool].shape == "cursor":
            if isinstance(entry, dict) and is_ours(entry.get("command"), tool):
                found.append(("hooks", event, i))
            continue
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        if not isinstance(inner, list):
            continue
        mine = [j for j, e in enumerate(inner) if isinstance(e, dict) and is_ours(e.get("command"), tool)]
        if mine and len(mine) == len(inner) and set(entry) == {"hooks"}:
            found.append(("hooks", event, i))  # the group install added, holding only our entry
        else:
            found += [("hooks", event, i, "hooks", j) for j in mine]
    if isinstance(hooks, dict) and found and all(len(p) == 3 for p in found) and len(found) == len(entries):
        found = [("hooks", event)] if len(hooks) > 1 else [("hooks",)]
    return found


def plan_uninstall(tool: str, project: str | None) -> tuple[Path, bytes | None, bytes | None]:
    """(path, before, after) for removing the hook; after is None when there is nothing to remove,
    b"" when the file held nothing but what install writes into a new file (it is deleted)."""
    path = config_file(tool, project)
    before, obj = read_config(path)
    paths = _ours_paths(obj, tool)
    if before is None or not paths:
        return path, before, None
    bom = b"\xef\xbb\xbf" if before.startswith(b"\xef\xbb\xbf") else b""
    text = removed(path, before[len(bom) :].decode("utf-8"), paths)
    left = jsonedit.loads(text)
    if (left == {} or (TOOLS[tool].shape == "cursor" and left == {"version": 1})) and not jsonedit.comments(text):
        return path, before, b""
    return path, before, bom + text.encode("utf-8")


def removed(path: Path, text: str, paths: list[jsonedit.Path]) -> str:
    """The text without the items at paths; refused (nothing written) where that would drop a comment."""
    try:
        return jsonedit.remove(text, paths)
    except jsonedit.CommentsInTheWay as exc:
        raise Refused(f"{path}: {exc}: comments must go from there first; nothing was written") from None


def preview(path: Path, before: bytes | None, after: bytes) -> None:
    """Print the change as a git patch (labels a/<path>, b/<path>, the absolute path without its `/`;
    /dev/null when created or deleted): `git apply` run in `/` writes what the command would."""
    sys.stdout.write(patch_of(path, before, after))


def write_config(path: Path, before: bytes | None, after: bytes, user: bool = False) -> Path | None:
    """Back up the old bytes, then write (or, for b"", delete) the file if it still holds `before`: one plan of
    the agent config file's tree (its lock, a settled read, each step read back: see filetree.py). A user's
    file this creates is 0600 (`~/.claude.json` holds account data; the agent's own files are as private)."""
    return write_edit(path, AGENT_CONFIG, before, after, op="install", new_mode=USER_FILE_MODE if user else None)


def command_choice(explicit: str | None, project: str | None) -> tuple[str | None, str]:
    """The --command to write (None: this memboard by absolute path) and the line saying which and why."""
    if explicit is not None:
        if not explicit.strip():
            raise UsageError("--command must not be empty")
        return explicit.strip(), f"the entry runs `{explicit.strip()}` (--command)"
    if project is not None:
        found = "" if shutil.which(PORTABLE) else f"; note: `{PORTABLE}` is not on this machine's PATH"
        return PORTABLE, (
            f"the entry runs `{PORTABLE}` from PATH: a project's file is shared, and this machine's path would not "
            f"work on another (--command to choose: `uvx memboard`, an absolute path){found}"
        )
    return None, (
        "the entry runs this memboard by absolute path: a user's file stays on this machine, and agents started "
        "from a desktop often lack the shell's PATH (--command to choose another)"
    )


def root_argument(
    root: str | None, project: str | None, entry: str, folder_var: str | None = None
) -> tuple[str | None, str | None]:
    """The --root DIR an agent file's entry names (None: none, the root is found as every command finds it) and the
    line saying which and why.

    A user's file names the root by absolute path. A project's file is shared, so no path of this machine goes in
    it: a root inside the project is named relative to the project folder (through folder_var, the agent's name
    for that folder, when it has one); a root outside it is left out when memboard finds it without --root
    (MEMBOARD_ROOT, the config's root), and refused otherwise."""
    if root is None:
        return None, None
    memory = MemoryRoot(Path(root).expanduser())
    memory.require_memory_root()
    if project is None:
        absolute = str(memory.path.absolute())
        return absolute, f"{entry} names the root {absolute} by absolute path: a user's file stays on this machine"
    folder = Path(project).expanduser()
    try:
        inside = memory.path.resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        return None, _outside_project(memory.path, folder, entry)
    named = inside if folder_var is None else folder_var + ("" if inside == "." else f"/{inside}")
    return named, (
        f"{entry} names the root as `--root {named}`, relative to the project folder: a project's file is shared, "
        "and this machine's path would not work on another"
    )


def _outside_project(root: Path, project: Path, entry: str) -> str:
    """The line for a root outside the project that memboard finds by itself; a refusal when it does not."""
    try:
        found: Path | None = resolve_root(None).resolve()
    except UsageError:
        found = None
    if found != root.resolve():
        raise Refused(
            f"--root {root} is outside the project folder {project}, and a project's file is shared: this machine's "
            "path would not work on another; give a root inside the project, or leave --root out (each machine "
            "finds its root through `memboard config set root DIR` or MEMBOARD_ROOT); nothing was written"
        )
    return (
        f"{entry} names no root: {root} is outside the project, and memboard finds it as every command does "
        "(MEMBOARD_ROOT, the config's root), as each machine finds its own"
    )


def say(line: str) -> None:
    """One line on stderr beside the preview (stdout is the patch itself)."""
    print(f"memboard: {line}", file=sys.stderr)


def finish(
    args, path: Path, plan: tuple[bytes | None, bytes | None], nothing: str, done: Callable[[Path | None], str]
) -> int:
    """Preview and write a planned change of an agent file (install-hook, install-mcp and their uninstalls); the
    outcome is one line, or under --json one object {file, changed, dry_run, deleted, backup, message} holding the
    patch under --dry-run."""
    (before, after), as_json, dry_run = plan, bool(getattr(args, "json", False)), bool(args.dry_run)
    answer: dict[str, object] = {"file": str(path), "changed": after is not None, "dry_run": dry_run}
    if after is None:
        if as_json:
            dump({**answer, "deleted": False, "backup": None, "message": nothing})
        else:
            print(nothing)
        return 0
    answer["deleted"] = after == b""
    if dry_run:
        if as_json:
            dump(
                {
                    **answer,
                    "backup": None,
                    "message": "dry run: nothing written",
                    "patch": patch_of(path, before, after),
                }
            )
            return 0
        preview(path, before, after)
        print("dry run: nothing written", file=sys.stderr)
        return 0
    if not as_json:
        preview(path, before, after)
    saved = write_config(path, before, after, user=args.project is None)
    if as_json:
        dump({**answer, "backup": str(saved) if saved else None, "message": done(saved)})
    else:
        print(done(saved))
    return 0


def cmd_install_hook(args) -> int:
    """Preview the change as a diff; unless --dry-run, back up the old file and write the new one."""
    explicit, why = command_choice(args.command, args.project)
    config_file(args.tool, args.project)  # a missing project folder is told before the root
    root, where = root_argument(getattr(args, "root", None), args.project, "the hook")
    command = hook_command(args.tool, explicit, root=root)
    path, before, after = plan_install(args.tool, args.project, command)
    if after is not None:
        say(why)
        if where is not None:
            say(where)
    return finish(
        args,
        path,
        (before, after),
        f"nothing to change: {path} already runs `{command}`",
        lambda saved: f"installed: {path} runs `{command}` at session start" + (f" (backup: {saved})" if saved else ""),
    )


def cmd_uninstall_hook(args) -> int:
    """Preview the removal as a diff; unless --dry-run, back up the file and remove memboard's entry."""
    path, before, after = plan_uninstall(args.tool, args.project)
    if after == b"":
        done = f"uninstalled: deleted {path}, which held only memboard's hook"
    else:
        done = f"uninstalled: removed memboard's {args.tool} hook from {path}"
    return finish(
        args,
        path,
        (before, after),
        f"nothing to remove: {path} has no memboard hook for {args.tool}",
        lambda saved: f"{done} (backup: {saved})",
    )
