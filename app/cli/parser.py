"""The argument parser of every command (DESIGN.md's contract): usage errors are one line and exit 2 (OneLineParser).

Each command names its handler as `module:function` of memboard.cli (see entry.py), so that
building the parser loads none of the commands' code.
"""

from __future__ import annotations

import argparse
from typing import Any

from .. import __version__
from ..core import config
from ..core.formats.topic import SCOPES as NOTE_SCOPES
from ..core.formats.topic import TYPES as NOTE_TYPES
from ..service import mcp_tools
from . import hierarchy_parser, space_parser, sync_parser
from .args import OneLineParser
from .tools import NAMES

EPILOG = """exit status: 0 done; 1 refused or failed with nothing written (reason on stderr);
2 bad usage. Every changing command takes --dry-run (print the plan as unified diffs,
write nothing). The memory root comes from --root, MEMBOARD_ROOT, the config's `root`, or
./memory."""
ALLOW_SECRETS_HELP = "write even if the text looks like a credential (keys, tokens, password=...)"
Sub = Any  # argparse's subparsers action (a private type)
NOTE_CHOICES = ("supersede", "keep_both")


class _Skipped:
    """What a command's parser-building calls get when a parser for one command is built: every call is
    taken and does nothing (argparse spends 40-70 ms making the 66 commands' parsers, most of a short command)."""

    def __getattr__(self, _name: str) -> Any:
        """Any method: one that takes anything and returns this same stand-in."""
        return self._take

    def _take(self, *_args: Any, **_kwargs: Any) -> _Skipped:
        """Take a call and do nothing."""
        return self


class _OneCommand:
    """The subparsers action of a parser built for one command: that command's parser is made, no other."""

    def __init__(self, action: Sub, only: str):
        """Build only's parser on action; skip the others."""
        self.action, self.only, self.found = action, only, False

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        """The command's real parser when it is the one, else a _Skipped."""
        if name != self.only:
            return _Skipped()
        self.found = True
        return self.action.add_parser(name, **kwargs)


def _built(parser: Any) -> bool:
    """Whether parser is a command's real parser (not the stand-in of a command not being built)."""
    return not isinstance(parser, _Skipped)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    return _build(None)[0]


def command_parser(name: str) -> argparse.ArgumentParser | None:
    """The argument parser with only the command `name` (the same parse of its arguments as the whole parser's,
    its help and its errors the same), or None when no command has that name (the whole parser then says so)."""
    parser, found = _build(name)
    return parser if found else None


def _build(only: str | None) -> tuple[argparse.ArgumentParser, bool]:
    """The parser of every command (only: of that one alone), and whether it holds the one."""
    common = OneLineParser(add_help=False)
    common.add_argument("--root", metavar="DIR", default=argparse.SUPPRESS, help="memory root folder")
    changing = OneLineParser(add_help=False, parents=[common])
    changing.add_argument("--dry-run", action="store_true", help="print the plan as unified diffs and write nothing")
    parser = OneLineParser(
        prog="memboard",
        description="A terminal board and command line for the Markdown working memory of AI coding agents. "
        "Without a command it opens the board.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--root", metavar="DIR", help="memory root folder")
    parser.add_argument("--version", action="version", version=f"memboard {__version__}")
    parser.set_defaults(handler="ui:cmd_board")
    action = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub = action if only is None else _OneCommand(action, only)
    p = sub.add_parser("demo", help="open the board on a generated demo root")
    p.add_argument("--keep", metavar="DIR", help="generate the demo root in DIR and keep it")
    p.set_defaults(handler="ui:cmd_demo")
    _registration_commands(sub, changing)
    _session_commands(sub, changing)
    _maintenance_commands(sub, changing)
    _view_commands(sub, common)
    p = sub.add_parser("doctor", parents=[changing], help="find inconsistencies (--fix: repair them)")
    p.add_argument("--fix", action="store_true", help="apply the repair plan (with --dry-run: preview it)")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when findings need attention (and print no line about them on stderr)",
    )
    p.set_defaults(handler="changes:cmd_doctor")
    _note_commands(sub, common, changing)
    _agent_commands(sub, common)
    _mcp_commands(sub, common)
    space_parser.add_parser(sub)
    hierarchy_parser.add_parsers(sub)
    sync_parser.add_parsers(sub, changing)
    _setup_commands(sub)
    if only in (None, "search"):
        from . import search  # lazy: its module loads the search engine and sqlite3 (5 ms no other command needs)

        search.add_parser(sub, common)
    return parser, only is None or (isinstance(sub, _OneCommand) and sub.found)


