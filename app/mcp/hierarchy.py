"""The hierarchy tools (issue 25 §5): an agent memory hierarchy's workspace read and written as the commands do.

Each tool wraps the service builder its command calls (service/hierarchy.py, facts.py,
hierarchy_migrate.py), so an answer is the command's `--json`; a dry run adds `diff`, the exact
patch `--dry-run` prints (relative to the workspace). `hierarchy_hot` is what the seed loads at
session start: MEMORY.md with its sizes and the lint summary. `workspace` is required and absolute.
facts_set, facts_todo and daily_log apply unless `dry_run`; hierarchy_migrate_apply defaults to a
dry run. There is no allow_secrets. These tools need no memory root.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from ..core.errors import UsageError
from ..core.files.places import Place
from ..core.plan import Plan
from ..service import facts as facts_service
from ..service import hierarchy as service
from ..service import hierarchy_migrate
from .answers import ok
from .hints import APPENDS, READS, REMOVES, REWRITES
from .sessions import Tool
from .spaces import ApplyDryRun, PreviewDryRun, folder, plan_answer

# Hints (hints.py's rule): facts_set replaces a value (the same value again changes nothing); a todo added twice
# is two todos, and one done leaves facts.yaml (its line removed, kept in the daily log): destructive, not
# idempotent; a daily log is append-only, and the same block again is `nothing to change`; a migration deletes
# MEMORY.md's moved lines (kept elsewhere, and a copy of the old file in memory/migrations/), and once applied
# changes nothing.

Workspace = Annotated[
    str,
    Field(min_length=1, description="the absolute path of the hierarchy's workspace (the folder holding MEMORY.md)"),
]
Key = Annotated[
    str,
    Field(
        min_length=1,
        description='a key path of memory/facts.yaml: keys joined by "." (identity.email), a key holding a "." in '
        'double quotes (paths."api.keys"), a list item by its 0-based index (todos.2)',
    ),
]


def workspace_of(workspace: str) -> Path:
    """The workspace argument as the workspace folder (one-line errors as the commands give them)."""
    return service.workspace_of(folder(workspace))


def _written(written: Any) -> CallToolResult:
    """A hierarchy write's answer: the command's `--json` (with `diff` on a dry run, as `--dry-run --json`)."""
    out = written.as_json()
    if written.dry_run:
        out["diff"] = written.patch().decode("utf-8", "replace")
    return ok(out)


def _facts(place: Place, plan: Plan[Any], dry_run: bool) -> CallToolResult:
    """A facts write's answer: the command's `--json`, the report, the patch (dry run) or the success line."""
    return ok(plan_answer(plan, [place], dry_run, dict(plan.result)))


class HierarchyTools:
    """The hierarchy tools; they need no memory root (root is ignored and may be None)."""

    NEEDS_ROOT = False

    def __init__(self, root: Path | None = None):
        """The tools (the workspace comes with each call)."""
        self.path = root

    def tools(self) -> list[tuple[Tool, ToolAnnotations]]:
        """Each tool with its hints."""
        return [
            (self.hierarchy_hot, READS),
            (self.hierarchy_lint, READS),
            (self.facts_get, READS),
            (self.lookup, READS),
            (self.hierarchy_migrate_plan, READS),
            (self.facts_set, REMOVES),
            (self.facts_todo, REWRITES),
            (self.daily_log, APPENDS),
            (self.hierarchy_migrate_apply, REMOVES),
        ]

    def hierarchy_hot(self, workspace: Workspace) -> CallToolResult:
        """Load this at session start: MEMORY.md, the hot cache (`text`), with its size (`lines`/80 and
        `tokens`/1,000 as `memboard hierarchy show` counts them), its pointers to facts.yaml and lookup-index.md,
        and the lint summary (`lint`: findings by severity and kind; hierarchy_lint lists them). Facts live in
        memory/facts.yaml (facts_get, facts_set), not here."""
        ws = workspace_of(workspace)
        shown = service.show_result(ws)
        hot = dict(shown["hot"])
        path = ws / "MEMORY.md"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            text = None
        except OSError as exc:
            raise UsageError(f"MEMORY.md cannot be read: {exc.strerror or exc}") from None
        else:
            text = data.decode("utf-8", "replace").removeprefix("\ufeff")
        findings = service.lint_result(ws)
        severities = Counter(f.severity for f in findings)
        lint = {
            "findings": len(findings),
            "error": severities["error"],
            "warn": severities["warn"],
            "info": severities["info"],
            "kinds": dict(sorted(Counter(f.kind for f in findings).items())),
        }
        limits = service.limits()
        return ok(
            {
                "workspace": str(ws),
                **hot,
                "max_lines": limits.hot_max_lines,
                "max_tokens": limits.hot_max_tokens,
                "text": text,
                "lint": lint,
            }
        )

    def hierarchy_lint(self, workspace: Workspace) -> CallToolResult:
        """The seed's rules, mechanically (`memboard hierarchy lint --json`): findings {kind, severity, path, line,
        span, message, fix} such as facts left in MEMORY.md, a hot cache over 80 lines, broken lookup targets,
        invalid facts.yaml. Never writes."""
        return ok([f.as_json() for f in service.lint_result(workspace_of(workspace))])

    def facts_get(self, workspace: Workspace, key: Key) -> CallToolResult:
        """One fact of memory/facts.yaml (`memboard facts get --json`): key, value (as parsed), line, source (the
        scalar as written), comment and alias (the anchor it comes through). A missing key is an error."""
        place = facts_service.workspace(workspace_of(workspace))
        return ok(facts_service.facts_get(place, key))

    def lookup(
        self,
        workspace: Workspace,
        query: Annotated[str, Field(min_length=1, description="what you need to know, in a few words")],
        all: Annotated[bool, Field(description="every matching row, best first (else the best one)")] = False,
    ) -> CallToolResult:
        """Call this before searching: the row of memory/lookup-index.md whose need matches the query, with its
        target resolved (`memboard lookup --json`): a facts group's lines and value, a Markdown section, a file,
        a folder. No matching row is an error."""
        answers = service.lookup_result(workspace_of(workspace), query, all, want_value=True)
        return ok(answers if all else answers[0])

    def hierarchy_migrate_plan(self, workspace: Workspace) -> CallToolResult:
        """Step 1 of the seed's migration (`memboard hierarchy migrate --plan --json`): every non-blank line of
        MEMORY.md with a proposed destination (keep, facts with key and value, project:<name>, daily), by rules,
        not understanding. Decide each line's `to` (and `key`/`value` for facts), then pass the plan to
        hierarchy_migrate_apply."""
        from ..core.hierarchy import migrate  # lazy: only the migration tools load it

        return ok(json.loads(migrate.dump_json(hierarchy_migrate.plan_result(workspace_of(workspace)))))

    def facts_set(
        self,
        workspace: Workspace,
        key: Key,
        value: Annotated[
            str, Field(description="the new value, one line (written quoted when plain text would misread)")
        ],
        create: Annotated[bool, Field(description="add the key (and missing parents) when it does not exist")] = False,
        raw: Annotated[bool, Field(description="value is the YAML scalar itself, as it is to be written")] = False,
        dry_run: ApplyDryRun = False,
    ) -> CallToolResult:
        """Set one fact (`memboard facts set`): replaces one scalar of memory/facts.yaml and its `# Last updated:`
        line, no other byte. Use it instead of editing facts.yaml. Refused: a key reached through an alias, a
        mapping or list, a missing key without create, a credential."""
        place = facts_service.workspace(workspace_of(workspace))
        build = facts_service.set_plan(key, value, create, raw, False)
        return _facts(place, facts_service.run_plan(place, build, dry_run=dry_run), dry_run)

    def facts_todo(
        self,
        workspace: Workspace,
        action: Annotated[Literal["add", "done"], Field(description="add a todo, or mark one done")],
        item: Annotated[
            str, Field(min_length=1, description="add: the todo's text; done: its 1-based number or its exact text")
        ],
        dry_run: ApplyDryRun = False,
    ) -> CallToolResult:
        """The todos of memory/facts.yaml (`memboard facts todo add|done`): add appends `- TEXT`; done removes the
        item and appends `- [x] TEXT` to today's daily log (it leaves the warm layer for the cold one)."""
        place = facts_service.workspace(workspace_of(workspace))
        if action == "add":
            plan = facts_service.run_plan(place, facts_service.todo_add_plan(item, False), dry_run=dry_run)
        else:
            plan = facts_service.todo_done_run(place, item, False, dry_run=dry_run)
        return _facts(place, plan, dry_run)

    def daily_log(
        self,
        workspace: Workspace,
        text: Annotated[str, Field(min_length=1, description="what to append (Markdown)")],
        date: Annotated[
            str | None, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD (default: today, local)")
        ] = None,
        dry_run: ApplyDryRun = False,
    ) -> CallToolResult:
        """Append to a daily log, memory/YYYY-MM-DD.md (`memboard hierarchy log`), beside OpenClaw's own appends:
        never a rewrite. The same block the file already ends with is `nothing to change`."""
        if not text.strip():
            raise UsageError("nothing to append: the text is empty")
        if date is not None:
            try:
                dt.date.fromisoformat(date)
            except ValueError:
                raise UsageError(f"date {date} is not a real date") from None
        return _written(service.log_write(workspace_of(workspace), text, date, dry_run, False))

    def hierarchy_migrate_apply(
        self,
        workspace: Workspace,
        plan: Annotated[
            dict[str, Any],
            Field(description="the plan object hierarchy_migrate_plan answered, with each line's `to` decided"),
        ],
        dry_run: PreviewDryRun = True,
    ) -> CallToolResult:
        """Steps 2-5 of the seed's migration (`memboard hierarchy migrate --apply`): the decided plan applied in
        the seed's order, MEMORY.md last, losing no line, then the checklist (`verify`). Previews by default:
        call again with dry_run false to write. Refused when MEMORY.md changed since the plan."""
        return ok(hierarchy_migrate.apply_write(workspace_of(workspace), plan, dry_run, False).as_json())
