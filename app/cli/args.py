"""What commands take from their arguments: usage errors as one line, the memory root, the agent name, text input."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, NoReturn

from ..core.errors import UsageError

if TYPE_CHECKING:  # the root's module is loaded by the commands that use a root (`lookup` and the space reads never do)
    from ..core.files.root import MemoryRoot


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one stderr line and exit 2 (the CLI contract); under --json that
    line is a JSON object (see error_line)."""

    json_errors = False  # set by entry.parse when the command line holds --json

    def error(self, message: str) -> NoReturn:
        """Print `memboard CMD: error: ...` on one line (a JSON object under --json) and exit 2."""
        text = " ".join(message.split())
        line = f"{self.prog}: error: {text} (see {self.prog} --help)"
        self.exit(2, error_line(line, 2) if OneLineParser.json_errors else line + "\n")


def error_line(message: str, code: int) -> str:
    """The stderr line of an error under --json: one JSON object holding the same one-line message."""
    import json  # lazy: only an error under --json prints it

    return json.dumps({"error": message, "exit_code": code}, ensure_ascii=False) + "\n"


def globals_everywhere(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The parser with --root accepted after every command as before it (a command that names no root
    ignores it, as it does before the command); returns the parser."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                if "--root" not in sub._option_string_actions:
                    sub.add_argument("--root", metavar="DIR", default=argparse.SUPPRESS, help="memory root folder")
                globals_everywhere(sub)
    return parser


def root_of(args: argparse.Namespace) -> MemoryRoot:
    """The MemoryRoot named by --root, MEMBOARD_ROOT, the config, or ./memory."""
    from ..core import config  # lazy: `lookup` and the space reads read no root (whole-process speed targets)
    from ..core.files.root import MemoryRoot  # lazy: as config above

    return MemoryRoot(config.resolve_root(getattr(args, "root", None)))


def agent_of(args: argparse.Namespace) -> str:
    """The agent name: --agent, config agent_name, or the seed's default."""
    from ..service.agents import agent_name  # lazy: `memboard search` loads this module for its parser alone

    return agent_name(getattr(args, "agent", None))


def read_input(spec: str | None) -> str | None:
    """Text of FILE, or stdin for `-`, as UTF-8."""
    if spec is None:
        return None
    try:
        if spec == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(spec, "rb") as fh:
                data = fh.read()
    except OSError as exc:
        raise UsageError(f"cannot read {spec}: {exc.strerror or exc}") from None
    name = "stdin" if spec == "-" else spec
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"{name} is not UTF-8 text") from None
    if "\x00" in text:
        raise UsageError(f"{name} contains NUL bytes")
    return text
