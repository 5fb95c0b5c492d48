"""The builders of the space reads (issue 24 §2, §4): where, list, restore, search, check.

Each returns the command's JSON-able result (with the lines a face prints on stderr and the exit
code), so that the command line prints it and the MCP tools answer it from the same function. They
write nothing anywhere but memboard's own record of known spaces in local state (known.remember).
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple, cast

from ..core import config
from ..core.errors import MemboardError, Refused, UsageError
from ..core.formats import clock
from ..core.spaces import known as known_mod
from ..core.spaces.resolve import (
    LEGACY_DIRS,
    LEGACY_NAME,
    Where,
    holds_memory,
    legacy_folders,
    legacy_homes,
    memory_home,
    project_spaces,
    resolve,
)

JSON = dict[str, Any]
MAX_QUERY = 1000

INIT_LINE = "no session memory at {target}; memboard space init creates one"
ARCHIVE_KEEP = 20  # archive's default --keep (archive.DEFAULT_KEEP): check's archive_due counts against it
LEGACY_LINE = "legacy memory at {folder}; memboard space migrate moves it"


class Read:
    """A read's answer: its JSON-able result, the lines for stderr (warnings, the refusal) and the exit code."""

    def __init__(self, result: Any, notes: list[str] | None = None, code: int = 0):
        """A result with its stderr lines and exit code."""
        self.result = result
        self.notes = [] if notes is None else notes
        self.code = code


def _now() -> datetime:
    """Now, for ages: MEMBOARD_NOW when set (the tests' fixed clock), else the time to the second (a file's
    modification time has seconds: to the minute, a file written just now would be from the future)."""
    return clock.now() if os.environ.get(clock.NOW_ENV) else datetime.now()


def _stale_days() -> int:
    """The config's space_stale_days (default 14)."""
    return cast(int, config.settings().value("space_stale_days"))


def where(workspace: str | None = None, scope: str = "auto") -> Where:
    """`space where`: the decision for workspace and scope (its `problem` set when the config is invalid)."""
    decision = resolve(workspace, scope)
    known_mod.remember(decision)
    return decision


def where_json(decision: Where) -> JSON:
    """`space where --json`'s object."""
    return decision.as_json()


def _folder(decision: Where) -> tuple[Path, bool]:
    """The folder a read reads and whether it is a legacy one; Refused for an invalid config or no memory."""
    target = decision.require()
    folder = decision.memory_folder()
    if folder is None:
        raise Refused(INIT_LINE.format(target=target))
    return folder, folder != target


def _fmt(when: datetime | None) -> str | None:
    """A time as `YYYY-MM-DD HH:MM` (None stays None)."""
    return None if when is None else when.strftime(clock.FORMAT)


# -- restore ------------------------------------------------------------------------------------------------------


def _file(path: Path, text: str | None, entries: Any = None) -> JSON | None:
    """restore's F object (None when the file is absent)."""
    if text is None:
        return None
    return {"path": str(path), "text": text, "entries": entries}


def _entries_file(path: Path, keep: str) -> JSON | None:
    """restore's F object of a history.md / research.md (entries: how many its text holds); None when absent."""
    from ..core.spaces import reads  # lazy: `space where` needs none of it (its imports cost 5 ms)

    data = reads.read_bytes(path)
    if data is None:
        return None
    text, count = reads.newest(data, keep)
    return _file(path, text, count)


