"""The builders of `facts get|set|todo add|todo done|touch` (issue 25 §3), as both faces call them.

`facts_get` answers a read; each changing command's builder returns `workspace -> Plan` for the
engine to run on settled reads under the workspace's lock, and again from the fresh files when one
changed before memboard's rename: a `facts set` beside a hand edit of another key keeps that edit,
since the edit is made again on the file as it then is (§7). The plans' results are the commands'
JSON-able answers; the MCP tools wrap the same builders.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.errors import Refused
from ..core.files.places import Place, run, workspace_tree
from ..core.files.root import MemoryRoot
from ..core.formats import clock
from ..core.hierarchy import daily
from ..core.hierarchy import facts as F
from ..core.plan import Change, Plan
from ..core.secrets import refuse_secrets

FACTS = "memory/facts.yaml"
Builder = Callable[[MemoryRoot], Plan[Any]]


def today() -> dt.date:
    """Today's local date (MEMBOARD_NOW fixes it for tests)."""
    return clock.now().date()


def workspace(folder: Path) -> Place:
    """The workspace at folder as the place memboard writes in (the places engine's hierarchy kind)."""
    return workspace_tree(folder)


def run_plan(place: Place, build: Builder, dry_run: bool = False) -> Plan[dict[str, Any]]:
    """Build the plan on settled reads of the workspace and, unless dry_run, apply it under its lock (built
    again from the fresh files when one changed before memboard's rename)."""
    return run([place], lambda: build(place), dry_run=dry_run)


# -- reads -----------------------------------------------------------------------------------------------


def _facts_bytes(tree: MemoryRoot) -> bytes:
    """facts.yaml's bytes, or a one-line refusal when there is none."""
    data = tree.read(FACTS)
    if data is None:
        raise Refused(f"no {FACTS} in {tree.path} (memboard hierarchy init creates it)")
    return data


def facts_get(tree: MemoryRoot, key: str) -> dict[str, Any]:
    """`facts get KEY`: {key, value, line, source, comment, alias}; a missing key is refused (exit 1)."""
    return F.get(_facts_bytes(tree), key)


# -- builders --------------------------------------------------------------------------------------------


def _plan(op: str, before: bytes, edit: F.Edit, result: dict[str, Any], more: list[Change] | None = None) -> Plan[Any]:
    """The plan of an edit of facts.yaml (and the other changes it brings): empty when nothing changes."""
    result = {**result, "path": FACTS, "changed": edit.changed}
    if not edit.changed:
        return Plan(op, result, [], success="nothing to change")
    changes = [Change.write(FACTS, before, edit.data), *(more or [])]
    return Plan(op, result, changes, success=edit.summary)


def set_plan(key: str, value: str, create: bool = False, raw: bool = False, allow_secrets: bool = False) -> Builder:
    """`facts set KEY VALUE [--create] [--raw]`: replace one scalar (or add the key) and set Last updated."""
    F.split_path(key)  # a bad path is bad usage before any read
    F.no_line_break(value)
    refuse_secrets({"value": value}, allow_secrets)
    when = today()

    def build(tree: MemoryRoot) -> Plan[Any]:
        before = _facts_bytes(tree)
        edit = F.set_value(before, key, value, today=when, create=create, raw=raw)
        written = edit.got or F.get(edit.data, key)
        result = {"key": key, "value": written["value"], "source": written["source"], "line": written["line"]}
        return _plan("facts set", before, edit, result)

    return build


def todo_add_plan(text: str, allow_secrets: bool = False) -> Builder:
    """`facts todo add TEXT`: `- TEXT` appended to todos."""
    F.no_line_break(text)
    refuse_secrets({"todo": text}, allow_secrets)
    when = today()

    def build(tree: MemoryRoot) -> Plan[Any]:
        before = _facts_bytes(tree)
        edit = F.todo_add(before, text, today=when)
        return _plan("facts todo add", before, edit, {"todo": text})

    return build


def todo_done_plan(which: str, allow_secrets: bool = False, log: bool = True) -> Builder:
    """`facts todo done N|TEXT`: the item's line removed and (log) `- [x] TEXT` appended to today's daily log, in
    one plan (the todo leaves the warm layer for the cold one, never for nowhere)."""
    when = today()
    path = daily.log_path(when.isoformat())

    def build(tree: MemoryRoot) -> Plan[Any]:
        before = _facts_bytes(tree)
        edit = F.todo_done(before, which, today=when)
        done = edit.removed or ""
        refuse_secrets({"todo": done}, allow_secrets)
        more = []
        if log:
            log_before = tree.read(path)
            log_after = daily.append_log(log_before, when.isoformat(), f"- [x] {done}")
            more = [Change.write(path, log_before, log_after)] if log_after != log_before else []
        result = {"todo": done, "log": path, "date": when.isoformat()}
        return _plan("facts todo done", before, edit, result, more)

    return build


def todo_done_run(place: Place, which: str, allow_secrets: bool = False, dry_run: bool = False) -> Plan[Any]:
    """`facts todo done N|TEXT`, run: the dry run is the one plan (the item's line removed, `- [x] TEXT` appended
    to today's log). A real run appends to the log first, as an append under the workspace's lock (OpenClaw
    and agents append to today's log without one: a rename could drop their line, see appendlog.py), then
    removes the item by its text through the engine; a stop between the two leaves the todo in both layers,
    never in neither."""
    plan = run_plan(place, todo_done_plan(which, allow_secrets), dry_run=True)
    if dry_run:
        return plan
    from ..core.hierarchy.appendlog import append_log  # lazy: only a real todo done appends

    done = str(plan.result["todo"])
    append_log(place, f"- [x] {done}", str(plan.result["date"]))
    log = plan.result["log"]
    try:
        text_plan = run_plan(place, todo_done_plan(done, allow_secrets, log=False), dry_run=False)
    except Refused:  # another writer took the item out of todos meanwhile: it is in the log, nowhere lost
        result = {**plan.result, "path": FACTS, "changed": False}
        logged = [c for c in plan.changes if c.path == log]
        return Plan("facts todo done", result, logged, success=f"logged {done!r} in {log}; todos no longer held it")
    changes = [*text_plan.changes, *(c for c in plan.changes if c.path == log)]
    return Plan(text_plan.op, {**text_plan.result, "log": log}, changes, success=text_plan.success)


def touch_plan() -> Builder:
    """`facts touch`: Last updated set to today."""
    when = today()

    def build(tree: MemoryRoot) -> Plan[Any]:
        before = _facts_bytes(tree)
        edit = F.touch(before, today=when)
        return _plan("facts touch", before, edit, {"last_updated": when.isoformat()})

    return build
