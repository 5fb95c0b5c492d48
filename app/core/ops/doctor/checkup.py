"""One doctor pass over a root: what it read, its findings so far, and the repairs it plans."""

from __future__ import annotations

import os
from datetime import datetime

from ...files.root import MemoryRoot
from ...formats.index import IndexEdit, IndexFile, Row, parse_refs
from ...formats.layout import INDEX, TEMP_SUFFIX
from ...formats.snapshot import render_template, text_of, with_text
from ...formats.sources import continues_from
from ...formats.text import encode
from ...merge.result import OpenCell, Prefer
from ...plan import Change, Plan
from ...results import DoctorResult, Finding

OP = "doctor --fix"
# the kinds of finding whose repair a caller may leave out (the board's doctor preview: `x`), each repaired on its
# own: the other checks then see the root as that kind leaves it (a missing snapshot left out is not there to link)
LEAVABLE = frozenset(
    {
        "idle_with_snapshot",
        "row_behind_snapshot",
        "missing_snapshot",
        "orphan_snapshot",
        "archive_without_index",
        "duplicate_id",
        "outside_row",
        "one_sided_link",
        "reference_to_archived",
        "reference_to_missing",
        "stray_temp",
    }
)
# what a counted plan (Checkup's counting) holds for each file it would create or write: only its changes' number is
# read, it is never applied or shown (650k missing snapshots at 1M rows: one object, not one each)
COUNTED = Change("create", "", None, None)
# a snapshot's old bytes (None: none) and new text, or the live row a missing snapshot is made from (missing_snapshot):
# 650k missing snapshots at 1M rows are rendered only when a plan needs their bytes (a doctor without --fix counts
# them), and each holds nothing but its row (a closure with its cells held three times as much)
Made = tuple[bytes | None, str] | Row


def patches(edit: IndexEdit) -> bool:
    """Whether edit's new bytes differ from its index's, known without making them: it only rewrites or deletes
    lines whose place it knows (the bytes IndexEdit._patched makes), and set_each keeps a rewritten line only when
    its new text differs from the old (a deleted row's line is never empty). False: not known (render to see)."""
    if edit.appended or not edit.replace:
        return False
    spans = edit.spans
    return all(spans.get(line) is not None for line in edit.replace)


def stray_temp_files(root: MemoryRoot) -> list[str]:
    """Temp files memboard left behind when a write was killed before its rename (never content)."""
    found = []
    for folder, dirs, files in os.walk(root.path):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for name in files:
            if name.startswith(".") and name.endswith(TEMP_SUFFIX):
                found.append(os.path.relpath(os.path.join(folder, name), root.path).replace(os.sep, "/"))
    return sorted(found)


class Referrers:
    """The live rows whose Referenced By (as read) lists each Session ID, in file order: one pass over every row, made
    on first use, instead of one per question (Checkup.template asks it for each missing snapshot it renders)."""

    def __init__(self, live: dict[str, Row]):
        """Over live (Session ID -> its one usable row), read when first asked."""
        self.live = live
        self._by_ref: dict[str, list[str]] | None = None

    def of(self, sid: str) -> list[str]:
        """The live rows whose Referenced By lists sid, in file order."""
        if self._by_ref is None:
            self._by_ref = {}
            for src, row in self.live.items():
                for ref in row.refs:
                    listed = self._by_ref.setdefault(ref, [])
                    if not listed or listed[-1] != src:
                        listed.append(src)
        return self._by_ref.get(sid, [])


