"""The parsers of `memboard space …` (seed 003's session-memory spaces; issue 24's command table).

Only the arguments live here, so that building the parser loads none of the commands' code; each
subcommand names its handler as `module:function` of memboard.cli (entry.py): the reads in
spaces_read.py, the writes in spaces_write.py, dream and archive in spaces_dream.py, migrate and add
in spaces_migrate.py. The skill's own option names are accepted as aliases (`--work-context`,
`--history-keep-entries`).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..core.spaces.events import EVENTS
from .args import OneLineParser

Sub = Any  # argparse's subparsers action (a private type)
SCOPES = ("auto", "workspace", "global")
VALID = ("yes", "no", "partial", "unknown")
MERGED = ("yes", "no")
ALLOW_SECRETS_HELP = "write even if the text looks like a credential (keys, tokens, password=...)"
DESCRIPTION = (
    "Per-project session memory (the session-memory skill's `.session-memory/` folders: current.md, "
    "history.md, research.md, dream-notes.md, archive/): restore, search, save, record research, distil and "
    "archive it, each change planned, previewed as an exact patch and written atomically, while the skill's "
    "own scripts keep working on the same files. Space commands need no memboard memory root."
)


def _count(name: str, low: int = 0) -> Any:
    """An argparse type: a whole number low or more (a one-line usage error otherwise)."""

    def parse(raw: str) -> int:
        """The number in raw."""
        try:
            value = int(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, not {raw!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{name} must be {low} or more, not {value}")
        return value

    return parse


def _history(raw: str) -> str:
    """`--history all|none|N`."""
    if raw in ("all", "none") or (raw.isdigit() and raw.isascii()):
        return raw
    raise argparse.ArgumentTypeError(f"--history must be all, none or a whole number, not {raw!r}")


def build_parser() -> argparse.ArgumentParser:
    """`memboard` with only the space commands: the space reads' own parser (entry.parse), so that they start
    without building every other command's."""
    parser = OneLineParser(prog="memboard")
    add_parser(parser.add_subparsers(dest="command", metavar="COMMAND"))
    return parser


def add_parser(sub: Sub) -> None:
    """Add `space` and its subcommands to the command parsers."""
    common = OneLineParser(add_help=False)
    common.add_argument(
        "--workspace", metavar="DIR", default=None, help="the folder whose space is meant (default: the current one)"
    )
    common.add_argument(
        "--scope",
        choices=SCOPES,
        default="auto",
        help="auto: the project's space (git root, routes of its config.toml); workspace: DIR/.session-memory; "
        "global: the global space in $SESSION_MEMORY_HOME",
    )
    common.add_argument("--json", action="store_true", help="print the result as JSON")
    changing = OneLineParser(add_help=False, parents=[common])
    changing.add_argument("--dry-run", action="store_true", help="print the plan as one git patch and write nothing")
    changing.add_argument("--allow-secrets", action="store_true", help=ALLOW_SECRETS_HELP)

    space = sub.add_parser("space", help="per-project session memory (.session-memory/)", description=DESCRIPTION)
    ssub = space.add_subparsers(dest="space_command", metavar="COMMAND", required=True)
    _reads(ssub, common)
    _writes(ssub, changing)


def _reads(ssub: Sub, common: argparse.ArgumentParser) -> None:
    """where, list, restore, search, check: pure reads (no registry, no state, nothing in the project)."""
    p = ssub.add_parser("where", parents=[common], help="which space a folder belongs to, and why")
    p.set_defaults(handler="spaces_read:cmd_where")

    p = ssub.add_parser("list", parents=[common], help="every known space with its age, entries and flags")
    p.set_defaults(handler="spaces_read:cmd_list")

    p = ssub.add_parser("restore", parents=[common], help="print the hot layer: current.md, history.md, dream-notes.md")
    p.add_argument(
        "--history",
        type=_history,
        default="all",
        metavar="all|none|N",
        help="history entries: all, none or the newest N",
    )
    p.add_argument("--include-research", action="store_true", help="also print research.md")
    p.set_defaults(handler="spaces_read:cmd_restore")

    p = ssub.add_parser("search", parents=[common], help="lines of a space's files that contain QUERY (any case)")
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--include-research", action="store_true", help="also search research.md")
    p.add_argument("--include-archive", action="store_true", help="also search the archive files")
    p.add_argument("--all-spaces", action="store_true", help="every space of the project and every known space")
    p.add_argument("--limit", type=_count("--limit", 1), default=8, metavar="N", help="matches per file (default 8)")
    p.set_defaults(handler="spaces_read:cmd_search")

    p = ssub.add_parser("check", parents=[common], help="the save gate: SAVE_NOW, SKIP or INIT_FIRST, and findings")
    p.add_argument("--event", action="append", choices=EVENTS, default=[], help="something that happened (repeatable)")
    p.add_argument(
        "--stale-minutes",
        type=_count("--stale-minutes"),
        default=180,
        metavar="N",
        help="current.md older than this asks for a save (default 180)",
    )
    p.set_defaults(handler="spaces_read:cmd_check")