def _registration_commands(sub: Sub, changing: argparse.ArgumentParser) -> None:
    """register [--manual]."""
    p = sub.add_parser(
        "register",
        parents=[changing],
        help="register a session (idle row; --manual: active with snapshot)",
        description="SessionStart registration appends an idle row with the protocol's defaults. "
        "--manual writes a snapshot from the template and an active row.",
    )
    p.add_argument("--agent", metavar="NAME", help="agent name (default: config agent_name or cursor-main-agent)")
    p.add_argument("--manual", action="store_true", help="manual registration: snapshot + active row")
    p.add_argument("--topic", metavar="T", help="topic (with --manual)")
    p.add_argument("--summary", metavar="S", help="summary (with --manual)")
    p.add_argument("--snapshot", metavar="FILE|-", help="snapshot sections to merge into the template (with --manual)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--allow-secrets", action="store_true", help=ALLOW_SECRETS_HELP)
    p.set_defaults(handler="changes:cmd_register")


def _session_commands(sub: Sub, changing: argparse.ArgumentParser) -> None:
    """update, continue and release: one session and its references."""
    p = sub.add_parser(
        "update",
        parents=[changing],
        help="update a session: merge its snapshot, promote to active",
        description="Merges FILE (or stdin) into the session's snapshot by section, creating the snapshot "
        "when missing; old items are never dropped. Then updates only the session's index row.",
    )
    p.add_argument("id", metavar="ID")
    p.add_argument("--snapshot", metavar="FILE|-", help="snapshot text with '## ' sections to merge")
    p.add_argument("--topic", metavar="T")
    p.add_argument("--summary", metavar="S")
    p.add_argument("--keywords", metavar="K")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--allow-secrets", action="store_true", help=ALLOW_SECRETS_HELP)
    p.set_defaults(handler="changes:cmd_update")

    p = sub.add_parser(
        "continue",
        parents=[changing],
        help="continue from a source session",
        description="Records Continues From in the current snapshot and Referenced By on the source row. "
        "Without --as, registers a new session manually first.",
    )
    p.add_argument("source", metavar="SOURCE_ID")
    p.add_argument("--as", dest="as_id", metavar="ID", help="the current session's ID")
    p.add_argument("--agent", metavar="NAME", help="agent name for a new registration (without --as)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--allow-secrets", action="store_true", help=ALLOW_SECRETS_HELP)
    p.set_defaults(handler="changes:cmd_continue")

    p = sub.add_parser("release", parents=[changing], help="release a reference to a source session")
    p.add_argument("source", metavar="SOURCE_ID")
    p.add_argument("--as", dest="as_id", metavar="ID", required=True, help="the referencing session's ID")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler="changes:cmd_release")


def _maintenance_commands(sub: Sub, changing: argparse.ArgumentParser) -> None:
    """organize and archive."""
    p = sub.add_parser(
        "organize",
        parents=[changing],
        help="delete idle rows, mark overdue active rows stale",
        description="The default organize pass: deletes idle rows (keeping referenced ones and reporting "
        "idle rows that have a snapshot), marks active rows stale when Updated At is older than N days, "
        "they have a snapshot or a meaningful Summary, and nobody references them.",
    )
    p.add_argument(
        "--stale-days", type=int, metavar="N", help="days without update before active becomes stale (default 14)"
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler="changes:cmd_organize")

    p = sub.add_parser("archive", parents=[changing], help="archive one session (placeholder rows are deleted)")
    p.add_argument("id", metavar="ID")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler="changes:cmd_archive")


