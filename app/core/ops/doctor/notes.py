"""Doctor's checks of typed notes (`notes/`): names, metadata, supersede links, an interrupted supersede.

- sync_conflict_copy: a sync tool's conflict copy of a note (`<key>.sync-conflict-…`, `<key> (… conflicted
  copy …)`, `<key>-<COMPUTER>`, …, naming the original's topic key): named with the advice for every
  conflict copy, never a note of its own (no other check looks at it, and no listing shows it);
- too_many_copies: 8 or more copies of one note (Syncthing deletes copies beyond 10);
- conflict_markers: a note that holds git's merge-conflict markers (to resolve by hand);
- note_name: a Markdown file under notes/ whose path is no note ID (to rename by hand);
- note_metadata: a field that is missing or wrong; the Topic Key is set from the file's path and
  a missing Status filled in (active, or superseded for a note moved aside), the rest is a
  person's to fix;
- note_interrupted_supersede: a topic's earlier note copied aside (`<key>~<n>`) by a save that
  stopped before the topic's own file changed: the copy holds nothing the topic's note does not,
  so the fix points the links that moved to it back and deletes it (the save can be made again);
- note_one_sided_link: a Supersedes / Superseded By link written on one side only; the fix
  writes the other side (a note named in Supersedes is marked superseded);
- note_link_to_missing: a link to a note that does not exist (reported only).

Notes are read by a line scan of their metadata; only the notes a repair touches are parsed.
"""

from __future__ import annotations

import dataclasses

from ...files.copies import ConflictCopy, copied_note, is_tail_name, note_copy
from ...files.root import MemoryRoot
from ...formats.layout import NOTES
from ...formats.note import Note, note_from_cells, problems_of, quick_cells, read_note, write_note
from ...formats.topic import note_id_of, note_path, split_note_id
from ...plan import Change, Plan
from ...results import DoctorResult, Finding
from ..notes.save import superseded_copy
from ..notes.store import note_files, read_listed
from .leftovers import copy_finding, marked_file, too_many_copies

SIDES = {"supersedes": "superseded_by", "superseded_by": "supersedes"}
FIELD_NAME = {"supersedes": "Supersedes", "superseded_by": "Superseded By"}


class NoteCheckup:
    """One pass over the notes: what they say, the findings, and the repaired values of the notes to rewrite."""

    def __init__(self, root: MemoryRoot, findings: list[Finding]):
        """Read every note's metadata."""
        self.root = root
        self.findings = findings
        self.notes: dict[str, Note] = {}
        self.data: dict[str, bytes] = {}
        self.fixed: dict[str, Note] = {}  # note ID -> its values once repaired
        self.doomed: set[str] = set()  # interrupted copies this repair deletes
        self.copies: list[ConflictCopy] = []  # sync-conflict copies of notes, none of them a note
        # the notes as doctor's merge of sync-conflict copies leaves them (see merging.py), else as on disk
        laid: dict[str, bytes | None] = getattr(root, "overlay", {})
        listed = note_files(root)
        restored = [rel for rel, data in laid.items() if data is not None and rel.startswith(f"{NOTES}/")]
        for rel in sorted({*listed, *(rel for rel in restored if note_id_of(rel) is not None)}):
            data = laid.get(rel) or read_listed(root, rel)
            if data is not None:
                note_id, note = rel[len(NOTES) + 1 : -3], note_from_cells(quick_cells(data))
                copied = copied_note(note_id, note.topic_key)
                if copied:  # (named like a note of its own: `<key>-<COMPUTER>`, `<key>_conflict-…`)
                    self.copies.append(ConflictCopy(rel, note_path(copied[0]), copied[1]))
                    continue
                self.data[note_id] = data
                self.notes[note_id] = note

    def add(self, kind: str, note_id: str, message: str, fix: str | None = None, subject: str | None = None) -> None:
        """Record a finding."""
        self.findings.append(Finding(kind, note_id, message, fix, subject))

    def current(self, note_id: str) -> Note:
        """A note's values as this repair leaves them so far (parsed in full the first time it is repaired)."""
        if note_id not in self.fixed:
            self.fixed[note_id] = read_note(self.data[note_id])
        return self.fixed[note_id]

    def change(self, note_id: str, **values: object) -> None:
        """Plan new values for a note."""
        self.fixed[note_id] = self.current(note_id).with_changes(**values)

    def plan_into(self, plan: Plan[DoctorResult]) -> None:
        """Add the repairs: rewritten notes first, then the deletions of interrupted copies."""
        for note_id, note in self.fixed.items():
            if note_id in self.doomed:
                continue
            before = self.data[note_id]
            after = write_note(before, note)
            if after != before:
                plan.changes.append(Change("modify", note_path(note_id), before, after))
        for note_id in sorted(self.doomed):
            plan.changes.append(Change("delete", note_path(note_id), self.data[note_id], None))


def _names(c: NoteCheckup) -> None:
    """note_name: Markdown files under notes/ that are not named by a note ID."""
    base = c.root.abs(NOTES)
    if not base.is_dir() or base.is_symlink():
        return
    named = {note_path(n) for n in c.data} | {copy.path for copy in c.copies}
    for path in sorted(base.rglob("*")):
        md = path.name.endswith(".md")
        if not md and not is_tail_name(path.name):  # (rclone's `<name>.md..path1` is a note's copy or nothing)
            continue
        rel = path.relative_to(c.root.path).as_posix()
        if rel not in named and not path.is_symlink() and path.is_file() and not path.name.startswith("."):
            data = read_listed(c.root, rel)
            copy = note_copy(rel, data) if data is not None else None
            if copy:
                c.copies.append(copy)
                continue
            if not md:
                continue
            c.add(
                "note_name",
                "",
                f"{rel} is not named by a topic key (lowercase a-z, 0-9, '.', '_', '-' segments "
                "joined by '/'): rename it to one, or move it out of notes/",
                subject=rel,
            )


