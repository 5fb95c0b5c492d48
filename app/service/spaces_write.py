"""The builders of the space writes that keep the hot layer (issue 24 §4): init, save, research-save.

Each builder reads the space's files as they are and returns the plan of the command: its changes with
exact bytes (paths relative to the plan's base folder: the project root for a project's spaces, the global
home for the global space), what to verify once written, and the command's JSON-able result. The command
line previews (`--dry-run`: one git patch, `patch base: DIR`) or applies the plan through the engine, and
the MCP tools answer the same result; built again on the files as they are under the lock, a plan puts
memboard's appended entry after whatever another writer appended meanwhile (§8).

The formats are the core's (core/spaces/current.py, research.py, templates.py); here are the decisions:
which files a save creates, where new text's line ends and BOM come from, when a save is `nothing to
change`, the default work context, the secrets guard and the checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..core.errors import Refused, UsageError
from ..core.files.places import Place, run
from ..core.files.trees import SESSION_HOME
from ..core.formats import clock
from ..core.plan import Change, Check, Plan
from ..core.secrets import refuse_secrets
from ..core.spaces import current as cur
from ..core.spaces import known, templates
from ..core.spaces import research as res
from ..core.spaces.migrate import Migration, with_migration
from ..core.spaces.resolve import GLOBAL, Where, memory_home, resolve
from ..core.spaces.text import line_end, split_bom, with_line_ends

CURRENT, HISTORY, RESEARCH, DREAM_NOTES = "current.md", "history.md", "research.md", "dream-notes.md"

Reader = Callable[[str], bytes | None]
"""Reads a file of the plan by its path relative to the base folder (None: absent)."""


@dataclass
class SpacePlan:
    """A space write's plan: the base folder, the changes (paths relative to it), the checks and the result."""

    op: str
    where: Where
    base: Path
    changes: list[Change] = field(default_factory=list)
    checks: list[tuple[str, Callable[[Reader], bool]]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    report: list[str] = field(default_factory=list)
    success: str | None = None

    @property
    def empty(self) -> bool:
        """Whether the plan changes nothing (`nothing to change`)."""
        return not self.changes

    def failed_checks(self, read: Reader) -> list[str]:
        """The descriptions of the checks that do not hold on the files as read now."""
        return [what for what, holds in self.checks if not holds(read)]


def base_of(where: Where) -> Path:
    """The plan's base folder: the global home for the global space, else the project root (the workspace
    for --scope workspace); every path a plan names is relative to it."""
    if where.rule == GLOBAL:
        return memory_home()
    return where.project_root


def rel_of(where: Where, name: str) -> str:
    """name (a file of the space) relative to the plan's base folder, POSIX."""
    target = where.require()
    return (target / name).relative_to(base_of(where)).as_posix()


def read_file(path: Path) -> bytes | None:
    """A file's bytes, None when absent; an unreadable one is refused in one line."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise Refused(f"{path} is a folder, not a file; nothing written") from None
    except OSError as exc:
        raise Refused(f"cannot read {path}: {exc.strerror or exc}; nothing written") from None


def disk_reader(base: Path) -> Reader:
    """A Reader of the files under base as they are on disk."""
    return lambda rel: read_file(base / rel)


def decode(data: bytes, what: str) -> str:
    """UTF-8 text (a BOM kept as U+FEFF); a file that is not UTF-8 is refused in one line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{what} is not UTF-8 text; nothing written") from None


def default_context(where: Where) -> str:
    """The skill's default work context for this space: `<branch>@<name>` (see research.default_context)."""
    target = where.require()
    context_root = target if where.rule == GLOBAL else target.parent
    project_root = target if where.rule == GLOBAL else where.project_root
    name = res.context_name(
        space_name=where.space, context_root=context_root, project_root=project_root, workspace=where.workspace
    )
    return res.default_context(res.git_branch(where.workspace), name)


def _exists(where: Where, read: Reader) -> bool:
    """Whether the space holds memory (one of its memory files), as read (legacy data migrated first)."""
    return any(read(rel_of(where, name)) is not None for name in (CURRENT, HISTORY, RESEARCH, DREAM_NOTES))


def _stamp() -> str:
    """The local time to the minute, as the files write it."""
    return clock.format_ts(clock.now())


def _holds(rel: str, data: bytes) -> Callable[[Reader], bool]:
    """A check: rel holds exactly data."""
    return lambda read: read(rel) == data


# --- init -----------------------------------------------------------------------------------------------


def init_plan(where: Where, read: Reader | None = None) -> SpacePlan:
    """`space init`: create current.md, history.md and research.md from the skill's templates where absent;
    a file that exists is never touched."""
    where.require()
    base = base_of(where)
    read = read or disk_reader(base)
    plan = SpacePlan("space init", where, base)
    created = []
    for name in (CURRENT, HISTORY, RESEARCH):
        rel = rel_of(where, name)
        if read(rel) is None:
            data = templates.TEMPLATES[name].encode("utf-8")
            plan.changes.append(Change("create", rel, None, data))
            plan.checks.append((f"{rel} holds the template", _holds(rel, data)))
            created.append(name)
    plan.result = {"space": where.as_json(), "created": created}
    plan.success = f"created {', '.join(created)} in {where.target}" if created else None
    return plan


# --- save -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SaveRequest:
    """What `space save` is asked: a new current.md or new section bodies, and the history entry's parts."""

    current: str | None = None
    sections: tuple[tuple[str, str], ...] = ()
    history_entry: str | None = None
    reason: str | None = None
    context: str | None = None
    allow_secrets: bool = False


def _new_current(old: str | None, request: SaveRequest) -> str:
    """The caller's new current.md text in the old file's line ends and BOM (the template's when there is
    no old file and only sections are given); an unknown section is refused listing the sections."""
    if request.current is not None:
        text = request.current
        if old is None:
            return text
        bom, body = split_bom(old)
        return bom + with_line_ends(split_bom(text)[1], line_end(body))
    base = old if old is not None else templates.CURRENT
    bodies = dict(request.sections)
    try:
        return cur.replace_sections(base, bodies)
    except KeyError as exc:
        names = ", ".join(cur.section_names(base)) or "none"
        raise Refused(f"current.md has no section {exc.args[0]!r}; its sections: {names}") from None


def save_plan(where: Where, request: SaveRequest, read: Reader | None = None) -> SpacePlan:
    """`space save`: write the new current.md (Last Updated set), append to history.md the lines it displaces
    that the caller's entry does not hold (with the caller's entry), create a missing space; `nothing to
    change` when the text equals the current one ignoring Last Updated and no entry is given."""
    where.require()
    one_line([("--reason", request.reason), ("--context", request.context)])
    refuse_secrets(
        {
            "--current": request.current,
            **{f"--section {name}": body for name, body in request.sections},
            "--history-entry": request.history_entry,
            "--reason": request.reason,
            "--context": request.context,
        },
        request.allow_secrets,
    )
    base = base_of(where)
    read = read or disk_reader(base)
    plan = SpacePlan("space save", where, base)
    cur_rel, hist_rel, res_rel = (rel_of(where, n) for n in (CURRENT, HISTORY, RESEARCH))
    old_bytes = read(cur_rel)
    old = None if old_bytes is None else decode(old_bytes, cur_rel)
    new = _new_current(old, request)
    caller_entry = request.history_entry if request.history_entry and request.history_entry.strip() else None
    unchanged = old is not None and cur.same_ignoring_last_updated(old, new)
    stamp = _stamp()
    final = old if unchanged and old is not None else cur.set_last_updated(new, stamp)
    displaced = [] if unchanged else cur.displaced_lines(old or "", final)
    context = (request.context or default_context(where)).strip()  # (the skill: a given --context, stripped)
    entry = cur.history_entry(
        old or "", displaced, stamp=stamp, context=context, reason=request.reason, caller_entry=caller_entry
    )
    moved = cur.remaining_displaced(displaced, caller_entry)
    plan.result = {
        "space": where.as_json(),
        "current": cur_rel,
        "displaced": [d.line for d in displaced],
        "moved_to_history": len(moved),
        "history_entry": entry,
        "last_updated": None if unchanged else stamp,
    }
    hist_bytes = read(hist_rel)
    exists = _exists(where, read)
    if entry is not None or (hist_bytes is None and not exists):
        hist_old = templates.HISTORY if hist_bytes is None else decode(hist_bytes, hist_rel)
        hist_new = hist_old if entry is None else res.append_entry(hist_old, entry)
        hist_data = hist_new.encode("utf-8")
        plan.changes.append(Change.write(hist_rel, hist_bytes, hist_data))
        prefix = hist_bytes or b""
        plan.checks.append(
            (f"the old {hist_rel} is a prefix of the new", lambda r: (r(hist_rel) or b"").startswith(prefix))
        )
        if entry is not None:
            want = [d.line for d in moved]
            plan.checks.append(
                (
                    f"the entry's quoted lines in {hist_rel} unquote to the displaced lines",
                    lambda r: _quoted_tail(r(hist_rel), len(prefix)) == want,
                )
            )
    if not unchanged:  # after history.md: a failure between the two writes leaves displaced lines in both, not neither
        data = final.encode("utf-8")
        plan.changes.append(Change.write(cur_rel, old_bytes, data))
        plan.checks.append((f"{cur_rel} holds the planned bytes", lambda r: r(cur_rel) == data))
    if not exists and read(res_rel) is None:
        data_r = templates.RESEARCH.encode("utf-8")
        plan.changes.append(Change("create", res_rel, None, data_r))
        plan.checks.append((f"{res_rel} holds the template", lambda r: r(res_rel) == data_r))
    if moved:
        plan.report.append(f"{len(moved)} {'line moves' if len(moved) == 1 else 'lines move'} to {hist_rel}")
    plan.success = f"saved {where.target}" + (
        f" ({len(moved)} displaced {'line' if len(moved) == 1 else 'lines'} kept in history.md)" if moved else ""
    )
    return plan


def _quoted_tail(data: bytes | None, start: int) -> list[str] | None:
    """The lines memboard's quoted blocks hold in the part of history.md after start (its old length)."""
    if data is None:
        return None
    try:
        return cur.unquote(data[start:].decode("utf-8"))
    except UnicodeDecodeError:
        return None


# --- research-save --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResearchRequest:
    """`space research-save`'s fields (the skill's options)."""

    topic: str
    conclusion: str
    valid: str = "unknown"
    merged: str = "no"
    evidence: tuple[str, ...] = ()
    key_paths: tuple[str, ...] = ()
    next_step: str = ""
    tags: tuple[str, ...] = ()
    context: str | None = None
    allow_secrets: bool = False


def one_line(values: list[tuple[str, str | None]]) -> None:
    """Bad usage (exit 2): a value written into an entry's heading or a `- name：value` field holding a line break,
    which would end the field there and could start a new entry (a `### ` line) that no one wrote as one."""
    for name, value in values:
        if value is not None and any(c in value for c in "\r\n"):
            raise UsageError(f"{name} must be one line (it goes into a single line of the entry)")


def check_research(request: ResearchRequest) -> None:
    """Bad usage, in one line (exit 2): a blank topic or conclusion, a value outside the choices, a value with a
    line break."""
    one_line(
        [
            ("--topic", request.topic),
            ("--conclusion", request.conclusion),
            ("--next-step", request.next_step),
            ("--context", request.context),
            *(("--evidence", v) for v in request.evidence),
            *(("--key-path", v) for v in request.key_paths),
            *(("--tag", v) for v in request.tags),
        ]
    )
    if not request.topic.strip():
        raise UsageError("--topic must not be blank")
    if not request.conclusion.strip():
        raise UsageError("--conclusion must not be blank")
    if request.valid not in res.VALID:
        raise UsageError(f"--valid must be one of {', '.join(res.VALID)}, not {request.valid!r}")
    if request.merged not in res.MERGED:
        raise UsageError(f"--merged must be one of {', '.join(res.MERGED)}, not {request.merged!r}")


def research_plan(where: Where, request: ResearchRequest, read: Reader | None = None) -> SpacePlan:
    """`space research-save`: append the skill's research entry to research.md (created from the template when
    missing) and touch nothing else."""
    check_research(request)
    where.require()
    refuse_secrets(
        {
            "--topic": request.topic,
            "--conclusion": request.conclusion,
            "--evidence": "\n".join(request.evidence),
            "--key-path": "\n".join(request.key_paths),
            "--next-step": request.next_step,
            "--tag": "\n".join(request.tags),
            "--context": request.context,
        },
        request.allow_secrets,
    )
    base = base_of(where)
    read = read or disk_reader(base)
    rel = rel_of(where, RESEARCH)
    before = read(rel)
    old = templates.RESEARCH if before is None else decode(before, rel)
    context = (request.context or default_context(where)).strip()  # (the skill: a given --context, stripped)
    entry = res.research_entry(
        stamp=_stamp(),
        context=context,
        topic=request.topic,
        conclusion=request.conclusion,
        valid=request.valid,
        merged=request.merged,
        evidence=request.evidence,
        key_paths=request.key_paths,
        next_step=request.next_step,
        tags=request.tags,
    )
    data = res.append_entry(old, entry).encode("utf-8")
    plan = SpacePlan("space research-save", where, base)
    plan.changes.append(Change.write(rel, before, data))
    prefix = before or b""
    tail = data[len(prefix) :]
    plan.checks.append((f"the old {rel} is a prefix of the new", lambda r: (r(rel) or b"").startswith(prefix)))
    plan.checks.append((f"{rel} ends with the entry", lambda r: (r(rel) or b"").endswith(tail)))
    plan.result = {"space": where.as_json(), "research": rel, "entry": entry, "context": context}
    plan.success = f"research entry appended to {where.require() / RESEARCH}"
    return plan


# --- the places a plan writes in, and the engine ----------------------------------------------------------


def _own(where: Where, places: list[Place]) -> Place:
    """The place the space's own files are in: the global home for the global space, else the project."""
    if where.rule == GLOBAL:
        return next(place for place in places if place.kind is SESSION_HOME)
    return places[0]


def _engine_plan(space: SpacePlan, migration: Migration, places: list[Place], own: Place) -> Plan[dict[str, Any]]:
    """A built SpacePlan as the engine's plan over places, the legacy data's migration first (visibly: its
    report lines lead), the save's checks asked of the own place's files as written."""
    changes = [replace(change, tree=own.name) for change in space.changes]
    plan = with_migration(migration, space.op, space.result, places, changes, space.success)
    plan.report.extend(space.report)
    plan.checks.extend(Check(what, _asked(holds, own)) for what, holds in space.checks)
    return plan


def _asked(holds: Callable[[Reader], bool], own: Place) -> Callable[[Any], bool]:
    """A check over a Reader as the engine asks it once the plan is written: of the own place's files."""
    return lambda _tree: holds(own.read)


def write_job(
    where: Where, build: Callable[[Reader], SpacePlan]
) -> tuple[list[Place], Callable[[], Plan[dict[str, Any]]]]:
    """The places of a space write and the build of its engine plan (legacy data migrated first in the same
    plan, the command's own steps built on the bytes the migration leaves): run_write runs it; the board
    previews it and applies exactly the plan it showed."""
    from .spaces_migrate import migration_of, refuse_while_dreaming  # lazy: as the engine

    places, _ = migration_of(where)
    own = _own(where, places)

    def make() -> Plan[dict[str, Any]]:
        migration = migration_of(where)[1]
        if not migration.empty:  # moving the legacy files while the skill's dream reads them: as space migrate
            refuse_while_dreaming()
        space = build(lambda rel: migration.after(own, rel))
        if not migration.empty:
            space.result["migrated"] = len(migration.steps)
        return _engine_plan(space, migration, places, own)

    return places, make


def run_write(
    where: Where, build: Callable[[Reader], SpacePlan], dry_run: bool
) -> tuple[Plan[dict[str, Any]], list[Place]]:
    """Build a space write from settled reads of its places and, unless dry_run, apply it under their locks
    (built again when a file it changes changed meanwhile: another writer's appended entries are kept, and
    memboard's go after them). Legacy data is migrated first in the same plan (space migrate's steps), and the
    command's own steps build on the bytes the migration leaves. The plan and the places, for the preview."""
    places, make = write_job(where, build)
    plan = run(places, make, dry_run=dry_run)
    if not dry_run and not plan.empty:  # a space this write created is known from now on (space list, search)
        known.remember(resolve(where.workspace, where.scope))
    return plan, places


def init(where: Where, dry_run: bool = False) -> tuple[Plan[dict[str, Any]], list[Place]]:
    """`space init` built (and, unless dry_run, written): the plan and its places."""
    return run_write(where, lambda read: init_plan(where, read), dry_run)


def save(where: Where, request: SaveRequest, dry_run: bool = False) -> tuple[Plan[dict[str, Any]], list[Place]]:
    """`space save` built (and, unless dry_run, written): the plan and its places."""
    return run_write(where, lambda read: save_plan(where, request, read), dry_run)


def research_save(
    where: Where, request: ResearchRequest, dry_run: bool = False
) -> tuple[Plan[dict[str, Any]], list[Place]]:
    """`space research-save` built (and, unless dry_run, written): the plan and its places."""
    return run_write(where, lambda read: research_plan(where, request, read), dry_run)
