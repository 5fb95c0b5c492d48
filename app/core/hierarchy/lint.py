"""`hierarchy lint`: seed 004's rules for the agent memory hierarchy, checked mechanically (issue 25 §3).

The seed asks for a small fact-free hot MEMORY.md with two pointers, a facts.yaml of one-line dated
values, a lookup index that reaches every project file and facts group, and project files listed in
facts. Each rule is a finding kind with a fixed severity (`info`, `warn`, `error`); a finding names
its file, its 1-based line and the matched span `[start, end)` of that line (without its line end and
BOM) when it has one, says what is wrong and how to fix it. Lint reads and never writes; it reports a
file it cannot read as a finding instead of failing.
"""

from __future__ import annotations

import datetime as dt
import glob
import os
import re
from dataclasses import dataclass, field
from typing import Any

from . import daily, hot, lookup
from .projects import entry_key, project_listed

HOT_FILE = "MEMORY.md"
FACTS_FILE = "memory/facts.yaml"
MIGRATIONS_DIR = "memory/migrations"
INFO, WARN, ERROR = "info", "warn", "error"
SEVERITY = {
    "hot_too_long": ERROR,
    "hot_too_many_tokens": WARN,
    "fact_in_hot": WARN,
    "number_in_hot": INFO,
    "hot_missing_pointers": WARN,
    "facts_invalid": ERROR,
    "facts_multiline": ERROR,
    "facts_prose": WARN,
    "facts_no_date": WARN,
    "facts_bad_date": WARN,
    "facts_stale": WARN,
    "facts_secret": ERROR,
    "project_missing_file": ERROR,
    "project_unlisted": WARN,
    "lookup_missing_project": ERROR,
    "lookup_missing_group": WARN,
    "lookup_broken_target": ERROR,
    "lookup_broken_section": ERROR,
    "lookup_malformed_row": WARN,
    "migration_incomplete": ERROR,
}
_LAST_UPDATED = re.compile(r"^\s*#\s*Last updated:\s*(.*?)\s*$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?](?:\s+)(?=[A-Z\"'“(])|[。！？](?=\S)")
PROSE_MAX = 160
ALLOW_FIX = f"move it to memory/facts.yaml (memboard facts set KEY VALUE), or end the line with {hot.ALLOW_MARK}"


@dataclass(frozen=True)
class Limits:
    """The thresholds lint checks against (config keys hot_max_lines, hot_max_tokens, facts_stale_days)."""

    hot_max_lines: int = 80
    hot_max_tokens: int = 1000
    facts_stale_days: int = 30


@dataclass(frozen=True)
class Finding:
    """One lint finding."""

    kind: str
    path: str
    line: int | None
    span: tuple[int, int] | None
    message: str
    fix: str | None = None

    @property
    def severity(self) -> str:
        """The kind's severity: info, warn or error."""
        return SEVERITY[self.kind]

    def as_json(self) -> dict[str, Any]:
        """`{"kind", "severity", "path", "line", "span", "message", "fix"}`."""
        return {
            "kind": self.kind,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "span": list(self.span) if self.span else None,
            "message": self.message,
            "fix": self.fix,
        }

    def describe(self) -> str:
        """`MEMORY.md:14:9: warn fact_in_hot: ...` (one line)."""
        where = self.path + (f":{self.line}" if self.line else "") + (f":{self.span[0] + 1}" if self.span else "")
        fix = f" ({self.fix})" if self.fix else ""
        return f"{where}: {self.severity} {self.kind}: {self.message}{fix}"


