"""Session snapshots (`sessions/<id>.md`): the seed's template, section parsing and merging.

Structure comes from mistletoe (headings, lists, tables with their line numbers); edits are
made on the original lines so that everything memboard does not mean to change survives.
The merge follows the seed's Snapshot Merge Policy: the old snapshot is the base, new items
are added section by section, and no old item vanishes — it stays, or the new text marks it
`[superseded]`, `[resolved]` or `[done]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .index import decode, encode, escape, line_body, line_ending, split_cells, split_lines, unescape

MARKERS = ("[superseded]", "[resolved]", "[done]")
MARKER_RE = re.compile(r"\[(superseded|resolved|done)\]", re.IGNORECASE)
LIST_MARK_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
PLACEHOLDER_RE = re.compile(r"^(?:none|`none`|n/?a)\.?$", re.IGNORECASE)

SECTION_ORDER = (
    "Metadata",
    "Current Context",
    "Decisions",
    "Files / Artifacts",
    "Open Questions",
    "Next Actions",
    "Continues From",
    "Superseded / Resolved",
)

TEMPLATE = """# Session: {id}

## Metadata

| Field | Value |
|---|---|
| Session ID | {id} |
| Agent Name | {agent} |
| Topic | {topic} |
| Status | {status} |
| Started At | {started} |
| Updated At | {updated} |

## Current Context

{context}

## Decisions

{decisions}

## Files / Artifacts

{files}

## Open Questions

{questions}

## Next Actions

{actions}

## Continues From

{continues}

## Superseded / Resolved

{superseded}
"""


def _bullets(items: list[str] | None, default: str) -> str:
    """A Markdown bullet list, or the template's default text."""
    if not items:
        return default
    return "\n".join(f"- {item}" for item in items)


def render_template(
    session_id: str,
    agent: str,
    topic: str,
    started: str,
    updated: str,
    context: str = "",
    status: str = "active",
    decisions: list[str] | None = None,
    files: list[str] | None = None,
    questions: list[str] | None = None,
    actions: list[str] | None = None,
    continues: list[str] | None = None,
    superseded: list[str] | None = None,
) -> str:
    """A new snapshot exactly in the seed's template, filled with the given values."""
    return TEMPLATE.format(
        id=session_id,
        agent=agent,
        topic=escape(topic),
        status=status,
        started=started,
        updated=updated,
        context=context.strip() or "Summarize what has happened in this agent session so far.",
        decisions=_bullets(decisions, "- None"),
        files=_bullets(files, "- None"),
        questions=_bullets(questions, "- None"),
        actions=_bullets(actions, "- None"),
        continues=_bullets(continues, "- None"),
        superseded=_bullets(superseded, "- None"),
    )


def item_key(text: str) -> str:
    """What identifies an item across revisions: its first line without list marks and markers."""
    first = text.strip().split("\n", 1)[0]
    first = LIST_MARK_RE.sub("", first)
    first = MARKER_RE.sub("", first).replace("~~", "")
    return " ".join(first.split()).strip(" .;:-").casefold()


def is_marked(text: str) -> bool:
    """Whether an item carries `[superseded]`, `[resolved]` or `[done]`."""
    return MARKER_RE.search(text) is not None


def is_placeholder(text: str) -> bool:
    """Whether an item is the template's `None` or its instruction line."""
    key = item_key(text)
    return not key or PLACEHOLDER_RE.match(key) is not None or key.startswith(
        ("list decisions", "list files", "list unresolved", "list likely", "list source", "list replaced", "summarize what has happened")
    )


def listed_id(text: str) -> str:
    """The Session ID a Continues From item names: its first word, list mark and backticks removed."""
    key = LIST_MARK_RE.sub("", text.strip().split("\n", 1)[0]).strip()
    words = key.split()
    return words[0].strip("`*[]").rstrip(",.;:") if words else ""


@dataclass
class Item:
    """One item of a section: a top-level list item or a paragraph, as original lines."""

    start: int
    end: int
    text: str

    @property
    def key(self) -> str:
        """The item's identity."""
        return item_key(self.text)


@dataclass
class Section:
    """A `## ` section: heading line, body line range and its items."""

    name: str
    heading: int
    start: int
    end: int
    items: list[Item] = field(default_factory=list)
    is_list: bool = False