def _metadata(c: NoteCheckup) -> None:
    """note_metadata: fields that are missing or wrong; the Topic Key and a missing Status are repaired."""
    for note_id, note in c.notes.items():
        problems = problems_of(note, note_id)
        if not problems:
            continue
        key, n = split_note_id(note_id) or (note_id, 0)
        repaired = note.topic_key != key or not note.status
        if note.topic_key != key:
            c.change(note_id, topic_key=key)
        if not note.status:
            c.change(note_id, status="superseded" if n else "active")
        left = problems_of(c.fixed[note_id], note_id) if repaired else problems
        message = f"{note_path(note_id)}: " + "; ".join(problems)
        if left:
            message += "; edit the note's Metadata table by hand for the rest"
        fix = written_words(c.data[note_id], c.fixed[note_id], left) if repaired else None
        c.add("note_metadata", note_id, message, fix, note_path(note_id))


def written_words(before: bytes, note: Note, left: list[str]) -> str:
    """What rewriting a note with note's values writes, cell by cell, as doctor's fix says it: `set F to V` for a
    cell that changes, `add the F row (V)` for a row the table lacked, or the whole Metadata table a note without
    one gets; and the fields it leaves for a hand (left: the problems that stay)."""
    was, now = quick_cells(before), quick_cells(write_note(before, note))
    if not was:
        filled = ", ".join(f"{name} {value}" for name, value in now.items() if value.strip() not in ("", "-"))
        words = f"add a Metadata table: {filled}, every other field -"
    else:
        words = "; ".join(
            f"add the {name} row ({value})" if name not in was else f"set {name} to {value}"
            for name, value in now.items()
            if was.get(name) != value
        )
    if left:
        fields = [problem.removeprefix("no ").split(" '")[0] for problem in left]
        words += f"; {', '.join(fields)} left for a hand"
    return words


def _interrupted(c: NoteCheckup) -> None:
    """note_interrupted_supersede: copies of a topic's note that a stopped save left beside it."""
    for note_id, note in c.notes.items():
        key, n = split_note_id(note_id) or (note_id, 0)
        topic = c.notes.get(key)
        if not n or topic is None or note_id in topic.supersedes or key not in note.superseded_by:
            continue
        if superseded_copy(c.data[key], key) != c.data[note_id]:
            continue
        c.doomed.add(note_id)
        for other, linked in c.notes.items():
            if other != key and other != note_id and note_id in linked.supersedes + linked.superseded_by:
                now = c.current(other)
                c.change(
                    other,
                    supersedes=tuple(key if x == note_id else x for x in now.supersedes),
                    superseded_by=tuple(key if x == note_id else x for x in now.superseded_by),
                )
        c.add(
            "note_interrupted_supersede",
            note_id,
            f"{note_path(note_id)} is a copy of {key} that a save stopped making (it holds nothing {key} does not)",
            f"point the links that moved to it back to {key} and delete it",
            note_path(key),
        )


def _links(c: NoteCheckup) -> None:
    """note_one_sided_link and note_link_to_missing: each link should be written on both notes."""
    for note_id, note in c.notes.items():
        if note_id in c.doomed:
            continue
        for side, other_side in SIDES.items():
            for other in getattr(note, side):
                target = c.notes.get(other)
                if target is None or other in c.doomed:
                    if other not in c.doomed:
                        c.add(
                            "note_link_to_missing",
                            note_id,
                            f"{note_path(note_id)} names {other} under "
                            f"{FIELD_NAME[side]}, and there is no such note: restore it or remove the link by hand",
                            subject=other,
                        )
                    continue
                if note_id in getattr(c.fixed.get(other, target), other_side):
                    continue
                now = c.current(other)
                extra = {"status": "superseded"} if other_side == "superseded_by" and now.status != "superseded" else {}
                c.change(other, **{other_side: getattr(now, other_side) + (note_id,)}, **extra)
                c.add(
                    "note_one_sided_link",
                    note_id,
                    f"{note_path(note_id)} names {other} under {FIELD_NAME[side]}, "
                    f"but {other} does not name it under {FIELD_NAME[other_side]}",
                    f"add {note_id} to {other}'s {FIELD_NAME[other_side]}"
                    + (" and mark it superseded" if extra else ""),
                    other,
                )


def note_copies(root: MemoryRoot) -> list[ConflictCopy]:
    """The sync-conflict copies of notes under notes/, as the note checks find them."""
    if not root.exists(NOTES):
        return []
    c = NoteCheckup(root, [])
    _names(c)
    return sorted(c.copies, key=lambda copy: copy.path)


def check_notes(root: MemoryRoot, findings: list[Finding], plan: Plan[DoctorResult]) -> None:
    """Run every note check, adding findings and repairs."""
    if not root.exists(NOTES):
        return
    c = NoteCheckup(root, findings)
    _names(c)
    on_disk: MemoryRoot = getattr(root, "base", root)  # (not the originals doctor's merge restores: merging.py)
    about = {copy.original: copy.original[len(NOTES) + 1 : -3] for copy in c.copies}
    for copy in sorted(c.copies, key=lambda copy: copy.path):
        copy = dataclasses.replace(copy, missing=not on_disk.exists(copy.original))
        findings.append(copy_finding(copy, about[copy.original]))
    findings += too_many_copies(c.copies, about)
    for note_id, data in c.data.items():
        marked = marked_file(note_path(note_id), data, note_id)
        if marked is not None:
            findings.append(marked)
    _metadata(c)
    _interrupted(c)
    _links(c)
    c.plan_into(plan)
