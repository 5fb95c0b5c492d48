"""One doctor pass over a root: what it read, its findings so far, and the repairs it plans."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime

from ...files.root import MemoryRoot
from ...formats.index import IndexEdit, IndexFile, Row, parse_refs
from ...formats.layout import INDEX, TEMP_SUFFIX
from ...formats.snapshot import text_of, with_text
from ...formats.sources import continues_from
from ...formats.text import encode
from ...plan import Change, Plan
from ...results import DoctorResult, Finding

OP = "doctor --fix"
# a snapshot's new text, or what makes it: 70k missing snapshots at 100k rows are rendered only when a plan
# needs their bytes (a doctor without --fix counts them)
Text = str | Callable[[], str]


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
    """One doctor pass: the root as read, the findings, and the repairs planned for them."""

    def __init__(
        self, root: MemoryRoot, when: datetime, copied: frozenset[str] | set[str] = frozenset(), counting: bool = False
    ):
        """Read the index and list snapshots (not sync-conflict copies: `copied`) and archive folders; counting:
        the plan is only counted (its created snapshots hold no bytes: never applied)."""
        self.root, self.when, self.counting = root, when, counting
        self.before = root.read(INDEX)
        self.index = IndexFile(self.before or b"")
        self.findings: list[Finding] = []
        self.edit: IndexEdit | None = None  # set by the index checks once the table can take repairs
        self.file_changes: list[Change] = []  # archive files: after the snapshots, before the index
        self.new_texts: dict[str, tuple[bytes | None, Text]] = {}  # snapshot path -> (old bytes, new text)
        self.by_id: dict[str, list[Row]] = {}
        self.live: dict[str, Row] = {}  # Session ID -> its one usable row
        self.finishing: set[str] = set()  # live rows whose archive this repair finishes
        self.restored: dict[str, dict[str, str]] = {}  # orphan snapshot ID -> the row this repair appends
        self.snaps = root.session_ids_on_disk() - set(copied)
        self.archived = root.archived_ids()
        self._referrers: dict[str, list[str]] | None = None
        self._sources: dict[str, list[str]] = {}  # snapshot text -> its Continues From (see sources_in)

    def add(self, kind: str, sid: str, message: str, fix: str | None = None, subject: str | None = None) -> None:
        """Record a finding (fix: what --fix does, None when a person has to act)."""
        self.findings.append(Finding(kind, sid, message, fix, subject))

    def index_edit(self) -> IndexEdit:
        """The edit of index.md this repair makes (the rows' checks run only once the table can take one)."""
        if self.edit is None:
            self.edit = self.index.edit()
        return self.edit

    def change_row(self, row: Row, fields: dict[str, str]) -> None:
        """Plan new values for some cells of a row."""
        self.index_edit().set_fields(row, fields)

    def snapshot_text(self, rel: str) -> str | None:
        """A snapshot's text as this repair leaves it (None when there is none)."""
        if rel in self.new_texts:
            old, text = self.new_texts[rel]
            if not isinstance(text, str):
                text = text()
                self.new_texts[rel] = (old, text)
            return text
        data = self.root.read(rel)
        if data is None:
            return None
        text = text_of(data)
        self.new_texts[rel] = (data, text)
        return text

    def sources_in(self, text: str) -> list[str]:
        """The Session IDs text lists under Continues From, each text read once (both directions of the
        links ask about the same snapshots: 1,500 of them at 100k rows)."""
        found = self._sources.get(text)
        if found is None:
            found = self._sources[text] = continues_from(text)
        return found

    def referrers(self, sid: str) -> list[str]:
        """The live rows whose Referenced By (as read) lists sid, in file order: one pass over every row,
        made on first use, instead of one per question."""
        if self._referrers is None:
            self._referrers = {}
            for src, row in self.live.items():
                for ref in row.refs:
                    listed = self._referrers.setdefault(ref, [])
                    if not listed or listed[-1] != src:
                        listed.append(src)
        return self._referrers.get(sid, [])

    def refs_of(self, sid: str) -> list[str]:
        """Referenced By of a live or restored row, as this repair leaves it so far."""
        if sid in self.restored:
            return parse_refs(self.restored[sid]["referenced_by"])
        return self.live[sid].refs

    def plan(self) -> Plan[DoctorResult]:
        """The repairs in a safe order: snapshots, stray temp files, archive files, then the index."""
        plan = Plan(OP, DoctorResult(self.findings))
        for rel, (old, text) in self.new_texts.items():
            if old is None:
                made = None if self.counting else encode(text if isinstance(text, str) else text())
                plan.changes.append(Change("create", rel, None, made))
                continue
            if not isinstance(text, str):  # (only a new snapshot is made later; kept in case)
                text = text()
            if text_of(old) != text:
                plan.changes.append(Change("modify", rel, old, with_text(old, text)))
        for rel in stray_temp_files(self.root):
            self.add("stray_temp", rel, f"{rel} is a temp file left by an interrupted write", "delete it", rel)
            plan.changes.append(Change("delete", rel, self.root.read(rel), None))
        plan.changes.extend(self.file_changes)
        if self.edit is not None:
            for values in self.restored.values():
                self.edit.append(values)
            if self.edit.changed:  # (an unchanged edit would render the whole index only to find it the same)
                after = self.edit.to_bytes()
                if after != self.before:
                    plan.changes.append(Change.write(INDEX, self.before, after))
        return plan
