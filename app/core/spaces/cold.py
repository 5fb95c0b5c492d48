"""The plans of `space dream` and `space archive` (issue 24 §4, §8): what they read, the exact steps, the result.

The formats are archive.py's and dream.py's; this module reads a space's files and the global home through the
trees the engine writes (anything with `read`, `listdir` and `abs`), and turns the formats' answers into plan
steps: changes in the space's tree (named SPACE) and in the global home's (HOME; the same tree for the global
space). An archive is applied in two plans so that the archive files are written and verified before any
source changes: `archive_steps` (both, the preview's patch) and `finish_steps`, built again on the fresh sources,
which removes only the ranges still byte-identical to the moved ones. A crash between the two leaves the
moved ranges in both files; the archive's journal (kept by the caller in local state, written before the
archive files: how many entries the archive's tail got, its bytes, the source's bytes once finished) tells
such a half-done move from two identical entries, and the next archive finishes it (`journal_pending`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from ..errors import Refused
from ..formats.text import decode, encode
from ..plan import Change
from . import archive as A
from . import dream as D
from .entries import Document, Entry, parse

SPACE = "space"
HOME = "home"
NOT_DREAMT = "these entries have not been through a dream; run memboard space dream first, or --force"
FILES = ("current.md", "history.md", "research.md")


class Place(Protocol):
    """A folder memboard reads and writes through the engine (a tree): settled reads, listings, paths."""

    def read(self, rel: str) -> bytes | None:
        """The bytes of rel, None when absent."""

    def listdir(self, rel: str) -> list[str]:
        """The names in folder rel ([] when absent)."""

    def abs(self, rel: str) -> Path:
        """The path of rel."""


@dataclass(frozen=True)
class Spot:
    """A space's folder inside its tree: the tree's name in the plan, the tree and the folder's path in it."""

    tree: str
    place: Place
    prefix: str

    def rel(self, name: str) -> str:
        """The path of name (relative to the space's folder) in the tree."""
        return f"{self.prefix}/{name}" if self.prefix else name


@dataclass
class Steps:
    """What a plan changes, tree by tree in order, and the command's JSON-able result."""

    changes: list[Change] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    report: list[str] = field(default_factory=list)
    # an archive's ranges out of each source (a half-done move's, then this one's): what finish_steps removes
    moved: dict[str, list[str]] = field(default_factory=dict)
    # what an archive's journal records of each source it moves from (see journal_pending), written before it
    journal: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, spot: Spot, name: str, before: bytes | None, after: bytes) -> None:
        """Write after to name in spot's folder (a create or a modify), unless it holds those bytes already."""
        if before != after:
            self.changes.append(Change.write(spot.rel(name), before, after, tree=spot.tree))


def _text(spot: Spot, name: str) -> str | None:
    data = spot.place.read(spot.rel(name))
    return None if data is None else decode(data)


# archive


@dataclass(frozen=True)
class SourceMove:
    """One source's archive (history.md or research.md): its text and parse, its new text, its archive file's old
    and new text, the ranges a half-done move left in it (pending), the entries moving now and the entries kept."""

    text: str
    doc: Document
    after: str
    archive_before: str | None
    archive_after: str | None
    pending: list[str]
    moved: tuple[Entry, ...]
    kept: int


def text_sha(data: str) -> str:
    """The SHA-256 of a decoded file's bytes (hex): how an archive's journal names the files it wrote."""
    return hashlib.sha256(encode(data)).hexdigest()


