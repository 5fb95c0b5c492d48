"""current.md as issue 24 §3 and §4 read and write it: `## ` sections, the Last Updated line, the lines a save
displaces and the history entry that keeps them.

current.md is where the next session resumes; a save replaces it (or some of its sections) with the caller's
text, and what the old text held that the new one drops must reach history.md rather than vanish. This
module is the pure part of that: bytes-free text in, text out, BOM and line ends kept, never a line
rewritten that the change does not touch.

* Sections: a line starting `## ` outside a code fence opens one; the lines before the first are the
  preamble (named `开头` where a section name is shown).
* Last Updated: in the first 10 lines, `Last Updated`, `Last updated` or `最后更新`, then `:` or `：` and a
  time, optionally after `- `, `> ` or `# `. Setting it rewrites only the time; when there is none,
  `- Last Updated: YYYY-MM-DD HH:MM` and a blank line go after the first `# ` heading (at the top without one).
* Displaced lines: the old lines missing from the new text, as a multiset, ignoring the Last Updated line,
  blank lines and lines byte-equal to a line of the template.
* The history entry: memboard's heading and fields, then each old section's displaced lines quoted `> `,
  so unquoting gives them back exactly and a displaced `### ` line never starts an entry.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from . import templates
from .text import bare, fenced_flags, line_end, split_bom, with_line_ends

LAST_UPDATED_LINES = 10
"""Last Updated is looked for in this many first lines."""

PREAMBLE = "开头"
"""The name the lines before the first `## ` section go by."""

DEFAULT_REASON = "memboard space save"
"""触发原因 of memboard's history entry when the caller gives no --reason."""

MOVED_PREFIX = "- 移出 current.md 的内容（"
"""Each quoted block of memboard's history entry opens with this, then 「section」 or 开头, then `）：`."""

_TIME = r"(?:YYYY-MM-DD HH:MM|\d{4}-\d{1,2}-\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?)"
_LAST_UPDATED = re.compile(r"^((?:- |> |# )?(?:Last Updated|Last updated|最后更新)[ \t]*[:：][ \t]*)(" + _TIME + r")")


@dataclass(frozen=True)
class Section:
    """One `## ` section of current.md (or the preamble): its name and its lines' range [start, end)."""

    name: str | None
    start: int
    end: int

    @property
    def label(self) -> str:
        """The name shown for it: the heading's text, or 开头 for the preamble."""
        return PREAMBLE if self.name is None else self.name


@dataclass(frozen=True)
class LastUpdated:
    """Where the Last Updated line is: its line index and the time's span in that line."""

    index: int
    start: int
    end: int
    value: str


@dataclass(frozen=True)
class Displaced:
    """A line of the old current.md missing from the new one, with the old section it was in."""

    line: str
    section: int
    """Index into the old text's sections() (0 may be the preamble)."""


def lines_of(text: str) -> list[str]:
    """The text's lines with their line ends kept (the BOM, if any, stays on the first)."""
    return text.splitlines(keepends=True)


def section_name(line: str) -> str | None:
    """The section name a line opens (`## name`), or None when it is not a `## ` heading."""
    body = bare(line)
    if body.startswith("## "):
        return body[3:].strip()
    return None


def sections(text: str) -> list[Section]:
    """current.md's sections in file order: the preamble first when it has lines, then each `## ` section
    (headings inside code fences are content)."""
    _, body = split_bom(text)
    lines = [bare(line) for line in lines_of(body)]
    fenced = fenced_flags(lines)
    starts: list[tuple[int, str | None]] = [(0, None)]
    for index, line in enumerate(lines):
        if not fenced[index] and line.startswith("## "):
            starts.append((index, line[3:].strip()))
    if len(starts) > 1 and starts[1][0] == 0:
        starts.pop(0)
    out = []
    for number, (start, name) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(lines)
        if name is None and end == start:
            continue
        out.append(Section(name, start, end))
    return out


def section_names(text: str) -> list[str]:
    """The names of the `## ` sections, in file order."""
    return [section.name for section in sections(text) if section.name is not None]


