"""The Spaces screen's model and reads: the known spaces as rows, the watcher, and the pane of one space.

Plain Python (no Textual), read in the screen's thread workers. Rows come from the service builder of
`space list` (service/spaces_read.space_list: every known space, an unresolvable one with its problem,
and its flags). The watcher takes each space's files'
signatures (size and modification time) every poll: a file an agent or the skill saves shows within a
second; a file caught mid-save (emptied a moment after it held text) is looked at again on the next
polls until it settles (the settle window), as the sessions table waits for index.md. The pane shows
current.md, dream-notes.md and the newest history entries; when current.md changed since the newest
revision memboard kept of it (local state, never the project), it shows that change and flags the lines
that left current.md without reaching history.md.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memboard.widgets.space_table import SpaceRow

from ..core.spaces import reads
from .planview import ViewLine

WATCHED = (reads.CURRENT, reads.HISTORY, reads.RESEARCH, reads.DREAM, "config.toml")
HISTORY_SHOWN = 5  # the pane shows this many of the newest history entries (the full view: every one)
SORT_KEYS = {
    "name": lambda r: (r.name.lower(), r.id),
    "project": lambda r: (r.project, r.id),
    "rule": lambda r: (r.rule, r.id),
    "updated": lambda r: (r.updated_age is None, r.updated_age or 0, r.id),
    "history": lambda r: (r.history or 0, r.id),
    "research": lambda r: (r.research_open or 0, r.research_topics or 0, r.id),
    "dream": lambda r: (r.dream_age is None, r.dream_age or 0, r.id),
    "flags": lambda r: (r.flags, r.id),
}


def display_name(item: dict[str, Any]) -> str:
    """A space's name on the table: its route's name, `global`, else the folder it is the space of."""
    if item.get("name"):
        return str(item["name"])
    if item.get("rule") == "global":
        return "global"
    return Path(item["space"]).parent.name or item["space"]


def row_of(item: dict[str, Any]) -> SpaceRow:
    """A `space list --json` item as a table row."""
    flags = item.get("flags") or []
    return SpaceRow(
        id=item["space"],
        name=display_name(item),
        project=item.get("project") or "",
        rule=item.get("rule") or "",
        updated=item.get("last_updated"),
        updated_age=item.get("updated_age_minutes"),
        stale="stale" in flags,
        history=item.get("history_entries"),
        research_open=item.get("research_open"),
        research_topics=item.get("research_topics"),
        dream_age=item.get("dream_age_minutes"),
        dream_due="dream-due" in flags,
        archive_due="archive-due" in flags,
        config_invalid="config!" in flags,
        legacy="legacy" in flags,
        half_archived="half-archived" in flags,
        problem=item.get("problem"),
        exists=item.get("history_entries") is not None,
    )


def read_rows() -> list[SpaceRow]:
    """Every known space as a row (the service builder of `space list`, which resolves each one fresh)."""
    from ..service.spaces_read import space_list  # lazy: loaded on first use (opening the screen stays light)

    return [row_of(item) for item in space_list().result]


@dataclass
class SpacesModel:
    """The known spaces as read, and when."""

    rows: list[SpaceRow]
    complete: bool = True
    by_id: dict[str, SpaceRow] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Index the rows by ID."""
        self.by_id = {row.id: row for row in self.rows}

    @classmethod
    def empty(cls) -> SpacesModel:
        """No rows read yet."""
        return cls([], complete=False)

    def new_ids(self, previous: SpacesModel) -> set[str]:
        """Spaces in this model that previous (when it was read whole) did not have."""
        if not previous.complete:
            return set()
        return set(self.by_id) - set(previous.by_id)

    def view(self, text: str, sort: str, reverse: bool) -> list[SpaceRow]:
        """The rows matching text (every word, ignoring case), sorted."""
        words = text.lower().split()
        rows = [r for r in self.rows if all(w in r.haystack() for w in words)] if words else list(self.rows)
        rows.sort(key=SORT_KEYS.get(sort, SORT_KEYS["name"]), reverse=reverse)
        return rows


Signature = tuple[int, int] | None


