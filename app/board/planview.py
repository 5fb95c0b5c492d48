"""The preview's view-model: what a plan will do, as lines the preview draws.

Two views of one plan: the readable one (what will happen in words, then each file with a
header and, for index.md, each row as the cells that change: `Status  active → stale`) and the
exact one (every line of the plan's unified diff, the very text `--dry-run` prints, with
invisible characters drawn). Both are built off the UI thread (difflib, parsing) and drawn
by a virtualised view, so a plan of 10,000 files costs what a small one does on screen.

Plain Python (no Textual).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial

from ..core.formats.layout import INDEX
from ..core.plan import Plan, diff_change, encoding_notes
from .changes import FileChange, counts, describe, row_counts

# characters a terminal would not show (or would take for a line break), drawn as visible marks
MARKS = {"\r": "␍", "\ufeff": "⟨BOM⟩", "\t": "\t"}
HEADER_STARTS = ("diff --git", "--- ", "+++ ", "rename from", "rename to", "new file mode", "deleted file mode")
ARROW = " → "
LATER_BYTES = 1 << 20  # an index.md change larger than this (before and after) lists its rows after the preview shows
LATER_FILES = 2000  # so does a plan of more file changes than this (each one's diff is made and read)
ROWS_PENDING = f"{INDEX}: working out what changes in each row…"
FILES_PENDING = "Working out what changes in each file…"
DIFF_PENDING = "Working out the exact diff: it shows here as soon as it is ready."

Stop = Callable[[], bool]
"""Whether a view being completed is no longer wanted (its preview was closed)."""


class Dropped(Exception):
    """A view's completion stopped because its preview was closed."""


@dataclass(frozen=True)
class ViewLine:
    """One drawn line: its text, its kind (a style of the line view) and emphasised spans (start, end, kind)."""

    text: str
    kind: str = "text"
    spans: tuple[tuple[int, int, str], ...] = ()


class Left(list[ViewLine]):
    """An op's block of what its plan leaves (each with why): shown after the changes, never before them."""


@dataclass
class PlanView:
    """Everything a preview shows of a plan, prepared off the UI thread."""

    headline: list[str]
    """What will happen, in a few lines (compact even for a huge plan)."""
    counts: list[str]
    """How many files change and how (and index.md's rows)."""
    readable: list[ViewLine]
    diff: str
    """The plan's unified diff: exactly what `--dry-run` prints."""
    total: int
    """The number of file changes."""
    rows: int = 0
    """The number of index rows added, deleted or changed."""
    notes: list[str] = field(default_factory=list)
    """What a diff shows poorly (a BOM, line endings, a final newline), in words."""
    later: Callable[[Stop], PlanView] | None = None
    """For a large index change, how the whole view is made once the preview shows (None: this is it)."""

    @property
    def pending(self) -> bool:
        """Whether this is an outline whose rows, row counts and exact diff are still to be worked out."""
        return self.later is not None

    @cached_property
    def raw(self) -> list[ViewLine]:
        """The exact diff's lines as drawn, made when first shown (`d`): half a second of a 100k-row organize
        preview that most people never open."""
        return diff_lines(self.diff)


def visible(line: str) -> str:
    """A diff line with its invisible characters drawn: `␍` for a CR (so a CRLF → LF change shows),
    `⟨BOM⟩`, `⟨U+2028⟩`-style marks for other control and separator characters, `⟨\\xe9⟩` for a
    byte that is not UTF-8."""
    if line.isprintable():  # every character this draws is unprintable: a printable line stays as it is
        return line
    out = []
    for ch in line:
        code = ord(ch)
        if ch in MARKS:
            out.append(MARKS[ch])
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, kept by surrogateescape
            out.append(f"⟨\\x{code - 0xDC00:02x}⟩")
        elif code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0 or ch in "\u2028\u2029" or 0xD800 <= code <= 0xDFFF:
            out.append(f"⟨U+{code:04X}⟩")
        else:
            out.append(ch)
    return "".join(out)


def diff_kind(line: str) -> str:
    """The kind of one unified diff line."""
    if line.startswith(HEADER_STARTS):
        return "header"
    if line.startswith(("@@", "\\ ")):
        return "hunk"
    if line.startswith("+"):
        return "added"
    if line.startswith("-"):
        return "removed"
    return "context"


WORD = re.compile(r"\s+|\||[^\s|]+")
EMPHASIS_LINES = 4000  # changed lines of an exact diff up to which the words that differ are emphasised


def differing_words(line: str, other: str) -> list[tuple[int, int]]:
    """Character spans of line (after its +/- mark) whose words are not in other."""
    mine = [(m.start(), m.end()) for m in WORD.finditer(line, 1)]
    theirs = [m.group() for m in WORD.finditer(other, 1)]
    words = [line[a:b] for a, b in mine]
    matcher = difflib.SequenceMatcher(None, words, theirs, autojunk=False)
    out = []
    for op, lo, hi, _, _ in matcher.get_opcodes():
        if op != "equal" and hi > lo:
            out.append((mine[lo][0], mine[hi - 1][1]))
    return out


