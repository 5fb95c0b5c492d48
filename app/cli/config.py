"""`memboard config show|get KEY|list|set KEY VALUE [--dry-run]|path`: the user's TOML config file (its keys: core/config.py's table)."""

from __future__ import annotations

import sys
from collections.abc import Mapping

import tomli_w

from ..core import config
from ..core.errors import MemboardError
from ..core.files import tomledit
from ..core.files.filetree import patch_of
from ..core.secrets import refuse_secrets
from .output import dump


def show(as_json: bool = False) -> int:
    """Print the config file's path as a comment, then its settings as TOML (as_json: {path, exists, settings})."""
    cfg = config.settings()
    if as_json:
        dump({"path": str(cfg.path), "exists": cfg.exists, "settings": dict(cfg.stored)})
        return 0
    if not cfg.exists:
        print(f"# {cfg.path} (not created yet; `memboard config set KEY VALUE` creates it)")
        return 0
    print(f"# {cfg.path}")
    sys.stdout.write(tomli_w.dumps(dict(cfg.stored)))
    return 0


def shown(value: object) -> str:
    """A setting's value as TOML writes it (a string quoted, a number as is, a table inline)."""
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{shown(str(name))} = {shown(item)}" for name, item in value.items()) + " }"
    return tomli_w.dumps({"v": value})[4:].rstrip("\n")


def get(name: str, as_json: bool = False) -> int:
    """Print the value commands use for one key: the config's, else its default; exit 1 when it has neither
    (as_json: {key, value, default})."""
    key = config.key_named(name)
    cfg = config.settings()
    value = cfg.value(name)
    default = value is None
    if value is None:
        value = key.default
    if value is None:
        raise MemboardError(f"{name} is not set in {cfg.path} and has no default")
    if as_json:
        dump({"key": name, "value": value, "default": default})
    else:
        print(shown(value) if isinstance(value, Mapping) else value)
    return 0


def list_keys(as_json: bool = False) -> int:
    """Print every key: its value in the config (or its default, or that it is unset) and what it does
    (as_json: an array of {key, value, set, default, help})."""
    stored = config.settings().stored
    if as_json:
        dump(
            [
                {
                    "key": key.name,
                    "value": stored.get(key.name, key.default),
                    "set": key.name in stored,
                    "default": key.default,
                    "help": key.help,
                }
                for key in config.TABLE
            ]
        )
        return 0
    for key in config.TABLE:
        if key.name in stored:
            value = shown(stored[key.name])
        elif key.default is not None:
            value = f"{shown(key.default)} (default)"
        else:
            value = "(not set)"
        print(f"{key.name:<15} {value:<30} {key.help}")
    return 0


def theme_names() -> frozenset[str]:
    """The names of Textual's themes."""
    # lazy: only `config set theme` needs Textual (about 0.2 s)
    from textual.theme import BUILTIN_THEMES

    return frozenset(BUILTIN_THEMES)


def set_key(key: str, value: str, allow_secrets: bool = False, dry_run: bool = False, as_json: bool = False) -> int:
    """Validate and store one setting, keeping the file's comments, layout and other keys; say what changed
    (dry_run: print the change as a git patch and write nothing; as_json: {key, value, path, changed, dry_run}
    with the patch under dry_run)."""
    themes = theme_names() if key == "theme" else None
    stored = config.parse_value(key, value, themes)
    if key == "agent_name":  # every registration writes it into index.md and its Session ID
        refuse_secrets({"agent name": str(stored)}, allow_secrets)
    path = config.settings().path  # a config that is not valid TOML is refused here, as by every other command
    edit = tomledit.plan_set(path, (key,), stored)
    if as_json:
        if not dry_run:
            tomledit.apply(edit)
            config.forget()
        answer = {"key": key, "value": stored, "path": str(edit.path), "changed": edit.changed, "dry_run": dry_run}
        dump(
            {**answer, "patch": patch_of(edit.path, edit.before, edit.after) if edit.changed else ""}
            if dry_run
            else answer
        )
        return 0
    if dry_run:
        sys.stdout.write(patch_of(edit.path, edit.before, edit.after) if edit.changed else "")
        print("dry run: nothing written" if edit.changed else "dry run: nothing to change", file=sys.stderr)
        return 0
    tomledit.apply(edit)
    config.forget()
    path, before, after = edit.path, edit.before, edit.after
    if before == after:
        print(f"{key} is already {stored!r} in {path}")
    else:
        print(f"set {key} = {stored!r} in {path}")
    return 0


def cmd_config(args) -> int:
    """Dispatch the config actions."""
    as_json = bool(getattr(args, "json", False))
    if args.action == "path":
        if as_json:
            dump({"path": str(config.config_path())})
        else:
            print(config.config_path())
        return 0
    if args.action == "set":
        return set_key(args.key, args.value, args.allow_secrets, getattr(args, "dry_run", False), as_json)
    if args.action == "get":
        return get(args.key, as_json)
    if args.action == "list":
        return list_keys(as_json)
    return show(as_json)
