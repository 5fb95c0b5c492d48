"""The builders of `hierarchy migrate --plan|--apply` and `hierarchy verify`, as every face calls them.

The plan is a read (`plan_result`); the apply (`apply_write`) runs the decided plan on the places engine
over the workspace in two writes under the workspace's lock: steps 1–4 (the migration copy and applied
plan, facts.yaml, project files and daily log, lookup rows) as one plan, then step 5, MEMORY.md, as a
plan of its own built from a fresh read of MEMORY.md that is refused when its SHA-256 is no longer the
plan's. One engine plan cannot give that: a file that changes under a later step of a multi-file plan is
merged onto (rebased), and issue 25 §7 asks instead that MEMORY.md stay whole and the migration refuse.
A dry run previews all five steps as one patch. The MCP tools wrap these same functions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import Refused
from ..core.hierarchy import migrate
from ..core.hierarchy.lint import project_files, read_workspace
from .hierarchy import Written, limits, local_today, write


def plan_result(workspace: Path, today: str | None = None) -> dict[str, Any]:
    """`hierarchy migrate --plan`: the proposed plan as data (memory_md, date, lines)."""

    try:
        data = (workspace / migrate.HOT_FILE).read_bytes()
    except FileNotFoundError:
        raise Refused(f"no MEMORY.md in {workspace}") from None
    except OSError as exc:
        raise Refused(f"MEMORY.md cannot be read: {exc.strerror or exc}") from None
    return migrate.propose(data, today or local_today().isoformat())


def _projects(workspace: Path) -> list[str]:
    """The workspace's project files, relative."""

    return project_files(str(workspace))


def _plans(workspace: Path) -> list[str]:
    """The applied plans in memory/migrations/, relative."""

    return read_workspace(str(workspace)).plans


def _reader(workspace: Path) -> Any:
    """A plain read of a workspace file (None when absent): for the checklist and the finished-plan check."""

    def read(rel: str) -> bytes | None:
        try:
            return (workspace / rel).read_bytes()
        except OSError:
            return None

    return read


@dataclass
class Applied:
    """An apply's outcome: its writes (one with dry_run, else steps 1–4 and step 5), and the checklist after."""

    dry_run: bool
    writes: list[Written] = field(default_factory=list)
    checks: list[Any] = field(default_factory=list)
    finished: bool = False  # the plan was applied before: nothing to change
    base: Path | None = None  # the workspace a patch is relative to (the first write's base)

    @property
    def done(self) -> list[str]:
        """What was done, in words."""
        return [line for w in self.writes for line in w.done]

    def patch_base(self) -> Path | None:
        """The folder the dry run's patch is relative to."""
        return self.writes[0].base if self.writes else self.base

    def as_json(self) -> dict[str, Any]:
        """The command's JSON, as every plan over places answers (`workspace`, `base`, `places`, `dry_run`,
        `changes`, `done`), with the dry run's patch (`diff`) or, after a write, the checklist (`verify`)."""
        answers = [w.as_json() for w in self.writes]
        base = self.patch_base()
        places: list[Any] = []
        for a in answers:
            places.extend(p for p in a.get("places", []) if p not in places)
        out: dict[str, Any] = {
            "workspace": str(base) if base else None,
            "base": str(base) if base else None,
            "places": places,
            "dry_run": self.dry_run,
            "changes": [c for a in answers for c in a["changes"]],
            "done": self.done,
        }
        if self.dry_run:
            out["diff"] = b"".join(w.patch() for w in self.writes).decode("utf-8", "replace")
        else:
            out["verify"] = checks_json(self.checks)
        return out

    def notes(self) -> list[str]:
        """What a dry run says after its patch: the encodings it keeps, that nothing was written."""
        return self.writes[0].notes() if self.writes else ["dry run: nothing to change"]


def checks_json(checks: list[Any]) -> dict[str, Any]:
    """`{"ok", "checks": [{"name", "ok", "details"}]}`."""
    return {"ok": all(c.ok for c in checks), "checks": [c.as_json() for c in checks]}


def apply_write(
    workspace: Path,
    plan: bytes | dict[str, Any],
    dry_run: bool = False,
    allow_secrets: bool = False,
    today: str | None = None,
) -> Applied:
    """`hierarchy migrate --apply PLAN`: the decided plan (the file's bytes, or the plan object an agent sends,
    kept as its YAML) applied in the seed's order (or previewed, dry_run)."""

    plan_bytes = plan if isinstance(plan, bytes) else _plan_bytes(plan)
    day = today or local_today().isoformat()
    plain = _reader(workspace)
    out = Applied(dry_run)
    data = migrate.load(plan_bytes)
    current = plain(migrate.HOT_FILE)
    changed = current is not None and migrate.sha256(current) != data["memory_md"]["sha256"]
    if changed and migrate.already_applied(plain, plan_bytes):
        out.finished = True
        out.base = workspace.resolve()
        out.checks = verify_checks(workspace)
        return out
    projects = _projects(workspace)
    secrets = _secrets(data)

    def whole(read: Any) -> migrate.Planned:
        planned = migrate.planned(read, plan_bytes, day, projects)
        return migrate.Planned(planned.all(), planned.done)

    if dry_run:
        out.writes.append(write(workspace, "hierarchy migrate", whole, True, secrets, allow_secrets))
        return out

    def destinations(read: Any) -> migrate.Planned:
        planned = migrate.planned(read, plan_bytes, day, projects)
        return migrate.Planned(planned.changes, planned.done[: len(planned.changes)])

    def last(read: Any) -> migrate.Planned:
        planned = migrate.hot_step(read, plan_bytes)
        return migrate.Planned(planned.all(), planned.done)

    out.writes.append(write(workspace, "hierarchy migrate", destinations, False, secrets, allow_secrets))
    out.writes.append(write(workspace, "hierarchy migrate", last, False))
    out.checks = verify_checks(workspace)
    return out


def _plan_bytes(plan: dict[str, Any]) -> bytes:
    """A plan object as the bytes kept in memory/migrations/: its YAML, or JSON when it is no plan's shape
    (load then refuses it in one line)."""

    try:
        return migrate.dump_yaml(plan).encode("utf-8")
    except (KeyError, TypeError, AttributeError):
        return json.dumps(plan, ensure_ascii=False, default=str).encode("utf-8")


def _secrets(plan: dict[str, Any]) -> dict[str, str | None]:
    """The texts the migration writes elsewhere than MEMORY.md, for the secrets guard (by plan line)."""
    out: dict[str, str | None] = {}
    for entry in plan["lines"]:
        if isinstance(entry, dict) and entry.get("to") not in (None, "keep") and isinstance(entry.get("text"), str):
            out[f"plan line {entry.get('n')}"] = entry["text"]
    return out


def verify_checks(workspace: Path) -> list[Any]:
    """`hierarchy verify`: the seed's checklist over the workspace as it is."""

    return migrate.verify(_reader(workspace), _projects(workspace), _plans(workspace), limits().hot_max_lines)