def changed_spans(lines: list[str], kinds: list[str]) -> dict[int, list[tuple[int, int]]]:
    """For runs of removed lines followed by as many added lines, the spans that differ (none in a diff that
    changes more than EMPHASIS_LINES lines: comparing each pair's words took seconds at 100k rows)."""
    spans: dict[int, list[tuple[int, int]]] = {}
    if sum(kind in ("removed", "added") for kind in kinds) > EMPHASIS_LINES:
        return spans
    number = 0
    while number < len(lines):
        if kinds[number] != "removed":
            number += 1
            continue
        removed_end = number
        while removed_end < len(lines) and kinds[removed_end] == "removed":
            removed_end += 1
        added_end = removed_end
        while added_end < len(lines) and kinds[added_end] == "added":
            added_end += 1
        if removed_end - number == added_end - removed_end:
            for old, new in zip(range(number, removed_end), range(removed_end, added_end)):
                for line, other, where in ((lines[old], lines[new], old), (lines[new], lines[old], new)):
                    found = differing_words(line, other)
                    if found:
                        spans[where] = found
        number = added_end
    return spans


def diff_lines(diff: str) -> list[ViewLine]:
    """Every line of a unified diff, drawn visibly, coloured by kind, changed words of paired lines emphasised."""
    lines = [visible(line) for line in diff.split("\n")]  # `\n` only: U+2028 or \f is inside a line
    if lines and lines[-1] == "":
        lines.pop()
    kinds = [diff_kind(line) for line in lines]
    emphasis = changed_spans(lines, kinds)
    return [
        ViewLine(line, kind, tuple((a, b, "changed") for a, b in emphasis.get(number, ())))
        for number, (line, kind) in enumerate(zip(lines, kinds))
    ]


FILE_WORDS = {"create": "will be created", "modify": "will change", "delete": "will be deleted", "move": "will move"}
FILE_MARKS = {"create": "+", "modify": "~", "delete": "−", "move": "→"}


HEADS = ("group", "file")  # the kinds of line that head a group of lines (a file, a list an op gives)


def folded(lines: list[ViewLine]) -> list[ViewLine]:
    """lines with every group folded into its head, which says how many lines it holds (z unfolds them)."""
    out: list[ViewLine] = []
    head: ViewLine | None = None
    hidden = 0

    def close() -> None:
        """Put the open group's head out, saying what it folds."""
        if head is not None:
            more = f"  · {hidden:,} {'line' if hidden == 1 else 'lines'} folded (z shows them)" if hidden else ""
            out.append(ViewLine(head.text + more, head.kind, head.spans))

    for line in lines:
        if line.kind in HEADS:
            close()
            head, hidden = line, 0
        elif head is not None and line.text:
            hidden += 1
        else:
            close()
            head = None
            out.append(line)
    close()
    return out


def next_head(lines: list[ViewLine], after: int) -> int:
    """The number of the first group head below line after (from the top again past the last one; 0 if none)."""
    heads = [number for number, line in enumerate(lines) if line.kind in HEADS]
    return next((number for number in heads if number > after), heads[0] if heads else 0)


def file_header(f: FileChange) -> ViewLine:
    """A file's header line: mark, path (and destination), what will happen, line counts."""
    name = f"{f.path}{ARROW}{f.dest}" if f.kind == "move" else f.path
    words = FILE_WORDS.get(f.kind, f.kind)
    if f.kind == "move":
        words += " (unchanged)" if not (f.added or f.removed) else f" and change (+{f.added} −{f.removed} lines)"
    elif f.kind == "modify":
        words += f" (+{f.added} −{f.removed} lines)"
    elif f.added or f.removed:
        n = f.added or f.removed
        words += f" ({n} {'line' if n == 1 else 'lines'})"
    text = f"{FILE_MARKS.get(f.kind, '·')} {name}  {words}"
    return ViewLine(text, "file", ((len(text) - len(words), len(text), "muted"),))


def row_lines(f: FileChange, reasons: dict[str, str]) -> list[ViewLine]:
    """index.md's row changes: each row's ID, then each changed cell `Column  before → after` (or added / deleted)."""
    out: list[ViewLine] = []
    width = max((len(fc.column) for r in f.rows for fc in r.fields), default=0) + 2
    for row in f.rows:
        about = visible(" · ".join(part for part in (row.status, row.topic) if part))
        if row.kind == "changed":
            out.append(ViewLine(f"  {row.session_id}" + (f"  ({about})" if about else ""), "row"))
            for fc in row.fields:
                start = 6 + width
                old, new = visible(fc.before) or "''", visible(fc.after) or "''"
                text = f"      {fc.column.ljust(width)}{old}{ARROW}{new}"
                out.append(
                    ViewLine(
                        text,
                        "field",
                        ((start, start + len(old), "removed"), (start + len(old) + len(ARROW), len(text), "added")),
                    )
                )
        else:
            word = "will be added" if row.kind == "added" else "will be deleted"
            text = f"  {row.session_id}  {word}" + (f"  ({about})" if about else "")
            out.append(
                ViewLine(
                    text,
                    "row",
                    (
                        (
                            len(row.session_id) + 4,
                            len(row.session_id) + 4 + len(word),
                            "added" if row.kind == "added" else "removed",
                        ),
                    ),
                )
            )
        if row.session_id in reasons:
            out.append(ViewLine(f"      why: {visible(reasons[row.session_id])}", "muted"))
    if f.other_lines:
        noun = "line" if f.other_lines == 1 else "lines"
        out.append(ViewLine(f"  and {f.other_lines} {noun} outside the table's rows (d shows them)", "muted"))
    return out


