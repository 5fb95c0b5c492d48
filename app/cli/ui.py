"""`memboard` and `memboard demo`: open the board (on the memory root, or on a generated demo root)."""

from __future__ import annotations

import argparse
import sys
from types import ModuleType

from ..core.errors import MemboardError
from .args import root_of

UI_PACKAGES = ("textual", "rich")


def board_run() -> ModuleType:
    """The board's entry points; a missing Textual or Rich (a broken install) is a one-line error."""
    try:
        from ..board import run  # lazy: the board and Textual load only when it opens (about 0.3 s)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing not in UI_PACKAGES:
            raise
        raise MemboardError(
            f"the board needs {missing}, which is not installed (pip install memboard installs it); "
            "the other commands work without it"
        ) from None
    return run


def need_terminal() -> None:
    """Refuse to open the board without a terminal: it would wait for keys that never come, busy, for ever
    (a hook or a script that runs `memboard` with no command)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise MemboardError(
            "the board needs a terminal (stdin and stdout); nothing was written. "
            "Scripts and hooks use commands such as memboard list, show, search or hook"
        )


def cmd_board(args: argparse.Namespace) -> int:
    """Open the board on the memory root."""
    root = root_of(args)
    run = board_run()
    need_terminal()
    return run.run_board(root.path)


def cmd_demo(args: argparse.Namespace) -> int:
    """Open the board on a generated demo root."""
    run = board_run()
    keep = getattr(args, "keep", None)
    if keep:
        run.check_demo_target(keep)
    need_terminal()
    return run.run_demo(keep)
