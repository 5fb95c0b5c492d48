"""The builders of `hierarchy show|lint|init|log|archive-logs` and `lookup` / `lookup add`, as every face calls them.

Each read returns the command's JSON-able result; each write builds its plan over the workspace as a
place (the places engine: the workspace's own lock in local state, settled reads, compare before rename)
and applies it, or with dry_run returns it unwritten with its patch relative to the workspace (`patch
base: DIR`, so that `git -C DIR apply` reproduces the write). The MCP tools wrap these same functions.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.errors import Refused

NO_WORKSPACE = "no hierarchy workspace; pass --workspace DIR"


def local_today() -> dt.date:
    """Today's local date (memboard's clock: MEMBOARD_NOW fixes it)."""
    from ..core.formats import clock  # lazy: each command loads its own modules

    return clock.now().date()


def workspace_of(cli_workspace: str | None, cli_root: str | None = None) -> Path:
    """The workspace (issue 25 §1's order), or a one-line refusal."""
    # lazy: each command loads its own modules
    from ..core.hierarchy.workspace import resolve_workspace

    return resolve_workspace(cli_workspace, cli_root)


def limits() -> Any:
    """lint's thresholds from the config (hot_max_lines, hot_max_tokens, facts_stale_days)."""
    from ..core import config  # lazy: each command loads its own modules
    from ..core.hierarchy.lint import Limits  # lazy: each command loads its own modules

    cfg = config.settings()
    return Limits(
        int(cfg.value("hot_max_lines")),  # type: ignore[call-overload]
        int(cfg.value("hot_max_tokens")),  # type: ignore[call-overload]
        int(cfg.value("facts_stale_days")),  # type: ignore[call-overload]
    )


def show_result(workspace: Path) -> dict[str, Any]:
    """`hierarchy show`'s JSON."""
    from ..core.hierarchy.show import show  # lazy: each command loads its own modules

    return show(str(workspace))


def lint_result(workspace: Path, today: dt.date | None = None) -> list[Any]:
    """`hierarchy lint`'s findings (core Finding values, in file order)."""
    from ..core.hierarchy.lint import lint  # lazy: each command loads its own modules

    return lint(str(workspace), limits(), today or local_today())


def lookup_result(workspace: Path, query: str, every: bool = False, want_value: bool = True) -> list[dict[str, Any]]:
    """`lookup QUERY`'s answers, best first (one unless every): each row with its resolved target(s).
    Refused (exit 1) when no row matches."""
    from ..core.hierarchy import lookup  # lazy: each command loads its own modules

    index_path = workspace / lookup.LOOKUP_FILE
    try:
        text = index_path.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        raise Refused(f"no {lookup.LOOKUP_FILE} in {workspace} (memboard hierarchy init creates it)") from None
    except OSError as exc:
        raise Refused(f"{lookup.LOOKUP_FILE} cannot be read: {exc.strerror or exc}") from None
    rows = lookup.matches(lookup.parse_index(text).rows, query)
    if not rows:
        raise Refused(f'no lookup row matches "{query}"')
    out: list[dict[str, Any]] = []
    for row in rows if every else rows[:1]:
        targets = [lookup.resolve(str(workspace), t, want_value) for t in row.targets]
        first: dict[str, Any] = (
            targets[0].as_json()
            if targets
            else {"kind": None, "path": None, "section": None, "text": None, "value": None, "missing": row.problem}
        )
        out.append(
            {
                "row": row.line,
                "need": row.need,
                "target": row.target,
                **first,
                "targets": [t.as_json() for t in targets],
            }
        )
    return out


# --- writes -------------------------------------------------------------------------------------------------


def _places() -> Any:
    """The places engine (loaded only by a write)."""
    from ..core.files import places  # lazy: each command loads its own modules

    return places


class Written:
    """A changing command's outcome: the plan (applied, or not with dry_run), its base folder and patch.
    (A plain class: `lookup` loads no dataclasses.)"""

    def __init__(
        self, plan: Any, base: Path, dry_run: bool, done: list[str], place: Any, steps: list[str] | None = None
    ) -> None:
        """steps: the changes in words when the plan does not hold them (an append)."""
        self.plan, self.base, self.dry_run, self.done, self.place, self.steps = plan, base, dry_run, done, place, steps

    def patch(self) -> bytes:
        """The plan as a git patch relative to base."""
        from .places import place_patch  # lazy: each command loads its own modules

        return place_patch(self.plan, [self.place])

    def notes(self) -> list[str]:
        """What a dry run says after its patch (the encodings it keeps, that nothing was written)."""
        from .places import place_notes  # lazy: each command loads its own modules

        return place_notes(self.plan, [self.place])

    def as_json(self) -> dict[str, Any]:
        """The command's JSON, as every plan over places answers (`base`, `places`, `dry_run`, `changes`), with
        the workspace and what was done (`done`); a dry run adds the patch (`diff`)."""
        from .places import place_plan_json  # lazy: each command loads its own modules

        out = place_plan_json(self.plan, [self.place], self.dry_run, {"workspace": str(self.place.real)})
        if self.steps is not None:
            out["changes"] = list(self.steps)
            out["places"] = [{"kind": self.place.kind.name, "path": str(self.place.real)}] if self.steps else []
        out["done"] = list(self.done)
        if self.dry_run:
            out["diff"] = self.patch().decode("utf-8", "replace")
        return out


def write(
    workspace: Path,
    op: str,
    plan_changes: Callable[[Callable[[str], bytes | None]], Any],
    dry_run: bool,
    secrets: dict[str, str | None] | None = None,
    allow_secrets: bool = False,
) -> Written:
    """Build op's changes over the workspace's place and apply them (or only build them, dry_run)."""
    from ..core import secrets as guard  # lazy: each command loads its own modules

    places = _places()

    if secrets:
        guard.refuse_secrets(secrets, allow_secrets)
    place = places.workspace_tree(workspace.resolve())
    done: list[str] = []

    def build() -> Any:
        planned = plan_changes(place.read)
        done[:] = planned.done
        return places.assemble(op, None, [place], planned.changes)

    plan = places.run([place], build, dry_run=dry_run)
    return Written(plan, places.plan_base(plan, [place]), dry_run, done, place)


def init_write(workspace: Path, dry_run: bool = False, today: str | None = None) -> Written:
    """`hierarchy init`."""
    # lazy: each command loads its own modules
    from ..core.hierarchy.plans import plan_init

    day = today or local_today().isoformat()
    return write(workspace, "hierarchy init", lambda read: plan_init(read, day), dry_run)


def log_write(
    workspace: Path, text: str, date: str | None = None, dry_run: bool = False, allow_secrets: bool = False
) -> Written:
    """`hierarchy log`: append text to the day's log (written as an append under the workspace's lock, see
    appendlog.py; the dry run is the places engine's)."""
    from ..core import secrets as guard  # lazy: each command loads its own modules
    from ..core.hierarchy.plans import plan_log  # lazy: each command loads its own modules

    day = date or local_today().isoformat()
    if dry_run:
        return write(
            workspace, "hierarchy log", lambda read: plan_log(read, text, day), True, {"text": text}, allow_secrets
        )
    # lazy: each command loads its own modules
    from ..core.hierarchy.appendlog import append_log

    guard.refuse_secrets({"text": text}, allow_secrets)
    places = _places()
    place = places.workspace_tree(workspace.resolve())
    done = append_log(place, text, day)
    plan = places.assemble("hierarchy log", None, [place], [])
    steps = [("create " if done.startswith("created") else "modify ") + done.split(" ")[-1]] if done else []
    return Written(plan, place.real, False, [done] if done else [], place, steps)


def archive_write(workspace: Path, before: str, dry_run: bool = False) -> Written:
    """`hierarchy archive-logs --before DATE`."""
    # lazy: each command loads its own modules
    from ..core.hierarchy.plans import plan_archive

    return write(workspace, "hierarchy archive-logs", lambda read: plan_archive(str(workspace), read, before), dry_run)


def lookup_add_write(
    workspace: Path, need: str, target: str, dry_run: bool = False, allow_secrets: bool = False
) -> Written:
    """`lookup add NEED TARGET`."""
    # lazy: each command loads its own modules
    from ..core.hierarchy.plans import plan_lookup_add

    return write(
        workspace,
        "lookup add",
        lambda read: plan_lookup_add(str(workspace), read, need, target),
        dry_run,
        {"need": need, "target": target},
        allow_secrets,
    )