def _view_commands(sub: Sub, common: argparse.ArgumentParser) -> None:
    """list, show and chain."""
    p = sub.add_parser("list", parents=[common], help="rows of the index")
    p.add_argument("--status", choices=["idle", "active", "stale"])
    p.add_argument("--json", action="store_true", help="stable JSON (see docs/json-output.md)")
    p.set_defaults(handler="views:cmd_list")

    p = sub.add_parser("show", parents=[common], help="one session: row and snapshot")
    p.add_argument("id", metavar="ID")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler="views:cmd_show")

    p = sub.add_parser("chain", parents=[common], help="a session's reference chain both ways")
    p.add_argument("id", metavar="ID")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler="views:cmd_chain")


def _agent_commands(sub: Sub, common: argparse.ArgumentParser) -> None:
    """Agent integration: hook, whoami, install-hook, uninstall-hook."""
    p = sub.add_parser(
        "hook",
        help="read an agent's SessionStart hook JSON on stdin and register (fail-open)",
        description="Registers an idle row for the agent's conversation (the same conversation always gets "
        "the same Session ID) and prints the tool's JSON answer. Never fails: errors are logged to "
        "hook.log in memboard's local state folder and exit 0 without a Session ID.",
    )
    if _built(p):
        from . import hook  # lazy: its module loads the registration's plan (4 ms no other command needs)

        hook.add_arguments(p)
    p.set_defaults(handler="hook:cmd_hook")

    p = sub.add_parser("whoami", parents=[common], help="the Memory Session ID a hook registered for a conversation")
    p.add_argument("--conversation", metavar="ID", required=True, help="the agent's conversation/session ID")
    p.add_argument("--json", action="store_true", help="print conversation, session_id and state as JSON")
    p.set_defaults(handler="views:cmd_whoami")

    p = sub.add_parser(
        "install-hook",
        help="add `memboard hook` to Cursor, Claude Code or Codex settings",
        description="Merges a SessionStart hook entry into the tool's JSON config without touching other "
        "hooks; shows the change as a diff and keeps a backup of the file it changes.",
    )
    _hook_file_arguments(p)
    p.add_argument(
        "--root",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="register sessions in this memory root (a user's file names it by absolute path, a project's "
        "relative to the project; default: the hook finds it as every command does, or a project's ./memory)",
    )
    _command_argument(p)
    p.set_defaults(handler="install:cmd_install_hook")

    p = sub.add_parser(
        "uninstall-hook",
        help="remove the hook install-hook added (nothing else)",
        description="Removes memboard's SessionStart entry from the tool's JSON config, keeping every other "
        "hook, setting and the file's formatting; shows the change as a diff and keeps a backup.",
    )
    _hook_file_arguments(p)
    p.set_defaults(handler="install:cmd_uninstall_hook")


def _mcp_commands(sub: Sub, common: argparse.ArgumentParser) -> None:
    """mcp, install-mcp and uninstall-mcp: the memory served to agents over MCP."""
    p = sub.add_parser(
        "mcp",
        parents=[common],
        help="MCP server on stdio for agents",
        description="Serves the memory root to an agent over the Model Context Protocol on stdin/stdout: the\n"
        "tools of a profile (below), each change planned, locked, written and verified as the commands do,\n"
        "with resources (the protocol, a session's snapshot, a project's hot memory) and a prompt that\n"
        "continues a session. Agents start it themselves (see install-mcp); logs go to stderr.",
        epilog=mcp_tools.help_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--tools",
        metavar="PROFILE",
        default=None,
        help="the tool profiles to serve, joined by commas (default: config mcp_tools, else agent)",
    )
    p.set_defaults(handler="server:cmd_mcp")

    p = sub.add_parser(
        "install-mcp",
        help="add the memboard MCP server to Claude Code, Cursor or Codex",
        description="Adds a `memboard` server entry to the agent's MCP config (Claude Code: .mcp.json or "
        "~/.claude.json; Cursor: .cursor/mcp.json or ~/.cursor/mcp.json; Codex: .codex/config.toml or "
        "~/.codex/config.toml), keeping every other entry and the file's formatting; shows the change as "
        "a diff and keeps a backup.",
    )
    _hook_file_arguments(p)
    p.add_argument(
        "--root",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="serve this memory root (a user's file names it by absolute path, a project's relative to the "
        "project; default: the server finds it as every command does, through MEMBOARD_ROOT or the config's root)",
    )
    _command_argument(p)
    p.set_defaults(handler="install_mcp:cmd_install_mcp")

    p = sub.add_parser(
        "uninstall-mcp",
        help="remove the MCP server entry install-mcp added (nothing else)",
        description="Removes the `memboard` server entry from the agent's MCP config, keeping every other "
        "entry and the file's formatting; shows the change as a diff and keeps a backup.",
    )
    _hook_file_arguments(p)
    p.set_defaults(handler="install_mcp:cmd_uninstall_mcp")


