"""User configuration (a TOML file) and where memboard keeps local state and the memory root."""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

from .errors import UsageError
from .formats.ids import check_agent

CONFIG_ENV = "MEMBOARD_CONFIG"
ROOT_ENV = "MEMBOARD_ROOT"
STATE_ENV = "MEMBOARD_STATE_DIR"
KEYS = {"root": str, "agent_name": str, "stale_days": int, "theme": str, "lock_timeout": float, "settle_seconds": float}
DEFAULT_STALE_DAYS = 14  # the protocol's days without update before organize marks an active row stale
MAX_SETTLE = 2.0  # a longer window than this would outlast the 5 s a command waits for a file to settle


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


def load() -> dict[str, Any]:
    """The config as a dict ({} when there is no file); a broken file is a one-line error."""
    path = config_path()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"cannot read config {path}: {exc.strerror or exc}") from None
    import tomllib  # lazy: without a config file the hook never loads a TOML parser (about 2.7 ms)

    try:
        return tomllib.loads(data.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"config {path} is not valid TOML: {exc}") from None


def resolve_root(cli_root: str | None, cfg: dict[str, Any] | None = None) -> Path:
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
    raise UsageError("no memory root: pass --root DIR, set MEMBOARD_ROOT, or run `memboard config set root DIR`")


def parse_value(key: str, raw: str, themes: Collection[str] | None = None) -> object:
    """The typed value of `config set KEY VALUE`, or a one-line UsageError saying what is wrong.

    `themes` are the theme names the board knows; the caller supplies them (the core does not
    import Textual), and without them a theme is only checked for its form."""
    if key not in KEYS:
        raise UsageError(f"unknown config key {key!r}: use one of {', '.join(KEYS)}")
    text = raw.strip()
    if key == "root":
        if not text:
            raise UsageError("root must be a folder path")
        path = Path(text).expanduser().absolute()
        if path.exists() and not path.is_dir():
            raise UsageError(f"root {path} is not a folder")
        return str(path)
    if key == "agent_name":
        return check_agent(text)
    if key == "stale_days":
        try:
            days = int(text)
        except ValueError:
            raise UsageError(f"stale_days must be a whole number of days, not {raw!r}") from None
        if days < 0:
            raise UsageError("stale_days must be 0 or more")
        return days
    if key == "lock_timeout":
        try:
            seconds = float(text)
        except ValueError:
            raise UsageError(f"lock_timeout must be a number of seconds, not {raw!r}") from None
        if not 0 <= seconds <= 3600:
            raise UsageError("lock_timeout must be between 0 and 3600 seconds")
        return seconds
    if key == "settle_seconds":
        try:
            seconds = float(text)
        except ValueError:
            raise UsageError(f"settle_seconds must be a number of seconds, not {raw!r}") from None
        if not 0 <= seconds <= MAX_SETTLE:
            raise UsageError(f"settle_seconds must be between 0 and {MAX_SETTLE:g} seconds")
        return seconds
    if key == "theme":
        if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", text):
            raise UsageError(f"theme must be a theme name such as textual-dark or nord, not {raw!r}")
        if themes is not None and text not in themes:
            raise UsageError(f"unknown theme {text!r}: use one of {', '.join(sorted(themes))}")
        return text
    raise UsageError(f"config key {key!r} cannot be set")  # pragma: no cover - KEYS covers every key


def seconds_setting(env: str, key: str, default: float) -> float:
    """A number of seconds from the environment variable env, else config key, else default."""
    raw = os.environ.get(env)
    if raw:
        try:
            return max(0.0, float(raw))
        except ValueError:
            pass
    try:
        value = load().get(key)
    except UsageError:
        value = None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return default


def stale_days(cfg: dict[str, Any] | None = None) -> int:
    """Organize's days without update: config `stale_days`, else 14; any other value is a one-line UsageError."""
    value = (load() if cfg is None else cfg).get("stale_days", DEFAULT_STALE_DAYS)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(f"config stale_days must be a whole number of days, 0 or more, not {value!r}")
    return value
