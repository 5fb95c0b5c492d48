"""The hook's context digest (issue 28 §4): with the Session ID, what an agent needs on its first turn.

With the config key `hook_context` set to `digest`, the hook's additional context is the Session ID line,
then, each under a heading line and as far as the byte budget (`hook_context_bytes`, default 2,000 UTF-8
bytes, the whole context counted) allows:

- **Sessions**: the conversation's own row when it resumes, and the rows that list its Session ID under
  Referenced By (the sessions it continues), each one line: ID, status, topic, summary.
- **Hot memory**: seed 004's hot cache, `MEMORY.md` (the project root's own, else the hierarchy workspace
  memboard resolves for `hierarchy` commands), then the project's session-memory `current.md` (the space
  `space where` resolves for the payload's `cwd`, Cursor's first `workspace_roots`).
- **Preferences**: active typed notes of type `preference` whose scope is `global`, or whose Project is the
  project's name (the project root's folder name, or its configured space's name): title and What.

Every item is cut at a line end, never inside a line; a line that does not fit ends its section (and the
digest). The last line names how to read more (`memboard show ID`, `memboard note show KEY`, the MCP tool
`session_context`). Everything is read with the lean readers (a line scan of index.md, `quick_cells` for a
note's metadata): no Markdown parser on the hook's path. The digest is a read: nothing it reads is a base
for a write, and whatever goes wrong reading it leaves the Session ID line alone (the hook logs it).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core.formats.index import IndexFile
from ..core.formats.text import encode, line_body, split_cells, unescape

MAX_NOTES = 2000  # note files looked at for preferences (a hook never walks a huge notes folder whole)
MAX_FILE = 256 * 1024  # bytes read of a hot-memory file or a note


def more_line(session_id: str) -> str:
    """The digest's last line: how to read more."""
    return f"More: `memboard show {session_id}`, `memboard note show KEY`, MCP tool session_context."


def budgeted(head: str, sections: list[tuple[str, list[str]]], last: str, budget: int) -> str:
    """head, then each section's heading and lines while they fit in budget UTF-8 bytes (with last, which always
    ends it); a section without lines is left out, and a line that does not fit ends the digest."""
    out = [head]
    used = len(head.encode("utf-8")) + 1 + len(last.encode("utf-8"))
    for heading, lines in sections:
        if not lines:
            continue
        for n, line in enumerate([heading, *lines]):
            size = len(line.encode("utf-8")) + 1
            if used + size > budget or (n == 0 and used + size + len(lines[0].encode("utf-8")) + 1 > budget):
                return "\n".join([*out, last])
            out.append(line)
            used += size
    return "\n".join([*out, last])


def _one_line(text: str) -> str:
    """Text on one line (cells are; a note's title may hold anything)."""
    return " ".join(text.split())


def session_lines(index_bytes: bytes | None, session_id: str, reused: bool, unmentioned: bool = False) -> list[str]:
    """The conversation's own row (when it resumes) and the rows it continues (their Referenced By lists it);
    unmentioned: the registration's own search found the new ID in no line of index_bytes' table."""
    if unmentioned and not reused:
        return []  # (no row lists it: the registration's collision check searched the table for it already)
    if not index_bytes or encode(session_id) not in index_bytes:
        return []  # (a new chat's ID is in no line yet: one substring search, not a parse of a 20 MB index)
    index = IndexFile(index_bytes)
    out = []
    for row in index.rows_mentioning(session_id):
        if row.id == session_id and not reused:
            continue
        if row.id != session_id and session_id not in row.refs:
            continue
        mark = "this session" if row.id == session_id else "continued"
        out.append(
            f"- {row.id} ({mark}, {row.status}): {_one_line(row.get('topic'))} — {_one_line(row.get('summary'))}"
        )
    return out


def _read(path: Path) -> str | None:
    """A small text file's text (its first MAX_FILE bytes), None when absent or unreadable."""
    try:
        if not path.is_file():
            return None
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE)
    except OSError:
        return None
    return data.decode("utf-8", "replace").removeprefix("\ufeff")


def _text_lines(text: str | None) -> list[str]:
    """A file's non-blank lines, each whole (a cut file's last, partial line dropped)."""
    if not text:
        return []
    lines = text.splitlines()
    if len(text.encode("utf-8")) >= MAX_FILE and lines:
        lines.pop()
    return [line_body(line).rstrip() for line in lines if line.strip()]


