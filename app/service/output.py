"""The stable JSON of results (documented in docs/json-output.md), built from the core's typed results for both faces.

Each result type has one function that turns it into the JSON object scripts and agents read;
key order and names are part of the contract: `--json` prints these objects (cli/output.py
prints them), the MCP server answers them. (Search hits have theirs in service/search.py, which
must not load dataclasses: see core/search/engine.py.)
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring as encode_string  # json's C string encoder
from typing import Any

from ..core.plan import Plan, encoding_notes
from ..core.results import (
    ArchiveResult,
    ChainNode,
    ChainView,
    ContinueResult,
    DoctorResult,
    Finding,
    ManualResult,
    MemoryUpdateResult,
    NoteConflict,
    NoteDetail,
    NoteLinkResult,
    NoteSaveResult,
    NoteView,
    OrganizeResult,
    RegisterResult,
    ReleaseResult,
    ResolveResult,
    RowView,
    SessionStartResult,
    SessionView,
    UpdateResult,
    Whoami,
)

JSON = dict[str, Any]
SCALARS = {None: "null", True: "true", False: "false"}


def dumps(value: object) -> str:
    """JSON text as memboard writes it: indented, non-ASCII as is (laid out by indented(), with json's C encoder:
    json's indenting encoder is pure Python, 9% of `doctor --json` with 74k findings)."""
    try:
        return indented(value)
    except (TypeError, ValueError):  # a key that is not a string, a value json cannot encode: as json says it
        return json.dumps(value, ensure_ascii=False, indent=2)


def indented(value: object, level: int = 0) -> str:
    """value as `json.dumps(value, ensure_ascii=False, indent=2)` writes it at this nesting level: the
    indentation is laid out here, every string and number is encoded by json's C encoder (json's own
    indenting encoder is pure Python: seconds for 100k rows)."""
    if isinstance(value, str):
        return encode_string(value)
    if value is None or isinstance(value, bool):
        return SCALARS[value]
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, dict):  # (keys are strings in memboard's JSON)
        if not value:
            return "{}"
        parts = [
            encode_string(key) + ": " + (encode_string(item) if type(item) is str else indented(item, level + 1))
            for key, item in value.items()
        ]
        opening, closing = "{", "}"
    elif isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        parts = [encode_string(item) if type(item) is str else indented(item, level + 1) for item in value]
        opening, closing = "[", "]"
    else:
        return json.dumps(value, ensure_ascii=False)  # anything else: as json.dumps has it (or its TypeError)
    inner = "\n" + "  " * (level + 1)
    return opening + inner + ("," + inner).join(parts) + "\n" + "  " * level + closing


ROW_KEYS = (
    "id",
    "agent",
    "topic",
    "summary",
    "keywords",
    "status",
    "referenced_by",
    "started_at",
    "updated_at",
    "line",
    "problem",
    "has_snapshot",
)
# a row of `list --json` as an item of its array, laid out as indented() lays it out, a `%s` for each value
ROW_TEXT = "{" + ",".join("\n    " + json.dumps(key) + ": %s" for key in ROW_KEYS) + "\n  }"


def row_text(row: RowView, level: int = 1) -> str:
    """`indented(row_json(row), level)`, made in one step for a listed row (100k of them)."""
    if level != 1 or row.has_snapshot is None or row.archived_at is not None or row.line is None:
        return indented(row_json(row), level)
    e = encode_string
    refs = "[\n      " + ",\n      ".join(map(e, row.referenced_by)) + "\n    ]" if row.referenced_by else "[]"
    problem = "null" if row.problem is None else e(row.problem)
    return ROW_TEXT % (
        e(row.id),
        e(row.agent),
        e(row.topic),
        e(row.summary),
        e(row.keywords),
        e(row.status),
        refs,
        e(row.started_at),
        e(row.updated_at),
        row.line,
        problem,
        SCALARS[row.has_snapshot],
    )