def read_text(path: str) -> tuple[str | None, str | None]:
    """A file's text (BOM kept) and None, or None and why it cannot be read (None, None when absent)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, f"not UTF-8 (line {line})"


# --- facts.yaml, through the facts reader (facts.py) ------------------------------------------------------


@dataclass
class FactsView:
    """What lint and show read of facts.yaml: the parsed facts (None when not readable), its Last updated line."""

    data: bytes
    facts: Any = None  # facts.Facts, None when the file cannot be parsed
    error: str | None = None
    last_updated: Any = None  # facts.LastUpdated or None

    def groups(self) -> list[tuple[str, int]]:
        """The top-level keys with their 1-based lines."""
        from . import facts  # lazy: the YAML reader loads only when facts.yaml is read

        return facts.groups(self.facts) if self.facts is not None else []

    def leaves(self) -> int:
        """How many scalar leaves the facts hold (each sequence item counted)."""
        from . import facts  # lazy: the YAML reader loads only when facts.yaml is read

        return len(facts.leaves(self.facts)) if self.facts is not None else 0

    def has(self, key: str) -> bool:
        """Whether the key path exists."""
        from . import facts  # lazy: the YAML reader loads only when facts.yaml is read

        return self.facts is not None and facts.lookup(self.facts, facts.split_path(key)).node is not None


def read_facts(data: bytes) -> FactsView:
    """facts.yaml parsed by the facts reader, or why it cannot be."""
    from . import facts  # lazy: the YAML reader loads only when facts.yaml is read

    view = FactsView(data)
    try:
        view.facts = facts.read(data)
    except facts.FactsInvalid as exc:
        view.error = str(exc)
    try:
        view.last_updated = facts.last_updated(data)
    except facts.FactsInvalid:
        view.last_updated = None
    return view


# --- the checks -------------------------------------------------------------------------------------------


@dataclass
class Workspace:
    """The files of a workspace lint reads (texts as read, None when absent)."""

    path: str
    hot: str | None = None
    hot_problem: str | None = None
    facts: bytes | None = None
    facts_problem: str | None = None  # why an existing facts.yaml cannot be read
    index: str | None = None
    projects: list[str] = field(default_factory=list)  # memory/project-*.md, relative
    logs: list[daily.DailyLog] = field(default_factory=list)
    plans: list[str] = field(default_factory=list)  # memory/migrations/*-plan.yaml, relative


def project_files(workspace: str) -> list[str]:
    """The workspace's memory/project-<name>.md files, relative, sorted."""
    found = glob.glob(os.path.join(glob.escape(os.path.join(workspace, "memory")), "project-*.md"))
    names = [os.path.basename(p) for p in found if os.path.isfile(p)]
    return sorted(f"memory/{n}" for n in names if re.fullmatch(r"project-[a-z0-9_-]+\.md", n))


def read_workspace(workspace: str) -> Workspace:
    """The workspace's hierarchy files as lint reads them."""
    ws = Workspace(workspace)
    ws.hot, ws.hot_problem = read_text(os.path.join(workspace, HOT_FILE))
    if ws.hot is None and ws.hot_problem is not None and ws.hot_problem.startswith("not UTF-8"):
        with open(os.path.join(workspace, HOT_FILE), "rb") as f:  # still linted: bad bytes read as U+FFFD
            ws.hot = f.read().decode("utf-8", "replace")
    try:
        with open(os.path.join(workspace, FACTS_FILE), "rb") as f:
            ws.facts = f.read()
    except (FileNotFoundError, NotADirectoryError):
        ws.facts = None
    except OSError as exc:
        ws.facts, ws.facts_problem = None, exc.strerror or str(exc)
    ws.index, problem = read_text(os.path.join(workspace, lookup.LOOKUP_FILE))
    if ws.index is None and problem is not None and problem.startswith("not UTF-8"):
        with open(os.path.join(workspace, lookup.LOOKUP_FILE), "rb") as f:  # as `lookup` reads it: U+FFFD
            ws.index = f.read().decode("utf-8", "replace")
    ws.projects = project_files(workspace)
    ws.logs = daily.list_logs(workspace)
    plans = glob.glob(os.path.join(glob.escape(os.path.join(workspace, MIGRATIONS_DIR)), "*-plan.yaml"))
    ws.plans = sorted(f"{MIGRATIONS_DIR}/{os.path.basename(p)}" for p in plans)
    return ws


def lint(workspace: str, limits: Limits, today: dt.date) -> list[Finding]:
    """Every finding of the workspace, file by file (MEMORY.md, facts.yaml, projects, lookup, migrations)."""
    ws = read_workspace(workspace)
    out: list[Finding] = []
    hot_lines = _hot(ws, limits, out)
    view = _facts(ws, limits, today, out)
    _projects(ws, view, out)
    _lookup(ws, view, out)
    _migrations(ws, hot_lines, out)
    return out