class Snapshot:
    """A parsed snapshot file, editable line by line."""

    def __init__(self, data: bytes | str):
        """Parse snapshot bytes or text."""
        text = data if isinstance(data, str) else decode(data)
        self.bom = text.startswith("\ufeff")
        if self.bom:
            text = text[1:]
        self.lines = split_lines(text)
        self.sections: list[Section] = []
        self.title: str | None = None
        self._parse()

    def _parse(self) -> None:
        """Locate headings and items with mistletoe's block tokens."""
        from mistletoe.block_token import Document, Heading, List, Table  # small files only

        doc = Document([line_body(l) + "\n" for l in self.lines])
        blocks = list(doc.children or [])
        starts = [b.line_number - 1 for b in blocks] + [len(self.lines)]
        current: Section | None = None
        for i, block in enumerate(blocks):
            begin, nxt = starts[i], starts[i + 1]
            if isinstance(block, Heading) and block.level == 1 and self.title is None:
                self.title = line_body(self.lines[begin]).lstrip("# ").strip()
                continue
            if isinstance(block, Heading) and block.level == 2:
                if current:
                    current.end = begin
                name = line_body(self.lines[begin]).strip().lstrip("#").strip().rstrip("#").strip()
                current = Section(name, begin, begin + 1, len(self.lines))
                self.sections.append(current)
                continue
            if current is None:
                continue
            end = self._trim(begin, nxt)
            if isinstance(block, List):
                current.is_list = True
                item_starts = [it.line_number - 1 for it in block.children] + [end]
                for j in range(len(item_starts) - 1):
                    s, e = item_starts[j], self._trim(item_starts[j], item_starts[j + 1])
                    current.items.append(Item(s, e, "".join(self.lines[s:e])))
            elif isinstance(block, Table):
                current.items.append(Item(begin, end, "".join(self.lines[begin:end])))
            else:
                current.items.append(Item(begin, end, "".join(self.lines[begin:end])))

    def _trim(self, start: int, end: int) -> int:
        """Move end back over blank lines, not before start + 1."""
        while end > start + 1 and not self.lines[end - 1].strip():
            end -= 1
        return end

    def section(self, name: str) -> Section | None:
        """The first section with this name (case-insensitive)."""
        wanted = name.casefold()
        for sec in self.sections:
            if sec.name.casefold() == wanted:
                return sec
        return None

    def text(self) -> str:
        """The snapshot text (without BOM)."""
        return "".join(self.lines)

    def to_bytes(self) -> bytes:
        """The snapshot bytes, BOM kept."""
        return encode(("\ufeff" if self.bom else "") + self.text())

    def eol(self) -> str:
        """The file's line ending."""
        for line in self.lines:
            ending = line_ending(line)
            if ending:
                return ending
        return "\n"

    # -- reading ----------------------------------------------------------------------

    def metadata(self) -> dict[str, str]:
        """The Metadata table as Field → Value."""
        sec = self.section("Metadata")
        out: dict[str, str] = {}
        if not sec:
            return out
        for i in range(sec.start, sec.end):
            cells = split_cells(line_body(self.lines[i]))
            if cells and len(cells) >= 2 and cells[0] not in ("Field",) and not set(cells[0]) <= set("-: "):
                out[unescape(cells[0])] = unescape(cells[1])
        return out

    def items(self, name: str) -> list[Item]:
        """Real items (not placeholders) of a section."""
        sec = self.section(name)
        return [it for it in sec.items if not is_placeholder(it.text)] if sec else []

    def continues_from(self) -> list[str]:
        """Session IDs listed under Continues From."""
        out = []
        from .ids import is_valid_id

        for it in self.items("Continues From"):
            token = listed_id(it.text)
            if is_valid_id(token) and token not in out:
                out.append(token)
        return out

    def all_keys(self) -> set[str]:
        """Keys of every item in every section."""
        return {it.key for sec in self.sections for it in sec.items}


# -- edits ------------------------------------------------------------------------------


def set_metadata(text: str, changes: dict[str, str]) -> str:
    """Change Metadata table values (adding missing fields) without touching other lines."""
    snap = Snapshot(text)
    sec = snap.section("Metadata")
    lines = list(snap.lines)
    eol = snap.eol()
    if sec is None:  # a hand-written snapshot without Metadata gets the template's table
        rows = "".join(f"| {k} | {escape(v)} |{eol}" for k, v in changes.items())
        block = [f"## Metadata{eol}", eol, f"| Field | Value |{eol}", f"|---|---|{eol}", rows, eol]
        at = snap.sections[0].heading if snap.sections else len(lines)
        return _insert_block(lines, at, block, eol)
    seen = set()
    last_row = None
    for i in range(sec.start, sec.end):
        cells = split_cells(line_body(lines[i]))
        if not cells or len(cells) < 2:
            continue
        last_row = i
        name = unescape(cells[0])
        if name in changes:
            seen.add(name)
            if unescape(cells[1]) != changes[name]:
                cells[1] = escape(changes[name])
                lines[i] = "| " + " | ".join(cells) + " |" + (line_ending(lines[i]) or "")
    missing = [k for k in changes if k not in seen]
    if missing and last_row is not None:
        if not line_ending(lines[last_row]):
            lines[last_row] += eol
        add = [f"| {k} | {escape(changes[k])} |{eol}" for k in missing]
        lines[last_row + 1 : last_row + 1] = add
    return "".join(lines)


