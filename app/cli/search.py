"""`memboard search`: the command line face of core/search (arguments, printing; the hits' JSON is service/search.py).

It imports only what a search needs (no Textual, Rich or mistletoe), so it starts about as
fast as Python itself and stays usable from an agent's MCP server.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..core.config import resolve_root
from ..core.errors import UsageError
from ..core.files.root import MemoryRoot
from ..core.formats.topic import SCOPES as NOTE_SCOPES
from ..core.formats.topic import TYPES as NOTE_TYPES
from ..core.search.engine import MAX_LIMIT, SearchFilters, SearchHit, SearchOutcome, run
from ..core.search.notes import find_notes
from ..service.search import hit_json, label
from .args import OneLineParser

DESCRIPTION = (
    "Finds sessions whose index row, live snapshot or archived session contains QUERY, and typed notes "
    "that contain it (literal text, any case; quotes, *, AND, - are searched for). Ranked best first, one "
    "result per session or note, each with its kind, where it matched and a snippet, the match marked "
    "«like this». A QUERY starting with - goes after --."
)


def _lean() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The program's parser with only `--root`, and the parent that gives a command its own `--root`."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", metavar="DIR", default=argparse.SUPPRESS, help="memory root folder")
    parser = OneLineParser(prog="memboard")
    parser.add_argument("--root", metavar="DIR", help="memory root folder")
    return parser, common


def build_parser() -> argparse.ArgumentParser:
    """A parser that knows only `search`: `memboard search ...` skips building every other command's."""
    parser, common = _lean()
    add_parser(parser.add_subparsers(dest="command", metavar="COMMAND"), common)
    return parser


def add_parser(sub, common) -> None:
    """Add `search` to the command parsers."""
    p = sub.add_parser(
        "search",
        parents=[common],
        help="find sessions and notes by text (rows, snapshots, archive, notes)",
        description=DESCRIPTION,
    )
    p.add_argument("query", metavar="QUERY")
    p.add_argument(
        "--kind",
        choices=["session", "note", "space", "hierarchy"],
        help="only sessions, only notes, the known session-memory spaces (space) or a hierarchy workspace (hierarchy)",
    )
    p.add_argument(
        "--include-research", action="store_true", help="--kind space: also research.md of every known space"
    )
    p.add_argument(
        "--include-archive",
        action="store_true",
        help="--kind space: also the archive files; --kind hierarchy: also daily logs and migration copies",
    )
    p.add_argument(
        "--workspace", metavar="DIR", help="--kind hierarchy: the workspace (default: as hierarchy finds it)"
    )
    p.add_argument(
        "--status",
        metavar="S",
        help="only results with status S: idle, active or stale (archived: the original); notes: active or superseded",
    )
    p.add_argument("--agent", metavar="NAME", help="only sessions of this agent")
    p.add_argument("--since", metavar="T", help="only sessions updated at or after T (YYYY-MM-DD[ HH:MM] or ISO 8601)")
    p.add_argument("--until", metavar="T", help="only sessions updated at or before T (a date alone: its whole day)")
    state = p.add_mutually_exclusive_group()
    state.add_argument("--live", action="store_true", help="only live sessions (rows and snapshots)")
    state.add_argument("--archived", action="store_true", help="only archived sessions")
    p.add_argument(
        "--section", metavar="NAME", help="only matches in this cell or snapshot section (Topic, Decisions, ...)"
    )
    p.add_argument("--limit", type=int, default=20, metavar="N", help="at most N results (default 20)")
    p.add_argument("--syntax", action="store_true", help='QUERY is an SQLite FTS5 expression (AND, OR, NOT, "phrases")')
    p.add_argument("--json", action="store_true", help="stable JSON (see docs/json-output.md)")
    p.set_defaults(handler="search:cmd_search")


def build_note_parser() -> argparse.ArgumentParser:
    """A parser that knows only `note search`: like `memboard search`, it skips every other command's."""
    parser, common = _lean()
    note = parser.add_subparsers(dest="command", metavar="COMMAND").add_parser("note")
    add_note_parser(note.add_subparsers(dest="note_command", metavar="ACTION", required=True), common)
    return parser


def add_note_parser(nsub, common) -> None:
    """Add `note search` to the note action parsers."""
    p = nsub.add_parser("search", parents=[common], help="find notes by text, active ones first")
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--limit", type=int, default=20, metavar="N", help="at most N results (default 20)")
    p.add_argument("--type", choices=NOTE_TYPES)
    p.add_argument("--scope", choices=NOTE_SCOPES)
    p.add_argument("--project", metavar="P")
    p.add_argument("--status", choices=["active", "superseded"])
    p.add_argument("--json", action="store_true", help="stable JSON (see docs/json-output.md)")
    p.set_defaults(handler="search:cmd_note_search")