def _hot(ws: Workspace, limits: Limits, out: list[Finding]) -> list[str]:
    """MEMORY.md's findings; its lines."""
    if ws.hot is None:
        return []
    lines = hot.lines_of(ws.hot)
    if len(lines) > limits.hot_max_lines:
        largest = hot.describe_sections(hot.largest_sections(lines))
        out.append(
            Finding(
                "hot_too_long",
                HOT_FILE,
                None,
                None,
                f"{len(lines)} lines, over {limits.hot_max_lines}; largest sections: {largest}",
                "move facts to memory/facts.yaml and project narrative to memory/project-<name>.md",
            )
        )
    tokens = hot.estimate_tokens(ws.hot)
    if tokens > limits.hot_max_tokens:
        out.append(
            Finding(
                "hot_too_many_tokens",
                HOT_FILE,
                None,
                None,
                f"about {tokens} tokens, over {limits.hot_max_tokens}",
                "keep identity, rules, permissions and narrative; move the rest to the warm layer",
            )
        )
    for n, line in enumerate(lines, 1):
        if hot.exempt(line):
            continue
        found = hot.fact_matches(line)
        for m in found:
            out.append(Finding("fact_in_hot", HOT_FILE, n, m.span, f"{m.kind} {m.text!r} in the hot cache", ALLOW_FIX))
        if not found:
            nums = hot.number_matches(line)
            if nums:
                out.append(Finding("number_in_hot", HOT_FILE, n, nums[0].span, f"a bare number {nums[0].text!r}", None))
    have = hot.pointers(lines)
    for which, pointer in (("facts", hot.FACTS_POINTER), ("lookup", hot.LOOKUP_POINTER)):
        if not have[which]:
            out.append(
                Finding(
                    "hot_missing_pointers",
                    HOT_FILE,
                    None,
                    None,
                    f"no pointer to {hot.FACTS_PATH if which == 'facts' else hot.LOOKUP_PATH}",
                    f"add the line `{pointer}` (memboard hierarchy init adds it)",
                )
            )
    return lines


def _facts(ws: Workspace, limits: Limits, today: dt.date, out: list[Finding]) -> FactsView | None:
    """facts.yaml's findings; its parsed view when it is YAML."""
    if ws.facts is None:
        if ws.facts_problem is not None:
            out.append(
                Finding(
                    "facts_invalid",
                    FACTS_FILE,
                    None,
                    None,
                    f"{FACTS_FILE} cannot be read: {ws.facts_problem}",
                    "fix it by hand",
                )
            )
        return None
    from . import facts  # lazy: the YAML reader loads only when facts.yaml is read

    data = ws.facts
    view = read_facts(data)
    for f in facts.findings(data) if view.facts is None else _parsed_findings(view.facts):
        fix = "one line per value; a value that needs explaining belongs in MEMORY.md prose"
        out.append(
            Finding(
                f.kind, FACTS_FILE, f.line, f.span, f.message, fix if f.kind == "facts_multiline" else "fix it by hand"
            )
        )
    if view.facts is not None:
        _values(view, out)
    _dates(ws, view, limits, today, out)
    from .. import secrets  # lazy: as the YAML reader

    for m in secrets.scan(data.decode("utf-8", "replace"), FACTS_FILE):
        out.append(
            Finding(
                "facts_secret",
                FACTS_FILE,
                m.line,
                None,
                f"{m.kind} {m.masked}",
                "keep credentials in a secret store, not in memory",
            )
        )
    return view if view.facts is not None else None


def _parsed_findings(parsed: Any) -> list[Any]:
    """facts.findings of a file that parsed (tabs in indentation, block and multi-line scalars), from that one
    parse: a 2,000-key file is parsed once, not twice (`hierarchy lint` has a second to spend)."""
    from . import facts  # lazy: the YAML reader loads only when facts.yaml is read

    out: list[facts.Finding] = []
    lines = parsed.lines
    for n in range(lines.count()):
        content = lines.content(n)
        indent = len(content) - len(content.lstrip(" \t"))
        if "\t" in content[:indent] and content.strip():
            out.append(
                facts.Finding("facts_invalid", n + 1, content.index("\t") + 1, "a tab in indentation", (0, indent))
            )
    seen: set[int] = set()
    stack = [parsed.root] if parsed.root is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen or node.kind == "alias":
            continue
        seen.add(id(node))
        if node.kind == "scalar":
            first, last = lines.line_of(node.start), lines.line_of(max(node.start, node.end - 1))
            block = node.style in ("|", ">")
            if block or last > first:
                col = node.start - lines.start(first)
                what = "a block scalar" if block else "a scalar running over several lines"
                out.append(
                    facts.Finding(
                        "facts_multiline",
                        first + 1,
                        col + 1,
                        f"{what} (one-line values only)",
                        (col, len(lines.content(first))),
                    )
                )
            continue
        for key, value in node.pairs:
            stack += [value, key]
        stack += node.items
    return sorted(out, key=lambda f: (f.line or 0, f.column or 0))


