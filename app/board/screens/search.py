"""Search over everything (`f`): a query box and the core's ranked results as you type.

Each keystroke (after a short pause) starts one search in a thread worker (group "search",
exclusive) through the core's search engine: the same cache, literal matching and short-query
fallback as `memboard search`. The worker posts its hits back with the number of the query it
answered; only the answer to the newest query is shown, so a slow older search (a first cache
build, a scan) never replaces a newer one. The table behind stays live: nothing here blocks the UI
thread. Results keep their `kind`, so kinds other than sessions can join them: after the sessions and
notes come the hits of the known session-memory spaces' hot files, marked `P`, and of the hierarchy
workspace found as `memboard hierarchy` finds it, marked `H` (core/search/places.py, as `memboard
search --kind space|hierarchy` gives them); enter on one opens the Spaces screen on that space, or
the Hierarchy screen.

The first search on a root whose search cache is not built yet does not wait for the whole build (seconds on
a large root): the build runs in its own worker, its progress under the query box, and until it is done each
query is answered from the index rows alone (service/first_search.py), marked as the rows' answer; once the
cache is built the newest query is asked again and the whole answer replaces the rows'.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from memboard.styles import VIEWS_TCSS
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.rows import printable

from ...core.errors import MemboardError
from ...core.files.root import MemoryRoot
from ...core.search.engine import SearchFilters, SearchHit, check_query, run
from ...core.search.places import HIERARCHY, PlaceHit
from ...service import first_search
from ..actions import bindings
from .session import SessionScreen

DEBOUNCE = 0.15  # seconds of no typing before a search starts
LIMIT = 50  # results shown for one query
RECHECK = 1.0  # seconds after which the next search looks at the files' stats again
BUILD = -1  # the number progress lines of the cache's own build carry (no query's)
BUILDING = "building the search cache of this root…"
ROWS_SO_FAR = "the index rows so far; snapshots, notes and the archive once the search cache is built"
INTRO = (
    "Type to search every index row, live snapshot and archived session: literal text in any case "
    "(同步, a piece of an ID, wiki/tools/obsidian-sync.md). Quotes, *, - and AND are searched for as typed."
)


@dataclass
class SearchDone(Message):
    """A search's answer (or its one-line error) for query number `number`."""

    number: int
    query: str
    hits: list[SearchHit | PlaceHit] = field(default_factory=list)
    scanned: str = ""  # why the files were scanned instead of the cache ("" when the cache answered)
    error: str = ""
    unread: str = ""  # the files that could not be read (`1 file could not be read: ...`), "" when none
    rows_only: bool = False  # the index rows' answer while the search cache is built: the whole one follows


@dataclass
class CacheBuilt(Message):
    """The search cache's first build ended ("" = built, else why not: the search then reads the files)."""

    why: str = ""


@dataclass
class SearchProgress(Message):
    """A progress line of the search cache's first build (for query number `number`)."""

    number: int
    text: str


def where_text(hit: SearchHit) -> str:
    """Where a hit matched, as the command line says it: `snapshot › Decisions`, `archived row › Topic`."""
    where = hit.where if hit.state == "live" else f"archived {hit.where}"
    return f"{where} › {hit.section}"


def place_text(hit: PlaceHit, style: dict[str, Style]) -> Text:
    """A space (`P`) or hierarchy (`H`) result: its mark, file and line, layer; then where it matched and the
    snippet, each match in the `match` style."""
    out = Text()
    out.append("H" if hit.kind == HIERARCHY else "P", style=style["kind"])
    out.append("  ")
    out.append(printable(f"{hit.path}:{hit.line}"), style=style["id"])
    out.append(f"  {hit.layer}  ")
    out.append(hit.kind, style=style["kind"])
    out.append("\n  ")
    out.append(printable(f"{hit.kind} › {hit.section}") + ": ", style=style["where"])
    snippet = Text(printable(hit.snippet))
    for start, end in hit.spans:
        snippet.stylize(style["match"], start, end)
    out.append_text(snippet)
    return out