def find_last_updated(text: str) -> LastUpdated | None:
    """The Last Updated line among the first 10 lines, or None."""
    _, body = split_bom(text)
    for index, line in enumerate(lines_of(body)[:LAST_UPDATED_LINES]):
        match = _LAST_UPDATED.match(bare(line))
        if match:
            return LastUpdated(index, match.start(2), match.end(2), match.group(2))
    return None


def last_updated(text: str) -> str | None:
    """The time the Last Updated line gives, as written; None without one."""
    found = find_last_updated(text)
    return found.value if found else None


def set_last_updated(text: str, stamp: str) -> str:
    """The text with its Last Updated time set to stamp (`YYYY-MM-DD HH:MM`), keeping the line's form; one
    inserted after the first `# ` heading (at the top without one) when there is none, followed by a blank line
    (the one already there, when the next line is blank). BOM and line ends kept."""
    bom, body = split_bom(text)
    lines = lines_of(body)
    found = find_last_updated(body)
    if found is not None:
        line = lines[found.index]
        lines[found.index] = line[: found.start] + stamp + line[found.end :]
        return bom + "".join(lines)
    eol = line_end(body)
    inserted = [f"- Last Updated: {stamp}{eol}", eol]
    fenced = fenced_flags([bare(line) for line in lines])
    at = 0
    for index, line in enumerate(lines):
        if not fenced[index] and bare(line).startswith("# "):
            if not line.endswith(("\n", "\r")):
                lines[index] = line + eol
            at = index + 1
            break
    if at < len(lines) and not lines[at].strip():
        inserted.pop()  # the blank line after it is there already
    lines[at:at] = inserted
    return bom + "".join(lines)


def without_last_updated(text: str) -> str:
    """The text without its Last Updated line (BOM and every other byte kept)."""
    bom, body = split_bom(text)
    found = find_last_updated(body)
    if found is None:
        return text
    lines = lines_of(body)
    del lines[found.index]
    return bom + "".join(lines)


def same_ignoring_last_updated(old: str, new: str) -> bool:
    """Whether two current.md texts are equal once each loses its Last Updated line."""
    return without_last_updated(old) == without_last_updated(new)


def _counted(line: str, ignore: frozenset[str]) -> bool:
    """Whether a line takes part in the displaced-lines count (not blank, not a template line)."""
    return bool(line.strip()) and line not in ignore


def displaced_lines(old: str, new: str) -> list[Displaced]:
    """The lines of old missing from new, counted as a multiset, in old's file order, each with its old
    section; the Last Updated lines, blank lines and lines byte-equal to a template line are ignored.
    Where a line occurs more often in old than in new, its last occurrences are the displaced ones."""
    ignore = templates.template_lines("current.md")
    old_body = split_bom(old)[1]
    new_body = split_bom(new)[1]
    old_lines = [bare(line) for line in lines_of(old_body)]
    new_lines = [bare(line) for line in lines_of(new_body)]
    old_lu = find_last_updated(old_body)
    new_lu = find_last_updated(new_body)
    kept = Counter(
        line
        for index, line in enumerate(new_lines)
        if _counted(line, ignore) and not (new_lu is not None and index == new_lu.index)
    )
    seen: Counter[str] = Counter()
    section_at: list[int] = []
    for number, section in enumerate(sections(old_body)):
        section_at.extend([number] * (section.end - section.start))
    out = []
    for index, line in enumerate(old_lines):
        if not _counted(line, ignore) or (old_lu is not None and index == old_lu.index):
            continue
        seen[line] += 1
        if seen[line] > kept[line]:
            out.append(Displaced(line, section_at[index]))
    return out


def quote(line: str) -> str:
    """A displaced line as memboard's entry holds it: `> line` (an empty line as `>`)."""
    return f"> {line}" if line else ">"


def unquote(text: str) -> list[str]:
    """The lines memboard's quoted blocks in an entry hold, unquoted, in order: the `>` lines after each
    `- 移出 current.md 的内容（…）：` line (a caller's own `>` lines elsewhere are not taken)."""
    out: list[str] = []
    inside = False
    for raw in lines_of(text):
        line = bare(raw)
        if line.startswith(MOVED_PREFIX):
            inside = True
            continue
        if inside and line.startswith(">"):
            out.append(line[2:] if line.startswith("> ") else line[1:])
            continue
        inside = False
    return out


def _heading(stamp: str, context: str) -> str:
    """memboard's entry heading."""
    return f"### {stamp} [context: {context}]"


