"""The parsers of `memboard hierarchy …`, `memboard facts …` and `memboard lookup …` (seed 004's agent memory
hierarchy; issue 25's command table).

Only the arguments live here, so that building the parser loads none of the commands' code; each
subcommand names its handler as `module:function` of memboard.cli (entry.py): show, lint, init, log,
archive-logs and lookup in hierarchy_cmd.py, facts in facts_cmd.py, migrate and verify in
hierarchy_migrate.py. `lookup add NEED TARGET` shares its parser with `lookup QUERY` (argparse has no
optional subcommands): the handler takes a first word `add` followed by exactly two more as the add.
"""

from __future__ import annotations

import argparse
from typing import Any

from .args import OneLineParser, globals_everywhere

Sub = Any  # argparse's subparsers action (a private type)
ALLOW_SECRETS_HELP = "write even if the text looks like a credential (keys, tokens, password=...)"
DESCRIPTION = (
    "The agent memory hierarchy (the agent-memory-hierarchy skill, OpenClaw's workspace): a small hot "
    "MEMORY.md, warm memory/facts.yaml, memory/lookup-index.md and memory/project-<name>.md, cold daily logs "
    "memory/YYYY-MM-DD.md. Show and lint it, append daily logs beside OpenClaw, and migrate a prose MEMORY.md "
    "as one previewed plan that loses no line. Hierarchy commands need no memboard memory root."
)


def _date(raw: str) -> str:
    """A real date YYYY-MM-DD (a one-line usage error otherwise: 2026-02-30 is none)."""
    import datetime as dt  # lazy: building the parser loads none of the commands' code

    try:
        return dt.date.fromisoformat(raw).isoformat() if len(raw) == 10 else _bad_date(raw)
    except ValueError:
        return _bad_date(raw)


def _bad_date(raw: str) -> str:
    """Refuse raw as a date."""
    raise argparse.ArgumentTypeError(f"not a real date YYYY-MM-DD: {raw!r}")


def add_parsers(sub: Sub) -> None:
    """Add `hierarchy`, `facts` and `lookup` to the command parsers."""
    common = OneLineParser(add_help=False)
    common.add_argument(
        "--workspace",
        metavar="DIR",
        default=None,
        help="the workspace (default: config hierarchy_workspace, $OPENCLAW_WORKSPACE_DIR, the folder above the "
        "memory root when it holds MEMORY.md, ~/.openclaw/workspace when it holds MEMORY.md)",
    )
    common.add_argument("--json", action="store_true", help="print the result as JSON")
    changing = OneLineParser(add_help=False, parents=[common])
    changing.add_argument("--dry-run", action="store_true", help="print the plan as one git patch and write nothing")
    changing.add_argument("--allow-secrets", action="store_true", help=ALLOW_SECRETS_HELP)
    _hierarchy(sub, common, changing)
    _facts(sub, common, changing)
    _lookup(sub, common, changing)


def _hierarchy(sub: Sub, common: argparse.ArgumentParser, changing: argparse.ArgumentParser) -> None:
    """`hierarchy show|lint|init|log|migrate|verify|archive-logs`."""
    h = sub.add_parser(
        "hierarchy", help="the agent memory hierarchy (MEMORY.md, facts, lookup, logs)", description=DESCRIPTION
    )
    hsub = h.add_subparsers(dest="hierarchy_command", metavar="COMMAND", required=True)
    p = hsub.add_parser("show", parents=[common], help="the three layers and their sizes")
    p.set_defaults(handler="hierarchy_cmd:cmd_show")
    p = hsub.add_parser("lint", parents=[common], help="the seed's rules, mechanically (never writes)")
    p.add_argument("--strict", action="store_true", help="exit 1 when a finding is a warning or an error")
    p.set_defaults(handler="hierarchy_cmd:cmd_lint")
    p = hsub.add_parser(
        "init", parents=[changing], help="create facts.yaml and lookup-index.md; add MEMORY.md's pointers"
    )
    p.set_defaults(handler="hierarchy_cmd:cmd_init")
    p = hsub.add_parser("log", parents=[changing], help="append to a daily log memory/YYYY-MM-DD.md")
    text = p.add_mutually_exclusive_group(required=True)
    text.add_argument("--text", metavar="TEXT", help="the text to append")
    text.add_argument("--file", metavar="FILE", help="the text to append, from FILE (- reads stdin)")
    p.add_argument("--date", type=_date, metavar="YYYY-MM-DD", help="the log's date (default: today, local)")
    p.set_defaults(handler="hierarchy_cmd:cmd_log")
    p = hsub.add_parser(
        "migrate", parents=[changing], help="sort a prose MEMORY.md into the hierarchy: --plan, then --apply"
    )
    step = p.add_mutually_exclusive_group(required=True)
    step.add_argument("--plan", action="store_true", help="print the proposed plan (a read)")
    step.add_argument("--apply", metavar="PLAN", help="apply the plan in the file PLAN, as it was decided")
    p.add_argument("--out", metavar="FILE", help="with --plan: write the plan to FILE (created only if absent)")
    p.set_defaults(handler="hierarchy_migrate:cmd_migrate")
    p = hsub.add_parser("verify", parents=[common], help="the seed's checklist after a migration, each item ✓ or ✗")
    p.set_defaults(handler="hierarchy_migrate:cmd_verify")
    p = hsub.add_parser(
        "archive-logs", parents=[changing], help="move daily logs before a date to memory/daily-archive/"
    )
    p.add_argument("--before", type=_date, required=True, metavar="YYYY-MM-DD", help="logs dated before this move")
    p.set_defaults(handler="hierarchy_cmd:cmd_archive_logs")


