"""Doctor: find inconsistencies in a root and plan repairs that lose no content.

Every state an interrupted memboard operation can leave has a fix, and one `doctor --fix`
reaches a root where doctor finds nothing more to fix (the passes below see each other's
repairs: a row being archived is no link target, a snapshot being restored as a row is one).
What memboard cannot have left (hand edits, foreign files) is reported with what to do.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime

from ..files import revisions
from ..formats.clock import format_ts
from ..files.copies import copy_advice, find_copies
from ..formats.markers import line_list
from ..errors import MemboardError
from ..formats.ids import is_valid_id
from ..formats.index import COLUMN_OF_FIELD, IndexEdit, IndexFile, format_refs, parse_refs
from ..files.localstate import LEGACY_LOGS, LocalState, plan_legacy_move
from ..plan import Change, Plan
from ..formats.layout import INDEX, SESSIONS, STATE, TEMP_SUFFIX, archive_dir, archive_index_path, archive_session_path, session_path
from ..files.root import MemoryRoot, not_a_memory_root
from ..formats.snapshot import Snapshot, add_items, render_template
from ..formats.archive import render_archive_index
from .archive import archived_row, holds_nothing
from .common import MANUAL_KEYWORDS
from .organize import _lists_an_id

CONFLICT_MARKERS = "index_conflict_markers"
META_UPDATED_RE = re.compile(rb"^\s*\|\s*Updated At\s*\|\s*([^|\r\n]*?)\s*\|", re.M)
NOT_TEXT = (
    "index.md holds NUL bytes (saved as UTF-16, or not text at all), so every write refuses it: "
    "convert it to UTF-8 text (in most editors: save with encoding UTF-8) or remove the NUL bytes, "
    "then run `memboard doctor` again"
)


@dataclass
class Finding:
    """One inconsistency: its kind, the session it concerns, a message and the planned fix."""

    kind: str
    id: str
    message: str
    fix: str | None = None

    def as_dict(self) -> dict:
        """The finding as JSON."""
        return {"kind": self.kind, "id": self.id, "message": self.message, "fix": self.fix}


def _first_paragraph(snap: Snapshot) -> str:
    """The first real item of Current Context, one line."""
    items = snap.items("Current Context")
    return " ".join(items[0].text.split()) if items else ""


def _row_behind(row, data: bytes | None) -> dict[str, str]:
    """Row fields to catch up with a snapshot whose Metadata `Updated At` is newer than the row's."""
    from ..formats.clock import parse

    stamp = META_UPDATED_RE.search(data or b"")  # cheap look first: most rows are not behind
    row_time = parse(row.get("updated_at"))
    if stamp is None or row_time is None or (parse(stamp.group(1).decode("utf-8", "replace")) or row_time) <= row_time:
        return {}
    meta = Snapshot(data or b"").metadata()
    snap_time = parse(meta.get("Updated At", ""))
    if snap_time is None or snap_time <= row_time:
        return {}
    changes = {"updated_at": meta["Updated At"].strip()}
    if meta.get("Status", "").strip() == "active" and row.status != "active":
        changes["status"] = "active"
    topic = " ".join(meta.get("Topic", "").split())
    if topic and topic != row.get("topic"):
        changes["topic"] = topic
    return changes


def _with_source(text: str, src: str) -> str | None:
    """The snapshot text with src added under Continues From, or None when that cannot be
    done so that the snapshot then lists it (a fix that would not hold is not offered)."""
    try:
        fixed = add_items(text, "Continues From", [src])
    except MemboardError:
        return None
    return fixed if src in Snapshot(fixed).continues_from() else None


def stray_temp_files(root: MemoryRoot) -> list[str]:
    """Temp files memboard left behind when a write was killed before its rename (never content)."""
    found = []
    for folder, dirs, files in os.walk(root.path):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for name in files:
            if name.startswith(".") and name.endswith(TEMP_SUFFIX):
                found.append(os.path.relpath(os.path.join(folder, name), root.path).replace(os.sep, "/"))
    return sorted(found)