def _has_heading(text: str) -> bool:
    """Whether the caller's entry opens (first non-blank line) with a `### ` heading."""
    for line in lines_of(text):
        if line.strip():
            return bare(line).startswith("### ")
    return False


def remaining_displaced(displaced: list[Displaced], caller_entry: str | None) -> list[Displaced]:
    """The displaced lines the caller's --history-entry does not already hold verbatim (line for line,
    counted as a multiset)."""
    if not caller_entry:
        return list(displaced)
    have = Counter(bare(line) for line in lines_of(caller_entry))
    out = []
    for item in displaced:
        if have[item.line] > 0:
            have[item.line] -= 1
        else:
            out.append(item)
    return out


def history_entry(
    old: str,
    displaced: list[Displaced],
    *,
    stamp: str,
    context: str,
    reason: str | None = None,
    caller_entry: str | None = None,
    eol: str = "\n",
) -> str | None:
    """The history entry a save appends (ended by a line end, in eol), or None when there is nothing to append.

    The caller's entry comes first, verbatim but for its line ends (a heading added when it has none);
    displaced lines it does not already hold follow as memboard's block: 触发原因 (unless the caller's entry
    has that field), 发生了什么变化 naming the sections and the count, then per old section in file order
    `- 移出 current.md 的内容（「section」）：` (`（开头）` for the preamble) and its lines quoted.
    """
    left = remaining_displaced(displaced, caller_entry)
    if not left and not (caller_entry and caller_entry.strip()):
        return None
    out: list[str] = []
    if caller_entry and caller_entry.strip():
        body = with_line_ends(caller_entry, "\n")
        if not _has_heading(body):
            out.append(_heading(stamp, context))
        out.extend(body.splitlines())
    else:
        out.append(_heading(stamp, context))
    if left:
        old_sections = sections(old)
        names: list[str] = []
        for item in left:
            label = old_sections[item.section].label
            if label not in names:
                names.append(label)
        has_reason = any(re.match(r"- 触发原因[：:]", line) for line in out)
        if not has_reason:
            out.append(f"- 触发原因：{reason if reason and reason.strip() else DEFAULT_REASON}")
        named = "".join(f"「{name}」" for name in names)
        out.append(f"- 发生了什么变化：current.md 的{named}已更新（{len(left)} 行移入此处）")
        current_section = -1
        for item in left:
            if item.section != current_section:
                current_section = item.section
                section = old_sections[item.section]
                where = PREAMBLE if section.name is None else f"「{section.name}」"
                out.append(f"{MOVED_PREFIX}{where}）：")
            out.append(quote(item.line))
    return eol.join(out) + eol


def section_bodies(text: str) -> dict[str, tuple[int, int]]:
    """Each `## ` section's body as a range [start, end) of lines: after its heading, up to its last
    non-blank line (the blank lines that separate it from the next section are not body); the first of
    two sections with one name wins."""
    _, body = split_bom(text)
    lines = lines_of(body)
    out: dict[str, tuple[int, int]] = {}
    for section in sections(body):
        if section.name is None or section.name in out:
            continue
        end = section.end
        while end > section.start + 1 and not lines[end - 1].strip():
            end -= 1
        out[section.name] = (section.start + 1, end)
    return out


def replace_sections(text: str, bodies: dict[str, str]) -> str:
    """The text with the named sections' bodies replaced (see section_bodies), each new body's line ends
    turned into the file's; KeyError names the first unknown section."""
    bom, body = split_bom(text)
    eol = line_end(body)
    ranges = section_bodies(body)
    for name in bodies:
        if name not in ranges:
            raise KeyError(name)
    lines = lines_of(body)
    final_eol = not lines or lines[-1].endswith(("\n", "\r"))
    for name, (start, end) in sorted(ranges.items(), key=lambda item: -item[1][0]):
        if name not in bodies:
            continue
        new = with_line_ends(bodies[name], eol)
        if new and not new.endswith(eol):
            new += eol
        if end == len(lines) and not final_eol:
            if start == len(lines):
                lines[-1] += eol
            new = new[: -len(eol)] if new.endswith(eol) else new
        lines[start:end] = lines_of(new)
    return bom + "".join(lines)
