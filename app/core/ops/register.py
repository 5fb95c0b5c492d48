"""SessionStart registration: one idle index row with the seed's defaults, nothing else."""

from __future__ import annotations

from datetime import datetime

from ..files.root import MemoryRoot
from ..formats.clock import format_ts
from ..formats.ids import check_agent, is_valid_id, make_id
from ..formats.index import IndexFile
from ..formats.layout import INDEX, archive_dir, session_path
from ..plan import Change, Plan
from ..secrets import refuse_secrets
from ..start_results import RegisterResult
from .checks import row_exists
from .common import DEFAULT_KEYWORDS, DEFAULT_SUMMARY, DEFAULT_TOPIC


class TakenIds:
    """IDs that a new session must not reuse (rows, snapshots, archives), asked one candidate at a time.

    make_id only asks `candidate in taken`, so nothing has to list every row, snapshot or
    archive folder: a registration costs the same on a 100k-row index with a big archive.
    """

    def __init__(self, root: MemoryRoot, index: IndexFile):
        """Answer for this root and this parsed index."""
        self.root = root
        self.index = index

    def __contains__(self, candidate: object) -> bool:
        """Whether candidate is a row's ID, has a snapshot, or has an archive entry."""
        if not isinstance(candidate, str):
            return False
        if self.index.holds_id(candidate):
            return True
        if not is_valid_id(candidate):
            return False
        if any(r.id == candidate for r in self.index.outside):  # (a row appended below text under the table)
            return True
        return self.root.exists(session_path(candidate)) or self.root.exists(archive_dir(candidate))


def taken_ids(root: MemoryRoot, index: IndexFile) -> TakenIds:
    """IDs that a new session must not reuse: rows, snapshots and archives."""
    return TakenIds(root, index)


def plan_register(
    root: MemoryRoot,
    when: datetime,
    agent: str,
    allow_secrets: bool = False,
    keywords: str = DEFAULT_KEYWORDS,
    append: bool = False,
) -> Plan[RegisterResult]:
    """SessionStart registration: append one idle row with the seed's defaults (keywords: a hook's own), nothing else.

    append (the hook's quick plan, never previewed): when the table ends the file, the change is an append of
    the row's bytes (Change.append), not the file's new bytes; else, or without append, a modify."""
    check_agent(agent)
    refuse_secrets({"agent name": agent}, allow_secrets)  # it lands in index.md and in every ID made from it
    before = root.read(INDEX)
    index = IndexFile(before or b"")
    sid = make_id(when, agent, taken_ids(root, index))
    ts = format_ts(when)
    values = {
        "id": sid,
        "agent": agent,
        "topic": DEFAULT_TOPIC,
        "summary": DEFAULT_SUMMARY,
        "keywords": keywords,
        "status": "idle",
        "referenced_by": "-",
        "started_at": ts,
        "updated_at": ts,
    }
    edit = index.edit().append(values)
    added = edit.appended_bytes() if append and before else None
    spliced = edit.spliced() if append and before and added is None else None
    if before and added is not None:
        change = Change.append(INDEX, before, added)
    elif before and spliced is not None:  # (rows above text under the table: the file is rewritten, not joined)
        change = Change.splice(INDEX, before, *spliced)
    else:
        change = Change.write(INDEX, before, edit.to_bytes())
    return Plan(
        "register",
        RegisterResult(sid, "idle", index.unmentioned(sid)),
        changes=[change],
        checks=[row_exists(sid, status="idle")],
        success=f"Your Memory Session ID is: {sid}",
    )
