"""The cyclic garbage collector paused around work that allocates many long-lived objects holding no cycles.

Reading 100k rows, building a plan with 57k findings, running a one-shot command: each allocation run sets off
collection passes over objects that all live until the work ends, which cost a third or more of its CPU. The
collector is turned off for the block and back on after it only by the caller that found it on (several threads
may pause it at once; a caller that runs with it off keeps it off). It lives at the bottom of the core's layers
because the index reader (formats/index.py) uses it, as do the plan's build (files/execute.py) and the command
line's entry.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused(pause: bool = True) -> Iterator[None]:
    """The cyclic garbage collector off within the block (when pause), as it was after it."""
    collecting = gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