def journal_pending(record: Mapping[str, Any] | None, doc: Document, archive: str | None) -> list[str]:
    """The ranges a half-done archive left in a source (the archive file written, the source not yet): what the
    journal of that archive names (the archive file's tail of `count` entries, the archive still holding the
    bytes it wrote, the source not the one it would have written), when the source still holds them all; []
    otherwise. Without a journal nothing is taken for half-done: an entry kept in the source that equals the
    archive's last one is two entries, not one move."""
    if not record or archive is None:
        return []
    try:
        count, archive_sha, after_sha = int(record["count"]), str(record["archive_sha"]), str(record["after_sha"])
    except (KeyError, TypeError, ValueError):
        return []
    if count <= 0 or text_sha(archive) != archive_sha or text_sha(doc.text) == after_sha:
        return []
    tail = [e.text for e in parse(archive).entries[-count:]]
    if len(tail) != count or A.remove_ranges(doc, tail) is None:
        return []
    return tail


def _source_moves(
    spot: Spot, source: str, keep: int | None, record: Mapping[str, Any] | None = None
) -> SourceMove | None:
    """What an archive does to one source (keep: history's --keep; None: research's closed topics; record: the
    journal of the last archive of it); None when the source is absent."""
    text = _text(spot, source)
    if text is None:
        return None
    doc = parse(text)
    old_archive = _text(spot, A.ARCHIVES[source])
    pending = journal_pending(record, doc, old_archive)
    rest = doc
    removed = A.remove_ranges(doc, pending) if pending else None
    if removed is not None:  # (journal_pending found them all there)
        rest = parse(removed)
    indexes = A.history_moving(rest, keep) if keep is not None else A.research_moving(rest)
    move = A.plan_move(source, rest, indexes, old_archive)
    if move is None:
        return SourceMove(text, doc, rest.text, old_archive, old_archive, pending, (), len(rest.entries))
    return SourceMove(
        text, doc, move.source_after, old_archive, move.archive_after, pending, move.moved, len(move.kept)
    )


def _dream_snapshots(home: Spot) -> list[tuple[str, datetime]]:
    out = []
    for name in home.place.listdir(A.DREAMS):
        path = home.place.abs(f"{A.DREAMS}/{name}")
        try:
            if not path.is_file():
                continue
            mtime = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
        except OSError:
            continue
        out.append((name, mtime))
    return out


def _source_result(space: Spot, source: str, found: SourceMove) -> dict[str, Any]:
    """What an archive reports of one source: its paths and counts (and research's topics that move)."""
    out: dict[str, Any] = {
        "path": str(space.place.abs(space.rel(source))),
        "archive": str(space.place.abs(space.rel(A.ARCHIVES[source]))),
        "entries": len(found.doc.entries),
        "moved": len(found.moved),
        "finished": len(found.pending),
        "kept": found.kept,
    }
    if source == A.RESEARCH:
        out["topics_moved"] = [
            {"context": t.context, "topic": t.topic, "entries": len(t.indexes)} for t in A.topics(found.doc) if t.closed
        ]
    return out


