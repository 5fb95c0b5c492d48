"""The read-only commands: list rows, show one session, walk its reference chain, whoami."""

from __future__ import annotations

import argparse
import sys

from ..core.errors import MemboardError, Refused, UsageError
from ..core.formats.conversations import valid_conversation
from ..core.ops.query import chain, iter_row_views, show
from ..core.results import ChainNode
from ..service.output import chain_json, row_json, session_json, whoami_json
from .args import root_of
from .entry import err
from .output import dump, dump_array


def cmd_list(args: argparse.Namespace) -> int:
    """list [--status S] [--json]: the rows stream out as they are read (a 100k-row index is never held whole)."""
    warnings: list[str] = []
    if args.json:
        # lazy: only `list --json` makes its rows' JSON from their lines
        from ..service.listing import listing_texts

        texts = listing_texts(root_of(args), args.status, warnings)
        for line in warnings:
            err(line)
        dump_array(texts, lambda text, _level: text)
        return 0
    rows = iter_row_views(root_of(args), args.status, warnings)
    for line in warnings:
        err(line)
    for r in rows:
        mark = "!" if r.problem else " "
        refs = ",".join(r.referenced_by) or "-"
        print(f"{mark}{r.id}\t{r.status}\t{r.updated_at}\t{refs}\t{r.topic}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """show ID [--json]."""
    warnings: list[str] = []
    info = show(root_of(args), args.id, warnings)
    for line in warnings:
        err(line)
    if args.json:
        dump(session_json(info))
        return 0
    print(f"{info.id}{' (archived)' if info.archived else ''}")
    for key, value in row_json(info.row).items():
        print(f"  {key}: {value}")
    if info.snapshot is not None:
        print(f"--- {info.snapshot_path}")
        sys.stdout.write(info.snapshot)
    else:
        print("(no snapshot)")
    return 0


def print_tree(nodes: tuple[ChainNode, ...], depth: int, arrow: str) -> None:
    """Print chain nodes as an indented tree with their marks."""
    for node in nodes:
        marks: list[str] = []
        if node.state != "live":
            marks.append(node.state)
        if node.one_sided:
            marks.append("one-sided")
        if node.cycle:
            marks.append("cycle")
        if node.unreadable:
            marks.append(f"cannot read its snapshot: {node.unreadable}")
        tail = f"  [{', '.join(marks)}]" if marks else ""
        topic = f"  {node.topic}" if node.topic else ""
        print(f"{'  ' * depth}{arrow} {node.id}{topic}{tail}")
        print_tree(node.children, depth + 1, arrow)


def cmd_chain(args: argparse.Namespace) -> int:
    """chain ID [--json]."""
    info = chain(root_of(args), args.id)
    if args.json:
        dump(chain_json(info))
        return 0
    print(f"{info.id} ({info.state})")
    print("continues from:")
    print_tree(info.continues_from, 1, "↑")
    print("referenced by:")
    print_tree(info.referenced_by, 1, "↓")
    return 0


def cmd_whoami(args: argparse.Namespace) -> int:
    """`memboard whoami --conversation ID`: the Memory Session ID a hook registered for a conversation."""
    from ..core.ops.session_start import whoami  # lazy: the registration's module is no part of list, show or chain

    if not valid_conversation(args.conversation):
        raise UsageError(f"invalid conversation ID {args.conversation[:60]!r}")
    info = whoami(root_of(args), args.conversation)
    if args.json:
        dump(whoami_json(info))
        return 0 if info.state == "live" else 1
    if info.state == "live":
        print(f"Your Memory Session ID is: {info.session_id}")
        return 0
    if info.state == "unknown":
        raise Refused(f"no Memory Session ID recorded for conversation {args.conversation}")
    raise MemboardError(
        f"conversation {args.conversation} was registered as {info.session_id}, but that row is "
        f"{'archived' if info.state == 'archived' else 'no longer in index.md'}; the next session start registers a new one"
    )
