"""`memboard install-hook cursor|claude|codex`: merge a SessionStart hook into the tool's JSON config.

Cursor reads `hooks.json` (`{"version": 1, "hooks": {"sessionStart": [{"command": ...}]}}`);
Claude Code reads `settings.json` and Codex `hooks.json`, both shaped
`{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": ...}]}]}}`. The entry
runs this memboard by absolute path (GUI agents often lack the shell's PATH), quoted when the
path has spaces. Other hooks and settings are left as they are; an existing memboard entry
for the tool is updated in place, so a second run changes nothing.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

from .core.errors import MemboardError, Refused, UsageError

TIMEOUT_SECONDS = 10
OURS_RE = re.compile(r"memboard(?:\.exe)?[\"']?\s+hook\s+(cursor|claude|codex)\b", re.IGNORECASE)


def config_file(tool: str, project: str | None) -> Path:
    """The tool's config file: in the home folder, or under the project folder."""
    if project is not None:
        base = Path(project).expanduser()
        if not base.is_dir():
            raise UsageError(f"project folder {base} does not exist")
    else:
        base = Path.home()
    name = {"cursor": ".cursor/hooks.json", "claude": ".claude/settings.json", "codex": ".codex/hooks.json"}[tool]
    return base / name


def quote(arg: str, windows: bool | None = None) -> str:
    """One command-line word, quoted when it needs it (double quotes on Windows, POSIX rules elsewhere)."""
    windows = os.name == "nt" if windows is None else windows
    if windows:
        if arg and not re.search(r'[\s"&|<>^()%!,;]', arg):
            return arg
        return '"' + arg.replace('"', '\\"') + '"'
    import shlex

    return shlex.quote(arg)


def memboard_words() -> list[str]:
    """How to run this memboard: its console script by absolute path, else `python -m memboard`."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None:
        for candidate in (script, script.with_name(script.name + ".exe")):
            if candidate.stem.lower() == "memboard" and candidate.is_file():
                return [str(candidate.absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "memboard"]


def hook_command(tool: str, explicit: str | None = None, windows: bool | None = None) -> str:
    """The command string the tool runs: `<memboard> hook <tool>`."""
    if explicit:
        base = explicit.strip()
        if not base:
            raise UsageError("--command must not be empty")
        return f"{base} hook {tool}"
    return " ".join(quote(w, windows) for w in memboard_words()) + f" hook {tool}"


def is_ours(command: object, tool: str) -> bool:
    """Whether a hook command is memboard's hook for this tool."""
    if not isinstance(command, str):
        return False
    m = OURS_RE.search(command)
    return bool(m and m.group(1).lower() == tool)


def read_config(path: Path) -> tuple[bytes | None, dict]:
    """The file's bytes and JSON object ({} when absent); broken JSON is a one-line refusal."""
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
        obj = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if hasattr(exc, "lineno") else ""
        raise Refused(f"{path} is not valid JSON{where}; fix it first, nothing was written") from None
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


def merge_claude_style(obj: dict, command: str, tool: str, path: Path) -> bool:
    """Put memboard's SessionStart entry into a Claude Code / Codex hooks object; True when it changed."""
    groups = _list_at(_hooks_of(obj, path), "SessionStart", path, "hooks")
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        for entry in group["hooks"]:
            if isinstance(entry, dict) and is_ours(entry.get("command"), tool):
                if entry.get("command") != command:
                    entry["command"] = command
                    return True
                return False
    groups.append({"hooks": [{"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}]})
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


def plan_install(tool: str, project: str | None, command: str) -> tuple[Path, bytes | None, bytes | None]:
    """(path, before, after) for installing the hook; after is None when nothing changes."""
    path = config_file(tool, project)
    before, obj = read_config(path)
    if tool == "cursor":
        changed = merge_cursor(obj, command, path)
    else:
        changed = merge_claude_style(obj, command, tool, path)
    if not changed:
        return path, before, None
    return path, before, render(obj, indent_of(before), before)


def cmd_install_hook(args) -> int:
    """Preview the change as a diff; unless --dry-run, back up the old file and write the new one."""
    from .core.apply import atomic_write
    from .core.plan import Change, diff_change

    command = hook_command(args.tool, args.command)
    path, before, after = plan_install(args.tool, args.project, command)
    if after is None:
        print(f"nothing to change: {path} already runs `{command}`")
        return 0
    shown = path.as_posix().lstrip("/")  # diff labels read a/<path>, b/<path>
    change = Change("create" if before is None else "modify", shown, before, after)
    sys.stdout.write(diff_change(change))
    if args.dry_run:
        print("dry run: nothing written", file=sys.stderr)
        return 0
    backup = None
    try:
        if before is not None:
            backup = path.with_name(f"{path.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}")
            n = 1
            while backup.exists():
                n += 1
                backup = path.with_name(f"{path.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}-{n}")
            atomic_write(backup, before)
        atomic_write(path, after)
    except OSError as exc:
        raise MemboardError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"installed: {path} runs `{command}` at session start" + (f" (backup: {backup})" if backup else ""))
    return 0
