"""The "Memory Update" block: plain Markdown an agent without memory tools prints, for memboard to apply.

Seed 001 asks an agent that cannot reach the memory tools to print a Memory Update block that a
tool with access writes for it; `memboard note apply` reads such blocks. The format:

    ## Memory Update

    - title: Choose Trilium as the AI-Context source of truth
    - type: decision
    - scope: project
    - topic_key: memory/ai-context-runtime
    - project: ai-context
    - session: 2026-06-01-0930-cursor-main-agent

    ### What

    Trilium notes are the source of truth.

    ### Why
    ...

A block starts at a heading (`#` to `###`) that says `Memory Update`, outside code blocks, and
runs to the next heading of its level or above. Before its first sub-heading it holds
`key: value` lines (a list mark, `**bold**` keys and backticks around values are fine; keys
ignore case, and spaces, `_` and `-` in them are the same): title, type, scope, topic_key,
project, session, choice (`supersede` or `keep_both`), and what / why / where / learned for a
one-line text. Its sub-headings (one level below its heading) What, Why, Where and Learned hold
the texts as Markdown, where deeper headings are text. A
`Session Summary` block (the seed's session-close summary) has the fields session and goal and
the lists instructions, discoveries, accomplished, next steps and relevant (notes/files), each
as `key: value` lines (one item) or a sub-heading with a list. Several blocks may follow one
another, with any text around them; blocks inside a code block are read when the input has
none outside one (agents often print them fenced). Anything in a block that is not one of these
is an error naming the line: a misspelt key must not lose what it held.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import UsageError
from .note import NoteDraft

HEADING_RE = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")
FIELD_RE = re.compile(
    r"\s*(?:[-*+]\s+)?(?:\*\*|__)?([A-Za-z][A-Za-z _/-]*?)(?:\*\*|__)?\s*:(?:\*\*|__)?(?:\s+(.*?))?\s*$"
)
ITEM_RE = re.compile(r"\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+(.*)$")
NOTE_KEYS = {"title", "type", "scope", "topic_key", "project", "session", "choice", "what", "why", "where", "learned"}
NOTE_SECTIONS = ("what", "why", "where", "learned")
SUMMARY_LISTS = ("instructions", "discoveries", "accomplished", "next_steps", "relevant")
SUMMARY_KEYS = {"session", "goal", *SUMMARY_LISTS}
KEY_ALIASES = {
    "topic": "topic_key",
    "key": "topic_key",
    "next": "next_steps",
    "relevant_notes/files": "relevant",
    "relevant_notes": "relevant",
    "relevant_files": "relevant",
    "session_id": "session",
}
UPDATE_TITLE = "memory update"
SUMMARY_TITLE = "session summary"


@dataclass(frozen=True)
class MemoryUpdate:
    """One note of a Memory Update block, with the choice it was printed with (None: none)."""

    draft: NoteDraft
    choice: str | None = None


@dataclass(frozen=True)
class SessionSummary:
    """The seed's session-close summary: the session, its goal and five lists of items."""

    session: str
    goal: str = ""
    instructions: tuple[str, ...] = ()
    discoveries: tuple[str, ...] = ()
    accomplished: tuple[str, ...] = ()
    next_steps: tuple[str, ...] = ()
    relevant: tuple[str, ...] = ()


@dataclass
class _Block:
    """A block as read: its kind, heading level, first line number, fields and sub-sections."""

    kind: str
    level: int
    line: int
    fields: dict[str, str] = field(default_factory=dict)
    sections: dict[str, list[str]] = field(default_factory=dict)


def _key(raw: str) -> str:
    """A field or sub-heading name as a key: lower case, runs of spaces, `_` and `-` as one `_`."""
    key = re.sub(r"[\s_-]+", "_", raw.strip().casefold())
    return KEY_ALIASES.get(key, key)


def _value(raw: str | None) -> str:
    """A field's value without surrounding backticks."""
    value = (raw or "").strip()
    if len(value) >= 2 and value[0] == value[-1] == "`":
        value = value[1:-1].strip()
    return value


def _split(lines: list[str], first: int) -> tuple[list[tuple[int, list[str]]], list[tuple[int, str]]]:
    """The fenced blocks' contents (first line number, lines) and the lines outside fences (number, text;
    a fenced line as ""), lines numbered from first."""
    fenced: list[tuple[int, list[str]]] = []
    outside: list[tuple[int, str]] = []
    fence = ""
    for number, line in enumerate(lines, start=first):
        m = FENCE_RE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                fence = ""
            else:
                fenced[-1][1].append(line)
            outside.append((number, ""))
            continue
        if m:
            fence = m.group(1)
            fenced.append((number + 1, []))
            outside.append((number, ""))
            continue
        outside.append((number, line))
    return fenced, outside


