"""User configuration (a TOML file) and where memboard keeps local state and the memory root.

The settings are a table of keys (`TABLE`: name, type, default, how `config set` parses and
checks a value, how a stored value is read, help); `config set`, its `--help` and the shell
completion are driven by it. A command reads the file once: `settings()` builds a frozen
`Settings` the first time a command asks for it and hands the same object to every later
question within the command (`once()`, which the command line's entry point opens around each
command, and the MCP server around each tool call). Outside such a scope (the board, a test calling
the core) each call reads the file as it is now. A value is checked when it is used, not when the file is read: a command that
never needs the root is not refused for a bad `root`.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple, cast

from .errors import UsageError
from .formats.ids import DEFAULT_AGENT, check_agent

CONFIG_ENV = "MEMBOARD_CONFIG"
ROOT_ENV = "MEMBOARD_ROOT"
STATE_ENV = "MEMBOARD_STATE_DIR"
DEFAULT_STALE_DAYS = 14  # the protocol's days without update before organize marks an active row stale
MAX_SETTLE = 2.0  # a longer window than this would outlast the 5 s a command waits for a file to settle
DEFAULT_THEME = "textual-dark"  # the board's theme when the config names none
DEFAULT_LOCK_TIMEOUT = 20.0  # seconds a writer waits for the root's lock (files/lock.py)
DEFAULT_SPACE_STALE_DAYS = 14  # seed 003: a space's memory older than this is a weak reference
DEFAULT_HOT_MAX_LINES = 80  # seed 004: MEMORY.md's limit
DEFAULT_HOT_MAX_TOKENS = 1000  # seed 004: about 1,000 tokens
DEFAULT_FACTS_STALE_DAYS = 30
DEFAULT_SETTLE = 0.5  # seconds a file must stay unchanged before memboard builds on it (files/settle.py)
MCP_PROFILES = ("agent", "sessions", "notes", "spaces", "hierarchy", "all")  # service/mcp_tools.py: their tools
DEFAULT_MCP_TOOLS = "agent"
HOOK_CONTEXTS = ("id", "digest")  # what the SessionStart hook tells the agent (cli/hook_digest.py)
DEFAULT_HOOK_CONTEXT_BYTES = 2000
MIN_HOOK_CONTEXT_BYTES = 200  # room for the Session ID line and the line naming how to read more


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


def read() -> Settings:
    """The config file as it is now, as Settings (empty when there is no file); a broken file is a one-line error."""
    path = config_path()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Settings(path, MappingProxyType({}), exists=False)
    except OSError as exc:
        raise UsageError(f"cannot read config {path}: {exc.strerror or exc}") from None
    import tomllib  # lazy: without a config file the hook never loads a TOML parser (about 2.7 ms)

    try:
        stored = tomllib.loads(data.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"config {path} is not valid TOML: {exc}") from None
    return Settings(path, MappingProxyType(stored), exists=True)


_scopes = threading.local()  # each thread's open scopes, innermost last (the MCP server runs each call on a worker)


def _stack() -> list[list[Settings]]:
    """This thread's open scopes."""
    stack: list[list[Settings]] | None = getattr(_scopes, "stack", None)
    if stack is None:
        stack = _scopes.stack = []
    return stack


@contextmanager
def once() -> Iterator[None]:
    """Within the block, settings() reads the file the first time it is asked and answers that object after."""
    stack = _stack()
    stack.append([])
    try:
        yield
    finally:
        stack.pop()


def settings() -> Settings:
    """The settings of this command (read once within `once()`), else of the file as it is now."""
    stack: list[list[Settings]] | None = getattr(_scopes, "stack", None)
    if not stack:
        return read()
    held = stack[-1]
    if not held:
        held.append(read())  # a broken file raises each time it is asked: nothing is kept of it
    return held[0]


def forget() -> None:
    """Drop the settings this command read (the file was just written): the next question reads it again."""
    stack: list[list[Settings]] | None = getattr(_scopes, "stack", None)
    if stack:
        stack[-1].clear()


def load() -> dict[str, Any]:
    """The config as a dict ({} when there is no file); a broken file is a one-line error."""
    return dict(settings().stored)