def place_hits(query: str) -> list[PlaceHit]:
    """The known spaces' hot files' hits, then the hierarchy workspace's (none when no workspace is found)."""
    # lazy: the spaces' and hierarchy's search loads with the first search, not with the board
    from ...core.hierarchy.workspace import resolve_workspace
    from ...core.search import places  # lazy: see above

    found = places.search_places(places.known_space_files(False, False), query, LIMIT)
    try:
        workspace = resolve_workspace()
    except MemboardError:
        return found
    return found + places.search_places(places.hierarchy_files(workspace.resolve(), False), query, LIMIT)


def hit_text(hit: SearchHit | PlaceHit, style: dict[str, Style]) -> Text:
    """A result as plain Text: its ID, live status or archived, Updated At and kind; then where it
    matched and the snippet, each match in the `match` style."""
    if isinstance(hit, PlaceHit):
        return place_text(hit, style)
    out = Text()
    out.append(printable(hit.id), style=style["id"])
    out.append("  ")
    if hit.state == "live":
        out.append(f"live {hit.status}".rstrip(), style=style["live"])
    else:
        out.append("archived", style=style["archived"])
    out.append(f"  {hit.updated_at or '-'}  ")
    out.append(hit.kind, style=style["kind"])
    out.append("\n  ")
    out.append(printable(where_text(hit)) + ": ", style=style["where"])
    snippet = Text(printable(hit.snippet))  # one character for one: the spans stay
    for start, end in hit.spans:
        snippet.stylize(style["match"], start, end)
    out.append_text(snippet)
    return out