class _Reader:
    """Reads the blocks of numbered lines (fences inside a section's text are its text)."""

    def __init__(self, numbered: list[tuple[int, str]], raw: dict[int, str]):
        """Read numbered lines; raw maps each number to the line as written (fenced lines too)."""
        self.numbered = numbered
        self.raw = raw
        self.blocks: list[_Block] = []

    def read(self) -> list[_Block]:
        """The blocks, in order."""
        block: _Block | None = None
        section: str | None = None
        for number, line in self.numbered:
            h = HEADING_RE.match(line)
            level = len(h.group(1)) if h else 0
            title = h.group(2).strip().casefold() if h else ""
            if h and level <= 3 and title in (UPDATE_TITLE, SUMMARY_TITLE):
                block = _Block("note" if title == UPDATE_TITLE else "summary", level, number)
                self.blocks.append(block)
                section = None
            elif block is None:
                continue
            elif h and level <= block.level:
                block, section = None, None
            elif h and (level == block.level + 1 or section is None):
                section = _key(h.group(2))
                self._section(block, section, number)
            elif section is not None:
                block.sections[section].append(self.raw[number])
            else:
                self._field(block, line, number)
        return self.blocks

    def _section(self, block: _Block, name: str, number: int) -> None:
        """Start a sub-section of block."""
        allowed = NOTE_SECTIONS if block.kind == "note" else SUMMARY_LISTS
        if name not in allowed:
            raise UsageError(f"line {number}: unknown sub-heading in a {_kind(block)} block: use {', '.join(allowed)}")
        if name in block.sections or name in block.fields:
            raise UsageError(f"line {number}: {name} is given twice in one {_kind(block)} block")
        block.sections[name] = []

    def _field(self, block: _Block, line: str, number: int) -> None:
        """Read one `key: value` line of block."""
        if not line.strip():
            return
        m = FIELD_RE.match(line)
        allowed = NOTE_KEYS if block.kind == "note" else SUMMARY_KEYS
        key = _key(m.group(1)) if m else ""
        if key not in allowed:
            raise UsageError(
                f"line {number}: {line.strip()[:60]!r} is not a field of a {_kind(block)} block "
                f"(key: value, keys: {', '.join(sorted(allowed))})"
            )
        if key in block.fields:
            if key in SUMMARY_LISTS:
                block.fields[key] += "\n" + _value(m.group(2) if m else "")
                return
            raise UsageError(f"line {number}: {key} is given twice in one {_kind(block)} block")
        block.fields[key] = _value(m.group(2) if m else "")


def _kind(block: _Block) -> str:
    """A block's kind in words."""
    return "Memory Update" if block.kind == "note" else "Session Summary"


def _text(lines: list[str]) -> str:
    """A sub-section's lines as its text (blank lines at either end dropped)."""
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return "\n".join(lines)


def items_of(text: str) -> tuple[str, ...]:
    """A list's items: each list item (with its continuation lines), or each line that is no list item."""
    items: list[str] = []
    current: list[str] | None = None
    for line in text.split("\n"):
        m = ITEM_RE.match(line)
        if m:
            current = [m.group(1).strip()]
            items.append("")
        elif not line.strip():
            current = None
            continue
        elif current is not None and line[:1] in " \t":
            current.append(line.strip())
        else:
            current = [line.strip()]
            items.append("")
        items[-1] = " ".join(current)
    return tuple(i for i in items if i)


def _update(block: _Block) -> MemoryUpdate:
    """A Memory Update block as a note draft and choice."""
    f = dict(block.fields)
    for name, lines in block.sections.items():
        f[name] = _text(lines)
    for need in ("title", "type", "scope"):
        if not f.get(need):
            raise UsageError(f"line {block.line}: the Memory Update block has no {need}")
    draft = NoteDraft(
        title=f["title"],
        type=f["type"],
        scope=f["scope"],
        what=f.get("what", ""),
        why=f.get("why", ""),
        where=f.get("where", ""),
        learned=f.get("learned", ""),
        topic_key=f.get("topic_key") or None,
        project=f.get("project") or None,
        session=f.get("session") or None,
    )
    return MemoryUpdate(draft, f.get("choice") or None)


def _summary(block: _Block) -> SessionSummary:
    """A Session Summary block."""
    f = dict(block.fields)
    if not f.get("session"):
        raise UsageError(f"line {block.line}: the Session Summary block has no session (its Memory Session ID)")
    lists = {name: items_of(f.get(name, "")) + items_of(_text(block.sections.get(name, []))) for name in SUMMARY_LISTS}
    return SessionSummary(f["session"], f.get("goal", ""), **lists)


def _blocks(lines: list[str], first: int) -> list[_Block]:
    """The blocks of lines (numbered from first): those outside code blocks, else those inside them."""
    numbered = list(enumerate(lines, start=first))
    fenced, outside = _split(lines, first)
    blocks = _Reader(outside, dict(numbered)).read()
    if not blocks:
        for start, inner in fenced:
            blocks += _blocks(inner, start)
    return blocks


def parse_blocks(text: str) -> tuple[list[MemoryUpdate], list[SessionSummary]]:
    """Every Memory Update and Session Summary block of text, in order (see the module's docstring)."""
    blocks = _blocks(text.replace("\r\n", "\n").split("\n"), 1)
    updates = [_update(b) for b in blocks if b.kind == "note"]
    summaries = [_summary(b) for b in blocks if b.kind == "summary"]
    return updates, summaries


def render_update(draft: NoteDraft, choice: str | None = None) -> str:
    """A Memory Update block holding draft (parse_blocks reads it back as the same draft and choice)."""
    lines = ["## Memory Update", ""]
    for key, value in (
        ("title", draft.title),
        ("type", draft.type),
        ("scope", draft.scope),
        ("topic_key", draft.topic_key),
        ("project", draft.project),
        ("session", draft.session),
        ("choice", choice),
    ):
        if value:
            lines.append(f"- {key}: {value}")
    for name, body in (("What", draft.what), ("Why", draft.why), ("Where", draft.where), ("Learned", draft.learned)):
        if body:
            lines += ["", f"### {name}", "", body]
    return "\n".join(lines) + "\n"


def render_summary(summary: SessionSummary) -> str:
    """A Session Summary block holding summary."""
    lines = ["## Session Summary", "", f"- session: {summary.session}"]
    if summary.goal:
        lines.append(f"- goal: {summary.goal}")
    for name in SUMMARY_LISTS:
        items = getattr(summary, name)
        if items:
            lines += ["", f"### {name.replace('_', ' ').title()}", "", *(f"- {item}" for item in items)]
    return "\n".join(lines) + "\n"