class Checkup:
    """One doctor pass: the root as read, the findings, and the repairs planned for them."""

    def __init__(
        self,
        root: MemoryRoot,
        when: datetime,
        copied: frozenset[str] | set[str] = frozenset(),
        left_out: frozenset[str] = frozenset(),
        counting: bool = False,
        read: Checkup | None = None,
    ):
        """Read the index and list snapshots (not sync-conflict copies: `copied`) and archive folders (or take what
        pass `read` read of the same root: its index parsed once); the repairs of the kinds left_out (of LEAVABLE)
        are not planned (their findings still are); counting: the plan is only counted (its created snapshots hold
        no bytes: never applied)."""
        self.root, self.when, self.counting = root, when, counting
        self.left_out = left_out
        self.kept_orphans: set[str] = set()  # orphan snapshots not restored (left out): sessions, not missing ones
        self.before: bytes | None = root.read(INDEX) if read is None else read.before
        # (lean rows: 1M rows of cells held to the end of the pass took 1 GB)
        self.index: IndexFile = IndexFile(self.before or b"", lean=True) if read is None else read.index
        self.findings: list[Finding] = []
        self.edit: IndexEdit | None = None  # set by the index checks once the table can take repairs
        self.laid_out = False  # self.index is what the layout's repairs leave, not index.md as read (lay_out)
        self.file_changes: list[Change] = []  # archive files: after the snapshots, before the index
        self.new_texts: dict[str, Made] = {}  # snapshot path -> (old bytes, new text), or a missing snapshot's row
        self.dups: dict[str, list[Row]] = {}  # Session ID -> its rows, for an ID two rows or more share
        self.unusable: set[str] = set()  # the Session IDs of the table that have no usable row (see in_table)
        self.live: dict[str, Row] = {}  # Session ID -> its one usable row
        self.finishing: set[str] = set()  # live rows whose archive this repair finishes
        self.restored: dict[str, dict[str, str]] = {}  # orphan snapshot ID -> the row this repair appends
        self.snaps: set[str] = root.session_ids_on_disk() - set(copied) if read is None else read.snaps
        self.archived: set[str] = root.archived_ids() if read is None else read.archived
        self.referrers_index = Referrers(self.live)
        self._sources: dict[str, list[str]] = {}  # snapshot text -> its Continues From (see sources_in)
        # archived on one machine, updated on the other in the same minute (archived.py): the cells no time
        # decides (OpenCell: ours the archive's value, theirs the update's; by the file holding the update), the
        # side `memboard resolve` chose (prefer, for session `only` or every one), the cells it decided, and the
        # copies of index.md that stay in place while a row of theirs is open
        self.prefer: Prefer | None = None
        self.only: str | None = None
        self.archive_open: dict[str, list[tuple[OpenCell, str]]] = {}
        self.archive_decided: list[tuple[OpenCell, str]] = []
        self.kept_copies: set[str] = set()

    def add(self, kind: str, sid: str, message: str, fix: str | None = None, subject: str | None = None) -> None:
        """Record a finding (fix: what --fix does, None when a person has to act)."""
        self.findings.append(Finding(kind, sid, message, fix, subject))

    def in_table(self, sid: str) -> bool:
        """Whether a row of the table has this Session ID (a usable row or not; once the rows' checks ran)."""
        return sid in self.live or sid in self.unusable

    def repairs(self, kind: str) -> bool:
        """Whether this pass plans the repairs of kind (False when the caller left it out)."""
        return kind not in self.left_out

    def lay_out(self, index: IndexFile) -> None:
        """Go on from index, what a repair of the index's layout leaves (rows moved into the table, the line that
        makes one): every later check reads it, the plan's index edit starts from it and writes it (as read:
        self.before, the bytes on disk)."""
        self.index, self.laid_out = index, True
        if self.edit is not None:
            self.edit = index.edit()

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
        made = self.new_texts.get(rel)
        if isinstance(made, Row):
            text = self.template(made)
            self.new_texts[rel] = (None, text)
            return text
        if made is not None:
            return made[1]
        data = self.root.read(rel)
        if data is None:
            return None
        text = text_of(data)
        self.new_texts[rel] = (data, text)
        return text

    def set_text(self, rel: str, text: str) -> None:
        """Plan a snapshot's new text (its old bytes as read kept: snapshot_text read it first)."""
        made = self.new_texts.get(rel)
        self.new_texts[rel] = (made[0] if isinstance(made, tuple) else None, text)

    def template(self, row: Row) -> str:
        """The snapshot missing_snapshot creates for a live row: the template filled in from the row and the live
        rows whose Referenced By lists it (both as read)."""
        sid = row.id
        return render_template(
            sid,
            row.get("agent"),
            row.get("topic"),
            row.get("started_at"),
            row.get("updated_at"),
            context=row.get("summary"),
            status=row.status,
            continues=self.referrers_index.of(sid) or None,
        )

    def sources_in(self, text: str) -> list[str]:
        """The Session IDs text lists under Continues From, each text read once (both directions of the
        links ask about the same snapshots: 1,500 of them at 100k rows)."""
        found = self._sources.get(text)
        if found is None:
            found = self._sources[text] = continues_from(text)
        return found

    def referrers(self, sid: str) -> list[str]:
        """The live rows whose Referenced By (as read) lists sid, in file order (see Referrers)."""
        return self.referrers_index.of(sid)

    def refs_of(self, sid: str) -> list[str]:
        """Referenced By of a live or restored row, as this repair leaves it so far."""
        if sid in self.restored:
            return parse_refs(self.restored[sid]["referenced_by"])
        return self.live[sid].refs

    def plan(self, strays: bool = True) -> Plan[DoctorResult]:
        """The repairs in a safe order: snapshots, stray temp files (unless not strays), archive files, then the
        index."""
        plan = Plan(OP, DoctorResult(self.findings))
        for rel, made in self.new_texts.items():
            if isinstance(made, Row):  # (a missing snapshot, made from its row)
                if self.counting:  # (a counted plan is never applied or shown: one Change stands for each)
                    plan.changes.append(COUNTED)
                else:
                    plan.changes.append(Change("create", rel, None, encode(self.template(made))))
                continue
            old, text = made
            if old is None:
                plan.changes.append(COUNTED if self.counting else Change("create", rel, None, encode(text)))
            elif text_of(old) != text:
                plan.changes.append(Change("modify", rel, old, with_text(old, text)))
        for rel in stray_temp_files(self.root) if strays else []:
            self.add("stray_temp", rel, f"{rel} is a temp file left by an interrupted write", "delete it", rel)
            if self.repairs("stray_temp"):
                plan.changes.append(Change("delete", rel, self.root.read(rel), None))
        plan.changes.extend(self.file_changes)
        after: bytes | None = self.index.data if self.laid_out else None
        if self.edit is not None:
            for values in self.restored.values():
                self.edit.append(values)
            if self.counting and not self.laid_out and patches(self.edit):  # (counted: 1M rows' new bytes not made)
                plan.changes.append(COUNTED)
                return plan
            if self.edit.changed:  # (an unchanged edit would render the whole index only to find it the same)
                after = self.edit.to_bytes()
        if after is not None and after != self.before:
            plan.changes.append(Change.write(INDEX, self.before, after))
        return plan
