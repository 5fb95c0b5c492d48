"""`memboard space migrate` and `memboard space add`: legacy paths and routes (issue 24 §4).

Only parsing and printing: the plans are the service layer's (service/spaces_migrate.py), printed as
every command writing in places prints them (cli/placeout.py: `--dry-run` is one patch relative to
`patch base: DIR`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..core.errors import UsageError
from ..service import spaces_migrate
from .placeout import run_place_plan


def _workspace(args: argparse.Namespace) -> str | None:
    """The --workspace folder (None: the current one); a usage error when it is not a folder."""
    raw: str | None = args.workspace
    if raw is not None and not Path(raw).expanduser().is_dir():
        raise UsageError(f"--workspace {raw} is not a folder")
    return raw


def cmd_migrate(args: argparse.Namespace) -> int:
    """`space migrate [--global]`: move the legacy folders' files to the new paths, verified."""

    places, build = spaces_migrate.migrate_plan(_workspace(args), args.scope, args.global_home)
    return run_place_plan(places, build, args.dry_run, args.json, spaces_migrate.migrate_json)


def cmd_add(args: argparse.Namespace) -> int:
    """`space add NAME SUBDIR`: one route more in the project's config.toml."""

    places, build = spaces_migrate.add_plan(_workspace(args), args.scope, args.name, args.subdir, args.allow_secrets)
    return run_place_plan(places, build, args.dry_run, args.json, spaces_migrate.add_json)
