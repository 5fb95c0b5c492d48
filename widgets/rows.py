"""The rows the board's tables and panes draw: one index row, one note, and the rule that makes
memory text safe to put on a screen.

Plain data beside the widgets that draw it (no Textual, no board module): the board's models
build these rows from what the loaders read, the widgets only render them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memboard.core.formats.clock import age_label, parse
from memboard.core.formats.index import Row, parse_refs
from memboard.core.results import NoteView

HIDDEN = {code for code in (*range(0x20), *range(0x7F, 0xA0)) if chr(code) not in "\n\t"} | {
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
}  # control characters, and bidi overrides that reorder text
SHOWN = dict.fromkeys(HIDDEN, "\ufffd")


def printable(text: str) -> str:
    """Text from the memory (a row, a snapshot, a note), safe to put on the screen: control characters (an
    escape sequence a hand edit left, which the terminal would run) and bidi overrides become U+FFFD, one
    character for one (offsets stay valid); line breaks and tabs stay."""
    return text if text.isprintable() else text.translate(SHOWN)


def _same(value: str, _default: str) -> str:
    """The value itself (BoardRow.from_row without a shared pool)."""
    return value


def fast_time(text: str) -> datetime | None:
    """Parse `YYYY-MM-DD HH:MM` without strptime (100k rows), else fall back to clock.parse."""
    t = text.strip()
    if len(t) == 16 and t[4] == "-" and t[7] == "-" and t[10] == " " and t[13] == ":":
        try:
            return datetime(int(t[0:4]), int(t[5:7]), int(t[8:10]), int(t[11:13]), int(t[14:16]))
        except ValueError:
            return None
    return parse(t)


@dataclass(slots=True)
class BoardRow:
    """One index row as the board shows it."""

    line: int
    id: str
    agent: str
    topic: str
    summary: str
    keywords: str
    status: str
    referenced_by: str
    started_at: str
    updated_at: str
    problem: str | None
    has_snapshot: bool = False
    haystack: str = ""
    _age: str | None = field(default=None, repr=False)
    dup: int = 0
    """Which of the rows sharing this Session ID it is (1, 2, …), 0 when the ID is not repeated."""
    dups: int = 0
    """How many rows share this Session ID (0 when it is not repeated)."""

    @classmethod
    def from_row(cls, row: Row, has_snapshot: bool = False, shared: dict[str, str] | None = None) -> BoardRow:
        """Build a board row from a parsed index row.

        shared, when given, keeps one copy of each text several rows hold (statuses, agents, the
        placeholder topic and summary, timestamps): 100k rows hold far fewer distinct texts.
        """
        one = shared.setdefault if shared is not None else _same
        get = row.get
        out = cls(
            row.line,
            row.id,
            one(get("agent"), get("agent")),
            one(get("topic"), get("topic")),
            one(get("summary"), get("summary")),
            one(get("keywords"), get("keywords")),
            one(row.status, row.status),
            one(get("referenced_by"), get("referenced_by")),
            one(get("started_at"), get("started_at")),
            one(get("updated_at"), get("updated_at")),
            row.problem,
            has_snapshot,
        )
        if row.problem and not out.id:
            out.id = " | ".join(row.raw_cells)[:80]
        out.haystack = "\n".join((out.id, out.agent, out.topic, out.summary, out.keywords)).lower()
        return out

    @property
    def key(self) -> str:
        """What identifies the row on the board: its Session ID, `ID#2`, `ID#3`… for later rows sharing it."""
        return self.id if self.dup <= 1 else f"{self.id}#{self.dup}"

    @property
    def refs(self) -> list[str]:
        """Referenced By as a list of IDs."""
        return parse_refs(self.referenced_by)

    @property
    def ref_count(self) -> int:
        """How many sessions reference this one."""
        return len(self.refs)

    def age(self, now: datetime) -> str:
        """Age of Updated At, such as `3d` (cached: the clock moves in minutes)."""
        if self._age is None:
            self._age = age_label(fast_time(self.updated_at), now)
        return self._age


def printable_view(view: NoteView) -> NoteView:
    """A note's metadata with every text printable (see printable); the same view when it is already."""
    texts = [
        view.id,
        view.path,
        view.title,
        view.type,
        view.scope,
        view.topic_key,
        view.status,
        view.project,
        view.session,
        view.created,
        view.updated,
        view.problem or "",
        *view.supersedes,
        *view.superseded_by,
    ]
    if all(text.isprintable() for text in texts):
        return view
    return view._replace(
        id=printable(view.id),
        path=printable(view.path),
        title=printable(view.title),
        type=printable(view.type),
        scope=printable(view.scope),
        topic_key=printable(view.topic_key),
        status=printable(view.status),
        project=printable(view.project),
        session=printable(view.session),
        created=printable(view.created),
        updated=printable(view.updated),
        problem=printable(view.problem) if view.problem else view.problem,
        supersedes=[printable(x) for x in view.supersedes],
        superseded_by=[printable(x) for x in view.superseded_by],
    )


@dataclass(slots=True)
class NoteRow:
    """One note as the table shows it: its metadata and what the text filter searches."""

    view: NoteView
    haystack: str = ""
    _age: str | None = field(default=None, repr=False)

    @classmethod
    def of(cls, view: NoteView) -> NoteRow:
        """A row for a note's metadata, made printable (ID, title, type, scope, project and session are searched)."""
        view = printable_view(view)
        parts = (view.id, view.title, view.type, view.scope, view.project, view.session)
        return cls(view, "\n".join(parts).lower())

    @property
    def id(self) -> str:
        """The note's ID (its topic key, or `<key>~<n>` once moved aside)."""
        return self.view.id

    @property
    def status(self) -> str:
        """Its Status as written."""
        return self.view.status

    def age(self, now: datetime) -> str:
        """Age of Updated, such as `3d` (cached: the clock moves in minutes)."""
        if self._age is None:
            self._age = age_label(fast_time(self.view.updated), now)
        return self._age
