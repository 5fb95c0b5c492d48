"""The JSON and notes of a plan over places (a project's spaces, the global home, a hierarchy workspace).

Every changing spaces and hierarchy command answers the same way (issue 24 §1): `--json` names the
plan's base folder (`"base"`) and the places it touches; a dry run is one git patch relative to
that base (`git -C BASE apply` writes exactly the command's bytes). The CLI prints these
(cli/placeout.py); the MCP tools answer them (`place_change_json`, with the patch as text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.files.places import Place, based, described, patch, plan_base, touched
from ..core.plan import Plan, encoding_notes
from .output import JSON


def places_json(plan: Plan[Any], places: Sequence[Place]) -> JSON:
    """The base folder and the places a plan touches: `{"base": DIR, "places": [{"kind", "path"}...]}`."""
    return {
        "base": str(plan_base(plan, places)),
        "places": [{"kind": place.kind.name, "path": str(place.real)} for place in touched(plan, places)],
    }


def place_plan_json(plan: Plan[Any], places: Sequence[Place], dry_run: bool, result: JSON | None = None) -> JSON:
    """A changing command's `--json`: its result, base and places, whether it was a dry run, and its steps
    (paths relative to the base)."""
    base = plan_base(plan, places)
    return {
        **(result or {}),
        **places_json(plan, places),
        "dry_run": dry_run,
        "changes": described(plan, places, base),
    }


def place_patch(plan: Plan[Any], places: Sequence[Place]) -> bytes:
    """The plan as one git patch relative to its base folder."""
    return patch(plan, places, plan_base(plan, places))


def place_change_json(plan: Plan[Any], places: Sequence[Place], dry_run: bool, result: JSON | None = None) -> JSON:
    """A change as an agent is answered (MCP): place_plan_json, the report, then the patch and the dry run's
    notes, or after a verified write the success line."""
    out = place_plan_json(plan, places, dry_run, result)
    out["report"] = list(plan.report)
    if dry_run:
        out["diff"] = place_patch(plan, places).decode("utf-8", "replace")
        out["notes"] = place_notes(plan, places)
    else:
        out["message"] = plan.success
    return out


def place_notes(plan: Plan[Any], places: Sequence[Place]) -> list[str]:
    """What a dry run says after its patch: the files' encodings it keeps (named relative to the base), then
    that nothing was written."""
    shown = Plan(plan.op, None, based(plan, places, plan_base(plan, places)))
    return [*encoding_notes(shown), "dry run: nothing written" if not plan.empty else "dry run: nothing to change"]
