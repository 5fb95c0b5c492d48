"""The writes of `memboard space` that keep the hot layer: init, save, research-save (issue 24 §4).

Only parsing and printing live here: the plans are the service layer's (service/spaces_write.py), shared
with the MCP tools. Writes go through the places engine (a project's spaces or the
global home, locked, settled, verified); `--dry-run` prints the plan as one git patch on stdout, its paths
relative to the plan's base folder, which the first line on stderr names (`patch base: DIR`): `git -C DIR
apply` of it writes exactly the bytes the command would write (cli/placeout.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from ..service import spaces_read, spaces_write
from .placeout import show_place_plan


def _where(args: argparse.Namespace) -> Any:
    """The space of --workspace / --scope; a usage error when the workspace is not a folder, the config's one
    line (exit 1) when it is invalid."""

    raw: str | None = args.workspace
    if raw is not None and not Path(raw).expanduser().is_dir():
        raise UsageError(f"--workspace {raw} is not a folder")
    decision = spaces_read.where(raw, args.scope)
    decision.require()
    return decision


def _read_input(name: str, raw: str) -> str:
    """The text of an input file (`-`: stdin), UTF-8; unreadable or not UTF-8 is bad usage (exit 2)."""
    try:
        data = sys.stdin.buffer.read() if raw == "-" else Path(raw).expanduser().read_bytes()
    except OSError as exc:
        raise UsageError(f"{name} {raw}: cannot read it ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{name} {raw}: not UTF-8 text") from None


def _show(args: argparse.Namespace, built: Any) -> int:
    """Print a plan the service built (dry run) or wrote: the patch, the JSON or the outcome."""

    plan, places = built
    return show_place_plan(plan, places, bool(args.dry_run), bool(args.json), lambda p: p.result)


def cmd_init(args: argparse.Namespace) -> int:
    """`space init`: create the space's files from the skill's templates, never touching one that exists."""

    return _show(args, spaces_write.init(_where(args), bool(args.dry_run)))


def _sections(raw: list[str]) -> tuple[tuple[str, str], ...]:
    """`--section NAME=FILE …` as (name, text) pairs."""
    out = []
    for item in raw:
        name, eq, file = item.partition("=")
        if not eq or not name.strip() or not file:
            raise UsageError(f"--section takes NAME=FILE, not {item!r}")
        out.append((name.strip(), _read_input(f"--section {name.strip()}", file)))
    return tuple(out)


def cmd_save(args: argparse.Namespace) -> int:
    """`space save`: the new current.md (or sections), displaced lines kept in history.md."""

    stdin_users = [
        name for name, value in (("--current", args.current), ("--history-entry", args.history_entry)) if value == "-"
    ]
    stdin_users += [f"--section {s}" for s in (args.section or []) if s.partition("=")[2] == "-"]
    if len(stdin_users) > 1:
        raise UsageError(f"only one input can be read from stdin, not {' and '.join(stdin_users)}")
    where = _where(args)
    request = spaces_write.SaveRequest(
        current=None if args.current is None else _read_input("--current", args.current),
        sections=_sections(args.section or []),
        history_entry=None if args.history_entry is None else _read_input("--history-entry", args.history_entry),
        reason=args.reason,
        context=args.context,
        allow_secrets=bool(args.allow_secrets),
    )
    return _show(args, spaces_write.save(where, request, bool(args.dry_run)))


def cmd_research_save(args: argparse.Namespace) -> int:
    """`space research-save`: append one research entry (the skill's) to research.md."""

    request = spaces_write.ResearchRequest(
        topic=args.topic,
        conclusion=args.conclusion,
        valid=args.valid,
        merged=args.merged,
        evidence=tuple(args.evidence),
        key_paths=tuple(args.key_path),
        next_step=args.next_step or "",
        tags=tuple(args.tag),
        context=args.context,
        allow_secrets=bool(args.allow_secrets),
    )
    spaces_write.check_research(request)
    return _show(args, spaces_write.research_save(_where(args), request, bool(args.dry_run)))