def _values(view: FactsView, out: list[Finding]) -> None:
    """Values that are prose: over 160 characters, or two sentences or more (multi-line ones are facts_multiline)."""
    from . import facts  # lazy: the YAML reader loads only when facts.yaml is read

    parsed = view.facts
    for leaf in facts.leaves(parsed):
        if leaf.alias is not None or "\n" in leaf.source or "\r" in leaf.source:
            continue
        value = leaf.value
        if not (len(value) > PROSE_MAX or _SENTENCE_END.search(value.strip())):
            continue
        content = parsed.lines.content(leaf.line - 1)
        at = content.find(leaf.source)
        span = (at, at + len(leaf.source)) if at >= 0 else None
        what = f"{len(value)} characters" if len(value) > PROSE_MAX else "two sentences or more"
        out.append(
            Finding(
                "facts_prose",
                FACTS_FILE,
                leaf.line,
                span,
                f"{leaf.key} is {what}: belongs in MEMORY.md prose",
                "keep a short value here and the explanation in MEMORY.md or a project file",
            )
        )


def _dates(ws: Workspace, view: FactsView, limits: Limits, today: dt.date, out: list[Finding]) -> None:
    """The `# Last updated:` line: missing, not a date, in the future, or stale while a daily log is newer."""
    if view.last_updated is None:
        out.append(
            Finding(
                "facts_no_date",
                FACTS_FILE,
                None,
                None,
                "no `# Last updated: YYYY-MM-DD` line",
                "memboard facts touch",
            )
        )
        return
    n, raw, when = view.last_updated.line, view.last_updated.text, view.last_updated.date
    if when is None or when > today:
        why = f"{raw!r} is not a date YYYY-MM-DD" if when is None else f"{raw} lies in the future"
        out.append(Finding("facts_bad_date", FACTS_FILE, n, None, why, "memboard facts touch"))
        return
    newest = ws.logs[-1].date if ws.logs else None
    if (today - when).days > limits.facts_stale_days and newest is not None and newest > when.isoformat():
        out.append(
            Finding(
                "facts_stale",
                FACTS_FILE,
                n,
                None,
                f"last updated {raw}, over {limits.facts_stale_days} days ago, while the daily log {newest} is newer",
                "review the facts against the newer logs, then memboard facts touch",
            )
        )


def _projects_entries(view: FactsView | None) -> dict[str, tuple[str | None, int]]:
    """facts' `projects` entries: name → (its `file` value, 1-based line)."""
    from . import facts  # lazy: the YAML reader loads only when facts.yaml is read

    if view is None or view.facts is None:
        return {}
    return facts.project_entries(view.facts)


def _norm(path: str) -> str:
    """A workspace-relative path compared loosely (`./` and outer `/` dropped)."""
    p = path.strip().removeprefix("./")
    return p.rstrip("/")


def _projects(ws: Workspace, view: FactsView | None, out: list[Finding]) -> None:
    """Project files listed in facts that do not exist; project files facts do not list."""
    entries = _projects_entries(view)
    for name, (file, line) in entries.items():
        if file is not None and lookup.locate(ws.path, file) is None:
            out.append(
                Finding(
                    "project_missing_file",
                    FACTS_FILE,
                    line,
                    None,
                    f"projects.{name}.file {file} does not exist",
                    "create the file or correct the path",
                )
            )
    for rel in ws.projects:
        if not project_listed(entries, rel):
            out.append(
                Finding(
                    "project_unlisted",
                    rel,
                    None,
                    None,
                    f"no projects entry in facts.yaml for {rel}",
                    f"memboard facts set projects.{entry_key(rel)}.file {rel} --create",
                )
            )