def _writes(ssub: Sub, changing: argparse.ArgumentParser) -> None:
    """init, save, research-save, dream, archive, migrate, add: planned, previewed, locked, verified."""
    p = ssub.add_parser("init", parents=[changing], help="create the space's files from the skill's templates")
    p.set_defaults(handler="spaces_write:cmd_init")

    p = ssub.add_parser(
        "save",
        parents=[changing],
        help="replace current.md (or some sections); lines it drops go to history.md, quoted",
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--current", metavar="FILE", help="the new current.md (- reads stdin)")
    what.add_argument(
        "--section", action="append", metavar="NAME=FILE", help="a new body for the section NAME (repeatable)"
    )
    p.add_argument("--history-entry", metavar="FILE", help="your own history entry to append (- reads stdin)")
    p.add_argument("--reason", metavar="TEXT", help="the history entry's 触发原因")
    p.add_argument("--context", "--work-context", dest="context", metavar="TEXT", help="the entry's work context")
    p.set_defaults(handler="spaces_write:cmd_save")

    p = ssub.add_parser("research-save", parents=[changing], help="append one research entry to research.md")
    p.add_argument("--topic", required=True, help="研究主题")
    p.add_argument("--conclusion", required=True, help="当前结论")
    p.add_argument("--valid", choices=VALID, default="unknown", help="是否有效 (default unknown)")
    p.add_argument("--merged", choices=MERGED, default="no", help="是否并入主线 (default no)")
    p.add_argument("--evidence", action="append", default=[], metavar="E", help="关键证据 (repeatable)")
    p.add_argument("--key-path", action="append", default=[], metavar="P", help="关键文件与路径 (repeatable)")
    p.add_argument("--next-step", metavar="S", help="下一步")
    p.add_argument("--tag", action="append", default=[], metavar="T", help="关键词 / 标签 (repeatable)")
    p.add_argument("--context", "--work-context", dest="context", metavar="C", help="the entry's work context")
    p.set_defaults(handler="spaces_write:cmd_research_save")

    p = ssub.add_parser(
        "dream",
        parents=[changing],
        help="write dream-notes.md: your distillation (--from) or a labelled verbatim extraction",
    )
    p.add_argument("--from", dest="source", metavar="FILE", help="the distilled notes (- reads stdin)")
    p.set_defaults(handler="spaces_dream:cmd_dream")

    p = ssub.add_parser("archive", parents=[changing], help="move old history and closed research to archive/")
    p.add_argument(
        "--keep",
        "--history-keep-entries",
        dest="keep",
        type=_count("--keep"),
        default=20,
        metavar="N",
        help="history entries to keep (default 20)",
    )
    p.add_argument("--skip-history", action="store_true", help="leave history.md as it is")
    p.add_argument("--skip-research", action="store_true", help="leave research.md as it is")
    p.add_argument("--skip-dreams", action="store_true", help="leave the global dream snapshots as they are")
    p.add_argument(
        "--dream-keep-days",
        type=_count("--dream-keep-days"),
        default=30,
        metavar="N",
        help="dream snapshots older than this move to archive/dreams/ (default 30)",
    )
    p.add_argument("--force", action="store_true", help="archive entries no dream has covered yet")
    p.set_defaults(handler="spaces_dream:cmd_archive")

    p = ssub.add_parser(
        "migrate", parents=[changing], help="move legacy .codex/.claude session memory to the new paths"
    )
    p.add_argument("--global", dest="global_home", action="store_true", help="migrate the legacy global folders")
    p.set_defaults(handler="spaces_migrate:cmd_migrate")

    p = ssub.add_parser("add", parents=[changing], help="add a route NAME = SUBDIR to the project's config.toml")
    p.add_argument("name", metavar="NAME")
    p.add_argument("subdir", metavar="SUBDIR")
    p.set_defaults(handler="spaces_migrate:cmd_add")
