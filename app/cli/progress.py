"""A progress bar on the terminal's stderr while a command writes many files.

`doctor --fix` on a large root can write tens of thousands of snapshots (minutes at 100k rows), and an
`organize` or `archive` of many sessions moves as many files: a careful user wants to see that it goes on
and how long is left. The bar is rich's (`rich.progress`, already a dependency), drawn only when stderr is a
terminal and the plan has at least `SHOWN_FROM` file steps, and erased when the command ends: stdout (a
`--json` document, the outcome lines) is untouched, and a pipe or a log sees nothing of it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

SHOWN_FROM = 200  # file steps: a plan of fewer is written in well under a second


class FileSteps:
    """The callable `execute` tells after each file step (done, total); it starts the bar on the first call of a
    large plan."""

    def __init__(self, label: str) -> None:
        """No bar yet: it starts on the first step of a plan of SHOWN_FROM steps or more."""
        self.label = label
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __call__(self, done: int, total: int) -> None:
        """Show that done of total file steps are written."""
        if total < SHOWN_FROM:
            return
        if self.bar is None:
            self.bar, self.task = _start(self.label, total)
        if self.task is not None:  # (the last step written: the plan's verification follows, seconds at 100k)
            said = self.label if done < total else f"{self.label}: checking what was written"
            self.bar.update(self.task, completed=done, total=total, description=said)

    def close(self) -> None:
        """Erase the bar, if one was drawn."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _start(label: str, total: int) -> tuple[Progress, TaskID]:
    """A rich progress bar on stderr, started: the label, the bar, files done of all, the time left."""
    # lazy: rich costs an import only when a large plan is written on a terminal
    from rich.console import Console  # (lazy, as above)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn  # (lazy)

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files, left"),
        TimeRemainingColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    )
    bar.start()
    return bar, bar.add_task(label, total=total)


@contextmanager
def file_steps(label: str) -> Iterator[FileSteps | None]:
    """A progress callback for `execute` while a command writes, or None when stderr is no terminal."""
    if not _terminal():
        yield None
        return
    steps = FileSteps(label)
    try:
        yield steps
    finally:
        steps.close()


def _terminal() -> bool:
    """Whether stderr is a terminal (a stream without isatty is not)."""
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty is not None and isatty())