def resolve_root(cli_root: str | None, cfg: Settings | None = None) -> Path:
    """The memory root: --root, MEMBOARD_ROOT, config `root`, ./memory if it exists."""
    if cli_root:
        return Path(cli_root).expanduser()
    env = os.environ.get(ROOT_ENV)
    if env:
        return Path(env).expanduser()
    configured = (settings() if cfg is None else cfg).root
    if configured:
        return Path(configured).expanduser()
    local = Path("memory")
    if local.is_dir():
        return local
    raise UsageError("no memory root: pass --root DIR, set MEMBOARD_ROOT, or run `memboard config set root DIR`")


# -- the table of keys ------------------------------------------------------------------------

Themes = Collection[str] | None


def _parse_root(raw: str, themes: Themes) -> object:
    """`config set root DIR`: an absolute folder path (a file there is refused)."""
    text = raw.strip()
    if not text:
        raise UsageError("root must be a folder path")
    path = Path(text).expanduser().absolute()
    if path.exists() and not path.is_dir():
        raise UsageError(f"root {path} is not a folder")
    return str(path)


def _parse_agent(raw: str, themes: Themes) -> object:
    """`config set agent_name NAME`: a valid agent name."""
    return check_agent(raw.strip())


def _parse_stale_days(raw: str, themes: Themes) -> object:
    """`config set stale_days N`: a whole number of days, 0 or more."""
    try:
        days = int(raw.strip())
    except ValueError:
        raise UsageError(f"stale_days must be a whole number of days, not {raw!r}") from None
    if days < 0:
        raise UsageError("stale_days must be 0 or more")
    return days


def _seconds(name: str, high: float) -> Callable[[str, Themes], object]:
    """A parser of a number of seconds between 0 and high for the key name."""

    def parse(raw: str, themes: Themes) -> object:
        """`config set NAME SECONDS`."""
        try:
            seconds = float(raw.strip())
        except ValueError:
            raise UsageError(f"{name} must be a number of seconds, not {raw!r}") from None
        if not 0 <= seconds <= high:
            raise UsageError(f"{name} must be between 0 and {high:g} seconds")
        return seconds

    return parse


def _parse_theme(raw: str, themes: Themes) -> object:
    """`config set theme NAME`: a theme name (one the board knows, when the caller says which it knows)."""
    text = raw.strip()
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", text):
        raise UsageError(f"theme must be a theme name such as textual-dark or nord, not {raw!r}")
    if themes is not None and text not in themes:
        raise UsageError(f"unknown theme {text!r}: use one of {', '.join(sorted(themes))}")
    return text


def _text(value: object) -> str | None:
    """A stored text setting: the value as text, None when unset or empty."""
    return str(value) if value else None


def _stale_days(value: object) -> int:
    """The stored stale_days, strictly: anything but a whole number 0 or more is a one-line UsageError."""
    if value is None:
        return DEFAULT_STALE_DAYS
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(f"config stale_days must be a whole number of days, 0 or more, not {value!r}")
    return value


def _stored_seconds(value: object) -> float | None:
    """A stored number of seconds, None when unset or not a number 0 or more (its user's default stands)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


def _parse_keymap(raw: str, themes: Themes) -> object:
    """`config set keymap ...`: refused in one line; the keymap is a table written in the file itself."""
    raise UsageError(
        'keymap is a table: add `[keymap]` to the config file with lines of binding id = "keys" '
        '(such as "board.archive" = "A"; the board\'s help lists the ids)'
    )


def _keymap(value: object) -> object:
    """The stored `[keymap]` as it is, None when unset (the board checks it and says what it cannot use)."""
    return value


def _whole(name: str, default: int, low: int = 0) -> tuple[Callable[[str, Themes], object], Callable[[object], object]]:
    """How `config set NAME N` parses a whole number low or more, and how a stored one is read (the default when
    unset; a bad stored value is a one-line UsageError)."""

    def parse(raw: str, themes: Themes) -> object:
        """`config set NAME N`."""
        try:
            number = int(raw.strip())
        except ValueError:
            raise UsageError(f"{name} must be a whole number, not {raw!r}") from None
        if number < low:
            raise UsageError(f"{name} must be {low} or more")
        return number

    def read(value: object) -> object:
        """The stored number, strictly."""
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise UsageError(f"config {name} must be a whole number, {low} or more, not {value!r}")
        return value

    return parse, read


def _parse_folder(name: str) -> Callable[[str, Themes], object]:
    """How `config set NAME DIR` parses a folder (made absolute; an existing file is refused)."""

    def parse(raw: str, themes: Themes) -> object:
        """`config set NAME DIR`."""
        text = raw.strip()
        if not text:
            raise UsageError(f"{name} must be a folder")
        path = Path(text).expanduser().absolute()
        if path.exists() and not path.is_dir():
            raise UsageError(f"{name} {path} is not a folder")
        return str(path)

    return parse


def _parse_folders(raw: str, themes: Themes) -> object:
    """`config set space_roots DIR[{os.pathsep}DIR...]`: project folders, made absolute (stored as a TOML array)."""
    parts = [part.strip() for part in raw.split(os.pathsep) if part.strip()]
    return [str(Path(part).expanduser().absolute()) for part in parts]


def _folders(value: object) -> tuple[str, ...]:
    """The stored space_roots: a tuple of folder names (a single string is one folder); anything else is a
    one-line UsageError."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value else ()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(item for item in value if item)
    raise UsageError(f"config space_roots must be an array of folder names, not {value!r}")


