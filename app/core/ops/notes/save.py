"""Saving notes: the upsert by topic key and the conflict policy of seed 001.

A save names a topic key (or has one derived from scope, type and title). With no note there
it creates one. Over an existing note it compares statements (a new text keeps an earlier
statement only as statements.py says: unchanged, or only clarified at its end) and types:

- nothing new: unchanged, nothing written;
- every earlier statement kept and the type kept (new statements added, or only other metadata
  changed): updated in place;
- the type of a `decision`, a `preference` or a note of a Type memboard does not know (written
  by hand: `architecture`, `strategy`) changed: a conflict, as below — a decision saved as a
  fact is a decision reversed, and a fact's statements may then be dropped in place;
- earlier statements dropped or changed:
  - a `preference` (the new note's type or the old one's): the new note supersedes the old one;
    the old one moves aside to `<key>~<n>`, marked superseded, and both link to each other;
  - a `decision`: not written. The result is a conflict carrying both texts; the save goes
    through only when made again with a choice: `supersede` (as for a preference) or
    `keep_both` (the new note under a distinct key, `<key>.<scope>`, beside the old one);
  - any other type (fact, gotcha, episode, pattern, config, bugfix): a low-risk update, written
    in place, and the result names the statements the new text left out.

The rules compare with the note as it is (note apply: as it was before the whole apply, see
apply.py). Since kept is transitive (statements.py) and a guarded note's type never changes
without a choice, a sequence of saves each checked against the note before it cannot take a
decision's statement or type away step by step: every state it passes through keeps what the
note said when a person last chose (its creation, a supersede, a keep_both).

Whatever is replaced is kept: the text a save overwrites is written to the note's revisions in
local state by the same plan, before the note changes; a superseded note stays in the root.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from ...errors import Refused, UsageError
from ...files.revisions import note_revision
from ...files.root import MemoryRoot
from ...formats.clock import format_ts
from ...formats.ids import check_id
from ...formats.note import (
    MAX_PROJECT,
    MAX_TITLE,
    STATUSES,
    Note,
    NoteDraft,
    added_statements,
    decoded,
    dropped_statements,
    normalize_body,
    note_from_cells,
    one_line,
    quick_cells,
    read_note,
    write_note,
)
from ...formats.topic import (
    SCOPES,
    TYPES,
    check_choice,
    check_topic_key,
    is_topic_key,
    moved_id,
    note_path,
    split_note_id,
    suggest_topic_key,
)
from ...plan import Change, Check, Plan
from ...results import NoteConflict, NoteLinkResult, NoteSaveResult
from ...secrets import refuse_secrets
from .store import load_note, taken_ids

Choice = Literal["supersede", "keep_both"]
CHOICES = ("supersede", "keep_both")
GUARDED = ("decision", "preference")
OP = "note save"
MAX_KEEP_BOTH = 99


@dataclass(frozen=True)
class NoteFields:
    """The values an update changes (None: keep the note's own)."""

    title: str | None = None
    type: str | None = None
    scope: str | None = None
    what: str | None = None
    why: str | None = None
    where: str | None = None
    learned: str | None = None
    project: str | None = None
    session: str | None = None


def draft_note(draft: NoteDraft) -> Note:
    """A draft's values, checked: title, type and scope, topic key (derived when missing), project,
    Session ID and the four texts; a one-line UsageError for anything invalid."""
    title = one_line(draft.title, "title", MAX_TITLE)
    if not title:
        raise UsageError("a note needs a title")
    note_type = check_choice(draft.type, TYPES, "note type")
    scope = check_choice(draft.scope, SCOPES, "scope")
    key = (
        check_topic_key(draft.topic_key) if draft.topic_key is not None else suggest_topic_key(scope, note_type, title)
    )
    session = check_id(draft.session) if draft.session else ""
    return Note(
        title,
        note_type,
        scope,
        key,
        project=one_line(draft.project, "project", MAX_PROJECT),
        session=session,
        what=normalize_body(draft.what, "what"),
        why=normalize_body(draft.why, "why"),
        where=normalize_body(draft.where, "where"),
        learned=normalize_body(draft.learned, "learned"),
    )


def refuse_note_secrets(note: Note, allow: bool) -> None:
    """Refuse (SecretFound, nothing written) a note whose text holds a credential: its texts, its Session ID and its
    topic key (its file's name), unless that is the key derived from its title (scanned itself: a slug of prose can
    look like a token, `sk-learn-…`)."""
    derived = note.topic_key == suggest_topic_key(note.scope, note.type, note.title)
    refuse_secrets(
        {
            "topic key": None if derived else note.topic_key,
            "title": note.title,
            "project": note.project,
            "what": note.what,
            "why": note.why,
            "where": note.where,
            "learned": note.learned,
            "session": note.session,
        },
        allow,
    )


def holds(note_id: str, status: str, **links: str) -> Check:
    """A check that a note file exists with this status (and lists these links)."""
    rel = note_path(note_id)

    def check(root: MemoryRoot) -> bool:
        data = root.read(rel)
        if data is None:
            return False
        note = note_from_cells(quick_cells(data))  # its metadata only: no Markdown parser over a long note
        return note.status == status and all(v in getattr(note, k) for k, v in links.items())

    return Check(f"{rel} is {status}", check)


def _result(outcome: str, note_id: str, added: list[str], dropped: list[str], **more: object) -> NoteSaveResult:
    """A save's result for a note that is active afterwards."""
    return NoteSaveResult(outcome, note_id, note_path(note_id), "active", added, dropped, **more)  # type: ignore[arg-type]


def _create(note_id: str, note: Note, ts: str, outcome: str = "created", **more: object) -> Plan[NoteSaveResult]:
    """A plan that writes a new note."""
    new = note.with_changes(topic_key=note_id, status="active", created=ts, updated=ts)
    data = write_note(None, new)
    plan = Plan(OP, _result(outcome, note_id, added_statements(None, new), [], **more))
    plan.changes.append(Change("create", note_path(note_id), None, data))
    plan.checks.append(holds(note_id, "active"))
    plan.report.append(f"saved note {note_id} ({new.type}, {new.scope})")
    return plan


def _keep_revision(root: MemoryRoot, plan: Plan[NoteSaveResult], note_id: str, old: bytes) -> None:
    """Keep the text a plan replaces as the note's revision (written under the lock, before the note)."""
    change = note_revision(root, note_id, old)
    if change is not None:
        plan.local.append(change)


def _in_place(
    root: MemoryRoot, note_id: str, old: bytes, new: Note, added: list[str], dropped: list[str]
) -> Plan[NoteSaveResult]:
    """A plan that rewrites a note in place, keeping its previous text as a revision."""
    data = write_note(old, new)
    plan = Plan(OP, _result("updated", note_id, added, dropped, revision=True))
    plan.changes.append(Change("modify", note_path(note_id), old, data))
    plan.checks.append(holds(note_id, new.status))
    _keep_revision(root, plan, note_id, old)
    plan.report.append(f"updated note {note_id}" + (f" (+{len(added)} statement(s))" if added else ""))
    if dropped:
        plan.report.append(f"{len(dropped)} earlier statement(s) left out; the previous text is kept as a revision")
    return plan


def _relink(root: MemoryRoot, plan: Plan[NoteSaveResult], note: Note, old_id: str, new_id: str) -> None:
    """Point the links of every note that note links to from old_id to new_id (the note moved aside)."""
    for other in dict.fromkeys(note.supersedes + note.superseded_by):
        if other in (old_id, new_id) or split_note_id(other) is None:
            continue
        rel = note_path(other)
        data = root.read(rel)
        if data is None:
            continue
        linked = read_note(data)
        fixed = linked.with_changes(
            supersedes=tuple(new_id if x == old_id else x for x in linked.supersedes),
            superseded_by=tuple(new_id if x == old_id else x for x in linked.superseded_by),
        )
        if fixed != linked:
            plan.changes.append(Change("modify", rel, data, write_note(data, fixed)))


def superseded_copy(old: bytes, key: str) -> bytes:
    """The earlier note of topic key as it is kept once superseded on its topic: the same file,
    marked superseded by the topic's new note (Updated is kept: its text did not change)."""
    note = read_note(old)
    links = note.superseded_by if key in note.superseded_by else note.superseded_by + (key,)
    return write_note(old, note.with_changes(status="superseded", superseded_by=links))


def _supersede(
    root: MemoryRoot, key: str, old: bytes, current: Note, new: Note, ts: str, added: list[str], dropped: list[str]
) -> Plan[NoteSaveResult]:
    """A plan that moves the topic's note aside (superseded) and writes the new one in its place.

    Order: the earlier note's copy first (`<key>~<n>`), then the links of notes it links to,
    then the topic's file; a crash in between leaves the topic's file as it was, and doctor
    finds the copy and undoes it.
    """
    taken = taken_ids(root, key)
    n = next(i for i in range(1, len(taken) + 2) if moved_id(key, i) not in taken)
    moved = moved_id(key, n)
    fresh = new.with_changes(
        topic_key=key,
        status="active",
        supersedes=(moved,),
        superseded_by=(),
        project=new.project or current.project,
        created=ts,
        updated=ts,
    )
    plan = Plan(OP, _result("superseded", key, added, dropped, superseded=moved, revision=True))
    plan.changes.append(Change("create", note_path(moved), None, superseded_copy(old, key)))
    _relink(root, plan, current, key, moved)
    plan.changes.append(Change("modify", note_path(key), old, write_note(None, fresh)))
    plan.checks += [holds(moved, "superseded", superseded_by=key), holds(key, "active", supersedes=moved)]
    _keep_revision(root, plan, key, old)
    plan.report.append(f"saved note {key}; the earlier note moved to {moved}, marked superseded by it")
    return plan


def _keep_both_id(root: MemoryRoot, key: str, new: Note) -> tuple[str, bool]:
    """The distinct key keep_both saves the new note under (`<key>.<scope>`, then `-2`, `-3`, ...),
    and whether a note with the same statements is there already."""
    for n in range(1, MAX_KEEP_BOTH + 1):
        candidate = f"{key}.{new.scope}" + (f"-{n}" if n > 1 else "")
        if not is_topic_key(candidate):
            break
        data = root.read(note_path(candidate))
        if data is None:
            return candidate, False
        there = read_note(data)
        if not dropped_statements(there, new) and not added_statements(there, new):
            return candidate, True
    raise Refused(
        f"cannot derive a distinct key beside {key} to keep both notes; save with another topic key; nothing written",
        says_written=True,
    )


def _keep_both(root: MemoryRoot, key: str, new: Note, ts: str) -> Plan[NoteSaveResult]:
    """A plan that saves the new note beside the topic's note, under a distinct key (both stay active)."""
    other, there = _keep_both_id(root, key, new)
    if there:
        plan = Plan(OP, _result("unchanged", other, [], [], kept_beside=key))
        plan.report.append(f"note {other} beside {key} already says this; nothing to change")
        return plan
    plan = _create(other, new, ts, "kept_both", kept_beside=key)
    plan.report.append(f"kept {key} as it is; both notes stay active, each with its scope")
    return plan


def guarded(note_type: str) -> bool:
    """Whether a type's notes are asked about, never overwritten: a decision, a preference, or a Type memboard
    does not know (written by hand: `architecture`, `strategy`, none at all)."""
    return note_type in GUARDED or note_type not in TYPES


def _conflict(
    root: MemoryRoot, key: str, old: bytes, base: bytes, candidate: Note, was: Note, dropped: list[str]
) -> Plan[NoteSaveResult]:
    """A plan that writes nothing and carries the conflict: both texts, the statements dropped, a type change."""
    other, _ = _keep_both_id(root, key, candidate)
    retyped = candidate.type if candidate.type != was.type else ""
    conflict = NoteConflict(
        key, was.type, decoded(base), decoded(write_note(old, candidate)), dropped, other, new_type=retyped
    )
    plan = Plan(OP, NoteSaveResult("conflict", key, note_path(key), was.status, [], dropped, conflict=conflict))
    what = [f"changes its type from {was.type or '(none)'} to {candidate.type}"] if retyped else []
    if dropped:
        what.append(f"drops or changes {len(dropped)} earlier statement(s), such as {dropped[0][:60]!r}")
    plan.report.append(
        f"decision conflict on {key}: the new text {' and '.join(what)}; nothing written; "
        "save again choosing supersede or keep_both"
    )
    return plan


def _over(
    root: MemoryRoot, key: str, old: bytes, new: Note, ts: str, choice: str | None, base: bytes | None = None
) -> Plan[NoteSaveResult]:
    """The plan of a save over the topic's existing note (see the module's docstring); base is the note the
    conflict rules compare with (None: the note as it is)."""
    current = read_note(old)
    was = current if base is None else read_note(base)
    candidate = current.with_changes(
        title=new.title,
        type=new.type,
        scope=new.scope,
        topic_key=key,
        project=new.project or current.project,
        session=new.session or current.session,
        what=new.what,
        why=new.why,
        where=new.where,
        learned=new.learned,
        status=current.status if current.status in STATUSES else "active",
        created=current.created or ts,
        updated=ts,
    )
    dropped, added = dropped_statements(was, candidate), added_statements(current, candidate)
    if current.status == "superseded":  # marked superseded where it stands: the new note takes its place
        return _supersede(root, key, old, current, new, ts, added, dropped)
    if candidate.with_changes(updated=current.updated) == current:
        plan = Plan(OP, _result("unchanged", key, [], []))
        plan.report.append(f"note {key} already says this; nothing to change")
        return plan
    retyped = new.type != was.type and guarded(was.type)
    if not dropped and not retyped:
        return _in_place(root, key, old, candidate, added, dropped)
    types = (was.type, new.type)
    if choice == "keep_both":
        return _keep_both(root, key, new.with_changes(project=candidate.project), ts)
    if choice == "supersede" or ("preference" in types and "decision" not in types and not retyped):
        return _supersede(root, key, old, current, new, ts, added, dropped)
    if retyped or "decision" in types:
        return _conflict(root, key, old, old if base is None else base, candidate, was, dropped)
    return _in_place(root, key, old, candidate, added, dropped)


def plan_note_save(
    root: MemoryRoot,
    draft: NoteDraft,
    when: datetime,
    choice: Choice | None = None,
    allow_secrets: bool = False,
    base: bytes | None = None,
) -> Plan[NoteSaveResult]:
    """Save a note under its topic key by the conflict policy (see the module's docstring).

    choice settles a save that drops or changes earlier statements: `supersede` or `keep_both`;
    a decision saved without one is a conflict (outcome `conflict`, nothing written). base is the
    note file the conflict rules compare with when it is not the note as root holds it (note apply:
    the note before the whole apply).
    """
    if choice is not None:
        check_choice(choice, CHOICES, "choice")
    new = draft_note(draft)
    refuse_note_secrets(new, allow_secrets)
    ts = format_ts(when)
    old = root.read(note_path(new.topic_key))
    if old is None:
        return _create(new.topic_key, new, ts)
    return _over(root, new.topic_key, old, new, ts, choice, base)


def plan_note_update(
    root: MemoryRoot,
    ref: str,
    fields: NoteFields,
    when: datetime,
    choice: Choice | None = None,
    allow_secrets: bool = False,
) -> Plan[NoteSaveResult]:
    """Change some values of a note named by its ID or topic key (seed 001's mem_update).

    The note's other values stay. On a topic's current note the change is a save by the same
    policy (a decision's dropped statements are a conflict unless choice is given). An earlier
    note moved aside (`<key>~<n>`) is history: it takes changes that keep its statements only.
    """
    note_id, data, current = load_note(root, ref)
    key, n = split_note_id(note_id) or (note_id, 0)
    pick = {name: getattr(fields, name) for name in NoteFields.__dataclass_fields__}
    draft = NoteDraft(
        title=current.title if pick["title"] is None else pick["title"],
        type=current.type if pick["type"] is None else pick["type"],
        scope=current.scope if pick["scope"] is None else pick["scope"],
        what=current.what if pick["what"] is None else pick["what"],
        why=current.why if pick["why"] is None else pick["why"],
        where=current.where if pick["where"] is None else pick["where"],
        learned=current.learned if pick["learned"] is None else pick["learned"],
        topic_key=key,
        project=pick["project"],
        session=pick["session"],
    )
    if n == 0 and current.status != "superseded":
        return plan_note_save(root, draft, when, choice, allow_secrets)
    new = draft_note(draft)
    refuse_note_secrets(new, allow_secrets)
    candidate = current.with_changes(
        title=new.title,
        type=new.type,
        scope=new.scope,
        project=new.project or current.project,
        session=new.session or current.session,
        what=new.what,
        why=new.why,
        where=new.where,
        learned=new.learned,
        updated=format_ts(when),
    )
    dropped = dropped_statements(current, candidate)
    if dropped:
        raise Refused(
            f"{note_id} is superseded: it keeps its statements (the change drops {dropped[0][:60]!r}); "
            "add to it, or save a new note on its topic; nothing written",
            says_written=True,
        )
    if new.type != current.type and guarded(current.type):
        raise Refused(
            f"{note_id} is superseded: it keeps its type ({current.type or 'none'}, not {new.type}); "
            "save a new note on its topic; nothing written",
            says_written=True,
        )
    if candidate.with_changes(updated=current.updated) == current:
        return Plan(OP, NoteSaveResult("unchanged", note_id, note_path(note_id), current.status, [], []))
    plan = _in_place(root, note_id, data, candidate, added_statements(current, candidate), [])
    return plan.with_result(plan.result._replace(status=current.status))


def plan_note_supersede(root: MemoryRoot, old_ref: str, new_ref: str, when: datetime) -> Plan[NoteLinkResult]:
    """Mark one note superseded by another (of any topic): the old one's Status and Superseded By,
    then the new one's Supersedes; a crash between the two leaves a one-sided link doctor completes."""
    old_id, old_data, old_note = load_note(root, old_ref)
    new_id, new_data, new_note = load_note(root, new_ref)
    if old_id == new_id:
        raise UsageError("a note cannot supersede itself")
    if new_note.status == "superseded":
        raise Refused(
            f"{new_id} is itself superseded; pick the note that replaces {old_id} now; nothing written",
            says_written=True,
        )
    ts = format_ts(when)
    plan = Plan("note supersede", NoteLinkResult(old_id, new_id))
    marked = old_note.with_changes(
        status="superseded", superseded_by=tuple(dict.fromkeys(old_note.superseded_by + (new_id,))), updated=ts
    )
    linked = new_note.with_changes(supersedes=tuple(dict.fromkeys(new_note.supersedes + (old_id,))), updated=ts)
    if marked.with_changes(updated=old_note.updated) != old_note:
        plan.changes.append(Change("modify", note_path(old_id), old_data, write_note(old_data, marked)))
    if linked.with_changes(updated=new_note.updated) != new_note:
        plan.changes.append(Change("modify", note_path(new_id), new_data, write_note(new_data, linked)))
    plan.checks += [
        holds(old_id, "superseded", superseded_by=new_id),
        holds(new_id, new_note.status, supersedes=old_id),
    ]
    plan.report.append(f"{old_id} superseded by {new_id}" if plan.changes else "nothing to change")
    return plan


def plan_note_mark(root: MemoryRoot, ref: str, status: str, when: datetime) -> Plan[NoteSaveResult]:
    """Set a note's Status (active or superseded) where it stands; its links stay as they are.

    An earlier note moved aside (`<key>~<n>`) cannot become active again: its topic has a newer note.
    """
    check_choice(status, STATUSES, "note status")
    note_id, data, current = load_note(root, ref)
    if status == "active" and (split_note_id(note_id) or ("", 0))[1]:
        raise Refused(
            f"{note_id} was moved aside by a newer note on its topic; save its text under the topic instead; "
            "nothing written",
            says_written=True,
        )
    result = NoteSaveResult("unchanged", note_id, note_path(note_id), status, [], [])
    if current.status == status:
        return Plan("note mark", result)
    plan = Plan("note mark", result._replace(outcome="updated"))
    new = current.with_changes(status=status, updated=format_ts(when))
    plan.changes.append(Change("modify", note_path(note_id), data, write_note(data, new)))
    plan.checks.append(holds(note_id, status))
    plan.report.append(f"marked {note_id} {status}")
    return plan
