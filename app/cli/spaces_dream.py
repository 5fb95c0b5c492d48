"""`memboard space dream` and `memboard space archive`: distillation and the cold layer (issue 24 §4).

Only parsing and printing live here: the plans are the service layer's (service/spaces_dream.py), shared with
the MCP tools; printing is placeout's (a dry run is one patch relative to its base folder).
"""

from __future__ import annotations

import argparse

from .args import read_input
from .placeout import show_place_plan
from .spaces_read import _workspace


def cmd_dream(args: argparse.Namespace) -> int:
    """`space dream [--from FILE|-]`: write dream-notes.md and its snapshot; `nothing to distil` when empty."""
    from ..service import spaces_dream  # lazy: a command loads only its own service

    notes = read_input(args.source)
    job = spaces_dream.dream_run(_workspace(args), args.scope, notes, allow_secrets=args.allow_secrets)
    plan = spaces_dream.apply(job, args.dry_run)
    return show_place_plan(plan, job.places, args.dry_run, args.json, spaces_dream.result_json)


def cmd_archive(args: argparse.Namespace) -> int:
    """`space archive`: move old history, closed research topics and old dream snapshots to the archive."""
    from ..service import spaces_dream  # lazy: a command loads only its own service

    job = spaces_dream.archive_run(
        _workspace(args),
        args.scope,
        keep=args.keep,
        skip_history=args.skip_history,
        skip_research=args.skip_research,
        skip_dreams=args.skip_dreams,
        dream_keep_days=args.dream_keep_days,
        force=args.force,
    )
    plan = spaces_dream.apply(job, args.dry_run)
    return show_place_plan(plan, job.places, args.dry_run, args.json, spaces_dream.result_json)