def _parse_profiles(raw: str, themes: Themes) -> object:
    """`config set mcp_tools PROFILE[,PROFILE...]`: tool profiles of `memboard mcp`."""
    names = [part.strip() for part in raw.split(",") if part.strip()]
    unknown = [name for name in names if name not in MCP_PROFILES]
    if not names or unknown:
        raise UsageError(f"mcp_tools must be one or more of {', '.join(MCP_PROFILES)} joined by commas, not {raw!r}")
    return ",".join(names)


def _parse_hook_context(raw: str, themes: Themes) -> object:
    """`config set hook_context id|digest`."""
    value = raw.strip()
    if value not in HOOK_CONTEXTS:
        raise UsageError(f"hook_context must be one of {', '.join(HOOK_CONTEXTS)}, not {raw!r}")
    return value


def _hook_context(value: object) -> object:
    """The stored hook_context, strictly (unset: id)."""
    if value is None:
        return "id"
    if value not in HOOK_CONTEXTS:
        raise UsageError(f"config hook_context must be one of {', '.join(HOOK_CONTEXTS)}, not {value!r}")
    return value


class Key(NamedTuple):
    """One setting: its name, its kind (type), its default (None: none), how `config set` parses a value, how a
    stored value is read (None: unset, or a value its users pass over for the default), and its help."""

    name: str
    kind: type
    default: object
    parse: Callable[[str, Themes], object]
    read: Callable[[object], object]
    help: str


TABLE = (
    Key("root", str, None, _parse_root, _text, "the memory root folder (after --root and MEMBOARD_ROOT)"),
    Key("agent_name", str, DEFAULT_AGENT, _parse_agent, _text, "the agent name new sessions are registered under"),
    Key(
        "stale_days",
        int,
        DEFAULT_STALE_DAYS,
        _parse_stale_days,
        _stale_days,
        "days without update before organize marks a row stale",
    ),
    Key("theme", str, DEFAULT_THEME, _parse_theme, _text, "the board's theme (a Textual theme name)"),
    Key(
        "lock_timeout",
        float,
        DEFAULT_LOCK_TIMEOUT,
        _seconds("lock_timeout", 3600),
        _stored_seconds,
        "seconds a writer waits for the root's lock (0 to 3600)",
    ),
    Key(
        "settle_seconds",
        float,
        DEFAULT_SETTLE,
        _seconds("settle_seconds", MAX_SETTLE),
        _stored_seconds,
        f"seconds a file must stay unchanged before it is read (0 to {MAX_SETTLE:g})",
    ),
    Key(
        "space_roots",
        list,
        None,
        _parse_folders,
        _folders,
        f"project folders whose session-memory spaces are known ({os.pathsep}-separated)",
    ),
    Key(
        "space_stale_days",
        int,
        DEFAULT_SPACE_STALE_DAYS,
        *_whole("space_stale_days", DEFAULT_SPACE_STALE_DAYS),
        "days after a space's Last Updated before restore calls it a weak reference",
    ),
    Key(
        "hierarchy_workspace",
        str,
        None,
        _parse_folder("hierarchy_workspace"),
        _text,
        "the agent memory hierarchy's workspace (after --workspace)",
    ),
    Key(
        "hot_max_lines",
        int,
        DEFAULT_HOT_MAX_LINES,
        *_whole("hot_max_lines", DEFAULT_HOT_MAX_LINES, 1),
        "MEMORY.md's most lines before lint says hot_too_long",
    ),
    Key(
        "hot_max_tokens",
        int,
        DEFAULT_HOT_MAX_TOKENS,
        *_whole("hot_max_tokens", DEFAULT_HOT_MAX_TOKENS, 1),
        "MEMORY.md's most estimated tokens before lint says hot_too_many_tokens",
    ),
    Key(
        "facts_stale_days",
        int,
        DEFAULT_FACTS_STALE_DAYS,
        *_whole("facts_stale_days", DEFAULT_FACTS_STALE_DAYS),
        "days after facts.yaml's Last updated before lint says facts_stale",
    ),
    Key(
        "mcp_tools",
        str,
        DEFAULT_MCP_TOOLS,
        _parse_profiles,
        _text,
        f"the tool profiles `memboard mcp` serves ({', '.join(MCP_PROFILES)}; several joined by commas)",
    ),
    Key(
        "hook_context",
        str,
        "id",
        _parse_hook_context,
        _hook_context,
        "what the SessionStart hook tells the agent: id (the Session ID) or digest (the ID and a budgeted digest)",
    ),
    Key(
        "hook_context_bytes",
        int,
        DEFAULT_HOOK_CONTEXT_BYTES,
        *_whole("hook_context_bytes", DEFAULT_HOOK_CONTEXT_BYTES, MIN_HOOK_CONTEXT_BYTES),
        "the most UTF-8 bytes of the hook's context with hook_context digest",
    ),
    Key(
        "keymap",
        dict,
        None,
        _parse_keymap,
        _keymap,
        'the board\'s keys rebound: a [keymap] table of binding id = "keys"',
    ),
)
BY_NAME = {key.name: key for key in TABLE}
KEYS = {key.name: key.kind for key in TABLE}


