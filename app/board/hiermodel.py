"""The Hierarchy screen's model: a workspace's three layers read into what its panels draw.

Plain Python (no Textual), read in the screen's thread workers through the core's readers
(core/hierarchy: lint.read_workspace, facts, lookup, daily, hot) and the service's lint builder: the Hot
panel's lines of MEMORY.md with their lint matches as spans, a lines bar and the token estimate; the Warm
rows (every fact leaf with its value, the lookup rows with broken targets marked `!`, the project files,
marked when no row targets them) and the Cold rows (the daily logs of both forms, with sizes). The
watcher's signatures are those of the files the panels show.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memboard.widgets.hierarchy_table import HierarchyRow

from .planview import ViewLine, visible

BAR = 20  # the lines bar's width in cells
BROKEN = ("lookup_broken_target", "lookup_broken_section", "lookup_malformed_row")


@dataclass
class HierarchyModel:
    """A workspace as its panels show it."""

    workspace: Path | None
    problem: str | None = None
    hot: list[ViewLine] = field(default_factory=list)
    hot_title: str = "Hot · MEMORY.md"
    warm: list[HierarchyRow] = field(default_factory=list)
    warm_title: str = "Warm"
    cold: list[HierarchyRow] = field(default_factory=list)
    cold_title: str = "Cold · daily logs (enter opens one)"
    findings: list[Any] = field(default_factory=list)
    health: str = ""
    complete: bool = True
    rows: list[HierarchyRow] = field(default_factory=list)  # every warm and cold row

    def new_ids(self, previous: HierarchyModel) -> set[str]:
        """Rows this model has that previous had not (none on the first read)."""
        if not previous.complete or previous.workspace is None:
            return set()
        old = {r.id for r in previous.rows}
        return {r.id for r in self.rows} - old


def bar(used: int, limit: int) -> str:
    """A bar of used against limit (`■■■■□□□□`), full past it."""
    filled = min(BAR, round(BAR * used / limit)) if limit else BAR
    return "■" * filled + "□" * (BAR - filled)


BOARD_NO_WORKSPACE = (
    "no hierarchy workspace: name one with `memboard config set hierarchy_workspace DIR` or $OPENCLAW_WORKSPACE_DIR"
)


def find_workspace() -> tuple[Path | None, str | None]:
    """The workspace (issue 25 §1's order) or why there is none."""
    from ..core.errors import MemboardError  # lazy: loaded on first use (opening the screen stays light)

    # lazy: loaded on first use (opening the screen stays light)
    from ..service.hierarchy import NO_WORKSPACE, workspace_of

    try:
        return workspace_of(None), None
    except MemboardError as exc:
        if str(exc) == NO_WORKSPACE:  # the board has no --workspace: say how to name one for it
            return None, BOARD_NO_WORKSPACE
        return None, str(exc)


def health_line(workspace: Path) -> str:
    """The sessions pane's one line of hot-cache health: `MEMORY.md 95/80 lines · 4 facts in hot cache`."""
    from ..core.hierarchy import hot  # lazy: loaded on first use (opening the screen stays light)
    from ..service.hierarchy import limits, lint_result  # lazy: loaded on first use (opening the screen stays light)

    try:
        text = (workspace / "MEMORY.md").read_bytes().decode("utf-8", "replace")
    except OSError:
        return f"MEMORY.md absent in {workspace}"
    count = len(hot.lines_of(text))
    facts = sum(1 for f in lint_result(workspace) if f.kind == "fact_in_hot")
    return f"MEMORY.md {count}/{limits().hot_max_lines} lines · {facts} fact{'s' if facts != 1 else ''} in hot cache"


def signatures(workspace: Path) -> dict[str, tuple[int, int] | None]:
    """The files the panels show, by path, with (size, mtime_ns)."""
    out: dict[str, tuple[int, int] | None] = {}
    memory = workspace / "memory"
    paths = [workspace / "MEMORY.md", memory]
    try:
        paths += [memory / name for name in os.listdir(memory)]
    except OSError:
        pass
    for path in paths:
        try:
            st = os.stat(path)
            out[str(path)] = (st.st_size, st.st_mtime_ns)
        except OSError:
            out[str(path)] = None
    return out


def warm_rows(ws: Any, findings: list[Any]) -> tuple[list[HierarchyRow], str]:
    """The Warm panel's rows (facts, lookup rows, project files) and facts.yaml's Last updated, in words."""
    from ..core.formats import clock  # lazy: loaded on first use (opening the screen stays light)
    from ..core.hierarchy import facts as F  # lazy: loaded on first use (opening the screen stays light)
    from ..core.hierarchy import lint  # lazy: loaded on first use (opening the screen stays light)
    from ..core.hierarchy import lookup as LK  # lazy: loaded on first use (opening the screen stays light)

    warm: list[HierarchyRow] = []
    updated = "no facts.yaml"
    if ws.facts is not None:
        view = lint.read_facts(ws.facts)
        if view.facts is not None:
            for leaf in F.leaves(view.facts):
                warm.append(HierarchyRow(f"fact:{leaf.key}", "fact", leaf.key, leaf.value, leaf.line, lint.FACTS_FILE))
        else:
            warm.append(
                HierarchyRow("fact:!", "fact", lint.FACTS_FILE, view.error or "not YAML", None, lint.FACTS_FILE, "!")
            )
        stamp = view.last_updated
        if stamp is None:
            updated = "no Last updated"
        elif stamp.date is None:
            updated = f"Last updated {stamp.text} (not a date)"
        else:
            days = (clock.now().date() - stamp.date).days
            updated = f"Last updated {stamp.text} ({days} days ago)"
    broken = {f.line: f.message for f in findings if f.kind in BROKEN and f.line}
    targeted = {f.path for f in findings if f.kind == "lookup_missing_project"}
    if ws.index is not None:
        for row in LK.parse_index(ws.index).rows:
            problem = row.problem or broken.get(row.line)
            warm.append(
                HierarchyRow(f"lookup:{row.line}", "lookup", row.need, row.target, row.line, LK.LOOKUP_FILE, problem)
            )
    for path in ws.projects:
        missing = "no lookup row targets it" if path in targeted else None
        warm.append(HierarchyRow(f"project:{path}", "project", path, missing or "", None, path, missing))
    return warm, updated


def read_model(workspace: Path | None, problem: str | None = None) -> HierarchyModel:
    """The workspace's layers (None: the model says why there is none)."""
    if workspace is None:
        return HierarchyModel(None, problem or "no hierarchy workspace")
    from ..core.hierarchy import hot, lint  # lazy: loaded on first use (opening the screen stays light)
    from ..service.hierarchy import limits, lint_result  # lazy: loaded on first use (opening the screen stays light)

    limit = limits()
    ws = lint.read_workspace(str(workspace))
    findings = lint_result(workspace)
    model = HierarchyModel(workspace, findings=findings)
    text = ws.hot or ""
    lines = hot.lines_of(text)
    tokens = hot.estimate_tokens(text)
    in_hot = [f for f in findings if f.kind == "fact_in_hot"]
    model.hot_title = (
        f"Hot · MEMORY.md {len(lines)}/{limit.hot_max_lines} lines {bar(len(lines), limit.hot_max_lines)} · "
        f"~{tokens:,}/{limit.hot_max_tokens:,} tokens · {len(in_hot)} fact{'s' if len(in_hot) != 1 else ''} in hot"
    )
    model.health = (
        f"MEMORY.md {len(lines)}/{limit.hot_max_lines} lines · {len(in_hot)} fact{'s' if len(in_hot) != 1 else ''} "
        "in hot cache"
    )
    spans: dict[int, list[tuple[int, int, str]]] = {}
    for f in in_hot:
        if f.line and f.span:
            spans.setdefault(f.line, []).append((f.span[0], f.span[1], "changed"))
    if ws.hot is None:
        model.hot = [ViewLine(ws.hot_problem or "MEMORY.md is absent: the hot cache is empty.", "muted")]
    else:
        model.hot = [
            ViewLine(visible(line), "text", tuple(sorted(spans.get(n, []))) if visible(line) == line else ())
            for n, line in enumerate(lines, 1)
        ] or [ViewLine("(empty)", "muted")]
    warm, updated = warm_rows(ws, findings)
    model.warm = warm
    facts_count = sum(1 for r in warm if r.kind == "fact")
    model.warm_title = (
        f"Warm · {facts_count} facts, {updated} · {sum(r.kind == 'lookup' for r in warm)} lookup rows "
        f"({sum(r.kind == 'lookup' and bool(r.problem) for r in warm)} broken) · {len(ws.projects)} project files"
    )
    cold = []
    for log in reversed(ws.logs):
        try:
            size = os.path.getsize(workspace / log.path)
        except OSError:
            size = 0
        cold.append(HierarchyRow(f"daily:{log.path}", "daily", log.date, f"{size:,} B", None, log.path))
    model.cold = cold
    slugged = sum(1 for log in ws.logs if log.slug)
    model.rows = [*warm, *cold]
    model.cold_title = f"Cold · {len(ws.logs)} daily logs ({slugged} OpenClaw session logs) · enter opens one"
    return model


def open_lines(workspace: Path, row: HierarchyRow) -> list[ViewLine]:
    """What enter shows of a row: a fact's line in facts.yaml, a lookup row's resolved target, a file's text."""
    from ..core.hierarchy import lookup as LK  # lazy: loaded on first use (opening the screen stays light)

    out = [ViewLine(f"{row.kind} · {row.key}", "headline")]
    if row.problem:
        out.append(ViewLine(f"! {row.problem}", "refusal"))
    if row.kind == "fact":
        out.append(ViewLine(f"{row.path}:{row.line}", "muted"))
        out.append(ViewLine(row.value))
        return out
    if row.kind == "lookup":
        out.append(ViewLine(f"→ {row.value}", "muted"))
        for target in LK.parse_targets(row.value):
            found = LK.resolve(str(workspace), target, want_value=False)
            out.append(ViewLine(""))
            out.append(ViewLine(f"[{found.path}{' → ' + found.section if found.section else ''}]", "section"))
            if found.missing:
                out.append(ViewLine(found.missing, "refusal"))
            out += [ViewLine(visible(line)) for line in (found.text or "").splitlines()]
        return out
    try:
        text = (workspace / row.path).read_bytes().decode("utf-8", "replace")
    except OSError as exc:
        return [*out, ViewLine(f"cannot read {row.path}: {exc.strerror or exc}", "refusal")]
    out.append(ViewLine(f"[{row.path}]", "section"))
    out += [ViewLine(visible(line)) for line in text.splitlines()]
    return out
