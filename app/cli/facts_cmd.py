"""`memboard facts get|set|todo|touch`: memory/facts.yaml one scalar at a time (issue 25 §3).

Only parsing and printing live here: the workspace is resolved as §1 says, the builders are the
service layer's (service/facts.py) and the edits the core's (core/hierarchy/facts.py). A changing
command prints what it did, `nothing to change`, or with `--dry-run` the plan as a git patch
relative to the workspace on stdout and `patch base: DIR` on stderr (`git -C DIR apply` writes it).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..core.files.execute import execute
from ..core.files.root import MemoryRoot
from ..core.hierarchy.workspace import resolve_workspace
from ..service import facts as S
from .output import dump


def _tree(args: argparse.Namespace) -> MemoryRoot:
    """The workspace the command works in, as a tree."""
    return S.workspace_tree(resolve_workspace(args.workspace, getattr(args, "root", None)))


def cmd_get(args: argparse.Namespace) -> int:
    """facts get KEY: the value (JSON: key, value, line, source, comment, alias)."""
    got = S.facts_get(_tree(args), args.key)
    if args.json:
        dump(got)
    else:
        value = got["value"]
        if isinstance(value, (dict, list)):
            print(got["source"])
        else:
            print("null" if value is None else str(value).lower() if isinstance(value, bool) else value)
    return 0


def _run(args: argparse.Namespace, build: S.Builder) -> int:
    """Build the plan on settled reads and apply it (or print it, --dry-run); print the outcome."""
    tree = _tree(args)
    plan = execute(tree, build, dry_run=args.dry_run)
    if args.json:
        dump(S.plan_json(plan, bool(args.dry_run)))
        return 0
    if args.dry_run:
        _print_patch(tree, plan)
        return 0
    print(plan.success or ("nothing to change" if plan.empty else "done"))
    return 0


def _print_patch(tree: MemoryRoot, plan: Any) -> None:
    """A dry run: the patch on stdout in bytes, then `patch base: DIR` and the dry run's notes on stderr."""
    from ..service.output import dry_run_notes

    sys.stdout.flush()
    binary = getattr(sys.stdout, "buffer", None)
    if binary is not None:
        binary.write(plan.patch())
    else:
        sys.stdout.write(plan.patch().decode("utf-8", "replace"))
    sys.stdout.flush()
    if plan.changes:
        print(f"patch base: {S.patch_base(tree)}", file=sys.stderr)
    for line in dry_run_notes(plan):
        print(line, file=sys.stderr)


def cmd_set(args: argparse.Namespace) -> int:
    """facts set KEY VALUE [--create] [--raw]."""
    return _run(args, S.set_plan(args.key, args.value, args.create, args.raw, args.allow_secrets))


def cmd_todo_add(args: argparse.Namespace) -> int:
    """facts todo add TEXT."""
    return _run(args, S.todo_add_plan(args.text, args.allow_secrets))


def cmd_todo_done(args: argparse.Namespace) -> int:
    """facts todo done N|TEXT: the item leaves todos for today's daily log."""
    return _run(args, S.todo_done_plan(args.item, args.allow_secrets))


def cmd_touch(args: argparse.Namespace) -> int:
    """facts touch: Last updated set to today."""
    return _run(args, S.touch_plan())