def row_json(row: RowView) -> JSON:
    """A row (live or archived) as the stable JSON object."""
    out: JSON = {
        "id": row.id,
        "agent": row.agent,
        "topic": row.topic,
        "summary": row.summary,
        "keywords": row.keywords,
        "status": row.status,
        "referenced_by": list(row.referenced_by),
        "started_at": row.started_at,
        "updated_at": row.updated_at,
        "line": row.line,
        "problem": row.problem,
    }
    if row.has_snapshot is not None:
        out["has_snapshot"] = row.has_snapshot
    if row.archived_at is not None:
        out["archived_at"] = row.archived_at
    return out


def session_json(view: SessionView) -> JSON:
    """`show --json`: one session with its row and snapshot."""
    return {
        "id": view.id,
        "archived": view.archived,
        "row": row_json(view.row),
        "duplicates": view.duplicates,
        "snapshot_path": view.snapshot_path,
        "snapshot": view.snapshot,
    }


def node_json(node: ChainNode) -> JSON:
    """A chain node and its children."""
    return {
        "id": node.id,
        "state": node.state,
        "topic": node.topic,
        "status": node.status,
        "one_sided": node.one_sided,
        "cycle": node.cycle,
        "unreadable": node.unreadable,
        "children": [node_json(child) for child in node.children],
    }


def chain_json(view: ChainView) -> JSON:
    """`chain --json`: the session's state and both directions of its chain."""
    return {
        "id": view.id,
        "state": view.state,
        "continues_from": [node_json(n) for n in view.continues_from],
        "referenced_by": [node_json(n) for n in view.referenced_by],
    }


def finding_json(finding: Finding) -> JSON:
    """One doctor finding."""
    out: JSON = {"kind": finding.kind, "id": finding.id, "message": finding.message, "fix": finding.fix}
    out.update(finding.extra)
    return out


# a finding of `doctor --json` as an item of its array, laid out as indented() lays it out (no extra keys)
FINDING_TEXT = "{" + ",".join("\n    " + json.dumps(key) + ": %s" for key in ("kind", "id", "message", "fix")) + "\n  }"


def finding_text(finding: Finding, level: int = 1) -> str:
    """`indented(finding_json(finding), level)`, made in one step for a finding without extra keys (74k of them on
    a root of 100k rows with few snapshots)."""
    if level != 1 or finding.extra:
        return indented(finding_json(finding), level)
    e = encode_string
    sid, fix = finding.id, finding.fix  # (typed str, but a finding made elsewhere may hold None: null, as json says)
    return FINDING_TEXT % (
        e(finding.kind),
        "null" if sid is None else e(sid),
        e(finding.message),
        "null" if fix is None else e(fix),
    )


def whoami_json(info: Whoami) -> JSON:
    """`whoami --json`: what the conversation map knows."""
    out: JSON = {"conversation": info.conversation, "session_id": info.session_id, "state": info.state}
    if info.status is not None:
        out["status"] = info.status
    return out


def result_json(result: object) -> JSON:
    """A changing operation's result as the JSON object `--json` prints (before `dry_run` and `changes`)."""
    if isinstance(result, ResolveResult):
        return {
            "prefer": result.prefer,
            "decided": [{"id": d.id, "column": d.column, "path": d.path} for d in result.decided],
            "blocks": [{"path": path, "ids": ids} for path, ids in result.blocks],
        }
    if isinstance(result, (RegisterResult, SessionStartResult)):
        return {"session_id": result.session_id, "status": result.status}
    if isinstance(result, ManualResult):
        out: JSON = {"session_id": result.session_id, "status": result.status, "snapshot": result.snapshot}
        if result.continues_from is not None:
            out["continues_from"] = result.continues_from
        return out
    if isinstance(result, ContinueResult):
        return {"session_id": result.session_id, "continues_from": result.continues_from}
    if isinstance(result, ReleaseResult):
        return {"session_id": result.session_id, "released": result.released}
    if isinstance(result, UpdateResult):
        return update_json(result)
    if isinstance(result, OrganizeResult):
        return organize_json(result)
    if isinstance(result, ArchiveResult):
        return {
            "session_id": result.session_id,
            "action": result.action,
            "released": result.released,
            "archive": result.archive,
        }
    if isinstance(result, DoctorResult):
        return {"findings": [finding_json(f) for f in result.findings]}
    if isinstance(result, NoteSaveResult):
        return note_save_json(result)
    if isinstance(result, MemoryUpdateResult):
        return {
            "notes": [note_save_json(r) for r in result.notes],
            "summary": update_json(result.summary) if result.summary is not None else None,
        }
    if isinstance(result, NoteLinkResult):
        return {"note_id": result.note_id, "superseded_by": result.superseded_by}
    raise TypeError(f"no JSON for {type(result).__name__}")