def archive_steps(
    space: Spot,
    home: Spot,
    now: datetime,
    keep: int = A.DEFAULT_KEEP,
    skip_history: bool = False,
    skip_research: bool = False,
    skip_dreams: bool = False,
    dream_keep_days: int = A.DEFAULT_DREAM_KEEP_DAYS,
    force: bool = False,
    journal: Mapping[str, Any] | None = None,
) -> Steps:
    """Every step of an archive: archive files (old bytes + moved ranges), then the sources (preamble + kept
    ranges, pending ranges of a half-done move removed too), then the dream snapshots' moves. Refused when an
    entry to move is newer than dream-notes.md's time (or has no time) unless force."""
    steps = Steps()
    notes = _text(space, D.NOTES)
    dreamt = D.dream_time(notes) if notes is not None else None
    sources: list[tuple[str, int | None]] = []
    if not skip_history:
        sources.append((A.HISTORY, keep))
    if not skip_research:
        sources.append((A.RESEARCH, None))
    planned: list[tuple[str, SourceMove]] = []
    for source, keep_n in sources:
        found = _source_moves(space, source, keep_n, (journal or {}).get(source))
        key = source.removesuffix(".md")
        if found is None:
            steps.result[key] = None
            continue
        if found.moved and not force:
            newest, untimed = A.newest_time(found.moved)
            if untimed or dreamt is None or (newest is not None and newest > dreamt):
                raise Refused(NOT_DREAMT)
        steps.result[key] = _source_result(space, source, found)
        if found.pending:
            steps.report.append(
                f"{source}: finishing a half-done archive ({len(found.pending)} entries already archived)"
            )
        if found.moved:
            count = len(found.moved)
            moving = "1 entry moves" if count == 1 else f"{count} entries move"
            steps.report.append(f"{source}: {moving} to {A.ARCHIVES[source]}")
        planned.append((source, found))
        if found.pending or found.moved:
            steps.moved[source] = found.pending + [e.text for e in found.moved]
            if found.archive_after is not None:
                steps.journal[source] = {
                    "count": len(steps.moved[source]),
                    "archive_sha": text_sha(found.archive_after),
                    "after_sha": text_sha(found.after),
                }
    for source, found in planned:  # the archive files first
        if found.archive_after is not None:
            before = None if found.archive_before is None else encode(found.archive_before)
            steps.add(space, A.ARCHIVES[source], before, encode(found.archive_after))
    for source, found in planned:
        steps.add(space, source, encode(found.text), encode(found.after))
    steps.result["dreams"] = [] if skip_dreams else _dream_moves(home, now, dream_keep_days, steps)
    return steps


def _dream_moves(home: Spot, now: datetime, keep_days: int, steps: Steps) -> list[dict[str, str]]:
    """The moves of the global dream snapshots older than keep_days into archive/dreams/YYYY-MM/, added to steps."""
    moves: list[dict[str, str]] = []
    taken: dict[str, set[str]] = {}
    snapshots = _dream_snapshots(home)
    for name, when in snapshots:
        month = (A.snapshot_time(name) or when).strftime("%Y-%m")
        if month not in taken:
            taken[month] = set(home.place.listdir(f"{A.DREAMS_ARCHIVE}/{month}"))
    for src, dest in A.dream_moves(snapshots, taken, now, keep_days):
        data = home.place.read(home.rel(src))
        if data is None:
            continue
        steps.changes.append(Change("move", home.rel(src), data, None, dest=home.rel(dest), tree=home.tree))
        moves.append({"from": str(home.place.abs(home.rel(src))), "to": str(home.place.abs(home.rel(dest)))})
    if moves:
        steps.report.append(f"{len(moves)} dream snapshots move to {A.DREAMS_ARCHIVE}/")
    return moves


def finish_steps(space: Spot, moved: Mapping[str, Sequence[str]]) -> Steps:
    """The sources' step of an archive whose archive files are written: each fresh source without the ranges it
    moved (pending ones included) that are still byte-identical there. Refused (entries in both, never in neither)
    when one is gone or changed."""
    steps = Steps()
    for source, texts in moved.items():
        if not texts:
            continue
        fresh = _text(space, source)
        after = A.remove_ranges(fresh, list(texts)) if fresh is not None else None
        if after is None or fresh is None:
            raise Refused(f"{source} changed under the archive: its moved entries are in both files")
        steps.add(space, source, encode(fresh), encode(after))
    return steps


