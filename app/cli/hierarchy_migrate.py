"""`memboard hierarchy migrate` and `memboard hierarchy verify`: the seed's five steps (issue 25 §3).

`--plan` prints the proposed plan (YAML, or `--json`) or writes it to `--out FILE`, a file created only
if absent; `--apply PLAN` applies the decided plan (a `--dry-run` prints one git patch relative to the
workspace, `patch base: DIR` on stderr) and prints the checklist after; `verify` prints the checklist,
each item ✓ or ✗, and exits 1 when one fails. The builders are in service/hierarchy_migrate.py.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..core.errors import Refused, UsageError
from ..core.hierarchy import migrate
from ..service import hierarchy_migrate as service
from ..service.hierarchy import workspace_of
from .output import dump


def _workspace(args: argparse.Namespace) -> object:
    """The workspace the command works on."""

    return workspace_of(getattr(args, "workspace", None), getattr(args, "root", None))


def _out(text: str) -> None:
    """Print text as it is (its own line ends)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def cmd_migrate(args: argparse.Namespace) -> int:
    """`hierarchy migrate --plan [--out FILE]` or `--apply PLAN [--dry-run]`."""

    workspace = Path(str(_workspace(args)))
    if args.plan:
        if args.dry_run:
            raise UsageError("--plan is a read: --dry-run goes with --apply PLAN")
        text = (migrate.dump_json if args.json else migrate.dump_yaml)(service.plan_result(workspace))
        if args.out is None:
            _out(text)
            return 0
        try:
            fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            raise Refused(f"{args.out} exists; the plan goes only to a new file; nothing written") from None
        except OSError as exc:
            raise Refused(f"{args.out} cannot be created: {exc.strerror or exc}; nothing written") from None
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
        print(
            f"wrote the plan to {args.out}; set `to`, `key`, `value`, then: memboard hierarchy migrate --apply {args.out}"
        )
        return 0
    if args.out is not None:
        raise UsageError("--out goes with --plan")
    try:
        with open(args.apply, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise Refused(f"the plan {args.apply} cannot be read: {exc.strerror or exc}; nothing written") from None
    applied = service.apply_write(workspace, data, args.dry_run, args.allow_secrets)
    if args.json:
        dump(applied.as_json())
        return 0
    if args.dry_run:
        patch = b"".join(w.patch() for w in applied.writes)
        print(f"patch base: {applied.patch_base()}", file=sys.stderr)
        sys.stdout.flush()
        binary = getattr(sys.stdout, "buffer", None)
        if binary is not None:
            binary.write(patch)
        else:
            sys.stdout.write(patch.decode("utf-8", "replace"))
        sys.stdout.flush()
        for note in applied.notes():
            print(note, file=sys.stderr)
        return 0
    if not applied.done:
        print("nothing to change" + (" (this plan was applied)" if applied.finished else ""))
    for line in applied.done:
        print(line)
    _out(migrate.render_checks(applied.checks))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """`hierarchy verify [--json]`: the seed's checklist; exit 1 when an item fails."""

    checks = service.verify_checks(Path(str(_workspace(args))))
    if args.json:
        dump(service.checks_json(checks))
    else:
        _out(migrate.render_checks(checks))
    return 0 if all(c.ok for c in checks) else 1
