"""Plans built one after another: a memory root as it will be once earlier plans are applied.

The board previews a sequence (archive of several marked rows) as one combined plan. Each
step is planned by the core's own builder against `PlannedRoot`, a read-only view of the
root with the earlier steps' changes laid over it, so step N sees exactly the bytes that
steps 1..N-1 will leave on disk. No file is written here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import MemboardError
from ..files.root import MemoryRoot
from ..formats.layout import ARCHIVE, SESSIONS
from ..plan import Plan
from ..results import SequenceResult


class PlannedRoot(MemoryRoot):
    """A memory root seen through pending plans: reads return the planned bytes."""

    on_disk = False  # reads are the planned bytes, not the files'

    def __init__(self, base: MemoryRoot):
        """Lay no changes yet over base."""
        self.base = base
        self.path = base.path
        self.real = base.real
        self._local = threading.local()  # its own reads' state (MemoryRoot.steady), as MemoryRoot keeps it
        self.overlay: dict[str, bytes | None] = {}

    def lay(self, plan: Plan[Any]) -> None:
        """Record a plan's changes as if they were written."""
        for ch in plan.changes:
            if ch.kind in ("create", "modify"):
                self.overlay[ch.path] = ch.after or b""
            elif ch.kind == "delete":
                self.overlay[ch.path] = None
            elif ch.kind == "move" and ch.dest is not None:
                self.overlay[ch.path] = None
                self.overlay[ch.dest] = ch.after if ch.after is not None else ch.before

    def read(self, rel: str) -> bytes | None:
        """Planned bytes of rel, else what is on disk."""
        self.abs(rel)
        if rel in self.overlay:
            return self.overlay[rel]
        return self.base.read(rel)

    def _planned_below(self, rel: str) -> list[str]:
        """Overlay paths inside folder rel that will exist."""
        prefix = rel.rstrip("/") + "/"
        return [p for p, data in self.overlay.items() if p.startswith(prefix) and data is not None]

    def exists(self, rel: str) -> bool:
        """Whether rel will exist (a folder exists when a planned file lies inside it)."""
        if rel in self.overlay:
            return self.overlay[rel] is not None
        return bool(self._planned_below(rel)) or self.base.exists(rel)

    def listdir(self, rel: str) -> list[str]:
        """Names in a folder as they will be."""
        prefix = rel.rstrip("/") + "/"
        names = set(self.base.listdir(rel))
        for path, data in self.overlay.items():
            if not path.startswith(prefix):
                continue
            name = path[len(prefix) :].split("/", 1)[0]
            if data is not None:
                names.add(name)
            elif "/" not in path[len(prefix) :]:
                names.discard(name)
        return sorted(names)

    def session_ids_on_disk(self) -> set[str]:
        """IDs that will have a snapshot under sessions/."""
        return {n[:-3] for n in self.listdir(SESSIONS) if n.endswith(".md")}

    def archived_ids(self) -> set[str]:
        """IDs that will have a folder under archive/."""
        return set(self.listdir(ARCHIVE))


@dataclass
class Sequence:
    """A planned sequence: the steps that can run (in order) and those refused, with why (in words, and the
    refusals themselves: their remedy for a face to word)."""

    op: str
    steps: list[tuple[str, Plan[Any]]] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    errors: dict[str, MemboardError] = field(default_factory=dict)

    def combined(self) -> Plan[SequenceResult]:
        """All steps as one plan, for the preview (its changes in the order they will run)."""
        plan = Plan(self.op, SequenceResult([sid for sid, _ in self.steps], dict(self.refused)))
        for _sid, step in self.steps:
            plan.changes.extend(step.changes)
            plan.report.extend(step.report)
        return plan


def plan_sequence(
    root: MemoryRoot, op: str, ids: list[str], build_one: Callable[[MemoryRoot, str], Plan[Any]]
) -> Sequence:
    """Plan each ID over the state the earlier ones leave; a refused ID is retried after the others.

    Retrying lets the order follow the references: archiving a referencing session first
    releases its source, which can then be archived too.
    """
    planned = PlannedRoot(root)
    seq = Sequence(op)
    pending = list(dict.fromkeys(ids))
    reasons: dict[str, MemboardError] = {}
    progress = True
    while pending and progress:
        progress = False
        for sid in list(pending):
            try:
                plan = build_one(planned, sid)
            except MemboardError as exc:
                reasons[sid] = exc
                continue
            planned.lay(plan)
            seq.steps.append((sid, plan))
            pending.remove(sid)
            progress = True
    seq.errors = {sid: reasons[sid] for sid in pending}
    seq.refused = {sid: str(error) for sid, error in seq.errors.items()}
    return seq