def half_archived_findings(space: Spot, journal: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """`space check`'s `half_archived` findings: a source still holding the ranges the last archive (its journal)
    wrote to its archive file's tail (a crash between an archive's two writes); read only."""
    out = []
    for source in (A.HISTORY, A.RESEARCH):
        text = _text(space, source)
        if text is None:
            continue
        left = journal_pending((journal or {}).get(source), parse(text), _text(space, A.ARCHIVES[source]))
        if left:
            out.append(
                {
                    "kind": "half_archived",
                    "path": str(space.place.abs(space.rel(source))),
                    "message": f"{len(left)} entries of {source} are also at the end of {A.ARCHIVES[source]}"
                    " (an archive stopped between its writes)",
                    "fix": "memboard space archive (finishes it)",
                }
            )
    return out


# dream


def _all_dream_bytes(home: Spot) -> set[bytes]:
    """The bytes of every file in the global home's dreams/ and archive/dreams/*/ (to know a dream-notes.md kept)."""
    out: set[bytes] = set()
    folders = [A.DREAMS] + [f"{A.DREAMS_ARCHIVE}/{m}" for m in home.place.listdir(A.DREAMS_ARCHIVE)]
    for folder in folders:
        for name in home.place.listdir(folder):
            path = home.place.abs(f"{folder}/{name}")
            if path.is_file():
                try:
                    out.add(path.read_bytes())
                except OSError:
                    continue
    return out


def dream_steps(
    space: Spot,
    home: Spot,
    space_id: str,
    label: str,
    local: datetime,
    utc: datetime,
    notes: str | None = None,
) -> Steps:
    """Every step of a dream: the old dream-notes.md kept in dreams/ when no dreams file holds its bytes, the new
    dream-notes.md (the caller's notes checked for shape, or the verbatim extraction) and its byte copy in
    dreams/ under the skill's name. No steps when there is nothing to distil."""
    steps = Steps()
    texts = {name: _text(space, name) for name in FILES}
    sources = [name for name in FILES if texts[name] is not None]
    left_out: list[dict[str, str]] = []
    flagged: list[str] = []
    if notes is not None:
        try:
            sections = D.read_notes(notes)
        except D.NotInShape as exc:
            raise Refused(f"--from is not in dream-notes.md's shape: {exc}") from None
        flagged = D.unsupported(sections, [t for t in texts.values() if t])
        by = D.BY_NOTES
    else:
        research = texts["research.md"]
        ex = D.extract(texts["current.md"] or "", parse(research) if research is not None else None)
        sections = ex.sections
        left_out = [{"section": s, "item": i, "why": w} for s, i, w in ex.left_out]
        by = D.BY_EXTRACT
    steps.result = {
        "mode": "notes" if notes is not None else "extract",
        "path": str(space.place.abs(space.rel(D.NOTES))),
        "snapshot": None,
        "kept_old": None,
        "sections": dict(sections),
        "unsupported": flagged,
        "left_out": left_out,
    }
    if not sections:
        steps.report.append("nothing to distil")
        return steps
    old_bytes = space.place.read(space.rel(D.NOTES))
    old = None if old_bytes is None else decode(old_bytes)
    new = encode(D.render(sections, local, utc, by, sources, *D.form_of(old)))
    taken = set(home.place.listdir(A.DREAMS))
    if old_bytes is not None and old_bytes != new and old_bytes not in _all_dream_bytes(home):
        try:
            mtime = datetime.fromtimestamp(os.stat(space.place.abs(space.rel(D.NOTES))).st_mtime, tz=UTC)
        except OSError:
            mtime = utc
        kept = A.unique_name(taken, D.snapshot_name(mtime, label, space_id))
        taken.add(kept)
        steps.changes.append(Change.write(home.rel(f"{A.DREAMS}/{kept}"), None, old_bytes, tree=home.tree))
        steps.result["kept_old"] = str(home.place.abs(home.rel(f"{A.DREAMS}/{kept}")))
        steps.report.append(f"the hand-edited {D.NOTES} is kept as {A.DREAMS}/{kept} first")
    snapshot = A.unique_name(taken, D.snapshot_name(utc, label, space_id))
    steps.add(space, D.NOTES, old_bytes, new)
    steps.changes.append(Change.write(home.rel(f"{A.DREAMS}/{snapshot}"), None, new, tree=home.tree))
    steps.result["snapshot"] = str(home.place.abs(home.rel(f"{A.DREAMS}/{snapshot}")))
    for item in flagged:
        steps.report.append(f"unsupported: {item!r} shares less than half its words with the space's files")
    for out in left_out:
        steps.report.append(f"left out of {out['section']} ({out['why']}): {out['item']}")
    return steps