class Checkup:
    """One doctor pass over a root: its findings and the repairs planned for them, pass by pass."""

    def __init__(self, root: MemoryRoot, when: datetime, copied: frozenset[str] | set[str] = frozenset()):
        """Read the index and list snapshots (not sync-conflict copies: `copied`) and archive folders."""
        self.root, self.when = root, when
        self.before = root.read(INDEX)
        self.index = IndexFile(self.before or b"")
        self.findings: list[Finding] = []
        self.edit: IndexEdit  # set by index_usable(), once the table can take repairs
        self.index_dirty = False
        self.file_changes: list[Change] = []  # archive files: after the snapshots, before the index
        self.new_texts: dict[str, tuple[bytes | None, str]] = {}  # snapshot path -> (old bytes, new text)
        self.by_id: dict[str, list] = {}
        self.live: dict = {}  # Session ID -> its one usable row
        self.finishing: set[str] = set()  # live rows whose archive this repair finishes
        self.restored: dict[str, dict[str, str]] = {}  # orphan snapshot ID -> the row this repair appends
        self.snaps = root.session_ids_on_disk() - set(copied)
        self.archived = root.archived_ids()

    def add(self, kind: str, sid: str, message: str, fix: str | None = None) -> None:
        """Record a finding (fix: what --fix does, None when a person has to act)."""
        self.findings.append(Finding(kind, sid, message, fix))

    def change_row(self, row, fields: dict[str, str]) -> None:
        """Plan new values for some cells of a row."""
        self.edit.set_fields(row, fields)
        self.index_dirty = True

    def snapshot_text(self, rel: str) -> str | None:
        """A snapshot's text as this repair leaves it (None when there is none)."""
        if rel in self.new_texts:
            return self.new_texts[rel][1]
        data = self.root.read(rel)
        if data is None:
            return None
        self.new_texts[rel] = (data, Snapshot(data).text())
        return self.new_texts[rel][1]

    def index_usable(self) -> bool:
        """Report an index no write can use (NUL bytes, missing columns); True when rows can be repaired."""
        data = self.before or b""
        if b"\x00" in data or data.startswith((b"\xff\xfe", b"\xfe\xff")):
            self.add("index_not_text", "", NOT_TEXT)
            return False
        for problem in self.index.problems:
            self.add("index_columns", "", problem + " (add them to the header by hand)")
        if self.index.missing_columns():  # no safe repair of rows until the table has the protocol's columns
            return False
        self.edit = self.index.edit()
        return True

    def check_rows(self) -> None:
        """Malformed rows and duplicate IDs; collect the usable rows."""
        for row in self.index.rows:
            self.by_id.setdefault(row.id, []).append(row)
            if row.problem:
                self.add("malformed_row", row.id, f"line {row.line + 1}: {row.problem}; memboard keeps the line as it "
                         "is and skips it: fix it by hand in index.md")
        for sid, rows in self.by_id.items():
            if len(rows) == 1:
                if not rows[0].problem:
                    self.live[sid] = rows[0]
                continue
            if len({r.raw_cells for r in rows}) == 1 and is_valid_id(sid):
                for extra in rows[1:]:
                    self.edit.delete(extra)
                self.index_dirty = True
                self.add("duplicate_id", sid, f"{len(rows)} rows share this Session ID", f"delete {len(rows) - 1} identical copy line(s)")
                if not rows[0].problem:
                    self.live[sid] = rows[0]
            else:
                self.add("duplicate_id", sid, f"{len(rows)} different rows share this Session ID: keep one by hand "
                         "(merge what the others say into it), then run doctor again")

    def check_live_rows(self) -> None:
        """Per live row: idle with a snapshot, an archive in progress, a row behind its snapshot, a missing snapshot."""
        for sid, row in self.live.items():
            has_snap = sid in self.snaps
            if row.status == "idle" and has_snap:
                self.change_row(row, {"status": "active"})
                self.add("idle_with_snapshot", sid, "idle row has a snapshot", "set Status to active")
            if sid in self.archived and not (row.refs and holds_nothing(self.root, archive_dir(sid))):
                self.check_half_archived(sid, row, has_snap)
            elif has_snap:
                self.check_row_behind(sid, row)
            elif row.status in ("active", "stale"):
                rel = session_path(sid)
                text = render_template(
                    sid, row.get("agent"), row.get("topic"), row.get("started_at"), row.get("updated_at"),
                    context=row.get("summary"), status=row.status,
                    continues=[src for src, other in self.live.items() if sid in other.refs] or None,
                )
                self.new_texts[rel] = (None, text)
                self.add("missing_snapshot", sid, f"{row.status} row has no snapshot", f"create {rel} from the row")

    def check_half_archived(self, sid: str, row, has_snap: bool) -> None:
        """A live row beside `archive/<id>/`: finish the archive when that is what was under way."""
        folder, meta_rel, moved_rel = archive_dir(sid), archive_index_path(sid), archive_session_path(sid)
        has_meta, moved = self.root.exists(meta_rel), self.root.exists(moved_rel)
        if row.refs:  # finishing would archive a referenced session, which the protocol forbids
            self.add("half_archived", sid, f"archive was started, but the row is referenced by {', '.join(row.refs)}; release "
                     f"those references, then run doctor --fix again (or remove {folder}/ to keep the session)")
            return
        if has_snap and moved:
            self.add("half_archived", sid, f"the row, {session_path(sid)} and {moved_rel} all exist (a snapshot written after "
                     f"the archive moved the old one?): keep what you need in {moved_rel}, remove {session_path(sid)}, "
                     "then run doctor --fix again")
            return
        if not has_snap and not moved:
            if holds_nothing(self.root, folder):
                self.add("half_archived", sid, f"{folder}/ is an empty folder beside the live row; it blocks nothing "
                         "(remove it if you like; memboard archive works either way)")
            else:
                self.add("half_archived", sid, f"{folder}/ exists but the session has no snapshot to archive: remove "
                         f"{folder}/ to keep it live, or delete its row by hand if it was archived")
            return
        steps = []
        if not has_meta:  # the archive stopped before its first file (a full disk leaves just the folder)
            self.file_changes.append(Change("create", meta_rel, None, archived_row(row, self.when)))
            steps.append(f"write {meta_rel} from the row")
        if has_snap:
            data = self.root.read(session_path(sid))
            self.file_changes.append(Change("move", session_path(sid), data, data, dest=moved_rel))
            steps.append(f"move the snapshot to {moved_rel}")
        snap = Snapshot(self.root.read(moved_rel if moved else session_path(sid)) or b"")
        for src in snap.continues_from():
            if src in self.live and sid in self.live[src].refs:
                self.change_row(self.live[src], {"referenced_by": format_refs([r for r in self.live[src].refs if r != sid])})
        self.edit.delete(row)
        self.index_dirty = True
        self.finishing.add(sid)
        what = "archive was started but the row is still in index.md" if has_meta else f"archive stopped before writing {meta_rel}"
        self.add("half_archived", sid, what, "finish the archive (" + ", ".join(steps + ["remove the row"]) + ")")

    def check_row_behind(self, sid: str, row) -> None:
        """A snapshot newer than its row: an update stopped between its snapshot and its index write."""
        current = self.root.read(session_path(sid))
        behind = _row_behind(row, current)
        # memboard records every snapshot it finishes writing; a newer snapshot that differs from its
        # last revision was written by a write that did not finish (a snapshot edited by hand has none)
        if behind and revisions.latest(self.root, sid) not in (None, current):
            self.change_row(row, behind)
            names = ", ".join(COLUMN_OF_FIELD[name] for name in behind)
            self.add("row_behind_snapshot", sid, "the snapshot's Updated At is newer than the row's (an update stopped "
                     "before its index write?)", f"set the row's {names} from the snapshot's Metadata (Summary and "
                     f"Keywords stay; `memboard update {sid} --summary ...` changes them)")

    def check_orphans(self) -> None:
        """Snapshots without a row: restored as active rows from their Metadata."""
        ts = format_ts(self.when)
        for sid in sorted(self.snaps - set(self.by_id)):
            if not is_valid_id(sid):
                self.add("stray_file", sid, f"sessions/{sid}.md is not named by a valid Session ID: rename it to one "
                         "(YYYY-MM-DD-HHMM-agent-name) or move it out of sessions/")
                continue
            if sid in self.archived:
                self.add("archived_and_live", sid, f"the snapshot is both in sessions/ and archive/{sid}/ without a row: "
                         f"keep what you need in archive/{sid}/session.md and remove sessions/{sid}.md (or the reverse)")
                continue
            snap = Snapshot(self.root.read(session_path(sid)) or b"")
            meta = snap.metadata()
            self.restored[sid] = {
                "id": sid, "agent": meta.get("Agent Name") or sid[16:], "topic": meta.get("Topic") or "未設定",
                "summary": _first_paragraph(snap) or "Restored by memboard doctor from the snapshot.",
                "keywords": MANUAL_KEYWORDS, "status": "active", "referenced_by": "-",
                "started_at": meta.get("Started At") or ts, "updated_at": meta.get("Updated At") or ts,
            }
            self.add("orphan_snapshot", sid, "snapshot without an index row", "append an active row from its Metadata")

    def check_archive_folders(self) -> None:
        """Archive folders of sessions without a live row: a missing archive index is written from the snapshot."""
        for sid in sorted(self.archived):
            if not is_valid_id(sid) or sid in self.live or self.root.exists(archive_index_path(sid)):
                continue
            data = self.root.read(archive_session_path(sid)) if self.root.exists(archive_session_path(sid)) else None
            if data is None:
                self.add("empty_archive", sid, f"{archive_dir(sid)}/ has no index.md and no session.md: remove the folder "
                         "if it holds nothing you need")
                continue
            snap = Snapshot(data)
            meta = snap.metadata()
            values = {
                "id": sid, "agent": meta.get("Agent Name", ""), "topic": meta.get("Topic", ""),
                "summary": _first_paragraph(snap), "keywords": "", "status": meta.get("Status", ""),
                "referenced_by": "-", "started_at": meta.get("Started At", ""), "updated_at": meta.get("Updated At", ""),
            }
            text = render_archive_index(values, format_ts(self.when)).encode("utf-8", "surrogateescape")
            self.file_changes.append(Change("create", archive_index_path(sid), None, text))
            self.add("archive_without_index", sid, "archived snapshot without index.md", "create it from the snapshot")

    def refs_of(self, sid: str) -> list[str]:
        """Referenced By of a live or restored row, as this repair leaves it so far."""
        if sid in self.restored:
            return parse_refs(self.restored[sid]["referenced_by"])
        return self.live[sid].refs

    def check_continues_from(self, linkable: set[str]) -> dict[str, list[str]]:
        """Continues From → Referenced By: sessions each source row must list too (returned, not yet planned)."""
        additions: dict[str, list[str]] = {}
        for sid in [s for s in self.live if s in linkable and s in self.snaps] + sorted(self.restored):
            rel = session_path(sid)
            if rel not in self.new_texts and not _lists_an_id(self.root.read(rel) or b""):
                continue  # no ID under Continues From: skip the Markdown parse (1,000 snapshots take seconds)
            for src in Snapshot(self.snapshot_text(rel) or "").continues_from():
                if src in linkable:
                    if sid not in self.refs_of(src) and sid not in additions.get(src, []):
                        additions.setdefault(src, []).append(sid)
                        self.add("one_sided_link", sid, f"continues from {src}, but {src} does not list it in Referenced By",
                                 f"add {sid} to {src}'s Referenced By")
                elif src in self.archived or src in self.finishing:
                    self.add("link_to_archived", sid, f"continues from archived session {src} (history: nothing to do)")
                else:
                    self.add("link_to_missing", sid, f"continues from {src}, which is neither live nor archived (history: nothing to do)")
        return additions

    def check_referenced_by(self, linkable: set[str], additions: dict[str, list[str]]) -> None:
        """Referenced By → Continues From, and references to sessions that are gone."""
        for src, row in self.live.items():
            if src in self.finishing:
                continue
            drop = []
            for ref in row.refs:
                if ref in linkable:
                    rel = session_path(ref)
                    text = self.snapshot_text(rel) if ref in self.snaps or rel in self.new_texts else None
                    if text is None:
                        self.add("one_sided_link", ref, f"{src} lists it in Referenced By, but it has no snapshot: run "
                                 f"`memboard continue {src} --as {ref}` to record the link there, or "
                                 f"`memboard release {src} --as {ref}` to drop it")
                    elif src not in Snapshot(text).continues_from():
                        fixed = _with_source(text, src)
                        if fixed is not None:
                            self.new_texts[rel] = (self.new_texts[rel][0], fixed)
                        self.add("one_sided_link", ref, f"{src} lists it in Referenced By, but its Continues From lacks {src}"
                                 + ("" if fixed is not None else " (its Markdown keeps memboard from adding it: edit it by hand)"),
                                 f"add {src} to its Continues From" if fixed is not None else None)
                elif ref in self.archived or ref in self.finishing or not is_valid_id(ref) or ref not in self.by_id:
                    drop.append(ref)
                    state = "archived" if ref in self.archived or ref in self.finishing else "missing"
                    self.add("reference_to_" + state, src, f"Referenced By lists {state} session {ref}", f"remove {ref} from it")
            added = additions.pop(src, [])
            if drop or added:
                self.change_row(row, {"referenced_by": format_refs([r for r in row.refs + added if r not in drop])})
        for src, added in additions.items():  # the rows restored from orphan snapshots
            self.restored[src]["referenced_by"] = format_refs(self.refs_of(src) + added)

    def check_links(self) -> None:
        """Both directions of every reference, among the rows this repair leaves live."""
        linkable = {sid for sid in self.live if sid not in self.finishing} | set(self.restored)
        additions = self.check_continues_from(linkable)
        self.check_referenced_by(linkable, additions)

    def plan(self) -> Plan:
        """The repairs in a safe order: snapshots, stray temp files, archive files, then the index."""
        plan = Plan("doctor --fix")
        for rel, (old, text) in self.new_texts.items():
            new = text.encode("utf-8", "surrogateescape")
            if old is None:
                plan.changes.append(Change("create", rel, None, new))
            elif Snapshot(old).text() != text:
                bom = "\ufeff" if Snapshot(old).bom else ""
                plan.changes.append(Change("modify", rel, old, (bom + text).encode("utf-8", "surrogateescape")))
        for rel in stray_temp_files(self.root):
            self.add("stray_temp", rel, f"{rel} is a temp file left by an interrupted write", "delete it")
            plan.changes.append(Change("delete", rel, self.root.read(rel), None))
        plan.changes.extend(self.file_changes)
        for values in self.restored.values():
            self.edit.append(values)
            self.index_dirty = True
        if self.index_dirty:
            after = self.edit.to_bytes()
            if after != self.before:
                plan.changes.append(Change("create" if self.before is None else "modify", INDEX, self.before, after))
        plan.result = {"findings": [f.as_dict() for f in self.findings]}
        return plan