def _progress(message: str) -> None:
    """Show progress on the terminal's stderr, on one line."""
    sys.stderr.write("\r\x1b[K" + message)
    sys.stderr.flush()


def cmd_places(args: argparse.Namespace) -> int:
    """search QUERY --kind space|hierarchy: the known spaces' files or a workspace's (no memory root needed)."""
    from ..core.search import places  # lazy: sessions and notes need none of it

    if args.kind == "space":
        if args.workspace is not None:
            raise UsageError("--workspace goes with --kind hierarchy")
        files = places.known_space_files(args.include_research, args.include_archive)
    else:
        if args.include_research:
            raise UsageError("--include-research goes with --kind space")
        from ..core.hierarchy.workspace import resolve_workspace  # lazy: only --kind hierarchy resolves one

        workspace = resolve_workspace(args.workspace, getattr(args, "root", None)).resolve()
        files = places.hierarchy_files(workspace, args.include_archive)
    if isinstance(args.limit, bool) or not 1 <= args.limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be a whole number from 1 to {MAX_LIMIT}")
    hits = places.search_places(files, args.query, args.limit)
    if args.json:
        print(json.dumps([places.hit_json(h) for h in hits], ensure_ascii=False, indent=2))
        return 0
    if not hits:
        print("no matches", file=sys.stderr)
        return 0
    for hit in hits:
        print(f"{hit.path}:{hit.line}  {hit.layer}  {hit.kind} › {hit.section}")
        print(f"    {hit.marked()}")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    """search QUERY [filters] [--json]."""
    if args.kind in ("space", "hierarchy"):
        return cmd_places(args)
    for option, given in (
        ("--include-research", args.include_research),
        ("--include-archive", args.include_archive),
        ("--workspace", args.workspace is not None),
    ):
        if given:
            raise UsageError(f"{option} goes with --kind space or --kind hierarchy")
    root = MemoryRoot(resolve_root(getattr(args, "root", None)))
    state = "live" if args.live else "archived" if args.archived else None
    filters = SearchFilters(
        args.status, args.agent, args.since, args.until, state, args.section, args.limit, args.syntax, args.kind
    )
    tty = sys.stderr.isatty()
    try:
        outcome = run(root, args.query, filters, _progress if tty else None, beside=True)
    finally:
        if tty:
            sys.stderr.write("\r\x1b[K")
    if outcome.partial:
        print(f"memboard: {partial_line(outcome)}", file=sys.stderr)
    elif tty and outcome.backend == "scan" and not args.json:
        print(f"memboard: searched the files ({outcome.reason})", file=sys.stderr)
    return print_hits(outcome.hits, args.json, outcome.unread_line())


def partial_line(outcome: SearchOutcome) -> str:
    """What a first answer read in time while the search cache is built beside it (said on stderr)."""
    return f"{outcome.reason}; this answer is from {outcome.partial} (search again for the whole answer)"


def cmd_note_search(args: argparse.Namespace) -> int:
    """note search QUERY [filters] [--json]: notes only, active first."""
    filters = SearchFilters(
        status=args.status, limit=args.limit, note_type=args.type, scope=args.scope, project=args.project
    )
    outcome = find_notes(MemoryRoot(resolve_root(getattr(args, "root", None))), args.query, filters, beside=True)
    if outcome.partial:
        print(f"memboard: {partial_line(outcome)}", file=sys.stderr)
    return print_hits(outcome.hits, args.json, outcome.unread_line())


def print_hits(hits: list[SearchHit], as_json: bool, unread: str | None = None) -> int:
    """Print hits as JSON or as two lines each (`no matches` on stderr when there are none; unread: the files that
    could not be read, said on stderr, `1 file could not be read: ...`); exit status 0."""
    if unread:
        print(f"memboard: {unread}", file=sys.stderr)
    if as_json:
        print(json.dumps([hit_json(h) for h in hits], ensure_ascii=False, indent=2))
        return 0
    if not hits:
        print("no matches", file=sys.stderr)
        return 0
    for hit in hits:
        print(f"{hit.id}  {hit.status if hit.state == 'live' else 'archived'}  {hit.updated_at or '-'}  {label(hit)}")
        print(f"    {hit.marked()}")
    return 0