def add_items(text: str, section: str, new_items: list[str], bullet: bool = True, dedupe: bool = True) -> str:
    """Add items to a section (after its last item), replacing a `None` placeholder.

    Items whose key is already present in the section are not added again (unless dedupe is
    False). A missing section is created in the template's order.
    """
    snap = Snapshot(text)
    eol = snap.eol()
    sec = snap.section(section)
    existing = {it.key for it in sec.items} if sec else set()
    fresh = []
    for item in new_items:
        key = item_key(item)
        if key and (not dedupe or (key not in existing and key not in {item_key(f) for f in fresh})):
            fresh.append(item)
    if not fresh:
        return text
    rendered = [(("- " + it) if bullet and not LIST_MARK_RE.match(it) else it) for it in fresh]
    lines = list(snap.lines)
    if sec is None:
        return _append_section(snap, section, rendered)
    placeholders = [it for it in sec.items if is_placeholder(it.text)]
    real = [it for it in sec.items if not is_placeholder(it.text)]
    new_lines = []
    for chunk in rendered:
        for part in chunk.split("\n"):
            new_lines.append(part + eol)
        if not bullet:
            new_lines.append(eol)
    if not bullet and new_lines:
        new_lines.pop()
    if real:
        at = real[-1].end
        if not line_ending(lines[at - 1]):
            lines[at - 1] += eol
        if not bullet:
            new_lines.insert(0, eol)
        lines[at:at] = new_lines
        return "".join(lines)
    if placeholders:
        first, last = placeholders[0], placeholders[-1]
        tail_ending = line_ending(lines[last.end - 1])
        if not tail_ending:
            new_lines[-1] = new_lines[-1][: -len(eol)]
        lines[first.start : last.end] = new_lines
        return "".join(lines)
    # empty section body: put items right after the heading's blank line
    at = sec.start
    if not line_ending(lines[sec.heading]):
        lines[sec.heading] += eol
    lines[at:at] = [eol] + new_lines
    return "".join(lines)


def _append_section(snap: Snapshot, name: str, rendered: list[str]) -> str:
    """Insert a new section before the next section in template order (or at the end)."""
    eol = snap.eol()
    lines = list(snap.lines)
    block = [f"## {name}{eol}", eol] + [part + eol for chunk in rendered for part in chunk.split("\n")] + [eol]
    order = list(SECTION_ORDER)
    at = len(lines)
    if name in order:
        later = order[order.index(name) + 1 :]
        for sec in snap.sections:
            if sec.name in later:
                at = sec.heading
                break
    return _insert_block(lines, at, block, eol)


def _insert_block(lines: list[str], at: int, block: list[str], eol: str) -> str:
    """Insert a section block (ending in a blank line) before line `at`; at the end of the file
    it follows a blank line and drops its own trailing one."""
    if at == len(lines):
        if lines and not line_ending(lines[-1]):
            lines[-1] += eol
        if lines and lines[-1].strip():
            lines.append(eol)
        at = len(lines)
        block = block[:-1]
    lines[at:at] = block
    return "".join(lines)


def remove_items(text: str, section: str, keys: set[str]) -> str:
    """Remove items whose key is in keys from a section; an emptied section gets `- None`."""
    snap = Snapshot(text)
    sec = snap.section(section)
    if not sec:
        return text
    eol = snap.eol()
    lines = list(snap.lines)
    doomed = [it for it in sec.items if it.key in keys]
    if not doomed:
        return text
    remaining = [it for it in sec.items if it.key not in keys and not is_placeholder(it.text)]
    for it in reversed(doomed):
        ending = line_ending(lines[it.end - 1])
        del lines[it.start : it.end]
        if not remaining and it is doomed[0]:
            lines[it.start : it.start] = ["- None" + (ending or eol)]
    return "".join(lines)


@dataclass
class MergeResult:
    """The merged snapshot text and what the merge did."""

    text: str
    added: list[tuple[str, str]]
    marked: list[tuple[str, str]]
    carried: list[tuple[str, str]]