def _lookup(ws: Workspace, view: FactsView | None, out: list[Finding]) -> None:
    """The lookup table's rows: malformed, broken targets and sections; project files and groups no row reaches."""
    index = lookup.parse_index(ws.index or "")
    path = lookup.LOOKUP_FILE
    targeted: set[str] = set()
    groups_hit: set[str] = set()
    md_cache: dict[str, set[str]] = {}
    for row in index.rows:
        if row.problem is not None:
            out.append(Finding("lookup_malformed_row", path, row.line, None, f"a row with {row.problem}", None))
            continue
        for t in row.targets:
            targeted.add(_norm(t.path))
            if t.section and t.path.endswith((".yaml", ".yml")):
                groups_hit.add(lookup.split_key_path(t.section)[0] if t.section else "")
            full = lookup.locate(ws.path, t.path)
            if full is None or (t.folder and not os.path.isdir(full)):
                out.append(
                    Finding(
                        "lookup_broken_target",
                        path,
                        row.line,
                        None,
                        f"{t.path} does not exist",
                        "correct the row or create the target",
                    )
                )
                continue
            if t.section is None or os.path.isdir(full):
                continue
            if t.path.endswith((".yaml", ".yml")):
                if _norm(t.path) == FACTS_FILE and view is None:
                    continue  # facts.yaml is not readable: facts_invalid says so, no section can be told
                ok = view.has(t.section) if view is not None and _norm(t.path) == FACTS_FILE else _yaml_has(full, t)
            elif t.path.endswith((".md", ".markdown")):
                if full not in md_cache:
                    text, _ = read_text(full)
                    md_cache[full] = {lookup.section_key(h) for _, _, h in lookup.markdown_sections(text or "")}
                ok = lookup.section_key(t.section) in md_cache[full]
            else:
                continue
            if not ok:
                out.append(
                    Finding(
                        "lookup_broken_section",
                        path,
                        row.line,
                        None,
                        f"{t.section!r} is no {'key' if t.path.endswith(('.yaml', '.yml')) else 'heading'} of {t.path}",
                        "correct the section",
                    )
                )
    for rel in ws.projects:
        if rel not in targeted:
            name = rel.removeprefix("memory/project-").removesuffix(".md")
            out.append(
                Finding(
                    "lookup_missing_project",
                    rel,
                    None,
                    None,
                    f"no lookup row targets {rel}",
                    f'memboard lookup add "{name} project" {rel}',
                )
            )
    if view is not None:
        for group, line in view.groups():
            if group not in groups_hit:
                out.append(
                    Finding(
                        "lookup_missing_group",
                        FACTS_FILE,
                        line,
                        None,
                        f"no lookup row targets the facts group {group}",
                        f'memboard lookup add "{group} facts" "{FACTS_FILE} → {group}"',
                    )
                )


def _yaml_has(full: str, t: lookup.Target) -> bool:
    """Whether a YAML file holds the target's key path."""
    try:
        with open(full, "rb") as f:
            view = read_facts(f.read())
    except OSError:
        return False
    return t.section is not None and view.has(t.section)


def _migrations(ws: Workspace, hot_lines: list[str], out: list[Finding]) -> None:
    """A migration plan whose moved lines are all still in MEMORY.md (stopped before its last step)."""
    if not ws.plans:
        return
    from ruamel.yaml import YAML  # lazy: the YAML reader loads only when facts.yaml is read
    from ruamel.yaml.error import YAMLError  # lazy: the YAML reader loads only when facts.yaml is read

    present = set(hot_lines)
    for rel in ws.plans:
        text, _ = read_text(os.path.join(ws.path, rel))
        try:
            plan = YAML(typ="safe", pure=True).load(text or "")
        except (YAMLError, ValueError):
            continue
        items = plan.get("lines") if isinstance(plan, dict) else None
        if not isinstance(items, list):
            continue
        moved = [i for i in items if isinstance(i, dict) and i.get("to") not in (None, "keep")]
        if moved and all(str(i.get("text", "")) in present for i in moved):
            out.append(
                Finding(
                    "migration_incomplete",
                    rel,
                    None,
                    None,
                    f"all {len(moved)} moved lines are still in MEMORY.md: the migration stopped before its last step",
                    f"memboard hierarchy migrate --apply {rel}",
                )
            )


def failing(findings: list[Finding]) -> bool:
    """Whether --strict fails on the findings (one of severity warn or error)."""
    return any(f.severity in (WARN, ERROR) for f in findings)