def key_named(name: str) -> Key:
    """The table's key called name, or a one-line UsageError naming the keys there are."""
    if name not in BY_NAME:
        raise UsageError(f"unknown config key {name!r}: use one of {', '.join(KEYS)}")
    return BY_NAME[name]


def parse_value(key: str, raw: str, themes: Collection[str] | None = None) -> object:
    """The typed value of `config set KEY VALUE`, or a one-line UsageError saying what is wrong.

    `themes` are the theme names the board knows; the caller supplies them (the core does not
    import Textual), and without them a theme is only checked for its form."""
    return key_named(key).parse(raw, themes)


class Settings(NamedTuple):
    """The config file as one command reads it: its path, whether it exists, what it stores, and each key typed."""

    path: Path
    stored: Mapping[str, Any]
    exists: bool

    # (a NamedTuple, not a dataclass: `memboard search` reads the config and must not load dataclasses)

    def value(self, name: str) -> object:
        """The key name's value read by the table (a bad stored value raises where the key says it does)."""
        return BY_NAME[name].read(self.stored.get(name))

    @property
    def root(self) -> str | None:
        """The configured memory root, None when unset."""
        return cast("str | None", self.value("root"))

    @property
    def agent_name(self) -> str | None:
        """The configured agent name (not yet checked), None when unset."""
        return cast("str | None", self.value("agent_name"))

    @property
    def stale_days(self) -> int:
        """Organize's days without update (14 when unset); a bad value is a one-line UsageError."""
        return cast("int", self.value("stale_days"))

    @property
    def theme(self) -> str | None:
        """The configured theme name (not yet checked), None when unset."""
        return cast("str | None", self.value("theme"))

    @property
    def lock_timeout(self) -> float | None:
        """The configured lock wait in seconds, None when unset or not a number 0 or more."""
        return cast("float | None", self.value("lock_timeout"))

    @property
    def keymap(self) -> object:
        """The stored `[keymap]` table (binding id = "keys"), None when unset; the board checks its entries."""
        return self.value("keymap")

    @property
    def settle_seconds(self) -> float | None:
        """The configured settle window in seconds, None when unset or not a number 0 or more."""
        return cast("float | None", self.value("settle_seconds"))


def seconds_setting(env: str, key: str, default: float) -> float:
    """A number of seconds from the environment variable env, else config key, else default."""
    raw = os.environ.get(env)
    if raw:
        try:
            return max(0.0, float(raw))
        except ValueError:
            pass
    try:
        value = _stored_seconds(settings().stored.get(key))
    except UsageError:
        value = None
    return default if value is None else value


def stale_days(cfg: Settings | None = None) -> int:
    """Organize's days without update: config `stale_days`, else 14; any other value is a one-line UsageError."""
    return (settings() if cfg is None else cfg).stale_days