def restore(workspace: str | None, scope: str, history: str = "all", research: bool = False) -> Read:
    """`space restore`: the hot layer's texts, Last Updated and staleness; Refused when there is no space."""
    from ..core.spaces import reads  # lazy: `space where` needs none of it (its imports cost 5 ms)

    decision = where(workspace, scope)
    folder, legacy = _folder(decision)
    notes = [LEGACY_LINE.format(folder=folder)] if legacy else []
    current_path = folder / reads.CURRENT
    current = reads.read_text(current_path)
    hist = _entries_file(folder / reads.HISTORY, history)
    dream_path = folder / reads.DREAM
    research_json = _entries_file(folder / reads.RESEARCH, "all") if research else None
    stamp = None if current is None else reads.last_updated(current)
    when = reads.parse_time(stamp) or reads.mtime(current_path) or _newest_mtime(folder)
    days = _stale_days()
    stale = when is not None and _now() - when > timedelta(days=days)
    if stale and when is not None:
        age = (_now() - when).days
        notes.append(
            f"warning: this memory was last updated {_fmt(when)} ({age} days ago, over space_stale_days {days}): "
            "treat it as a weak reference and check it against the project"
        )
    result = {
        "space": decision.as_json(),
        "last_updated": stamp,
        "stale": stale,
        "legacy": legacy,
        "current": _file(current_path, current),
        "history": hist,
        "dream_notes": _file(dream_path, reads.read_text(dream_path)),
        "research": research_json,
    }
    return Read(result, notes)


def _newest_mtime(folder: Path) -> datetime | None:
    """The newest modification time of a space's memory files (None when it has none)."""
    from ..core.spaces import reads  # lazy: `space where` needs none of it (its imports cost 5 ms)

    times = [t for t in (reads.mtime(folder / n) for n in reads.HOT + (reads.RESEARCH,)) if t is not None]
    return max(times) if times else None


# -- search -------------------------------------------------------------------------------------------------------


def _memory_of(target: Path) -> Path | None:
    """Where a space folder's memory is read: the folder, else its first legacy folder, else None."""
    if holds_memory(target):
        return target
    legacy = legacy_folders(target.parent)
    return legacy[0] if legacy else None


def search(
    workspace: str | None,
    scope: str,
    query: str,
    limit: int = 8,
    research: bool = False,
    archive: bool = False,
    all_spaces: bool = False,
) -> Read:
    """`space search`: the matching lines of one space (or, all_spaces, of the project's and every known one)."""
    from ..core.spaces import reads  # lazy: `space where` needs none of it (its imports cost 5 ms)

    if not query:
        raise UsageError("the query is empty")
    if len(query) > MAX_QUERY:
        raise UsageError(f"the query is over {MAX_QUERY} characters ({len(query)})")
    decision = where(workspace, scope)
    folder, legacy = _folder(decision)
    notes = [LEGACY_LINE.format(folder=folder)] if legacy else []
    spaces: list[tuple[str, Path]] = [(str(decision.require()), folder)]
    if all_spaces:
        seen = {spaces[0][0]}
        candidates: list[tuple[Path, known_mod.Known | None]] = [(t, None) for t in project_spaces(decision)]
        candidates += [(k.target, k) for k in known_mod.known()]
        for target, known in candidates:
            if str(target) in seen:
                continue
            seen.add(str(target))
            if known is not None and known.resolve().problem is not None:
                continue  # a project whose config.toml is invalid: nothing of it is read
            found = _memory_of(target)
            if found is not None:
                spaces.append((str(target), found))
    hits = []
    for index, (space_id, space_folder) in enumerate(spaces):
        try:
            found_hits = reads.search(space_folder, query, limit, research, archive)
        except (OSError, MemboardError) as exc:
            if index == 0:  # the asked space: its failure is the command's
                raise
            notes.append(f"skipped {space_id}: {_unreadable_line(exc)}")  # another space: not the asked one's fault
            continue
        for hit in found_hits:
            hits.append(
                {
                    "space": space_id,
                    "file": hit.file,
                    "path": str(hit.path),
                    "layer": hit.layer,
                    "line": hit.line,
                    "text": hit.text,
                    "heading": hit.heading,
                }
            )
    return Read(hits, notes)


# -- check --------------------------------------------------------------------------------------------------------


def _finding(kind: str, path: Path | str, message: str, fix: str) -> JSON:
    """One finding of check."""
    return {"kind": kind, "path": str(path), "message": message, "fix": fix}


