"""How a command that writes in places (spaces, the hierarchy) prints its plan: one way for all of them.

`--dry-run` prints the plan as one git patch on stdout whose paths are relative to the plan's base
folder (the project root, the global home, a workspace, or the deepest folder holding every place
it touches); the first line on stderr is `patch base: DIR`, so `git -C DIR apply` writes exactly
the bytes the command would. `--json` prints the command's result with `"base"` and `"places"`
(service/places.py). Otherwise: the plan's report, its success line, or `nothing to change`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..core.files.places import Place, plan_base, run
from ..core.plan import Plan
from ..service.output import JSON
from ..service.places import place_notes, place_patch, place_plan_json
from .output import dump

R = TypeVar("R")


def print_place_patch(plan: Plan[Any], places: Sequence[Place], notes: Sequence[str] = ()) -> None:
    """A dry run: `patch base: DIR` on stderr, the patch (bytes) on stdout, then the notes on stderr."""
    print(f"patch base: {plan_base(plan, places)}", file=sys.stderr)
    sys.stderr.flush()
    data = place_patch(plan, places)
    sys.stdout.flush()
    binary = getattr(sys.stdout, "buffer", None)
    if binary is not None:
        binary.write(data)
    else:  # a text-only stream (an embedding caller): the patch as text, undecodable bytes replaced
        sys.stdout.write(data.decode("utf-8", "replace"))
    sys.stdout.flush()
    for line in [*notes, *place_notes(plan, places)]:
        print(line, file=sys.stderr)


def show_place_plan(
    plan: Plan[R],
    places: Sequence[Place],
    dry_run: bool,
    as_json: bool,
    result: Callable[[Plan[R]], JSON] | None = None,
) -> int:
    """Print a plan over places that was built (dry_run) or applied, as `--dry-run`, `--json` or plain text
    ask; exit status 0."""
    if as_json:
        dump(place_plan_json(plan, places, dry_run, result(plan) if result else None))
        return 0
    if dry_run:
        print_place_patch(plan, places, plan.report)
        return 0
    for line in plan.report:
        print(line)
    if plan.success and not plan.empty:
        print(plan.success)
    if plan.empty:
        print("nothing to change")
    return 0


def run_place_plan(
    places: Sequence[Place],
    build: Callable[[], Plan[R]],
    dry_run: bool,
    as_json: bool,
    result: Callable[[Plan[R]], JSON] | None = None,
) -> int:
    """Build a plan over places and show it (dry run) or apply it (see places.run), then print the outcome."""
    plan = run(places, build, dry_run=dry_run)
    return show_place_plan(plan, places, dry_run, as_json, result)
