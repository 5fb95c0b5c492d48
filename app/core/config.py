"""User configuration (a TOML file) and where memboard keeps local state and the memory root."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import UsageError

CONFIG_ENV = "MEMBOARD_CONFIG"
ROOT_ENV = "MEMBOARD_ROOT"
STATE_ENV = "MEMBOARD_STATE_DIR"
KEYS = {"root": str, "agent_name": str, "stale_days": int, "theme": str, "lock_timeout": float}


def config_path() -> Path:
    """The config file: MEMBOARD_CONFIG, else the user's config folder."""
    explicit = os.environ.get(CONFIG_ENV)
    if explicit:
        return Path(explicit)
    if os.name == "nt":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "memboard" / "config.toml"


def state_dir() -> Path:
    """Local, per-machine state (locks, hook logs of unwritable roots): never inside the root."""
    explicit = os.environ.get(STATE_ENV)
    if explicit:
        return Path(explicit)
    if os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return base / "memboard"


def load() -> dict:
    """The config as a dict ({} when there is no file); a broken file is a one-line error."""
    path = config_path()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"cannot read config {path}: {exc.strerror or exc}") from None
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"config {path} is not valid TOML: {exc}") from None


def resolve_root(cli_root: str | None, cfg: dict | None = None) -> Path:
    """The memory root: --root, MEMBOARD_ROOT, config `root`, ./memory if it exists."""
    if cli_root:
        return Path(cli_root).expanduser()
    env = os.environ.get(ROOT_ENV)
    if env:
        return Path(env).expanduser()
    cfg = load() if cfg is None else cfg
    if cfg.get("root"):
        return Path(str(cfg["root"])).expanduser()
    local = Path("memory")
    if local.is_dir():
        return local
    raise UsageError(
        "no memory root: pass --root DIR, set MEMBOARD_ROOT, or run `memboard config set root DIR`"
    )