def merge(old_text: str, new_text: str) -> MergeResult:
    """Merge a proposed snapshot into the existing one by section; no old item is lost.

    The old snapshot is the base. For every section of the new text: an item whose key the
    old section has is kept (or replaced by the new wording when the new one adds a
    `[superseded]`/`[resolved]`/`[done]` marker); other new items are appended. Old items the
    new text left out are carried over unchanged and reported as `carried`.
    Metadata is not merged here (the caller sets its fields).
    """
    new = Snapshot(new_text.replace("\r\n", "\n"))  # new lines take the old file's line ending
    text = old_text
    added: list[tuple[str, str]] = []
    marked: list[tuple[str, str]] = []
    for nsec in new.sections:
        if nsec.name.casefold() == "metadata":
            continue
        old = Snapshot(text)
        osec = old.section(nsec.name)
        old_by_key = {it.key: it for it in (osec.items if osec else [])}
        to_add = []
        forced: list[str] = []
        replacements: list[tuple[Item, str]] = []
        for it in nsec.items:
            if is_placeholder(it.text):
                continue
            body = it.text.rstrip("\r\n")
            prev = old_by_key.get(it.key)
            if prev is None:
                to_add.append(body)
                added.append((nsec.name, body))
            elif is_marked(body) and not is_marked(prev.text):
                replacements.append((prev, body))
                marked.append((nsec.name, body))
            elif extends(prev.text, body):  # same item, more said: take the longer text, lose nothing
                replacements.append((prev, body))
                added.append((nsec.name, body))
            elif not is_marked(body) and has_new_lines(prev.text, body):  # same first line, new facts
                forced.append(body)
                added.append((nsec.name, body))
        if replacements:
            lines = list(old.lines)
            eol = old.eol()
            for prev, body in sorted(replacements, key=lambda p: -p[0].start):
                ending = line_ending(lines[prev.end - 1]) or ""
                lines[prev.start : prev.end] = [part + eol for part in body.split("\n")[:-1]] + [body.split("\n")[-1] + ending]
            text = "".join(lines)
        if to_add:
            text = add_items(text, nsec.name, to_add, bullet=nsec.is_list)
        if forced:
            text = add_items(text, nsec.name, forced, bullet=nsec.is_list, dedupe=False)
    new_keys = new.all_keys()
    final = Snapshot(text)
    carried = []
    for sec in Snapshot(old_text).sections:
        if sec.name.casefold() == "metadata":
            continue
        for it in sec.items:
            if not is_placeholder(it.text) and it.key not in new_keys:
                carried.append((sec.name, it.text.rstrip("\r\n")))
    assert not vanished(old_text, final.text()), "merge lost an item"
    return MergeResult(text, added, marked, carried)


def extends(old_item: str, new_item: str) -> bool:
    """Whether new_item keeps every line of old_item and adds more (a safe replacement)."""
    old_lines = [l.strip() for l in old_item.splitlines() if l.strip()]
    new_lines = [l.strip() for l in new_item.splitlines() if l.strip()]
    return len(new_lines) > len(old_lines) and all(l in new_lines for l in old_lines)


def has_new_lines(old_item: str, new_item: str) -> bool:
    """Whether new_item says something (a line) that old_item does not."""
    old_lines = {l.strip() for l in old_item.splitlines() if l.strip()}
    return any(l.strip() and l.strip() not in old_lines for l in new_item.splitlines())


def vanished(old_text: str, new_text: str) -> list[tuple[str, str]]:
    """Items of the old snapshot missing from the new one without a marker (policy breaks).

    An item counts as kept when its key appears anywhere in the new snapshot (kept, moved to
    another section, or marked). Placeholders and the Metadata table are not items.
    """
    old = Snapshot(old_text)
    new_keys = Snapshot(new_text).all_keys()
    out = []
    for sec in old.sections:
        if sec.name.casefold() == "metadata":
            continue
        for it in sec.items:
            if not is_placeholder(it.text) and it.key not in new_keys:
                out.append((sec.name, it.text.rstrip("\r\n")))
    return out


ARCHIVE_TEMPLATE = """# Archived Session: {id}

## Metadata

| Field | Value |
|---|---|
| Session ID | {id} |
| Agent Name | {agent} |
| Topic | {topic} |
| Summary | {summary} |
| Keywords | {keywords} |
| Original Status | {status} |
| Referenced By | {referenced_by} |
| Started At | {started_at} |
| Updated At | {updated_at} |
| Archived At | {archived_at} |

## Files

- Session: ./session.md
"""


def render_archive_index(values: dict[str, str], archived_at: str) -> str:
    """The archive `index.md` for a row, exactly in the seed's template."""
    return ARCHIVE_TEMPLATE.format(
        id=values.get("id", ""),
        agent=escape(values.get("agent", "")),
        topic=escape(values.get("topic", "")),
        summary=escape(values.get("summary", "")),
        keywords=escape(values.get("keywords", "")),
        status=escape(values.get("status", "")),
        referenced_by=escape(values.get("referenced_by", "") or "-"),
        started_at=escape(values.get("started_at", "")),
        updated_at=escape(values.get("updated_at", "")),
        archived_at=archived_at,
    )
