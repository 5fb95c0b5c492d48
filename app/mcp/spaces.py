"""The space tools (issue 24 §6): a project's session-memory space read and written as `memboard space ...` does.

Each tool wraps the service builder its command calls (service/spaces_read.py, spaces_write.py,
spaces_dream.py, spaces_migrate.py), so an answer is the command's `--json`: a read's object, a
change's plan with `base`, `places`, `dry_run` and `changes` (service/places.py), plus the report
and, for a dry run, `diff`, the exact patch `--dry-run` prints (relative to `base`). `workspace` is
required and absolute: a server has no meaningful current folder. save, research-save and a dream
with `notes` apply unless `dry_run`; archive and migrate default to a dry run; a dream without
`notes` answers the extraction as a proposal and writes nothing. There is no allow_secrets: text
that looks like a credential is refused. These tools need no memory root.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from ..core.errors import Refused, UsageError
from ..core.files.places import Place, run
from ..core.plan import Plan
from ..core.spaces.events import Event
from ..service import spaces_dream, spaces_migrate, spaces_read, spaces_write
from ..service.places import place_change_json
from .answers import JSON, ok
from .hints import ADDS, READS, REMOVES, REWRITES
from .sessions import Tool

# Hints (hints.py's rule): save rewrites current.md in place (every displaced line kept in history.md) and a
# dream replaces dream-notes.md: destructive; research-save only appends an entry, a new one each call; archive
# and migrate move files out of where they were, and a second call finds nothing left to move.

Workspace = Annotated[
    str,
    Field(
        min_length=1,
        description="the absolute path of the folder you work in (the project or a folder inside it): the space is "
        "the one `memboard space where` picks for it",
    ),
]
Scope = Annotated[
    Literal["auto", "workspace", "global"],
    Field(
        description="auto (the project's space, or a configured route's), workspace (WORKSPACE/.session-memory), "
        "global (the global space in the session-memory home)"
    ),
]
ApplyDryRun = Annotated[
    bool,
    Field(strict=True, description="true: write nothing and answer the exact patch `--dry-run` prints (`diff`)"),
]
PreviewDryRun = Annotated[
    bool,
    Field(
        strict=True,
        description="true (the default): write nothing and answer the exact patch `--dry-run` prints (`diff`); "
        "false: move the files",
    ),
]
Texts = Annotated[list[str], Field(description="a list of one-line texts (joined by '; ' in the entry)")]


def folder(workspace: str) -> str:
    """The workspace argument as a folder path; a one-line error when it is relative or no folder."""
    path = Path(workspace).expanduser()
    if not path.is_absolute():
        raise UsageError(f"workspace {workspace} is not an absolute path (a server has no current folder)")
    if not path.is_dir():
        raise UsageError(f"workspace {workspace} is not a folder")
    return str(path)


def answer(plan: Plan[Any], places: list[Place], dry_run: bool, result: JSON | None) -> CallToolResult:
    """A change's answer: the command's `--json`, the report, the patch (dry run) or the success line."""
    return ok(plan_answer(plan, places, dry_run, result))


def plan_answer(plan: Plan[Any], places: list[Place], dry_run: bool, result: JSON | None) -> JSON:
    """place_change_json, its message `nothing to change` when a write had nothing to do (as the command prints)."""
    out = place_change_json(plan, places, dry_run, result)
    if not dry_run and plan.empty:
        out["message"] = "nothing to change"
    return out


class SpaceTools:
    """The space tools; they need no memory root (root is ignored and may be None)."""

    NEEDS_ROOT = False

    def __init__(self, root: Path | None = None):
        """The tools (a space is found from each call's workspace, not from the memory root)."""
        self.path = root

    def tools(self) -> list[tuple[Tool, ToolAnnotations]]:
        """Each tool with its hints."""
        return [
            (self.space_where, READS),
            (self.space_restore, READS),
            (self.space_search, READS),
            (self.space_check, READS),
            (self.space_save, REWRITES),
            (self.space_research_save, ADDS),
            (self.space_dream, REWRITES),
            (self.space_archive, REMOVES),
            (self.space_migrate, REMOVES),
        ]

    def space_where(self, workspace: Workspace, scope: Scope = "auto") -> CallToolResult:
        """Which session-memory space a folder belongs to, and why (`memboard space where --json`): the target
        folder (the space's ID), the rule that chose it, the project root, the route and space name from the
        project's .session-memory/config.toml, whether it exists, and legacy folders still holding memory.
        An invalid config.toml is an error naming the file."""
        decision = spaces_read.where(folder(workspace), scope)
        if decision.problem is not None:
            raise Refused(decision.problem)
        return ok(spaces_read.where_json(decision))

    def space_restore(
        self,
        workspace: Workspace,
        scope: Scope = "auto",
        history: Annotated[
            Literal["all", "none"] | Annotated[int, Field(ge=0)],
            Field(description="history.md entries to read: all, none, or the newest N"),
        ] = "all",
        include_research: Annotated[bool, Field(description="also read research.md")] = False,
    ) -> CallToolResult:
        """Where to resume: the space's hot layer as `memboard space restore --json` gives it (current.md,
        history.md, dream-notes.md, and research.md when asked, each file's text exactly), its Last Updated and
        whether it is stale (then treat it as a weak reference). A pure read: nothing is written. Call it at the
        start of work on a project."""
        read = spaces_read.restore(folder(workspace), scope, str(history), include_research)
        return ok(read.result)

    def space_search(
        self,
        workspace: Workspace,
        query: Annotated[str, Field(min_length=1, max_length=1000, description="literal text, matched ignoring case")],
        scope: Scope = "auto",
        include_research: Annotated[bool, Field(description="also search research.md")] = False,
        include_archive: Annotated[bool, Field(description="also search the archive files")] = False,
        all_spaces: Annotated[
            bool, Field(description="every space of the project (its routes too) and every other known space")
        ] = False,
        limit: Annotated[int, Field(ge=1, le=1000, description="matches per file, in file order")] = 8,
    ) -> CallToolResult:
        """Lines of the space's files that contain the query (`memboard space search --json`): each with its
        space, file, path, layer (hot, research, archive), 1-based line, text and the entry heading or `## `
        section it is in."""
        read = spaces_read.search(folder(workspace), scope, query, limit, include_research, include_archive, all_spaces)
        return ok(read.result)

    def space_check(
        self,
        workspace: Workspace,
        scope: Scope = "auto",
        events: Annotated[
            list[Event],
            Field(description="what just happened (any of these events makes the decision SAVE_NOW)"),
        ] = [],  # noqa: B006 (pydantic copies a default; the schema shows it)
        stale_minutes: Annotated[int, Field(ge=0, description="current.md older than this is stale")] = 180,
    ) -> CallToolResult:
        """The save gate (`memboard space check --json`): decision INIT_FIRST (the space's files are missing:
        space_save creates them), SAVE_NOW (an event, or current.md is stale) or SKIP, with the reasons and the
        findings (legacy data, half-done archives or migrations, a dream or an archive due, ...)."""
        read = spaces_read.check(folder(workspace), scope, list(events), stale_minutes)
        if read.result["decision"] is None:
            raise Refused(read.notes[0] if read.notes else "the space cannot be resolved")
        return ok(read.result)

    def space_save(
        self,
        workspace: Workspace,
        current: Annotated[
            str | None, Field(description="the whole new current.md (give this or sections, not both)")
        ] = None,
        sections: Annotated[
            dict[str, str] | None,
            Field(description='new bodies of named `## ` sections of current.md, such as {"下一步": "- ship it\\n"}'),
        ] = None,
        history_entry: Annotated[
            str | None, Field(description="your own history entry to append (its heading is added when it has none)")
        ] = None,
        reason: Annotated[str | None, Field(description="the history entry's 触发原因")] = None,
        context: Annotated[str | None, Field(description="the entry's work context (default: branch@space)")] = None,
        scope: Scope = "auto",
        dry_run: ApplyDryRun = False,
    ) -> CallToolResult:
        """Save where you are (`memboard space save`): you give the new current.md, or new bodies of some of
        its sections; every line that leaves current.md is kept, quoted, in one history.md entry, so nothing
        written is lost. Decide what still steers the next step (it stays in current.md) and what is past (it
        goes to history). Save through this tool instead of editing the files. A space that does not exist yet
        is created; legacy data is migrated first, visibly. The same text again is `nothing to change`."""
        if (current is None) == (sections is None):
            raise UsageError("pass current or sections (one of them)")
        where = self._where(workspace, scope)
        request = spaces_write.SaveRequest(
            current=current,
            sections=tuple((sections or {}).items()),
            history_entry=history_entry,
            reason=reason,
            context=context,
            allow_secrets=False,
        )
        plan, places = spaces_write.save(where, request, dry_run)
        return answer(plan, places, dry_run, plan.result)

    def space_research_save(
        self,
        workspace: Workspace,
        topic: Annotated[str, Field(min_length=1, description="研究主题: the research topic")],
        conclusion: Annotated[str, Field(min_length=1, description="当前结论: the conclusion so far")],
        valid: Annotated[Literal["yes", "no", "partial", "unknown"], Field(description="是否有效")] = "unknown",
        merged: Annotated[Literal["yes", "no"], Field(description="是否并入主线: merged into the main line")] = "no",
        evidence: Annotated[list[str], Field(description="关键证据 (each one line)")] = [],  # noqa: B006
        key_paths: Annotated[list[str], Field(description="关键文件与路径 (each one line)")] = [],  # noqa: B006
        next_step: Annotated[str, Field(description="下一步")] = "",
        tags: Annotated[list[str], Field(description="关键词 / 标签")] = [],  # noqa: B006
        context: Annotated[str | None, Field(description="the entry's work context (default: branch@space)")] = None,
        scope: Scope = "auto",
        dry_run: ApplyDryRun = False,
    ) -> CallToolResult:
        """Record side research (`memboard space research-save`): appends one entry, the skill's own form, to
        research.md and touches nothing else (current.md never). Use it for findings not yet merged into the
        main line."""
        request = spaces_write.ResearchRequest(
            topic=topic,
            conclusion=conclusion,
            valid=valid,
            merged=merged,
            evidence=tuple(evidence),
            key_paths=tuple(key_paths),
            next_step=next_step,
            tags=tuple(tags),
            context=context,
            allow_secrets=False,
        )
        spaces_write.check_research(request)
        plan, places = spaces_write.research_save(self._where(workspace, scope), request, dry_run)
        return answer(plan, places, dry_run, plan.result)

    def space_dream(
        self,
        workspace: Workspace,
        notes: Annotated[
            str | None,
            Field(
                description="your distilled dream-notes.md: only the sections ## 正确轨迹, ## 错误与错因, ## 判断准则, "
                "## 预警信号, each 1-3 one-line `- ` items (an optional `# ` title and metadata lines before them); "
                "leave it out to get the extraction as a proposal"
            ),
        ] = None,
        scope: Scope = "auto",
        dry_run: ApplyDryRun = False,
    ) -> CallToolResult:
        """Distil the space into dream-notes.md (`memboard space dream`). Without notes: the verbatim extraction
        from current.md and research.md, answered as a proposal (its sections, the candidates left out, the
        patch) and nothing is written; distil it yourself and call again with notes, which are shape-checked and
        written (dream-notes.md, and a copy in the global home's dreams/) unless dry_run."""
        job = spaces_dream.dream_run(folder(workspace), scope, notes)
        preview = dry_run or notes is None
        plan = spaces_dream.apply(job, preview)
        out = plan_answer(plan, job.places, preview, spaces_dream.result_json(plan))
        if notes is None:
            out["proposal"] = True
        return ok(out)

    def space_archive(
        self,
        workspace: Workspace,
        keep: Annotated[int, Field(ge=0, description="history entries to keep in history.md, the newest")] = 20,
        skip_history: Annotated[bool, Field(description="leave history.md as it is")] = False,
        skip_research: Annotated[bool, Field(description="leave research.md as it is")] = False,
        skip_dreams: Annotated[bool, Field(description="leave the global dream snapshots as they are")] = False,
        dream_keep_days: Annotated[int, Field(ge=0, description="dream snapshots older than this move")] = 30,
        force: Annotated[bool, Field(description="also move entries no dream has covered yet")] = False,
        scope: Scope = "auto",
        dry_run: PreviewDryRun = True,
    ) -> CallToolResult:
        """Move the cold layer to archive/ (`memboard space archive`): history beyond `keep` entries and closed
        research topics, byte for byte, and old dream snapshots. Only after a dream covers them (else an error:
        run space_dream first, or force). Previews by default: call again with dry_run false to move."""
        job = spaces_dream.archive_run(
            folder(workspace),
            scope,
            keep=keep,
            skip_history=skip_history,
            skip_research=skip_research,
            skip_dreams=skip_dreams,
            dream_keep_days=dream_keep_days,
            force=force,
        )
        plan = spaces_dream.apply(job, dry_run)
        return answer(plan, job.places, dry_run, spaces_dream.result_json(plan))

    def space_migrate(
        self,
        workspace: Workspace,
        global_home: Annotated[
            bool, Field(description="migrate the legacy global folders (~/.codex and ~/.claude session-memory)")
        ] = False,
        scope: Scope = "auto",
        dry_run: PreviewDryRun = True,
    ) -> CallToolResult:
        """Move legacy memory (.codex/session-memory, .claude/session-memory) to the new paths (`memboard space
        migrate`), file by file, identical copies deleted, conflicting ones kept in archive/legacy-imports/.
        Previews by default: call again with dry_run false to move."""
        places, build = spaces_migrate.migrate_plan(folder(workspace), scope, global_home)
        plan = run(places, build, dry_run=dry_run)
        return answer(plan, places, dry_run, spaces_migrate.migrate_json(plan))

    @staticmethod
    def _where(workspace: str, scope: str) -> Any:
        """The resolved space of a write (an invalid config is a one-line error)."""
        decision = spaces_read.where(folder(workspace), scope)
        decision.require()
        return decision