def project_of(cwd: object) -> tuple[Path | None, str | None, Path | None]:
    """(project root, project name, its space's current.md) of the payload's cwd; Nones when it names none."""
    if not isinstance(cwd, str) or not cwd or not os.path.isdir(cwd):
        return None, None, None
    from ..core.spaces.resolve import resolve  # lazy: only a digest resolves the project's space

    where = resolve(cwd)
    name = where.space or where.project_root.name
    current = where.target / "current.md" if where.target is not None else None
    return where.project_root, name, current


def hot_lines(project: Path | None, cli_root: str | None) -> tuple[str, list[str]]:
    """The heading and lines of the hot cache: the project's MEMORY.md, else the hierarchy workspace's."""
    candidates = [project / "MEMORY.md"] if project is not None else []
    try:
        from ..core.hierarchy.workspace import resolve_workspace  # lazy: as project_of

        candidates.append(resolve_workspace(None, cli_root) / "MEMORY.md")
    except Exception:  # no hierarchy workspace: only the project's own MEMORY.md counts
        pass
    for path in candidates:
        lines = _text_lines(_read(path))
        if lines:
            return f"Hot memory ({path}):", lines
    return "", []


def preference_lines(root: Path, project: str | None) -> list[str]:
    """Active preference notes that apply here (scope global, or this project's), newest Updated first."""
    base = root / "notes"
    if not base.is_dir() or base.is_symlink():
        return []
    found: list[tuple[str, str]] = []
    seen = 0
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
        for name in sorted(files):
            if not name.endswith(".md") or seen >= MAX_NOTES:
                continue
            seen += 1
            text = _read(Path(folder, name))
            if text is None:
                continue
            cells = _metadata(text)
            if cells.get("Type") != "preference" or cells.get("Status", "active") != "active":
                continue
            if cells.get("Scope") != "global" and not (project and cells.get("Project") == project):
                continue
            what = " ".join(_text_lines(_section(text, "What")))
            key = cells.get("Topic Key", "")
            found.append((cells.get("Updated", ""), f"- {_one_line(cells.get('Title', key))} ({key}): {what}"))
    return [line for _, line in sorted(found, key=lambda pair: pair[0], reverse=True)]


def _metadata(text: str) -> dict[str, str]:
    """A note's `## Metadata` table as field -> value (a line scan: formats.note would load the Markdown
    parser, which the hook's path never imports)."""
    out: dict[str, str] = {}
    for line in _section(text, "Metadata").splitlines():
        cells = split_cells(line_body(line)) if line.lstrip().startswith("|") else None
        if cells and len(cells) >= 2 and cells[0] != "Field" and not set(cells[0]) <= set("-: "):
            out.setdefault(unescape(cells[0]), unescape(cells[1]).strip())
    return out


def _section(text: str, name: str) -> str:
    """The body of a note's `## name` section (code fences aside, a line scan)."""
    out: list[str] = []
    inside = False
    fence = ""
    for line in text.splitlines():
        stripped = line.strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif line.startswith("## "):
            if inside:
                break
            inside = line[3:].strip() == name
            continue
        if inside:
            out.append(line)
    return "\n".join(out)


def digest(
    session_id: str,
    reused: bool,
    root: Path,
    index_bytes: bytes | None,
    payload: dict,
    budget: int,
    cli_root: str | None = None,
    unmentioned: bool = False,
) -> str:
    """The hook's additional context with hook_context digest (see the module's docstring; unmentioned: as in
    session_lines)."""
    head = f"Your Memory Session ID is: {session_id}"
    roots = payload.get("workspace_roots")
    folder = payload.get("cwd") or (roots[0] if isinstance(roots, list) and roots else None)  # (Cursor: no cwd)
    project, name, current = project_of(folder)
    hot_heading, hot = hot_lines(project, cli_root)
    sections = [
        ("Sessions:", session_lines(index_bytes, session_id, reused, unmentioned)),
        (hot_heading, hot),
        (f"Session memory ({current}):" if current else "", _text_lines(_read(current)) if current else []),
        ("Preferences:", preference_lines(root, name)),
    ]
    return budgeted(head, sections, more_line(session_id), budget)