def _setup_commands(sub: Sub) -> None:
    """config and completion."""
    p = sub.add_parser("config", help="show, list, get, set or locate the user config (TOML)")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    shown = csub.add_parser("show", help="print the config file's settings")
    shown.set_defaults(action="show")
    cp = csub.add_parser(
        "set",
        help=f"set KEY to VALUE ({', '.join(config.KEYS)})",
        description="Stores one setting, keeping the file's comments, layout and other keys.",
        epilog="keys:\n" + "\n".join(f"  {key.name:<15} {key.help}" for key in config.TABLE),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cp.add_argument("key", metavar="KEY")
    cp.add_argument("value", metavar="VALUE")
    cp.add_argument("--allow-secrets", action="store_true", help="store an agent_name that looks like a credential")
    cp.add_argument("--dry-run", action="store_true", help=FILE_DRY_RUN_HELP)
    cp.set_defaults(action="set")
    gp = csub.add_parser("get", help="print the value commands use for KEY (the config's, else its default)")
    gp.add_argument("key", metavar="KEY")
    gp.set_defaults(action="get")
    lp = csub.add_parser("list", help="print every key, its value or default, and what it does")
    lp.set_defaults(action="list")
    pp = csub.add_parser("path", help="print where the config file lives")
    pp.set_defaults(action="path")
    for each in (shown, cp, gp, lp, pp):
        each.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.set_defaults(handler="config:cmd_config")

    p = sub.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh or fish)",
        description="Prints a completion script for the shell, generated from this command line's own "
        "parser. Install: see docs/command-line.md, Shell completion.",
    )
    p.add_argument("shell", nargs="?", choices=["bash", "zsh", "fish"])
    p.add_argument(
        "--list", choices=["ids", "keys"], help="print the root's Session IDs or topic keys (what the scripts ask)"
    )
    p.set_defaults(handler="completion:cmd_completion")


FILE_DRY_RUN_HELP = (
    "print the change as a git patch naming the file by its absolute path (`git apply` run in / replays it) "
    "and write nothing"
)


def _hook_file_arguments(p: argparse.ArgumentParser) -> None:
    """TOOL [--user | --project DIR] [--dry-run], shared by install-hook, install-mcp and their uninstalls."""
    p.add_argument("tool", choices=list(NAMES))
    where = p.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="the user's config in the home folder (default)")
    where.add_argument("--project", metavar="DIR", help="the project's config under DIR")
    p.add_argument("--dry-run", action="store_true", help=FILE_DRY_RUN_HELP)
    p.add_argument("--json", action="store_true", help="print the outcome as JSON (with --dry-run: the patch in it)")


def _command_argument(p: argparse.ArgumentParser) -> None:
    """--command CMD of install-hook and install-mcp."""
    p.add_argument(
        "--command",
        metavar="CMD",
        help="how the agent starts memboard: `memboard` (from PATH), `uvx memboard`, or a path (default: "
        "`memboard` in a project's file, which a team shares; this memboard by absolute path in a user's file)",
    )


