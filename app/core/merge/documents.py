"""Merging two (or, for git, three) versions of a snapshot, an archive file or a typed note (issue 26 §2):
section by section, item by item, as `update --snapshot` and `note save` merge.

Sections: a snapshot's (and an archive file's) sections merge by the Snapshot Merge Policy of
`update --snapshot` (snapshot.merge) with theirs as the new text; an item of theirs that an item of
ours already holds (same key, every line said, ours marked or neither) is left out first, so a marked
item is never joined again by its unmarked older self. A note's What, Why, Where and Learned keep
every statement of either version, compared as `note save` compares them (statements.py). After the
merge, no item or statement of either version has vanished; a merge that would lose one is not made
(the result is `unparsed`, ours unchanged). Text above the first section (a title) stays as ours has
it; lines of theirs there that ours lacks are reported in `outside`.

Metadata merges field by field (rules per file kind below). A field no rule decides is an open cell:
ours' value stays, unless prefer decides it; with marker_size each open field gets a standard conflict
block right before the Metadata table (a blank line after it), holding ours' and theirs' table rows as
written, so the table itself stays valid and holds ours' values; `memboard resolve` keeps the table's row
(ours) or puts the block's theirs row in its place, and removes the block.

With a base (git's common ancestor): a field or item changed on one side only takes that side (an
item one side removed and the other left as it was stays removed); changed on both sides, the rules
above apply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..errors import Refused, UsageError
from ..formats.index import format_refs, parse_refs
from ..formats.note import SECTIONS as NOTE_SECTIONS
from ..formats.note import parse_links, read_note
from ..formats.snapshot import (
    MARKER_RE,
    Item,
    Snapshot,
    is_marked,
    is_placeholder,
    merge,
    place_items,
    set_metadata,
    vanished,
    with_text,
)
from ..formats.statements import Statements
from ..formats.text import line_body, line_ending, split_cells, split_lines, unescape
from .result import Merged, OpenCell, Prefer, conflict_block

BULLET_RE = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+")
NONE_LINK = "-"
# A field rule: (ours' value, theirs' value, which side is later by its Updated field) -> the value, or None (open)
Rule = Callable[[str, str, str | None], str | None]


class _Unparsed(Exception):
    """A version cannot be merged as its kind (no sections, or the merge would lose something)."""


@dataclass
class _Meta:
    """A Metadata table as read: values by field (in the table's order) and each field's row as written."""

    values: dict[str, str] = field(default_factory=dict)
    lines: dict[str, str] = field(default_factory=dict)


def _meta(doc: Snapshot) -> _Meta:
    """The Metadata table of a parsed snapshot or note (a field written twice: its last row)."""
    out = _Meta()
    sec = doc.section("Metadata")
    if sec is None:
        return out
    for i in doc.table_lines(sec):
        body = line_body(doc.lines[i])
        cells = split_cells(body)
        if not cells or len(cells) < 2:
            continue
        if cells[0] == "Field" or set(cells[0]) <= set("-: "):
            continue
        name = unescape(cells[0])
        out.values[name] = unescape(cells[1])
        out.lines[name] = body
    return out


def _when(text: str) -> datetime | None:
    """A time as the protocol writes it (or ISO 8601), read alike on every machine (no local zone)."""
    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        return None
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value


def _later_side(ours: str, theirs: str) -> str | None:
    """Which version's time is later ("ours", "theirs"), or None when equal or not both times."""
    a, b = _when(ours), _when(theirs)
    if a is None or b is None or a == b:
        return None
    return "ours" if a > b else "theirs"


def later_time(ours: str, theirs: str, later: str | None) -> str | None:
    """The later of two times (a time over text that is none); None when neither is a time."""
    a, b = _when(ours), _when(theirs)
    if a is not None and b is not None:
        return ours if a >= b else theirs
    if a is not None or b is not None:
        return ours if a is not None else theirs
    return None


def earlier_time(ours: str, theirs: str, later: str | None) -> str | None:
    """The earlier of two times (a time over text that is none); None when neither is a time."""
    a, b = _when(ours), _when(theirs)
    if a is not None and b is not None:
        return ours if a <= b else theirs
    return later_time(ours, theirs, later)


def later_wins(ours: str, theirs: str, later: str | None) -> str | None:
    """The value of the version updated later; None (open) when neither is later."""
    return None if later is None else (ours if later == "ours" else theirs)


def always_open(ours: str, theirs: str, later: str | None) -> str | None:
    """No rule decides: the cell is open."""
    return None


def refs_union(ours: str, theirs: str, later: str | None) -> str | None:
    """Referenced By: both sets, ours' order first."""
    ids = parse_refs(ours)
    return format_refs(ids + [i for i in parse_refs(theirs) if i not in ids])


def links_union(ours: str, theirs: str, later: str | None) -> str | None:
    """Supersedes / Superseded By: both lists of note IDs, ours' order first."""
    ids = list(parse_links(ours))
    ids += [i for i in parse_links(theirs) if i not in ids]
    return ", ".join(ids) if ids else NONE_LINK


SNAPSHOT_RULES: dict[str, Rule] = {"Updated At": later_time, "Status": later_wins, "Topic": later_wins}
ARCHIVE_RULES: dict[str, Rule] = {"Updated At": later_time, "Referenced By": refs_union}
NOTE_RULES: dict[str, Rule] = {
    "Updated": later_time,
    "Created": earlier_time,
    "Supersedes": links_union,
    "Superseded By": links_union,
    "Session": later_wins,
    **dict.fromkeys(("Title", "Type", "Scope", "Status", "Project", "Topic Key"), always_open),
}


@dataclass
class _Fields:
    """What merging the Metadata fields decided: the values to write, the open fields."""

    changes: dict[str, str] = field(default_factory=dict)
    open: list[str] = field(default_factory=list)


def _merge_fields(
    ours: _Meta, theirs: _Meta, base: _Meta | None, rules: dict[str, Rule], default: Rule, updated: str
) -> _Fields:
    """Field by field: theirs' new fields added; a field changed on one side only (with base) takes
    that side; a field changed on both decided by its rule, or open."""
    later = _later_side(ours.values.get(updated, ""), theirs.values.get(updated, ""))
    out = _Fields()
    for name, mine in ((n, ours.values.get(n)) for n in [*ours.values, *theirs.values]):
        other = theirs.values.get(name)
        if other is None or name in out.changes or name in out.open or mine == other:
            continue
        was = base.values.get(name) if base is not None else None
        if mine is None:
            if base is None or was is None:
                out.changes[name] = other  # a field only theirs has (ours never removed it)
            continue
        if base is not None and was == other:
            continue  # only ours changed it
        if base is not None and was == mine:
            out.changes[name] = other  # only theirs changed it
            continue
        value = rules.get(name, default)(mine, other, later)
        if value is None:
            out.open.append(name)
        elif value != mine:
            out.changes[name] = value
    return out


def _said_lines(item: Item) -> list[str]:
    """An item's lines that say something, compared across versions: no list mark on the first line,
    no marker, no strike-through, no spaces at either end."""
    out = []
    for i, line in enumerate(item.text.splitlines()):
        text = BULLET_RE.sub("", line, count=1) if i == 0 else line
        text = MARKER_RE.sub("", text).replace("~~", "").strip(" \t\r\n")
        if text:
            out.append(text)
    return out


def _holds(mine: list[tuple[bool, set[str]]], other: Item) -> bool:
    """Whether one of ours' items of other's key (each: marked, its lines said) already holds theirs'
    item other: every line of other said in it, and other marked only if it is too (a marked item
    replaces its unmarked self)."""
    marked, lines = is_marked(other.text), _said_lines(other)
    return any((mark or not marked) and all(line in said for line in lines) for mark, said in mine)


def _by_key(doc: Snapshot) -> dict[tuple[str, str], list[tuple[bool, set[str]]]]:
    """Each item of doc by (section name case folded, key): whether it is marked, its lines said."""
    out: dict[tuple[str, str], list[tuple[bool, set[str]]]] = {}
    for sec in doc.sections:
        for it in sec.items:
            out.setdefault((sec.name.casefold(), it.key), []).append((is_marked(it.text), set(_said_lines(it))))
    return out


def _said(item: Item) -> str:
    """An item as written, whatever its line endings."""
    return item.kind + "\x00" + item.text.replace("\r\n", "\n").rstrip("\n")


def _without(doc: Snapshot, doomed: Callable[[str, Item], bool]) -> str:
    """doc's text without the items doomed(section name, item) picks (their lines removed); doc's text as
    it is when removing them would change how another item reads (a block joining the one before it)."""
    lines = list(doc.lines)
    spans, rest = [], []
    for sec in doc.sections:
        for it in sec.items:
            if doomed(sec.name.casefold(), it):
                spans.append((it.start, it.end))
            else:
                rest.append((sec.name.casefold(), _said(it)))
    if not spans:
        return doc.text()
    for start, end in sorted(spans, reverse=True):
        del lines[start : _removal_end(lines, start, end)]
    left = Snapshot("".join(lines))
    if [(sec.name.casefold(), _said(it)) for sec in left.sections for it in sec.items] != rest:
        return doc.text()
    return left.text()


def _removal_end(lines: list[str], start: int, end: int) -> int:
    """Where removing lines[start:end] should end: one blank line further when blank lines stand on
    both sides (no double blank line is left behind)."""
    blank_before = start > 0 and not lines[start - 1].strip(" \t\r\n")
    return end + 1 if blank_before and end < len(lines) and not lines[end].strip(" \t\r\n") else end


def _base_items(base: Snapshot | None) -> dict[str, set[str]]:
    """Each section's items as written in base (by section name, case folded)."""
    out: dict[str, set[str]] = {}
    for sec in base.sections if base is not None else []:
        out.setdefault(sec.name.casefold(), set()).update(_said(it) for it in sec.items)
    return out


def _merge_sections(ours: Snapshot, theirs: Snapshot, base: Snapshot | None) -> tuple[str, int]:
    """Every section but Metadata merged by the Snapshot Merge Policy, theirs as the new text; the
    text and how many items of theirs it added. Raises _Unparsed when it cannot be made losslessly."""
    if not ours.sections or not theirs.sections:
        raise _Unparsed
    was = _base_items(base)
    if base is not None:
        ours = Snapshot(_taken_from_theirs(ours, theirs, was))
    held = _by_key(ours)

    def left_out(name: str, it: Item) -> bool:
        """theirs' items that ours holds already, or (with base) that theirs did not change."""
        return _said(it) in was.get(name, set()) or _holds(held.get((name, it.key), []), it)

    new_text = _without(theirs, left_out)
    try:
        result = merge(ours.text(), new_text)
    except (Refused, UsageError) as err:
        raise _Unparsed from err
    if base is None and (vanished(theirs.text(), result.text) or lost_by_section(theirs, Snapshot(result.text))):
        raise _Unparsed
    return result.text, len(result.added) + len(result.marked)


def lost_by_section(old: Snapshot, new: Snapshot) -> list[tuple[str, str]]:
    """The items of old (but Metadata's and placeholders) whose key no section of new by that name holds,
    as (section, item text): what a merge would lose, section by section."""
    keys: dict[str, set[str]] = {}
    for sec in new.sections:
        keys.setdefault(sec.name.casefold(), set()).update(it.key for it in sec.items)
    return [
        (sec.name, it.text.rstrip("\r\n"))
        for sec in old.sections
        if sec.name.casefold() != "metadata"
        for it in sec.items
        if not is_placeholder(it.text) and it.key not in keys.get(sec.name.casefold(), set())
    ]


def _taken_from_theirs(ours: Snapshot, theirs: Snapshot, was: dict[str, set[str]]) -> str:
    """ours' text where theirs changed an item ours left as base had it: in its place theirs' one item
    of that key that base did not have, or nothing (theirs removed it)."""
    by_name = {sec.name.casefold(): sec.items for sec in theirs.sections}
    lines, eol, edits = list(ours.lines), ours.eol(), []
    for sec in ours.sections:
        name = sec.name.casefold()
        if name == "metadata" or name not in by_name:
            continue
        theirs_said = {_said(it) for it in by_name[name]}
        for it in sec.items:
            if is_placeholder(it.text) or _said(it) not in was.get(name, set()) or _said(it) in theirs_said:
                continue
            same = [j for j in by_name[name] if j.key == it.key and _said(j) not in was.get(name, set())]
            body = (
                [line_body(line) + eol for line in theirs.lines[same[0].start : same[0].end]] if len(same) == 1 else []
            )
            if body:
                body[-1] = line_body(body[-1]) + line_ending(lines[it.end - 1])
            edits.append((it.start, it.end, body))
    for start, end, body in sorted(edits, key=lambda e: -e[0]):
        lines[start : end if body else _removal_end(lines, start, end)] = body
    return _none_where_emptied(ours, Snapshot("".join(lines))) if edits else ours.text()


def _none_where_emptied(before: Snapshot, after: Snapshot) -> str:
    """after's text with `- None` in each section (but Metadata) that had items before and has none now."""
    text = after.text()
    emptied = [
        sec.name
        for sec in after.sections
        if sec.name.casefold() != "metadata"
        and not sec.items
        and any(not is_placeholder(it.text) for it in (before.section(sec.name) or sec).items)
    ]
    none = Snapshot("## None\n\n- None\n")
    for name in emptied:
        text = place_items(text, name, none, none.sections[0].items)
    return text


def _apply_fields(
    text: str, ours: _Meta, theirs: _Meta, fields_: _Fields, ident: str, prefer: Prefer | None, marker_size: int | None
) -> tuple[str, tuple[OpenCell, ...], int]:
    """text with the decided fields written (and open ones decided by prefer, or blocked with markers):
    the text, the open cells, how many cells of ours changed."""
    changes = dict(fields_.changes)
    cells = [
        OpenCell(ident, name, ours.values[name], theirs.values[name], ours.lines[name], theirs.lines[name])
        for name in fields_.open
    ]
    if prefer == "theirs":
        changes.update({cell.column: cell.theirs for cell in cells})
    if changes:
        text = set_metadata(text, changes)
    if prefer is not None:
        return text, (), len(changes)
    if marker_size is not None and cells:
        text = _with_blocks(text, cells, marker_size)
    return text, tuple(cells), len(changes)


def _with_blocks(text: str, cells: list[OpenCell], size: int) -> str:
    """text with a conflict block per open cell right before its Metadata table (a blank line after it):
    a reader taking a field's last row (Snapshot.metadata) or its first (note.quick_cells) reads ours'."""
    doc = Snapshot(text)
    sec = doc.section("Metadata")
    rows = doc.table_lines(sec) if sec is not None else []
    if not rows:
        return text
    lines, eol = list(doc.lines), doc.eol()
    block = "".join(conflict_block([c.ours_line], [c.theirs_line], eol, size) for c in cells) + eol
    lines.insert(min(rows), block)
    return "".join(lines)


def _outside(ours: Snapshot, theirs: Snapshot, skip: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The lines of theirs before its first section (a title, text above the sections) that ours does not
    have there: text no section holds, which the merge keeps as ours has it (skip: lines not to report)."""

    def head(doc: Snapshot) -> list[str]:
        """doc's lines before its first section, without line endings, blank ones left out."""
        end = doc.sections[0].heading if doc.sections else len(doc.lines)
        return [line_body(line) for line in doc.lines[:end] if line.strip(" \t\r\n")]

    mine = set(head(ours))
    return tuple(line for line in head(theirs) if line not in mine and line not in skip)


def _docs(ours: bytes, theirs: bytes, base: bytes | None) -> tuple[Snapshot, Snapshot, Snapshot | None]:
    """The three versions parsed."""
    return Snapshot(ours), Snapshot(theirs), Snapshot(base) if base is not None else None


def merge_snapshot(
    ours: bytes,
    theirs: bytes,
    base: bytes | None = None,
    *,
    row: dict[str, str] | None = None,
    prefer: Prefer | None = None,
    marker_size: int | None = None,
) -> Merged:
    """A snapshot (`sessions/<id>.md`, `archive/<id>/session.md`) merged from ours and theirs (and base).

    row: the merged index row's values, when known (Status and Topic come from it); prefer and
    marker_size as for merge_index."""
    forced = {}
    for column in ("Status", "Topic"):
        value = (row or {}).get(column.lower(), (row or {}).get(column))
        if value:
            forced[column] = value
    return _merge_document(ours, theirs, base, SNAPSHOT_RULES, always_open, "Updated At", forced, prefer, marker_size)


def merge_archive_index(
    ours: bytes,
    theirs: bytes,
    base: bytes | None = None,
    *,
    prefer: Prefer | None = None,
    marker_size: int | None = None,
) -> Merged:
    """`archive/<id>/index.md` merged by field: Updated At the later, Referenced By the union, others open."""
    return _merge_document(ours, theirs, base, ARCHIVE_RULES, always_open, "Updated At", {}, prefer, marker_size)


def _merge_document(
    ours: bytes,
    theirs: bytes,
    base: bytes | None,
    rules: dict[str, Rule],
    default: Rule,
    updated: str,
    forced: dict[str, str],
    prefer: Prefer | None,
    marker_size: int | None,
) -> Merged:
    """A snapshot-shaped file merged: sections by the Snapshot Merge Policy, Metadata by rules."""
    if ours == theirs or theirs == base:
        return _forced_only(ours, forced)
    if ours == base:
        return _forced_only(theirs, forced)
    o_doc, t_doc, b_doc = _docs(ours, theirs, base)
    try:
        text, added = _merge_sections(o_doc, t_doc, b_doc)
    except _Unparsed:
        return Merged(ours, unparsed=True)
    o_meta, t_meta = _meta(o_doc), _meta(t_doc)
    decided = _merge_fields(o_meta, t_meta, _meta(b_doc) if b_doc else None, rules, default, updated)
    for name, value in forced.items():
        decided.changes[name] = value
        if name in decided.open:
            decided.open.remove(name)
    ident = o_meta.values.get("Session ID") or t_meta.values.get("Session ID", "")
    text, cells, changed = _apply_fields(text, o_meta, t_meta, decided, ident, prefer, marker_size)
    outside = _outside(o_doc, t_doc)
    return Merged(with_text(ours, text), open=cells, added=added, cells=changed, outside=outside)


def _forced_only(data: bytes, forced: dict[str, str]) -> Merged:
    """data as it is, but for the fields the caller forces (the merged index row's Status and Topic)."""
    doc = Snapshot(data)
    meta = _meta(doc)
    changes = {k: v for k, v in forced.items() if meta.values.get(k) != v}
    if not changes or not doc.sections:
        return Merged(data)
    return Merged(with_text(data, set_metadata(doc.text(), changes)), cells=len(changes))


def merge_note(
    ours: bytes,
    theirs: bytes,
    base: bytes | None = None,
    *,
    prefer: Prefer | None = None,
    marker_size: int | None = None,
) -> Merged:
    """A typed note merged: every statement of What, Why, Where and Learned; Updated the later; Supersedes
    and Superseded By unions; a differing Title, Type, Scope, Status or Project open."""
    if ours == theirs or theirs == base:
        return Merged(ours)
    if ours == base:
        return Merged(theirs)
    o_doc, t_doc, b_doc = _docs(ours, theirs, base)
    try:
        text, added = _merge_statements(o_doc, t_doc, b_doc)
    except _Unparsed:
        return Merged(ours, unparsed=True)
    o_meta, t_meta = _meta(o_doc), _meta(t_doc)
    decided = _merge_fields(o_meta, t_meta, _meta(b_doc) if b_doc else None, NOTE_RULES, later_wins, "Updated")
    ident = o_meta.values.get("Topic Key") or t_meta.values.get("Topic Key", "")
    text, cells, changed = _apply_fields(text, o_meta, t_meta, decided, ident, prefer, marker_size)
    title = o_meta.values.get("Title", "")
    new_title = Snapshot(text).metadata().get("Title", title)
    if new_title != title and o_doc.title == title:
        text = retitled(text, title, new_title)
    outside = _outside(o_doc, t_doc, frozenset({f"# {t_meta.values.get('Title', '')}"}))
    return Merged(with_text(ours, text), open=cells, added=added, cells=changed, outside=outside)


def retitled(text: str, old: str, new: str) -> str:
    """text with its `# old` heading (before the first section) saying new."""
    lines = split_lines(text)
    for i, line in enumerate(lines):
        body = line_body(line)
        if body.startswith("## "):
            break
        if body.startswith("# ") and body[2:].strip().rstrip("#").strip() == old:
            lines[i] = f"# {new}" + line_ending(line)
            break
    return "".join(lines)


def _statements(doc: Snapshot, name: str) -> list[Item]:
    """A note section's statements as items (placeholders and blank items left out)."""
    return [it for it in doc.items(name) if it.text.strip()]


def _merge_statements(ours: Snapshot, theirs: Snapshot, base: Snapshot | None) -> tuple[str, int]:
    """ours' text with each statement of theirs that ours does not keep added to its section (with base:
    not those theirs left as they were, and without those of ours that theirs removed or changed)."""
    if not ours.sections or not theirs.sections:
        raise _Unparsed
    text, added = ours.text(), 0
    for name in NOTE_SECTIONS:
        was = Statements(it.text.strip() for it in _statements(base, name)) if base is not None else None
        kept = Statements(it.text.strip() for it in _statements(ours, name))
        new = [it for it in _statements(theirs, name) if not kept.keeps(it.text.strip())]
        new = [it for it in new if was is None or not was.says(it.text.strip())]
        if new:
            try:
                text = place_items(_with_section(text, name), name, theirs, new)
            except (Refused, UsageError) as err:
                raise _Unparsed from err
            added += len(new)
    if base is not None:
        text = _without_removed(Snapshot(text), theirs, base)
    text, more = _other_sections(text, theirs)
    added += more
    merged = Snapshot(text)
    for name in NOTE_SECTIONS:
        now = Statements(it.text.strip() for it in _statements(merged, name))
        lost = [it for doc in (ours, theirs) for it in _statements(doc, name) if not now.keeps(it.text.strip())]
        if lost and base is None:
            raise _Unparsed
    try:
        read_note(text)
    except UsageError as err:  # pragma: no cover - read_note reads any text
        raise _Unparsed from err
    return text, added


def _other_sections(text: str, theirs: Snapshot) -> tuple[str, int]:
    """text with the sections of theirs a note does not define (hand-written ones) merged in by the
    Snapshot Merge Policy, and how many items that added."""
    known = {"metadata", *(n.casefold() for n in NOTE_SECTIONS)}
    others = [sec for sec in theirs.sections if sec.name.casefold() not in known]
    if not others:
        return text, 0
    new_text = "".join(line for sec in others for line in theirs.lines[sec.heading : sec.end])
    try:
        result = merge(text, new_text)
    except (Refused, UsageError) as err:
        raise _Unparsed from err
    return result.text, len(result.added) + len(result.marked)


def _with_section(text: str, name: str) -> str:
    """text with an empty section name (a heading) where a note's sections' order puts it, if it has none."""
    doc = Snapshot(text)
    if doc.section(name) is not None:
        return text
    later = [n.casefold() for n in NOTE_SECTIONS[NOTE_SECTIONS.index(name) + 1 :]]
    at = next((sec.heading for sec in doc.sections if sec.name.casefold() in later), None)
    if at is None:
        return text  # at the end: place_items adds the section there
    lines, eol = list(doc.lines), doc.eol()
    lines.insert(at, f"## {name}{eol}{eol}")
    return "".join(lines)


def _without_removed(merged: Snapshot, theirs: Snapshot, base: Snapshot) -> str:
    """merged without the statements of base that ours kept as they were and theirs removed or changed."""
    was = {name.casefold(): Statements(it.text.strip() for it in _statements(base, name)) for name in NOTE_SECTIONS}
    there = {name.casefold(): Statements(it.text.strip() for it in _statements(theirs, name)) for name in NOTE_SECTIONS}

    def removed(name: str, it: Item) -> bool:
        """A statement base made, theirs no longer makes, and ours makes as base did."""
        statement = it.text.strip()
        return name in was and was[name].says(statement) and not there[name].says(statement)

    return _without(merged, removed)
