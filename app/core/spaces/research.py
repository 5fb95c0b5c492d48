"""The research entry memboard appends to research.md, byte for byte the skill's (issue 24 §3, §4 research-save).

The skill's `research_save` builds one entry from its options and appends it to research.md; the skill's
search, restore and archive then read it. memboard writes the very same bytes (but the time) so that
either tool's entries are the other's: the same field order, values stripped, repeated options' values
stripped and joined by `; ` (empty ones dropped), nothing after the colon for an option not given, and the
same append rule (text.append_block) with the file's own line ends. The default work context is the skill's
too: `<branch>@<name>` from `git rev-parse --abbrev-ref HEAD` in the workspace and the space's name.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from .text import append_block, line_end

VALID = ("yes", "no", "partial", "unknown")
"""The choices of 是否有效 (--valid); the default is `unknown`."""

MERGED = ("yes", "no")
"""The choices of 是否并入主线 (--merged); the default is `no`."""


def join_values(values: Sequence[str]) -> str:
    """Repeated options' values as the skill writes them: each stripped, empty ones dropped, joined by `; `."""
    return "; ".join(value.strip() for value in values if value.strip())


def research_entry(
    *,
    stamp: str,
    context: str,
    topic: str,
    conclusion: str,
    valid: str = "unknown",
    merged: str = "no",
    evidence: Sequence[str] = (),
    key_paths: Sequence[str] = (),
    next_step: str = "",
    tags: Sequence[str] = (),
    eol: str = "\n",
) -> str:
    """The skill's research entry for these values, each line ended by eol."""
    lines = [
        f"### {stamp} [context: {context.strip()}]",
        f"- 研究主题：{topic.strip()}",
        f"- 当前结论：{conclusion.strip()}",
        f"- 是否有效：{valid}",
        f"- 是否并入主线：{merged}",
        f"- 关键证据：{join_values(evidence)}",
        f"- 关键文件与路径：{join_values(key_paths)}",
        f"- 下一步：{next_step.strip()}",
        f"- 关键词 / 标签：{join_values(tags)}",
    ]
    return eol.join(lines) + eol


def append_entry(existing: str, entry_lf: str) -> str:
    """existing research.md (or history.md) text with an entry (written with LF) appended by the skill's rule,
    in the file's line ends: a line end if it lacks a final one, one empty line if it holds any
    non-white-space, then the entry."""
    eol = line_end(existing)
    block = entry_lf if eol == "\n" else entry_lf.replace("\n", eol)
    return append_block(existing, block)


def git_branch(workspace: Path) -> str | None:
    """What `git rev-parse --abbrev-ref HEAD` prints in the workspace; None when it fails, prints nothing or
    prints `HEAD` (a detached head)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(workspace), "rev-parse", "--abbrev-ref", "HEAD"],
            check=False,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    branch = done.stdout.strip()
    if not branch or branch == "HEAD":
        return None
    return branch


def context_name(*, space_name: str | None, context_root: Path, project_root: Path, workspace: Path) -> str:
    """The name half of the default work context: the space name when a route matched, else the route
    folder's name when the target is not the project's own, else the workspace folder's name."""
    name = (space_name or "").strip()
    if name:
        return name
    if context_root != project_root:
        return context_root.name or "workspace"
    return workspace.name or context_root.name or "workspace"


def default_context(branch: str | None, name: str) -> str:
    """`<branch>@<name>`; just the one that is there, or one of them when both are equal."""
    if branch and branch != name:
        return f"{branch}@{name}"
    return branch or name