def skill_dreaming() -> tuple[Path, int] | None:
    """A sleep.lock of the skill (global home, then the legacy homes) naming a live process: (lock, pid)."""
    for folder in (memory_home(), *(home for _, home in legacy_homes())):
        lock = folder / "sleep.lock"
        try:
            payload = json.loads(lock.read_bytes().decode("utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(payload, dict):
            continue
        try:
            pid = int(payload.get("pid") or 0)
        except (TypeError, ValueError):
            continue
        if pid > 0:
            try:
                os.kill(pid, 0)  # signal 0: only asks whether the process exists
            except ProcessLookupError:
                continue
            except OSError:
                pass
            return lock, pid
    return None


class Ages(NamedTuple):
    """What list and check read of a space folder: times, counts and the due states."""

    current_time: datetime | None
    last_updated: str | None
    history_entries: int
    research_open: int
    research_topics: int
    dream: datetime | None
    dream_due: bool
    archive_due: bool


def ages(folder: Path) -> Ages:
    """Times, counts and due states of a space folder's files (archive_due as `space archive` would decide it:
    entries to move, each with a heading time at or before the last dream's)."""
    from ..core.spaces import archive, dream, reads  # lazy: `space where` needs none of it (their imports: 5 ms)

    current_path = folder / reads.CURRENT
    current = reads.read_text(current_path)
    stamp = None if current is None else reads.last_updated(current)
    current_time = reads.parse_time(stamp) or reads.mtime(current_path) if current is not None else None
    hist = reads.document(folder / reads.HISTORY)
    res = reads.document(folder / reads.RESEARCH)
    dream_text = reads.read_text(folder / reads.DREAM)
    dreamt = None if dream_text is None else (dream.dream_time(dream_text) or reads.mtime(folder / reads.DREAM))
    topics = archive.topics(res) if res is not None else []
    all_entries = [*(hist.entries if hist else ()), *(res.entries if res else ())]
    newest, _ = archive.newest_time(all_entries)
    if current_time is not None and (newest is None or current_time > newest):
        newest = current_time
    dream_due = bool(all_entries) if dreamt is None else newest is not None and newest > dreamt
    to_move = [hist.entries[i] for i in archive.history_moving(hist, ARCHIVE_KEEP)] if hist else []
    to_move += [res.entries[i] for i in archive.research_moving(res)] if res else []
    moving_newest, untimed = archive.newest_time(to_move)
    covered = dreamt is not None and not untimed and (moving_newest is None or moving_newest <= dreamt)
    return Ages(
        current_time=current_time,
        last_updated=stamp,
        history_entries=len(hist.entries) if hist else 0,
        research_open=sum(1 for t in topics if not t.closed),
        research_topics=len(topics),
        dream=dreamt,
        dream_due=dream_due,
        archive_due=bool(to_move) and covered,
    )


def _half_archived(decision: Where) -> list[JSON]:
    """The half_archived findings (an archive stopped between its two writes: see spaces_dream)."""
    from .spaces_dream import half_archived_findings  # lazy: the writes' module loads the engine

    return half_archived_findings(decision)


def _legacy_candidates(decision: Where) -> list[Path]:
    """Every legacy folder that exists for where's target (holding memory files or not)."""
    if decision.target is None:
        return []
    if decision.rule == "global":
        folders = [home / "global" for _, home in legacy_homes()]
    else:
        folders = [decision.target.parent / d / LEGACY_NAME for d in LEGACY_DIRS]
    return [f for f in folders if f.is_dir() and not f.is_symlink()]


def half_migrated(decision: Where) -> list[JSON]:
    """`half_migrated` findings: a legacy folder still holding files whose new path already holds the same bytes
    (a migration stopped between a file's copy and the legacy copy's removal); read only, links not followed."""
    found = []
    target = decision.target
    for legacy in _legacy_candidates(decision):
        same = 0
        for dirpath, _dirs, files in os.walk(legacy):
            for name in files:
                path = Path(dirpath) / name
                if path.is_symlink() or target is None:
                    continue
                twin = target / path.relative_to(legacy)
                try:
                    same += twin.is_file() and twin.read_bytes() == path.read_bytes()
                except OSError:
                    continue
        if same:
            found.append(
                _finding(
                    "half_migrated",
                    legacy,
                    f"{same} file(s) of {legacy} are already at {target} with the same bytes "
                    "(a migration stopped before removing them)",
                    "memboard space migrate" + (" --global" if decision.rule == "global" else "") + " (finishes it)",
                )
            )
    return found


def _route_findings(decision: Where) -> list[JSON]:
    """route_missing_dir and route_shadowed_by_git for each route of where's project."""
    found: list[JSON] = []
    for route in decision.routes:
        if not route.root.is_dir():
            found.append(
                _finding(
                    "route_missing_dir",
                    route.root,
                    f"route {route.name!r} points to {route.root}, which does not exist",
                    f"create the folder {route.root}, or remove the route from {decision.config}",
                )
            )
        elif (route.root / ".git").exists():
            found.append(
                _finding(
                    "route_shadowed_by_git",
                    route.root,
                    f"route {route.name!r}: {route.root} is itself a git root, so inside it its own root wins "
                    "and the route never applies",
                    f"remove the route from {decision.config}, or use --scope workspace there",
                )
            )
    return found


def _findings(decision: Where, folder: Path | None, info: Ages | None, now: datetime) -> list[JSON]:
    """check's findings for a resolved space (folder: where its memory is read, None when it has none)."""
    from ..core.spaces import reads  # lazy: `space where` needs none of it (its imports cost 5 ms)

    found = _route_findings(decision)
    for legacy in decision.legacy:
        found.append(
            _finding(
                "legacy_found",
                legacy,
                f"legacy memory at {legacy}",
                "memboard space migrate" + (" --global" if decision.rule == "global" else ""),
            )
        )
    found += half_migrated(decision)
    if folder is not None and info is not None:
        days = _stale_days()
        if info.current_time is not None and clock.in_the_future(info.current_time, now):
            found.append(
                _finding(
                    "future_time",
                    folder / reads.CURRENT,
                    f"current.md says it was last updated {_fmt(info.current_time)}, later than this machine's clock "
                    f"({_fmt(now)}): one of the clocks is off, so its age is unknown",
                    "memboard space save (it sets Last Updated to now)",
                )
            )
        elif info.current_time is not None and now - info.current_time > timedelta(days=days):
            found.append(
                _finding(
                    "stale_current",
                    folder / reads.CURRENT,
                    f"current.md was last updated {_fmt(info.current_time)}, over space_stale_days ({days}) ago",
                    "memboard space save",
                )
            )
        if info.dream_due:
            since = "there is no dream-notes.md" if info.dream is None else f"dream-notes.md is from {_fmt(info.dream)}"
            found.append(
                _finding(
                    "dream_due",
                    folder / reads.DREAM,
                    f"entries or current.md are newer than the last dream ({since})",
                    "memboard space dream",
                )
            )
        if info.archive_due:
            found.append(
                _finding(
                    "archive_due",
                    folder / reads.HISTORY,
                    f"entries the last dream covers can move to the archive (history beyond {ARCHIVE_KEEP} "
                    "entries, or closed research topics)",
                    "memboard space archive",
                )
            )
        for temp in reads.stray_temps(folder):
            found.append(_finding("stray_temp", temp, f"a temp file a write left behind: {temp.name}", f"rm {temp}"))
        found += _half_archived(decision)
    dreaming = skill_dreaming()
    if dreaming is not None:
        lock, pid = dreaming
        found.append(
            _finding(
                "skill_dreaming",
                lock,
                f"the session-memory skill is dreaming (pid {pid})",
                "wait until it is done before dream, archive or migrate",
            )
        )
    return found


def check(workspace: str | None, scope: str, events: list[str], stale_minutes: int = 180) -> Read:
    """`space check`: the skill's checkpoint decision (INIT_FIRST exits 1) and the findings."""
    from ..core.spaces import reads  # lazy: `space where` needs none of it (its imports cost 5 ms)

    decision = where(workspace, scope)
    chosen = sorted(set(events))
    now = _now()
    if decision.problem is not None:
        finding = _finding("config_invalid", decision.config or "", decision.problem, "fix the config.toml")
        result: JSON = {
            "decision": None,
            "reasons": [decision.problem],
            "current_age_minutes": None,
            "history_age_minutes": None,
            "events": chosen,
            "findings": [finding],
        }
        return Read(result, [decision.problem], 1)
    folder = decision.memory_folder()
    info = None if folder is None else ages(folder)
    findings = _findings(decision, folder, info, now)
    base = folder or decision.require()
    current_path, history_path = base / reads.CURRENT, base / reads.HISTORY
    if not current_path.is_file() or not history_path.is_file():
        result = {
            "decision": "INIT_FIRST",
            "reasons": ["memory files are missing"],
            "current_age_minutes": None,
            "history_age_minutes": None,
            "events": chosen,
            "findings": findings,
        }
        return Read(result, [f"INIT_FIRST: current.md or history.md is missing in {base}; memboard space init"], 1)
    current_age = reads.minutes(info.current_time if info else None, now)
    history_age = reads.minutes(reads.mtime(history_path), now)
    reasons: list[str] = []
    if chosen:
        reasons.append("high-value event detected")
    if current_age is not None and current_age >= stale_minutes:
        reasons.append("current.md is stale")
    elif info is not None and info.current_time is not None and clock.in_the_future(info.current_time, now):
        reasons.append("current.md's Last Updated is in the future: its age is unknown")
    verdict = "SAVE_NOW" if reasons else "SKIP"
    result = {
        "decision": verdict,
        "reasons": reasons or ["no high-value trigger and current.md is fresh"],
        "current_age_minutes": current_age,
        "history_age_minutes": history_age,
        "events": chosen,
        "findings": findings,
    }
    return Read(result)


# -- list ---------------------------------------------------------------------------------------------------------


def _age(since: datetime | None, now: datetime) -> int | None:
    """Minutes from since to now, None when since is."""
    from ..core.spaces import reads  # lazy: `space where` needs none of it (its imports cost 5 ms)

    return reads.minutes(since, now)


def _unreadable_line(exc: Exception) -> str:
    """One line for a space whose files cannot be read (list names it instead of failing)."""
    if isinstance(exc, OSError):
        return f"cannot read {exc.filename or 'a file'}: {exc.strerror or exc}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def space_list() -> Read:
    """`space list`: every known space with its project, rule, ages, counts and flags; an unresolvable one is
    listed with its problem."""
    now = _now()
    days = _stale_days()
    items = []
    for known in known_mod.known():
        decision = known.resolve()
        item: JSON = {
            "space": str(known.target),
            "name": decision.space,
            "project": str(decision.project_root),
            "rule": decision.rule,
            "last_updated": None,
            "updated_age_minutes": None,
            "history_entries": None,
            "research_open": None,
            "research_topics": None,
            "dream": None,
            "dream_age_minutes": None,
            "flags": [],
            "problem": None,
            "sources": list(known.sources),
        }
        flags: list[str] = item["flags"]
        if decision.problem is not None:
            flags.append("config!")
            item["problem"] = decision.problem
            items.append(item)
            continue
        if decision.target != known.target:
            item["problem"] = f"its folder now resolves to {decision.target}"
        folder = _memory_of(known.target)
        if decision.legacy or (folder is not None and folder != known.target):
            flags.append("legacy")
        if folder is None:
            item["problem"] = item["problem"] or INIT_LINE.format(target=known.target)
            items.append(item)
            continue
        try:
            info = ages(folder)
            half = bool(_half_archived(decision))
        except (OSError, MemboardError) as exc:  # one space's unreadable file is its problem, not the list's
            item["problem"] = _unreadable_line(exc)
            items.append(item)
            continue
        item.update(
            {
                "last_updated": _fmt(info.current_time),
                "updated_age_minutes": _age(info.current_time, now),
                "history_entries": info.history_entries,
                "research_open": info.research_open,
                "research_topics": info.research_topics,
                "dream": _fmt(info.dream),
                "dream_age_minutes": _age(info.dream, now),
            }
        )
        if info.current_time is not None and now - info.current_time > timedelta(days=days):
            flags.append("stale")
        if info.dream_due:
            flags.append("dream-due")
        if info.archive_due:
            flags.append("archive-due")
        if half:
            flags.append("half-archived")
        items.append(item)
    return Read(items)