def _facts(sub: Sub, common: argparse.ArgumentParser, changing: argparse.ArgumentParser) -> None:
    """`facts get|set|todo|touch`: memory/facts.yaml, one scalar at a time, every other byte kept."""
    f = sub.add_parser("facts", help="read and edit memory/facts.yaml without breaking a byte around it")
    fsub = f.add_subparsers(dest="facts_command", metavar="COMMAND", required=True)
    p = fsub.add_parser("get", parents=[common], help="the value at KEY (a key path: identity.email, todos.2)")
    p.add_argument("key", metavar="KEY")
    p.set_defaults(handler="facts_cmd:cmd_get")
    p = fsub.add_parser("set", parents=[changing], help="replace the scalar at KEY (and set # Last updated:)")
    p.add_argument("key", metavar="KEY")
    p.add_argument("value", metavar="VALUE")
    p.add_argument("--create", action="store_true", help="add the key (and missing parents) when it is missing")
    p.add_argument("--raw", action="store_true", help="VALUE is the YAML scalar itself, written as given")
    p.set_defaults(handler="facts_cmd:cmd_set")
    p = fsub.add_parser("todo", help="the todos list: add an item, or mark one done (it moves to today's log)")
    tsub = p.add_subparsers(dest="todo_command", metavar="COMMAND", required=True)
    t = tsub.add_parser("add", parents=[changing], help="append - TEXT to todos")
    t.add_argument("text", metavar="TEXT")
    t.set_defaults(handler="facts_cmd:cmd_todo_add")
    t = tsub.add_parser("done", parents=[changing], help="remove item N (1-based) or TEXT; log - [x] TEXT today")
    t.add_argument("item", metavar="N|TEXT")
    t.set_defaults(handler="facts_cmd:cmd_todo_done")
    p = fsub.add_parser("touch", parents=[changing], help="set # Last updated: to today")
    p.set_defaults(handler="facts_cmd:cmd_touch")


def build_lookup_parser() -> argparse.ArgumentParser:
    """A parser that knows only `lookup`: `memboard lookup ...` (a whole-process speed target) skips building
    every other command's."""
    parser = OneLineParser(prog="memboard")
    parser.add_argument("--root", metavar="DIR", help="memory root folder")
    common = OneLineParser(add_help=False)
    common.add_argument("--workspace", metavar="DIR", default=None, help="the workspace")
    common.add_argument("--json", action="store_true", help="print the result as JSON")
    changing = OneLineParser(add_help=False, parents=[common])
    changing.add_argument("--dry-run", action="store_true", help="print the plan as one git patch and write nothing")
    changing.add_argument("--allow-secrets", action="store_true", help=ALLOW_SECRETS_HELP)
    _lookup(parser.add_subparsers(dest="command", metavar="COMMAND"), common, changing)
    return parser


def parse_lookup(argv: list[str] | None) -> argparse.Namespace:
    """`memboard lookup ...` parsed with its words anywhere among the options: argparse ends a `nargs="+"`
    positional at the first option, so `lookup add --workspace DIR NEED TARGET` left NEED and TARGET over."""
    parser = globals_everywhere(build_lookup_parser())
    args, extra = parser.parse_known_args(argv)
    if extra and getattr(args, "words", None) and not any(e.startswith("-") for e in extra):
        args.words += extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _lookup(sub: Sub, common: argparse.ArgumentParser, changing: argparse.ArgumentParser) -> None:
    """`lookup QUERY` (a read) and `lookup add NEED TARGET` (a write)."""
    p = sub.add_parser(
        "lookup",
        parents=[changing],
        help="resolve 'I need to know X' through memory/lookup-index.md (lookup add NEED TARGET adds a row)",
    )
    p.add_argument("words", nargs="+", metavar="QUERY", help="the words of the need (or: add NEED TARGET)")
    p.add_argument("--all", action="store_true", help="every matching row, not only the best")
    p.set_defaults(handler="hierarchy_cmd:cmd_lookup")