def update_json(result: UpdateResult) -> JSON:
    """`update --json`: what the merge did."""
    out: JSON = {
        "session_id": result.session_id,
        "snapshot_created": result.snapshot_created,
        "added": result.added,
        "marked": result.marked,
        "carried_over": result.carried_over,
    }
    if result.continues_from is not None:
        out["continues_from"] = result.continues_from
    return out


def organize_json(result: OrganizeResult) -> JSON:
    """`organize --json`: the report by kind, the reasons and the stale days used."""
    return {
        "deleted": result.deleted,
        "marked_stale": result.marked_stale,
        "kept_active": result.kept_active,
        "protected": result.protected,
        "blocked": result.blocked,
        "malformed": result.malformed,
        "stale": result.stale,
        "reasons": result.reasons,
        "stale_days": result.stale_days,
        "unreadable": result.unreadable,
    }


def plan_json(plan: Plan[Any], dry_run: bool) -> JSON:
    """A changing command's `--json`: its result, whether it was a dry run, and the file changes."""
    return {**result_json(plan.result), "dry_run": dry_run, "changes": [c.describe() for c in plan.changes]}


def note_json(view: NoteView) -> JSON:
    """A note's metadata (`note list --json`, and `note` in `note show --json`)."""
    return {
        "id": view.id,
        "path": view.path,
        "title": view.title,
        "type": view.type,
        "scope": view.scope,
        "topic_key": view.topic_key,
        "status": view.status,
        "supersedes": list(view.supersedes),
        "superseded_by": list(view.superseded_by),
        "project": view.project,
        "session": view.session,
        "created": view.created,
        "updated": view.updated,
        "problem": view.problem,
    }


def note_detail_json(detail: NoteDetail) -> JSON:
    """`note show --json`: the note's metadata, texts, file text and revisions."""
    return {
        "note": note_json(detail.note),
        "what": detail.what,
        "why": detail.why,
        "where": detail.where,
        "learned": detail.learned,
        "text": detail.text,
        "revisions": detail.revisions,
        "previous": detail.previous,
    }


def conflict_json(conflict: NoteConflict) -> JSON:
    """A decision conflict: the note, both texts, the statements dropped and the choices."""
    return {
        "note_id": conflict.note_id,
        "type": conflict.type,
        "old_text": conflict.old_text,
        "new_text": conflict.new_text,
        "dropped": conflict.dropped,
        "keep_both_id": conflict.keep_both_id,
        "choices": list(conflict.choices),
        "new_type": conflict.new_type or None,
    }


def note_save_json(result: NoteSaveResult) -> JSON:
    """`note save --json` (and each note of `note apply --json`): what the save did."""
    return {
        "outcome": result.outcome,
        "note_id": result.note_id,
        "path": result.path,
        "status": result.status,
        "added": result.added,
        "dropped": result.dropped,
        "superseded": result.superseded,
        "kept_beside": result.kept_beside,
        "revision": result.revision,
        "conflict": conflict_json(result.conflict) if result.conflict is not None else None,
    }


def dry_run_notes(plan: Plan[Any]) -> list[str]:
    """What a dry run says after its patch: the files' encodings it keeps, then that nothing was written."""
    return [*encoding_notes(plan), "dry run: nothing written" if plan.changes else "dry run: nothing to change"]


def change_json(plan: Plan[Any], dry_run: bool) -> JSON:
    """A change as an agent is answered: its result, the file changes, the report; then the patch `--dry-run`
    prints (as text) and the dry run's notes, or after a verified write the success line."""
    out = plan_json(plan, dry_run)
    out["report"] = list(plan.report)
    if dry_run:
        out["diff"] = plan.patch().decode("utf-8", "replace")
        out["notes"] = dry_run_notes(plan)
    else:
        out["message"] = plan.success
    return out
