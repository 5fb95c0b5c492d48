"""`memboard note ...`: typed notes (seed 001) from the command line: save, update, show, list, search, apply, key.

(Their arguments are in parser.py, so that building the parser loads none of this.)

Saves and applies are plans like every other change (`--dry-run` prints the patch and writes
nothing, `--json` prints the result). A decision conflict writes nothing and exits 1 with one
line on stderr; with `--json` its result (both texts) is printed first.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from ..core.errors import Refused
from ..core.files.execute import execute
from ..core.files.root import MemoryRoot
from ..core.formats import clock
from ..core.formats.memory_update import render_update
from ..core.formats.note import NoteDraft
from ..core.formats.topic import suggest_topic_key
from ..core.ops.notes import (
    NoteFields,
    NoteFilters,
    list_notes,
    plan_memory_update,
    plan_note_save,
    plan_note_update,
    show_note,
)
from ..core.plan import Plan
from ..core.results import MemoryUpdateResult, NoteSaveResult
from ..service.output import note_detail_json, note_json, plan_json
from .args import read_input, root_of
from .changes import print_patch
from .output import dump


def _conflicts(result: object) -> list[NoteSaveResult]:
    """The conflicts of a save's or an apply's result."""
    if isinstance(result, NoteSaveResult):
        return [result] if result.outcome == "conflict" else []
    if isinstance(result, MemoryUpdateResult):
        return [r for r in result.notes if r.outcome == "conflict"]
    return []


def _run(args: argparse.Namespace, build: Callable[[MemoryRoot], Plan[Any]]) -> int:
    """Build a note plan, show it (dry run) or apply it, print the outcome; a conflict exits 1, nothing written."""
    plan = execute(root_of(args), build, dry_run=args.dry_run)
    conflicts = _conflicts(plan.result)
    if args.json:
        dump(plan_json(plan, bool(args.dry_run)))
    elif args.dry_run and not conflicts:
        print_patch(plan, plan.report)
    elif not conflicts:
        for line in plan.report:
            print(line)
    if conflicts:
        line = next((r for r in plan.report if r.startswith("decision conflict")), "decision conflict; nothing written")
        raise Refused(line)
    return 0


def cmd_save(args: argparse.Namespace) -> int:
    """note save --title T --type X --scope S [texts] [--topic-key KEY] [--choice C]."""
    draft = NoteDraft(
        args.title,
        args.type,
        args.scope,
        args.what or "",
        args.why or "",
        args.where or "",
        args.learned or "",
        args.topic_key,
        args.project,
        args.session,
    )
    when = clock.now()
    return _run(args, lambda root: plan_note_save(root, draft, when, args.choice, args.allow_secrets))


def cmd_update(args: argparse.Namespace) -> int:
    """note update ID [values]."""
    fields = NoteFields(
        args.title, args.type, args.scope, args.what, args.why, args.where, args.learned, args.project, args.session
    )
    when = clock.now()
    return _run(args, lambda root: plan_note_update(root, args.id, fields, when, args.choice, args.allow_secrets))


def cmd_apply(args: argparse.Namespace) -> int:
    """note apply [FILE|-]."""
    text = read_input(args.file) or ""
    when = clock.now()
    return _run(args, lambda root: plan_memory_update(root, text, when, args.choice, args.allow_secrets))


def cmd_show(args: argparse.Namespace) -> int:
    """note show ID [--json | --block]."""
    detail = show_note(root_of(args), args.id)
    if args.json:
        dump(note_detail_json(detail))
    elif args.block:
        n = detail.note
        draft = NoteDraft(
            n.title,
            n.type,
            n.scope,
            detail.what,
            detail.why,
            detail.where,
            detail.learned,
            n.topic_key,
            n.project or None,
            n.session or None,
        )
        sys.stdout.write(render_update(draft))
    else:
        sys.stdout.write(detail.text)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """note list [filters] [--json] (each note that cannot be read is listed with its problem and named on stderr)."""
    views = list_notes(root_of(args), NoteFilters(args.type, args.scope, args.project, args.status, args.session))
    for v in views:
        if v.unreadable:  # listed (with its problem) and named here: never left out without a word
            print(f"memboard: {v.problem}", file=sys.stderr)
    if args.json:
        dump([note_json(v) for v in views])
        return 0
    for v in views:
        mark = "!" if v.problem else " "
        print(f"{mark}{v.id}\t{v.type}\t{v.scope}\t{v.status}\t{v.updated or '-'}\t{v.title}")
    return 0


def cmd_key(args: argparse.Namespace) -> int:
    """note key --scope S --type T --title X."""
    key = suggest_topic_key(args.scope, args.type, args.title)
    if args.json:
        dump({"topic_key": key})
    else:
        print(key)
    return 0