def note_lines(f: FileChange) -> list[ViewLine]:
    """A note's change: each metadata cell that changes (`Status  active → superseded`), then each section whose
    text changes (the exact diff, d, shows how)."""
    out: list[ViewLine] = []
    width = max((len(fc.column) for fc in f.fields), default=0) + 2
    for fc in f.fields:
        old, new = visible(fc.before) or "''", visible(fc.after) or "''"
        text = f"    {fc.column.ljust(width)}{old}{ARROW}{new}"
        start = 4 + width
        spans = ((start, start + len(old), "removed"), (start + len(old) + len(ARROW), len(text), "added"))
        out.append(ViewLine(text, "field", spans))
    out += [ViewLine(f"    ## {name}  its text changes (d: the exact diff)", "section") for name in f.bodies]
    return out


def file_lines(files: list[FileChange], reasons: dict[str, str] | None = None) -> list[ViewLine]:
    """Every file with its header, then what changes inside it."""
    out: list[ViewLine] = []
    for f in files:
        if out:
            out.append(ViewLine(""))
        out.append(file_header(f))
        out += row_lines(f, reasons or {})
        out += note_lines(f)
        for sec in f.sections:
            out.append(ViewLine(f"    ## {sec.name}", "section"))
            out += [ViewLine(f"    {visible(line)}", diff_kind(line)) for line in sec.lines]
        out += [ViewLine(f"    {visible(line)}", "added" if f.kind == "create" else "removed") for line in f.lines]
    return out


def build(
    plan: Plan,
    headline: list[str],
    blocks: list[ViewLine] | None = None,
    reasons: dict[str, str] | None = None,
    *,
    left: list[ViewLine] | None = None,
) -> PlanView:
    """A plan's view: the headline given, then blocks (an op's own list: findings), the files, and last what the
    plan leaves (left: organize's rows it keeps, each with why), so the first change is never behind them.

    A large plan (a large index.md rewritten, or thousands of files) gets an outline first: the headline,
    the blocks, the files counted, then what is left. The preview shows it at once and completes it off the UI
    thread (`later`): pairing 80,000 changed rows and wording each cell, or diffing 57,000 files, takes seconds."""
    index_bytes = sum(
        len(ch.before or b"") + len(ch.after or b"") for ch in plan.changes if INDEX in (ch.path, ch.dest)
    )
    if index_bytes <= LATER_BYTES and len(plan.changes) <= LATER_FILES:
        return whole(plan, headline, blocks, reasons, left=left)
    waiting = ROWS_PENDING if index_bytes > LATER_BYTES else FILES_PENDING
    readable = [*(blocks or []), *([ViewLine("")] if blocks else []), ViewLine(waiting, "muted")]
    readable += [ViewLine(""), *left] if left else []
    complete = partial(whole, plan, headline, blocks, reasons, left=left)
    return PlanView(
        headline, [counts(plan.changes), waiting], readable, "", len(plan.changes), 0, encoding_notes(plan), complete
    )


def whole(
    plan: Plan,
    headline: list[str],
    blocks: list[ViewLine] | None = None,
    reasons: dict[str, str] | None = None,
    stop: Stop | None = None,
    *,
    left: list[ViewLine] | None = None,
) -> PlanView:
    """A plan's whole view: every file and row described, then what it leaves, and the exact diff (stop: checked
    between steps; Dropped when it says the view is no longer wanted)."""

    def check() -> None:
        """Give up when the preview was closed."""
        if stop is not None and stop():
            raise Dropped()

    diffs = [diff_change(ch) for ch in plan.changes]
    check()
    diff = "".join(diffs)
    files = describe(plan.changes, diffs)
    check()
    readable = list(blocks or [])
    listed = file_lines(files, reasons)
    if readable and listed:
        readable.append(ViewLine(""))
    readable += listed
    if left:
        readable += [ViewLine(""), *left] if readable else left
    rows_line = row_counts(files)
    summary = [counts(files)] + ([rows_line] if rows_line else [])
    if not readable:
        readable = [ViewLine("Nothing to show: no file will be touched.", "muted")]
    rows = sum(len(f.rows) for f in files)
    return PlanView(headline, summary, readable, diff, len(plan.changes), rows, encoding_notes(plan))