def signature(path: Path) -> Signature:
    """A file's (size, mtime_ns), None when absent."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


def _known_sources() -> list[Path]:
    """The files the list of known spaces comes from (besides the config's space_roots)."""
    from ..core import config  # lazy: loaded on first use (opening the screen stays light)
    from ..core.files import statepaths  # lazy: loaded on first use (opening the screen stays light)
    from ..core.spaces.resolve import (  # lazy: loaded on first use (opening the screen stays light)
        legacy_homes,
        memory_home,
    )

    out = [statepaths.known_spaces(), config.config_path(), memory_home() / "registry.json"]
    out += [home / "registry.json" for _, home in legacy_homes()]
    return out


class SpaceWatch:
    """The signatures of every known space's files and of the known spaces' sources; what changed since."""

    def __init__(self, window: float = 0.5) -> None:
        """A watch with nothing seen yet; window: how long an emptied file is waited for before it is shown."""
        self.seen: dict[Path, Signature] = {}
        self.window = window
        self._emptied: dict[Path, float] = {}  # files emptied a moment ago (a save caught half-way): since when

    def paths(self, rows: Sequence[SpaceRow]) -> list[Path]:
        """Every path watched for these rows."""
        out = list(_known_sources())
        for row in rows:
            folder = Path(row.id)
            out += [folder / name for name in WATCHED]
            out += [Path(row.project) / ".codex" / "session-memory", Path(row.project) / ".claude" / "session-memory"]
        return out

    def prime(self, rows: Sequence[SpaceRow]) -> None:
        """Take the signatures as they are now."""
        self.seen = {path: signature(path) for path in self.paths(rows)}

    def changes(self, rows: Sequence[SpaceRow]) -> tuple[set[str], bool]:
        """The IDs of spaces whose files changed since the last look (not those caught mid-save), and whether
        anything changed at all (a known-space source too). Their new signatures are kept."""
        changed: set[str] = set()
        anything = False
        now = time.monotonic()
        fresh: dict[Path, Signature] = {}
        for path in self.paths(rows):
            sig = signature(path)
            old = self.seen.get(path, sig if path not in self.seen and self.seen else None)
            if sig != old:
                if sig is not None and sig[0] == 0 and old is not None and old[0] > 0:
                    since = self._emptied.setdefault(path, now)
                    if now - since < self.window:
                        fresh[path] = old  # emptied a moment after it held text: wait for the save to finish
                        continue
                self._emptied.pop(path, None)
                anything = True
                owner = path.parent if path.parent.name != "session-memory" else None
                if owner is not None:
                    changed.add(str(owner))
            fresh[path] = sig
        self.seen = fresh
        return changed, anything


# -- the pane ---------------------------------------------------------------------------------------------


@dataclass
class SpacePane:
    """What the pane shows of one space, prepared off the UI thread."""

    space_id: str
    lines: list[ViewLine]
    lost: list[str] = field(default_factory=list)  # lines that left current.md without reaching history.md
    changed: bool = False  # current.md differs from the newest revision memboard kept
    archive_blocked: str | None = None  # why archive is disabled now (None: it may run)


def _text_lines(text: str, kind: str = "text") -> list[ViewLine]:
    """A file's text as drawn lines (control characters made visible)."""
    from .planview import visible  # lazy: loaded on first use (opening the screen stays light)

    return [ViewLine(visible(line), kind) for line in text.splitlines()] or [ViewLine("(empty)", "muted")]


def archive_reason(folder: Path) -> str | None:
    """Why archive cannot run on this space now: no history or research entry to move, or none a dream covers
    (None: a dream covers every entry archive would move)."""
    from ..service.spaces_read import ages  # lazy: loaded on first use (opening the screen stays light)

    info = ages(folder)
    if info.archive_due:
        return None
    if info.dream is None:
        return "no dream covers the entries yet (there is no dream-notes.md): D distils one first"
    if info.history_entries <= 20 and not info.research_topics:
        return "nothing to archive: at most 20 history entries and no closed research topic"
    return "the entries to move are newer than the last dream: D distils them first"


def current_change(place: Any, rel: str, now_bytes: bytes | None, history: str) -> tuple[list[ViewLine], list[str]]:
    """The change of current.md since memboard's newest revision of it (recorded here when it has none), and
    the lines that left it without reaching history.md (the skill or a hand edit dropped them)."""
    from ..core.files.revisions import (  # lazy: loaded on first use (opening the screen stays light)
        place_revisions,
        record_place,
    )
    from ..core.spaces.current import displaced_lines  # lazy: loaded on first use (opening the screen stays light)

    if now_bytes is None:
        return [], []
    revisions = place_revisions(place, rel)
    if not revisions:
        record_place(place, rel, now_bytes)  # the first revision memboard sees: the change shows from here on
        return [], []
    last = revisions[-1]
    if last == now_bytes:
        return [], []
    old = last.decode("utf-8", "replace")
    new = now_bytes.decode("utf-8", "replace")
    import difflib  # lazy: loaded on first use (opening the screen stays light)

    lines = [ViewLine("current.md changed since the revision memboard last saw", "headline")]
    left = displaced_lines(old, new)
    lost = [d.line for d in left if d.line.strip() and d.line.strip() not in history]
    if lost:
        lines.append(
            ViewLine(
                f"✗ {len(lost)} line(s) left current.md without reaching history.md (kept in the revision):", "refusal"
            )
        )
        lines += [ViewLine(f"  ✗ {line}", "removed") for line in lost]
    elif left:
        lines.append(ViewLine(f"✓ the {len(left)} line(s) that left current.md are in history.md", "note"))
    for diff in list(difflib.unified_diff(old.splitlines(), new.splitlines(), "revision", "current.md", lineterm=""))[
        2:
    ]:
        kind = "added" if diff.startswith("+") else "removed" if diff.startswith("-") else "hunk"
        if diff.startswith(" "):
            kind = "context"
        lines.append(ViewLine(diff, kind))
    lines.append(ViewLine(""))
    return lines, lost


def own_place(decision: Any) -> Any:
    """The place a space's own files are in: the global home for the global space, else its project (where
    memboard keeps their revisions, in local state)."""
    from ..core.files.places import home_tree  # lazy: loaded on first use (opening the screen stays light)
    from ..service.spaces_migrate import project_place  # lazy: loaded on first use (opening the screen stays light)

    return home_tree() if decision.rule == "global" else project_place(decision)


def load_pane(row: SpaceRow, history_shown: int | None = HISTORY_SHOWN) -> SpacePane:
    """Read a space for the pane: the change of current.md, current.md, dream-notes.md, the newest history
    entries (history_shown None: all of them, the full restore view)."""
    from ..core.spaces.resolve import resolve  # lazy: loaded on first use (opening the screen stays light)

    lines: list[ViewLine] = [ViewLine(row.id, "header"), ViewLine(f"project {row.project} · rule {row.rule}", "muted")]
    if row.problem:
        lines.append(ViewLine(f"! {row.problem}", "refusal"))
    decision = resolve(
        Path(row.id).parent, "global" if row.rule == "global" else "workspace" if row.rule == "workspace" else "auto"
    )
    folder = decision.memory_folder() if decision.problem is None else None
    if decision.problem is not None:
        lines.append(ViewLine(""))
        lines.append(
            ViewLine("Every space command refuses this project until its config.toml is fixed (x: the check).", "muted")
        )
        return SpacePane(row.id, lines, archive_blocked="its config.toml is invalid")
    if folder is None:
        lines.append(ViewLine(""))
        lines.append(ViewLine("No memory files here yet: i creates them from the skill's templates.", "muted"))
        return SpacePane(row.id, lines, archive_blocked="there is no memory here yet")
    if folder != Path(row.id):
        lines.append(ViewLine(f"legacy memory at {folder}; M moves it", "refusal"))
    current = reads.read_bytes(folder / reads.CURRENT)
    history_doc = reads.document(folder / reads.HISTORY)
    history_text = history_doc.text if history_doc is not None else ""
    lost: list[str] = []
    change: list[ViewLine] = []
    if folder == Path(row.id):
        try:
            from ..service.spaces_write import rel_of  # lazy: loaded on first use (opening the screen stays light)

            change, lost = current_change(own_place(decision), rel_of(decision, reads.CURRENT), current, history_text)
        except Exception:  # the pane shows the files even when memboard's revisions cannot be read
            change, lost = [], []
    if change:
        lines.append(ViewLine(""))
        lines += change
    for name, text in (
        (reads.CURRENT, None if current is None else reads.read_text(folder / reads.CURRENT)),
        (reads.DREAM, reads.read_text(folder / reads.DREAM)),
    ):
        lines.append(ViewLine(""))
        lines.append(ViewLine(f"[{name}]", "section"))
        lines += _text_lines(text) if text is not None else [ViewLine("(absent)", "muted")]
    lines.append(ViewLine(""))
    if history_doc is None:
        lines += [ViewLine(f"[{reads.HISTORY}]", "section"), ViewLine("(absent)", "muted")]
    else:
        entries = history_doc.entries
        shown = entries if history_shown is None else entries[-history_shown:]
        label = f"[{reads.HISTORY}] " + (
            f"all {len(entries)} entries" if history_shown is None else f"newest {len(shown)} of {len(entries)} entries"
        )
        lines.append(ViewLine(label, "section"))
        for entry in reversed(shown):
            lines += _text_lines(entry.text.rstrip("\r\n"))
    return SpacePane(row.id, lines, lost, bool(change), archive_reason(folder))
