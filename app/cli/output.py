"""How the command line prints JSON: `dump` as memboard writes it, `dump_array` streaming a long listing.

The JSON objects themselves are the service layer's (memboard.service.output), shared with the
MCP server.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

from ..service.output import dumps, indented


def dump(value: object) -> None:
    """Print JSON as memboard prints it."""
    print(dumps(value))


def dump_array(items: Iterable[Any], encode: Callable[[Any, int], str] = indented, chunk: int = 512) -> None:
    """Print an array of items exactly as `dump(list(items))` would, an item at a time (each encoded by
    encode at nesting level 1): a large listing streams out and is never held whole."""
    write = sys.stdout.write
    first, pending = True, []
    for item in items:
        pending.append(("[\n  " if first else ",\n  ") + encode(item, 1))
        first = False
        if len(pending) >= chunk:
            write("".join(pending))
            pending = []
    write("".join(pending) + ("[]\n" if first else "\n]\n"))
