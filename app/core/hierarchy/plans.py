"""The file changes of `hierarchy init`, `hierarchy log`, `hierarchy archive-logs` and `lookup add` (issue 25 §3).

Each planner reads the workspace's files through `read` (relative path → bytes, None when absent: the
place's settled reads) and returns the changes, exact bytes before and after, that the places engine
writes under the workspace's lock. Every write is create-only or an append: init never overwrites, a
daily log only grows, archive-logs moves bytes unchanged and never over a file, and a lookup row is only
appended (or, when archive-logs moved its target, that one cell rewritten).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import Refused
from ..plan import Change
from . import daily, hot, lookup

Read = Callable[[str], bytes | None]
FACTS_FILE = "memory/facts.yaml"
HOT_FILE = "MEMORY.md"
FACTS_HEADER = (
    "# memory/facts.yaml\n# Structured factual data — directly addressable, token-efficient\n# Last updated: {today}\n"
)


@dataclass
class Planned:
    """A planner's changes and what it reports (the paths it creates, appends to or moves)."""

    changes: list[Change] = field(default_factory=list)
    done: list[str] = field(default_factory=list)  # one line per change, in words


def _eol(data: bytes) -> bytes:
    """A file's line end (CRLF when its first line ends so)."""
    at = data.find(b"\n")
    return b"\r\n" if at > 0 and data[at - 1 : at] == b"\r" else b"\n"


def with_lines(before: bytes, lines: list[str]) -> bytes:
    """before with lines appended in its line ends (a line end first when it lacks one)."""
    eol = _eol(before)
    out = before
    if out and not out.endswith((b"\n", b"\r")):
        out += eol
    return out + b"".join(line.encode("utf-8") + eol for line in lines)


def plan_init(read: Read, today: str) -> Planned:
    """Create facts.yaml (the seed's header) and lookup-index.md (the table header) when absent; append the two
    pointer lines to MEMORY.md when it lacks them. Nothing existing is overwritten."""
    out = Planned()
    if read(FACTS_FILE) is None:
        out.changes.append(Change.write(FACTS_FILE, None, FACTS_HEADER.format(today=today).encode()))
        out.done.append(f"created {FACTS_FILE}")
    if read(lookup.LOOKUP_FILE) is None:
        out.changes.append(Change.write(lookup.LOOKUP_FILE, None, lookup.HEADER.encode()))
        out.done.append(f"created {lookup.LOOKUP_FILE}")
    before = read(HOT_FILE)
    text = (before or b"").decode("utf-8", "replace")
    have = hot.pointers(hot.lines_of(text))
    missing = [p for k, p in (("facts", hot.FACTS_POINTER), ("lookup", hot.LOOKUP_POINTER)) if not have[k]]
    if missing:
        out.changes.append(Change.write(HOT_FILE, before, with_lines(before or b"", missing)))
        out.done.append(f"{'added' if before is not None else 'created'} {HOT_FILE}'s pointers: {'; '.join(missing)}")
    return out


def plan_log(read: Read, text: str, date: str) -> Planned:
    """Append text to memory/<date>.md by the seed's rule (nothing when the log already ends with it)."""
    if not daily.real_date(date):
        raise Refused(f"not a real date: {date}")
    rel = daily.log_path(date)
    before = read(rel)
    after = daily.appended(before, text, date)
    out = Planned()
    if after is not None:
        out.changes.append(Change.write(rel, before, after))
        out.done.append(f"{'appended to' if before is not None else 'created'} {rel}")
    return out


def plan_archive(workspace: str, read: Read, before_date: str) -> Planned:
    """Move the daily logs (both forms) dated before before_date to memory/daily-archive/YYYY-MM/, bytes
    unchanged; rewrite the lookup cells that target a moved log. Refused when a destination exists."""
    out = Planned()
    moved: dict[str, str] = {}
    for log in daily.list_logs(workspace):
        if log.date >= before_date:
            continue
        data = read(log.path)
        if data is None:
            continue
        dest = daily.archive_path(log)
        there = read(dest)
        if there is not None:
            same = " (with the same bytes: the log was archived already; remove it by hand)" if there == data else ""
            raise Refused(f"{dest} exists{same}; archive-logs never overwrites; nothing written")
        out.changes.append(Change("move", log.path, data, None, dest))
        moved[log.path] = dest
        out.done.append(f"moved {log.path} -> {dest}")
    if moved:
        index = read(lookup.LOOKUP_FILE)
        if index is not None:
            after = rewrite_targets(index, moved)
            if after != index:
                out.changes.append(Change.write(lookup.LOOKUP_FILE, index, after))
                out.done.append(f"rewrote the targets of moved logs in {lookup.LOOKUP_FILE}")
    return out


def rewrite_targets(index: bytes, moved: dict[str, str]) -> bytes:
    """lookup-index.md with each row's target cell naming a moved file rewritten to its new path (every
    other byte unchanged)."""
    text = index.decode("utf-8", "surrogateescape")
    parsed = lookup.parse_index(text)
    rows = {row.line for row in parsed.rows if any(t.path in moved for t in row.targets)}
    if not rows:
        return index
    parts = re.split(r"(?<=\n)", text)
    for n in rows:
        raw = parts[n - 1]
        body = raw.rstrip("\r\n")
        end = raw[len(body) :]
        bom = "\ufeff" if n == 1 and body.startswith("\ufeff") else ""
        line = body[len(bom) :]
        for old, new in moved.items():
            line = lookup.rewrite_target_cell(line, old, new)
        parts[n - 1] = bom + line + end
    return "".join(parts).encode("utf-8", "surrogateescape")


def plan_lookup_add(workspace: str, read: Read, need: str, target: str) -> Planned:
    """Append the row `| NEED | TARGET |` to lookup-index.md (made with its header when absent); every target
    must exist."""
    if not need.strip() or not target.strip():
        raise Refused("lookup add needs a NEED and a TARGET; nothing written")
    targets = lookup.parse_targets(target)
    if not targets:
        raise Refused(f"no target in {target!r}; nothing written")
    for t in targets:
        found = lookup.resolve(workspace, t, want_value=False)
        if found.missing:
            raise Refused(f"lookup add: {found.missing}; nothing written")
    before = read(lookup.LOOKUP_FILE)
    text = (before or b"").decode("utf-8", "surrogateescape")
    for row in lookup.parse_index(text).rows:
        if row.need == need.strip() and row.target == target.strip():
            return Planned()
    after = lookup.append_row(text, need, target).encode("utf-8", "surrogateescape")
    return Planned([Change.write(lookup.LOOKUP_FILE, before, after)], [f"added a row to {lookup.LOOKUP_FILE}"])
