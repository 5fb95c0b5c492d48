"""`memboard facts get|set|todo|touch`: memory/facts.yaml one scalar at a time (issue 25 §3).

Only parsing and printing live here: the workspace is resolved as §1 says, the builders are the
service layer's (service/facts.py), the edits the core's (core/hierarchy/facts.py), and a plan is
printed as every plan over places is (placeout.py): what it did, `nothing to change`, or with
`--dry-run` `patch base: DIR` on stderr and a git patch relative to the workspace on stdout.
"""

from __future__ import annotations

import argparse

from ..core.files.places import Place
from ..core.hierarchy.workspace import resolve_workspace
from ..service import facts as S
from .output import dump
from .placeout import show_place_plan


def _place(args: argparse.Namespace) -> Place:
    """The workspace the command works in, as a place."""
    return S.workspace(resolve_workspace(args.workspace, getattr(args, "root", None)))


def cmd_get(args: argparse.Namespace) -> int:
    """facts get KEY: the value (JSON: key, value, line, source, comment, alias)."""
    got = S.facts_get(_place(args), args.key)
    if args.json:
        dump(got)
        return 0
    value = got["value"]
    if isinstance(value, (dict, list)):
        print(got["source"])
    elif value is None or isinstance(value, bool):
        print(str(value).lower() if value is not None else "null")
    else:
        print(value)
    return 0


def _run(args: argparse.Namespace, build: S.Builder) -> int:
    """Build the plan on settled reads and apply it (or print it, --dry-run); print the outcome."""
    place = _place(args)
    plan = S.run_plan(place, build, dry_run=bool(args.dry_run))
    return show_place_plan(plan, [place], bool(args.dry_run), bool(args.json), lambda p: dict(p.result))


def cmd_set(args: argparse.Namespace) -> int:
    """facts set KEY VALUE [--create] [--raw]."""
    return _run(args, S.set_plan(args.key, args.value, args.create, args.raw, args.allow_secrets))


def cmd_todo_add(args: argparse.Namespace) -> int:
    """facts todo add TEXT."""
    return _run(args, S.todo_add_plan(args.text, args.allow_secrets))


def cmd_todo_done(args: argparse.Namespace) -> int:
    """facts todo done N|TEXT: the item leaves todos for today's daily log."""
    place = _place(args)
    plan = S.todo_done_run(place, args.item, args.allow_secrets, dry_run=bool(args.dry_run))
    return show_place_plan(plan, [place], bool(args.dry_run), bool(args.json), lambda p: dict(p.result))


def cmd_touch(args: argparse.Namespace) -> int:
    """facts touch: Last updated set to today."""
    return _run(args, S.touch_plan())