def _text_options(p: argparse.ArgumentParser, required: bool) -> None:
    """The options that give a note's values (save: title, type and scope required)."""
    p.add_argument("--title", required=required, metavar="T", help="short and searchable: verb + object")
    p.add_argument("--type", required=required, choices=NOTE_TYPES, help="what kind of note")
    p.add_argument("--scope", required=required, choices=NOTE_SCOPES, help="where it applies")
    for name, what in (
        ("what", "what was decided, found or done"),
        ("why", "why"),
        ("where", "where it applies: files, projects, commands"),
        ("learned", "what to remember next time"),
    ):
        p.add_argument(f"--{name}", metavar="TEXT", help=f"{what} (Markdown)")
    p.add_argument("--project", metavar="P", help="the project it belongs to")
    p.add_argument("--session", metavar="ID", help="the Memory Session ID that saves it")
    p.add_argument("--choice", choices=NOTE_CHOICES, help="settle a conflict: supersede the old note, or keep both")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--allow-secrets", action="store_true", help=ALLOW_SECRETS_HELP)


def _note_commands(sub: Sub, common: argparse.ArgumentParser, changing: argparse.ArgumentParser) -> None:
    """note save, update, apply, show, list, search and key (seed 001's typed notes)."""
    note = sub.add_parser(
        "note",
        help="typed notes: save, update, show, list, search, apply a Memory Update block",
        description="Typed notes (preference, fact, decision, ...) kept as notes/<topic/key>.md.",
    )
    nsub = note.add_subparsers(dest="note_command", metavar="ACTION", required=True)
    p = nsub.add_parser(
        "save",
        parents=[changing],
        help="save a note under its topic key (same key: the same note)",
        description="Saves a note. The same topic key updates the same note (the previous text is kept "
        "as a revision); a new preference supersedes the old; a decision that drops earlier statements "
        "is refused until saved again with --choice.",
    )
    _text_options(p, required=True)
    p.add_argument(
        "--topic-key", metavar="KEY", help="segments of a-z 0-9 . _ - joined by / (default: from scope, type, title)"
    )
    p.set_defaults(handler="notes:cmd_save")
    p = nsub.add_parser("update", parents=[changing], help="change some values of a note (by note ID or topic key)")
    p.add_argument("id", metavar="ID")
    _text_options(p, required=False)
    p.set_defaults(handler="notes:cmd_update")
    p = nsub.add_parser(
        "apply",
        parents=[changing],
        help="apply a Memory Update block (from FILE, or stdin with -)",
        description="Reads '## Memory Update' and '## Session Summary' blocks (see docs/notes.md) and applies "
        "them as one plan: all of them, or nothing when one is a conflict.",
    )
    p.add_argument("file", nargs="?", default="-", metavar="FILE|-")
    p.add_argument("--choice", choices=NOTE_CHOICES, help="settle conflicts of notes printed without a choice")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--allow-secrets", action="store_true", help=ALLOW_SECRETS_HELP)
    p.set_defaults(handler="notes:cmd_apply")
    _note_views(nsub, common)


def _note_views(nsub: Sub, common: argparse.ArgumentParser) -> None:
    """note show, list, search and key."""
    p = nsub.add_parser("show", parents=[common], help="one note: its file (by note ID or topic key)")
    p.add_argument("id", metavar="ID")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="stable JSON (see docs/json-output.md)")
    form.add_argument("--block", action="store_true", help="print it as a Memory Update block")
    p.set_defaults(handler="notes:cmd_show")
    p = nsub.add_parser("list", parents=[common], help="every note's metadata")
    p.add_argument("--type", choices=NOTE_TYPES)
    p.add_argument("--scope", choices=NOTE_SCOPES)
    p.add_argument("--project", metavar="P")
    p.add_argument("--status", choices=["active", "superseded"])
    p.add_argument("--session", metavar="ID", help="only notes saved by this session")
    p.add_argument("--json", action="store_true", help="stable JSON (see docs/json-output.md)")
    p.set_defaults(handler="notes:cmd_list")
    if _built(nsub):
        from . import search  # lazy: as in _build

        search.add_note_parser(nsub, common)
    p = nsub.add_parser("key", parents=[common], help="the topic key derived from scope, type and title")
    p.add_argument("--scope", required=True, choices=NOTE_SCOPES)
    p.add_argument("--type", required=True, choices=NOTE_TYPES)
    p.add_argument("--title", required=True, metavar="T")
    p.add_argument("--json", action="store_true", help='print {"topic_key": KEY}')
    p.set_defaults(handler="notes:cmd_key")