class SearchScreen(ModalScreen[tuple[str, str] | None]):
    """Search everything; returns the live Session ID chosen with enter (None when closed).

    An archived result opens read-only on top of it (SessionScreen).
    """

    CSS_PATH = VIEWS_TCSS
    BINDINGS = bindings("search")
    COMPONENT_CLASSES = {f"search--{part}" for part in ("id", "kind", "live", "archived", "where", "match")}

    def __init__(self, root: MemoryRoot):
        """Search root (its cache is built on the first search when missing)."""
        super().__init__()
        self.root = root
        self.number = 0  # the newest query's number: answers to other numbers are stale
        self.query_text = ""
        self.hits: list[SearchHit | PlaceHit] = []
        self.building = 0  # the number of the search whose cache build is reporting progress
        self.waiting: tuple[str, float] | None = None  # the query being searched and since when
        self.cache = "unknown"  # the search cache: "unknown" (not looked at), "building" (first build), "ready"
        self.rows_only = False  # the hits shown are the index rows' answer while the cache is built
        self._timer: Timer | None = None
        self._checked = 0.0

    def compose(self) -> ComposeResult:
        """Title, the query box, status and progress lines, the results and the footer of its keys."""
        with Vertical(id="search-dialog"):
            yield Label("Search everything: index rows, snapshots, the archive and notes", id="search-title")
            with Horizontal(id="search-bar"):
                yield Static("find ›", id="search-label")
                yield Input(placeholder="text to find", id="search-query", compact=True)
            yield Static(Text(INTRO), id="search-status")
            yield Static(id="search-progress")
            yield OptionList(id="search-results")
        yield KeyBar("search")

    def on_mount(self) -> None:
        """Focus the query box."""
        self.query_one("#search-progress").display = False
        self.query_one(Input).focus()
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        """While a search takes long (a first cache build), count the seconds in the status line."""
        if self.waiting is not None:
            query, since = self.waiting
            elapsed = int(time.monotonic() - since)
            if elapsed >= 1:
                so_far = f"{self.summary_count(len(self.hits))} in {ROWS_SO_FAR} · " if self.rows_only else ""
                self.say(f"searching for «{query}»… {so_far}{elapsed} s")

    def say(self, text: str, error: bool = False) -> None:
        """Put one line in the status line (in the error colour when error)."""
        status = self.query_one("#search-status", Static)
        status.set_class(error, "-error")
        status.update(Text(text))

    @on(Input.Changed, "#search-query")
    def _query_changed(self, event: Input.Changed) -> None:
        """A new query: number it and search once typing pauses (an empty or too long one at once)."""
        self.number += 1
        self.rows_only = False
        if self._timer is not None:
            self._timer.stop()
        self.waiting = None
        query = event.value.strip()
        if not query:
            self.show_hits([])
            self.say(INTRO)
            return
        try:
            query = check_query(query)
        except MemboardError as exc:
            self.show_hits([])
            self.say(str(exc), error=True)
            return
        self.say(f"searching for «{query}»…")
        self.waiting = (query, time.monotonic())
        self._timer = self.set_timer(DEBOUNCE, partial(self.start_search, self.number, query))

    def start_search(self, number: int, query: str) -> None:
        """Start the search for query number `number` unless a newer query came meanwhile."""
        if number != self.number:
            return
        if self.cache == "unknown":
            self.cache = "ready"
            if first_search.cache_missing(self.root):
                self.cache = "building"
                self.on_search_progress(SearchProgress(BUILD, BUILDING))
                self.build_worker()
        if self.cache == "building":
            self.rows_worker(number, query)
            return
        now = time.monotonic()
        check_files = now - self._checked >= RECHECK
        if check_files:
            self._checked = now
        self.search_worker(number, query, check_files)

    @work(thread=True, exclusive=True, group="search")
    def search_worker(self, number: int, query: str, check_files: bool) -> None:
        """Search off the UI thread and post the answer (or its error) back with the query's number."""
        try:
            outcome = run(self.root, query, SearchFilters(limit=LIMIT), partial(self._progress, number), check_files)
        except MemboardError as exc:
            self.post_message(SearchDone(number, query, error=str(exc)))
        except Exception as exc:
            self.post_message(SearchDone(number, query, error=f"search failed: {exc}"))
        else:
            scanned = outcome.reason if outcome.backend == "scan" else ""
            hits: list[SearchHit | PlaceHit] = list(outcome.hits)
            try:
                hits += place_hits(query)[: max(0, LIMIT - len(hits))]
            except (MemboardError, OSError):
                pass  # the spaces and the hierarchy are extras here: `memboard search --kind` says what failed
            self.post_message(SearchDone(number, query, hits, scanned, unread=outcome.unread_line() or ""))

    @work(thread=True, exclusive=True, group="search")
    def rows_worker(self, number: int, query: str) -> None:
        """While the cache is built: the index rows' answer to query number `number` (the whole one follows)."""
        try:
            hits: list[SearchHit | PlaceHit] = list(first_search.row_hits(self.root, query, SearchFilters(limit=LIMIT)))
        except MemboardError as exc:
            self.post_message(SearchDone(number, query, error=str(exc)))
        except Exception as exc:
            self.post_message(SearchDone(number, query, error=f"search failed: {exc}"))
        else:
            self.post_message(SearchDone(number, query, hits, rows_only=True))

    @work(thread=True, group="search-build")
    def build_worker(self) -> None:
        """Build the root's search cache beside the rows' answers, its progress shown; then say it is done."""
        try:
            why = first_search.build_cache(self.root, partial(self._progress, BUILD))
        except Exception as exc:
            why = f"the search cache could not be built ({exc})"
        self.post_message(CacheBuilt(why))

    def on_cache_built(self, message: CacheBuilt) -> None:
        """The first build ended: ask the newest query again, now of the cache (or of the files, when it failed)."""
        self.cache = "ready"
        if self.building == BUILD:
            self.query_one("#search-progress").display = False
        if self.waiting is not None:  # a query is being searched (its rows' answer may be shown)
            self.search_worker(self.number, self.waiting[0], True)

    def _progress(self, number: int, text: str) -> None:
        """Pass a progress line of the cache's build to the UI thread (called in the worker)."""
        self.post_message(SearchProgress(number, text))

    def on_search_progress(self, message: SearchProgress) -> None:
        """Show how the first build of the search cache goes."""
        self.building = message.number
        progress = self.query_one("#search-progress", Static)
        progress.display = True
        if message.number == BUILD:
            why = (
                "its first search; the index rows answer meanwhile" if message.text == BUILDING else "its first search"
            )
            progress.update(Text(f"{message.text} ({why})"))
        else:
            progress.update(Text(f"{message.text} (the first search on this root builds its cache)"))

    def on_search_done(self, message: SearchDone) -> None:
        """Show the newest query's answer; an older query's answer is dropped."""
        if message.number == self.building:
            self.query_one("#search-progress").display = False
        if message.number != self.number or (message.rows_only and self.cache == "ready"):
            return  # an older query's answer, or the rows' answer once the whole one is asked for
        self.query_text = message.query
        keep = self.highlighted_id() if self.rows_only else None  # the whole answer keeps the rows' highlight
        self.rows_only = message.rows_only and not message.error
        if self.rows_only:  # the whole answer is still to come: the query is still being searched
            self.waiting = self.waiting or (message.query, time.monotonic())
            self.show_hits(message.hits)
            self.say(f"searching for «{message.query}»… {self.summary_count(len(message.hits))} in {ROWS_SO_FAR}")
            return
        self.waiting = None
        if message.error:
            self.show_hits([])
            self.say(message.error, error=True)
            return
        self.show_hits(message.hits, keep)
        self.say(self.summary(message))

    @staticmethod
    def summary_count(count: int) -> str:
        """`no result`, `1 result`, `12 results`."""
        return f"{count or 'no'} result{'s' if count != 1 else ''}"

    def summary(self, message: SearchDone) -> str:
        """The status line for an answer: how many results, or that nothing matched."""
        count = len(message.hits)
        if not count:
            line = f"No matches for «{message.query}» in the index, the snapshots or the archive."
        elif count >= LIMIT:
            line = f"The best {count} results for «{message.query}», best first (type more to narrow)."
        else:
            line = f"{count} result{'s' if count != 1 else ''} for «{message.query}», best first."
        if message.scanned:
            line += f" Searched the files: {message.scanned}."
        if message.unread:
            line += f" {message.unread[0].upper()}{message.unread[1:]}."
        return line

    def highlighted_id(self) -> str | None:
        """The ID of the highlighted result (None when none)."""
        highlighted = self.query_one(OptionList).highlighted
        return self.hits[highlighted].id if highlighted is not None and highlighted < len(self.hits) else None

    def show_hits(self, hits: list[SearchHit | PlaceHit], keep: str | None = None) -> None:
        """Put hits in the results list, the one with ID keep highlighted (else the first)."""
        self.hits = hits
        styles = {
            part: self.get_component_rich_style(f"search--{part}", partial=True)
            for part in ("id", "kind", "live", "archived", "where", "match")
        }
        results = self.query_one(OptionList)
        results.clear_options()
        results.add_options([Option(hit_text(hit, styles), id=str(i)) for i, hit in enumerate(hits)])
        if hits:
            results.highlighted = next((i for i, hit in enumerate(hits) if hit.id == keep), 0)

    @on(Input.Submitted, "#search-query")
    def _submitted(self, event: Input.Submitted) -> None:
        """Enter opens the highlighted result."""
        event.stop()
        highlighted = self.query_one(OptionList).highlighted
        if highlighted is None or not self.hits:
            self.app.bell()
            return
        self.open(self.hits[highlighted])

    @on(OptionList.OptionSelected, "#search-results")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        """A click (or enter in the list) opens that result."""
        event.stop()
        self.open(self.hits[event.option_index])

    def open(self, hit: SearchHit | PlaceHit) -> None:
        """A note: close and show it in the notes view; a live session: close and select its row;
        an archived one: open it read-only on top; a space or hierarchy hit: close and show it on the Spaces
        or Hierarchy screen. The answer is (kind, ID)."""
        if isinstance(hit, PlaceHit):
            self.dismiss((hit.kind, hit.id))
        elif hit.kind == "note":
            self.dismiss(("note", hit.id))
        elif hit.state == "live" and hit.session_id is not None:
            self.dismiss(("session", hit.session_id))
        else:
            self.app.push_screen(SessionScreen(self.root, hit.id))

    def action_move(self, step: int) -> None:
        """Move the highlight while the query box keeps the focus."""
        results = self.query_one(OptionList)
        if step > 0:
            results.action_cursor_down()
        else:
            results.action_cursor_up()

    def action_close(self) -> None:
        """Close search."""
        self.dismiss(None)
