"""What the board reads from the core's results: plan results, listed rows, chain nodes, doctor findings.

The core hands these over as plain dicts; every read of one happens here and turns it into a
small typed value, so that when the core returns typed results only this module changes.
Plain Python (no Textual).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.ops.query import chain as _chain
from ..core.ops.query import list_rows as _list_rows
from ..core.plan import Plan
from ..core.root import MemoryRoot


@dataclass(frozen=True)
class ListedRow:
    """One row of the index as the core lists it (for the pickers)."""

    id: str
    agent: str
    status: str
    topic: str
    updated_at: str
    problem: str | None


def listed_rows(root: MemoryRoot) -> list[ListedRow]:
    """Every row of the index, in file order."""
    return [
        ListedRow(r["id"] or "", r["agent"] or "", r["status"] or "", r["topic"] or "", r["updated_at"] or "",
                  r["problem"])
        for r in _list_rows(root)
    ]


def updated_at(root: MemoryRoot) -> dict[str, str]:
    """Each listed row's Updated At by Session ID (the first row of a repeated ID)."""
    out: dict[str, str] = {}
    for row in listed_rows(root):
        out.setdefault(row.id, row.updated_at)
    return out


@dataclass(frozen=True)
class Finding:
    """One inconsistency doctor found, with its planned fix (None: it is not repaired automatically)."""

    kind: str
    id: str
    message: str
    fix: str | None


def findings(plan: Plan) -> list[Finding]:
    """Doctor's findings from its repair plan."""
    return [Finding(f["kind"], f.get("id") or "", f["message"], f.get("fix")) for f in plan.result.get("findings", [])]


ORGANIZE_GROUPS = ("deleted", "marked_stale", "kept_active", "protected", "blocked", "malformed", "stale")


@dataclass(frozen=True)
class OrganizeOutcome:
    """Organize's verdict on every row: the IDs per group and the reason the core gave for some."""

    groups: dict[str, list[str]]
    reasons: dict[str, str]
    stale_days: int


def organize(plan: Plan) -> OrganizeOutcome:
    """The organize plan's outcome (groups in ORGANIZE_GROUPS order)."""
    result = plan.result
    return OrganizeOutcome({g: list(result.get(g, [])) for g in ORGANIZE_GROUPS}, dict(result.get("reasons", {})),
                           int(result.get("stale_days", 0)))


def session_of(plan: Plan) -> str | None:
    """The session a plan is about (the one that continues, releases, is updated or archived)."""
    value = plan.result.get("session_id")
    return value if isinstance(value, str) else None


def archive_deletes(plan: Plan) -> bool:
    """Whether an archive plan deletes a placeholder row instead of archiving a snapshot."""
    return plan.result.get("action") == "deleted"


def archive_released(plan: Plan) -> list[str]:
    """The references an archive plan releases first."""
    return list(plan.result.get("released") or [])


def continued_source(plan: Plan) -> str:
    """The source a continue plan links to."""
    return str(plan.result.get("continues_from") or "")


def released_source(plan: Plan) -> str:
    """The source a release plan unlinks."""
    return str(plan.result.get("released") or "")


@dataclass(frozen=True)
class UpdateOutcome:
    """What an update plan does to the snapshot."""

    created: bool
    added: int
    marked: int
    carried: int
    continues_from: list[str]


def update(plan: Plan) -> UpdateOutcome:
    """The update plan's snapshot outcome."""
    result = plan.result
    return UpdateOutcome(bool(result.get("snapshot_created")), len(result.get("added", [])),
                         len(result.get("marked", [])), len(result.get("carried_over", [])),
                         list(result.get("continues_from", [])))


@dataclass(frozen=True)
class ChainNode:
    """A session in a reference chain: live, archived or missing, with its marks and its children."""

    id: str
    state: str = "live"
    status: str | None = None
    topic: str | None = None
    one_sided: bool = False
    cycle: bool = False
    children: tuple["ChainNode", ...] = field(default=())

    def count(self) -> int:
        """How many nodes lie below this one, through the whole subtree."""
        return sum(1 + child.count() for child in self.children)


def chain_node(node: dict) -> ChainNode:
    """A core chain node (and its children) as a ChainNode."""
    return ChainNode(node["id"], node.get("state") or "live", node.get("status"), node.get("topic"),
                     bool(node.get("one_sided")), bool(node.get("cycle")),
                     tuple(chain_node(child) for child in node.get("children", [])))


@dataclass(frozen=True)
class Chain:
    """A session's reference chain: the session itself, its ancestors and its descendants."""

    me: ChainNode
    continues_from: tuple[ChainNode, ...]
    referenced_by: tuple[ChainNode, ...]


def chain(root: MemoryRoot, session_id: str, status: str | None = None, topic: str | None = None) -> Chain:
    """session_id's chain both ways; status and topic describe the session itself (from its row)."""
    data = _chain(root, session_id)
    me = ChainNode(data["id"], data.get("state") or "live", status, topic)
    return Chain(me, tuple(chain_node(n) for n in data["continues_from"]),
                 tuple(chain_node(n) for n in data["referenced_by"]))
