"""A flow at work comes first: background work that can wait, waits for it.

A flow works between the key that starts it and the screen it asks the user something on (a question, a
picker, the preview), and again after each answer: on a large root it imports its screens, reads the index and
every snapshot and builds a plan, seconds of CPU. Work the board does on its own meanwhile, such as the first
recording of a root's snapshot revisions (sessions.py), would share the one interpreter lock with it and make
the preview come later for nothing: that work takes a batch at a time and, between batches, waits while a flow
is at work (up to a limit, so that it is never held up for good). While the flow waits for the user, it goes
on. Nothing here touches a file or a widget; it only counts who is at work.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Planning:
    """How many flows and plan builds are at work now, and a way to wait until none is."""

    def __init__(self) -> None:
        """Nobody at work."""
        self._count = 0
        self._changed = threading.Condition()

    def _add(self, step: int) -> None:
        """One more (1) or one fewer (-1) at work."""
        with self._changed:
            self._count += step
            if self._count <= 0:
                self._changed.notify_all()

    @contextmanager
    def building(self) -> Iterator[None]:
        """Count the caller (a flow, a plan's build) as at work within the block."""
        self._add(1)
        try:
            yield
        finally:
            self._add(-1)

    @contextmanager
    def aside(self) -> Iterator[None]:
        """Within building(): not at work for the block (the flow waits for the user's answer)."""
        self._add(-1)
        try:
            yield
        finally:
            self._add(1)

    @property
    def busy(self) -> bool:
        """Whether a flow or a plan's build is at work now."""
        return self._count > 0

    def wait_idle(self, timeout: float) -> bool:
        """Wait until nobody is at work, at most timeout seconds; whether nobody is."""
        with self._changed:
            return self._changed.wait_for(lambda: self._count <= 0, timeout)


PLANNING = Planning()  # the process's flows at work (one board per process; a test's boards share it)
