"""What the result log keeps of a change it lists: enough to open its line, never the plan's bytes.

A plan holds every file it writes before and after (a 100k-row organize: two 21 MB index.md texts and
the snapshots it touches), and the log lasts as long as the board runs. So when a flow applies a plan,
this keeps the counts, the files and rows in words and, for a small plan, its exact diff (a small text),
each bounded; a larger plan keeps its files by name and its counts, and its line says what is not kept.
The log as a whole keeps at most LOG_BUDGET characters: past it, the oldest changes give up their diff
and words first (their files' names and counts stay).

Plain Python (no Textual): the flow's thread makes it once the plan is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core.formats.layout import INDEX
from ..core.plan import Plan
from .changes import counts
from .planview import FILE_MARKS, FILE_WORDS, LATER_BYTES, LATER_FILES, PlanView, ViewLine, whole

KEEP_DIFF = 256 * 1024  # characters of exact diff one change keeps (a larger diff is not kept)
KEEP_LINES = 2000  # lines of words one change keeps (the files by name past them)
KEEP_DETAILS = 200  # detail lines one flow's line of the log keeps
KEEP_DETAIL = 2000  # characters of one detail line (a list of 16,000 Session IDs is cut, saying how many more)
LOG_BUDGET = 4 * 1024 * 1024  # characters the whole log keeps (the oldest changes' diffs and words go first)
LARGE = (
    "Only the files' names and the counts are kept in the log for a change this large (over "
    f"{LATER_BYTES >> 20} MB of {INDEX} or {LATER_FILES:,} files): what changed inside them is in the files."
)
BIG_DIFF = f"The exact diff is not kept in the log: it was over {KEEP_DIFF >> 10} KB."
AGED = "Only the files' names and the counts are kept now: the log keeps the diffs of its newest changes."


@dataclass
class Written:
    """One applied change as the log keeps it: its counts, its files (and rows) in words, its exact diff when
    small, and what is not kept and why."""

    counts: list[str]
    readable: list[ViewLine]
    diff: str
    total: int  # file changes
    rows: int = 0  # index rows added, deleted or changed
    names: list[ViewLine] = field(default_factory=list)  # the files by name (what stays when the rest goes)
    missing: str = ""  # what is not kept, in words ("" when everything is)

    @classmethod
    def of(cls, plan: Plan) -> Written:
        """What to keep of plan, applied (call it off the UI thread: a small plan is described and diffed)."""
        names = file_names(plan)
        index_bytes = sum(
            len(ch.before or b"") + len(ch.after or b"") for ch in plan.changes if INDEX in (ch.path, ch.dest)
        )
        if index_bytes > LATER_BYTES or len(plan.changes) > LATER_FILES:
            return cls([counts(plan.changes)], names, "", len(plan.changes), 0, names, LARGE)
        view = whole(plan, [])
        readable, missing = view.readable, ""
        if len(readable) > KEEP_LINES:
            readable = [
                *readable[:KEEP_LINES],
                ViewLine(f"… {len(readable) - KEEP_LINES:,} more lines not kept", "muted"),
            ]
        diff = view.diff
        if len(diff) > KEEP_DIFF:
            diff, missing = "", BIG_DIFF
        return cls(view.counts, readable, diff, view.total, view.rows, names, missing)

    @property
    def size(self) -> int:
        """About how many characters it keeps."""
        kept = sum(len(line.text) for line in self.readable) if self.readable is not self.names else 0
        return len(self.diff) + kept + sum(len(line.text) for line in self.names)

    def age(self) -> None:
        """Give up the diff and the words, keeping the files' names and the counts (the log is over its budget)."""
        if self.readable is not self.names or self.diff:
            self.readable, self.diff, self.missing = self.names, "", AGED

    def view(self, headline: list[str]) -> PlanView:
        """What the log's line opens: headline, then what is kept (what is not, said first)."""
        notes = [self.missing] if self.missing else []
        return PlanView(headline, self.counts, self.readable, self.diff, self.total, self.rows, notes)


def file_names(plan: Plan) -> list[ViewLine]:
    """The plan's files by name, each with what happened to it (at most KEEP_LINES, then how many more)."""
    out = []
    for ch in plan.changes[:KEEP_LINES]:
        name = f"{ch.path} → {ch.dest}" if ch.kind == "move" else ch.path
        words = FILE_WORDS.get(ch.kind, ch.kind)
        out.append(ViewLine(f"{FILE_MARKS.get(ch.kind, '·')} {name}  {words}", "file"))
    if len(plan.changes) > KEEP_LINES:
        out.append(ViewLine(f"… and {len(plan.changes) - KEEP_LINES:,} more files", "muted"))
    return out


def kept_details(lines: Sequence[str]) -> list[str]:
    """A flow's detail lines as the log keeps them: at most KEEP_DETAILS, each cut after KEEP_DETAIL characters
    at a list's comma, saying how many items (or characters) more it had."""
    out = [cut_detail(line) for line in lines[:KEEP_DETAILS]]
    if len(lines) > KEEP_DETAILS:
        out.append(f"… and {len(lines) - KEEP_DETAILS:,} more lines")
    return out


def cut_detail(line: str) -> str:
    """One detail line, cut after KEEP_DETAIL characters at a comma where it lists items (`… and 15,000 more`)."""
    if len(line) <= KEEP_DETAIL:
        return line
    comma = line.rfind(", ", 0, KEEP_DETAIL)
    if comma < 0:
        return f"{line[:KEEP_DETAIL]}… ({len(line) - KEEP_DETAIL:,} more characters)"
    return f"{line[:comma]}, … and {line.count(', ', comma):,} more"


def trim(kept: Sequence[Written | None], budget: int | None = None) -> None:
    """Keep the log within budget (LOG_BUDGET): the oldest changes give up their diffs and words first."""
    budget = LOG_BUDGET if budget is None else budget
    total = sum(w.size for w in kept if w is not None)
    for written in kept:
        if total <= budget:
            return
        if written is not None:
            before = written.size
            written.age()
            total -= before - written.size
