"""The reads of `memboard space`: where, list, restore, search, check (issue 24 §2, §4).

Only parsing and printing live here: the decisions and results are the service layer's
(service/spaces_read.py), shared with the MCP tools. Reads write nothing in any project or home;
the only file they may write is memboard's record of known spaces in local state.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from ..core.formats.clock import minutes_label
from ..service import spaces_read
from .entry import err


def dump(value: object) -> None:
    """Print JSON as memboard prints it (service.output.dumps's form, without loading the plan and result types)."""
    print(json.dumps(value, ensure_ascii=False, indent=2))


def _workspace(args: argparse.Namespace) -> str | None:
    """The --workspace folder (None: the current one); a usage error when it is not a folder."""
    raw: str | None = args.workspace
    if raw is not None and not Path(raw).expanduser().is_dir():
        raise UsageError(f"--workspace {raw} is not a folder")
    return raw


def _finish(read: Any) -> int:
    """Print a read's stderr lines; its exit code."""
    for line in read.notes:
        err(line)
    code: int = read.code
    return code


def cmd_where(args: argparse.Namespace) -> int:
    """`space where`: which space the folder belongs to, and why (exit 1 with the problem of an invalid config)."""
    decision = spaces_read.where(_workspace(args), args.scope)
    if args.json:
        dump(spaces_read.where_json(decision))
    else:
        fields = decision.as_json()
        for name in ("target", "rule", "scope", "workspace", "project_root", "space", "route", "config"):
            if fields[name] is not None:
                print(f"{name.replace('_', ' ')}: {fields[name]}")
        if decision.problem is None:
            print(f"exists: {'yes' if decision.exists else 'no'}")
        for folder in decision.legacy:
            print(f"legacy: {folder}")
    if decision.problem is not None:
        err(decision.problem)
        return 1
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """`space list`: every known space (an unresolvable one with its problem)."""
    read = spaces_read.space_list()
    if args.json:
        dump(read.result)
        return _finish(read)
    rows = [("SPACE", "PROJECT", "RULE", "UPDATED", "HISTORY", "RESEARCH", "DREAM", "FLAGS")]
    for item in read.result:
        name = item["name"] or Path(item["space"]).parent.name or item["space"]
        if item["problem"] is not None and item["history_entries"] is None:
            research = history = "-"
        else:
            history = str(item["history_entries"])
            research = f"{item['research_open']}/{item['research_topics']}"
        dream = minutes_label(item["dream_age_minutes"]) + (" due" if "dream-due" in item["flags"] else "")
        rows.append(
            (
                name,
                item["project"],
                item["rule"],
                minutes_label(item["updated_age_minutes"]),
                history,
                research,
                dream,
                " ".join(item["flags"]),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    for item in read.result:
        if item["problem"] is not None:
            print(f"! {item['space']}: {item['problem']}")
    return _finish(read)


def cmd_restore(args: argparse.Namespace) -> int:
    """`space restore`: print the hot layer (a pure read)."""
    read = spaces_read.restore(_workspace(args), args.scope, args.history, args.include_research)
    if args.json:
        dump(read.result)
        return _finish(read)
    out = sys.stdout
    for key, name in (
        ("current", "current.md"),
        ("history", "history.md"),
        ("dream_notes", "dream-notes.md"),
        ("research", "research.md"),
    ):
        part = read.result[key]
        if part is None:
            continue
        text: str = part["text"]
        out.write(f"[{name}]\n{text}")
        if text and not text.endswith("\n"):
            out.write("\n")
    return _finish(read)


def cmd_search(args: argparse.Namespace) -> int:
    """`space search QUERY`: matching lines, per file, as the skill prints them."""
    read = spaces_read.search(
        _workspace(args),
        args.scope,
        args.query,
        args.limit,
        args.include_research,
        args.include_archive,
        args.all_spaces,
    )
    if args.json:
        dump(read.result)
        return _finish(read)
    last: tuple[str, str] | None = None
    space: str | None = None
    for hit in read.result:
        if args.all_spaces and hit["space"] != space:
            space = hit["space"]
            print(f"{'' if last is None else chr(10)}== {space}")
            last = None
        if (hit["space"], hit["file"]) != last:
            print(f"{'' if last is None else chr(10)}[{hit['file']}]")
            last = (hit["space"], hit["file"])
        print(f"{hit['line']}: {hit['text']}")
    if not read.result:
        read.notes.append("no match")
    return _finish(read)


def cmd_check(args: argparse.Namespace) -> int:
    """`space check`: the save gate's decision and the findings (INIT_FIRST and an invalid config exit 1)."""
    read = spaces_read.check(_workspace(args), args.scope, args.event, args.stale_minutes)
    result = read.result
    if args.json:
        dump(result)
        return _finish(read)
    if result["decision"] is not None:
        print(f"decision: {result['decision']}")
        print(f"reason: {'; '.join(result['reasons'])}")
        for name in ("current_age_minutes", "history_age_minutes"):
            if result[name] is not None:
                print(f"{name.replace('_', ' ')}: {result[name]}")
        print(f"events: {','.join(result['events']) if result['events'] else '-'}")
    for finding in result["findings"]:
        print(f"{finding['kind']}: {finding['message']} (fix: {finding['fix']})")
    return _finish(read)