def diagnose(root: MemoryRoot, when: datetime | None = None) -> tuple[list[Finding], Plan]:
    """All findings and one plan that repairs the fixable ones."""
    when = when or datetime.now()
    elsewhere = not_a_memory_root(root.real)
    if elsewhere:  # never walk a home folder or `/` looking for memboard's files
        return [Finding("not_a_memory_root", "", f"{root.path} is not a memory root ({elsewhere}): nothing to check")], Plan("doctor --fix")
    findings, copied = leftover_findings(root)
    if any(f.kind == CONFLICT_MARKERS for f in findings):
        plan = Plan("doctor --fix")  # rows past a conflict block are invisible: repair nothing
    else:
        checkup = Checkup(root, when, copied)
        if checkup.index_usable():
            checkup.check_rows()
            checkup.check_live_rows()
            checkup.check_orphans()
            checkup.check_archive_folders()
            checkup.check_links()
            plan = checkup.plan()
        else:
            plan = Plan("doctor --fix")
        findings += checkup.findings
        legacy_state(root, findings, plan)
    plan.result = {"findings": [f.as_dict() for f in findings]}
    return findings, plan


def repair_plan(root: MemoryRoot, when: datetime) -> Plan:
    """The plan `doctor --fix` applies; refused, nothing written, while index.md holds conflict markers."""
    IndexFile(root.read(INDEX) or b"").refuse_conflicts()
    return diagnose(root, when)[1]


def leftover_findings(root: MemoryRoot) -> tuple[list[Finding], set[str]]:
    """What other tools left: merge-conflict markers in index.md, sync-conflict copies (with the
    names under sessions/ that are copies, so that none is taken for a session)."""
    findings = []
    markers = IndexFile(root.read(INDEX) or b"").conflict_lines
    if markers:
        findings.append(Finding(
            CONFLICT_MARKERS, "",
            f"index.md holds merge-conflict markers ({line_list(markers)}), left by a git merge, rebase or "
            "stash; every change is refused and nothing else is checked until they are gone: edit index.md, keep "
            "the rows you want from each side, delete the marker lines, then run memboard doctor again",
        ))
    copied = set()
    for copy in find_copies(root, thorough=True):
        parts = copy.original.split("/")  # index.md, sessions/<id>.md or archive/<id>/<name>.md
        sid = "" if len(parts) == 1 else parts[1] if len(parts) == 3 else parts[1][:-3]
        findings.append(Finding("sync_conflict_copy", sid, copy_advice(copy)))
        if parts[0] == SESSIONS:
            copied.add(copy.path[len(SESSIONS) + 1 : -3])
    return findings, copied


def legacy_state(root: MemoryRoot, findings: list[Finding], plan: Plan) -> None:
    """Offer to move what an older memboard kept in the root's .memboard/ into local state (copy first)."""
    move = plan_legacy_move(root)
    if move.deletes:
        kinds = [(move.count(f"{STATE}/revisions/"), "snapshot revision(s)"),
                 (move.count(f"{STATE}/conversations/"), "conversation-map shard(s)"),
                 (sum(f"{STATE}/{log}" in move.files for log in LEGACY_LOGS), "hook log file(s)")]
        what = ", ".join(f"{n} {label}" for n, label in kinds if n)
        findings.append(Finding(
            "state_in_root", "",
            f"{STATE}/ in the memory root holds {what} written by an older memboard; a synced root carries them to "
            "every machine, and a revision keeps text later removed from a snapshot (a pasted secret)",
            f"copy them to memboard's local state ({LocalState(root).path}), read the copies back, "
            "then delete them from the root",
        ))
        plan.local += move.local
        plan.changes += move.deletes
    for rel in move.kept:
        findings.append(Finding("state_in_root", "", f"{rel} is not memboard's to move (unknown, or local state "
                                                    "holds a different file of that name); move or delete it by hand"))
