"""`memboard` and `memboard demo`: open the board (on the memory root, or on a generated demo root)."""

from __future__ import annotations

import argparse
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


def cmd_board(args: argparse.Namespace) -> int:
    """Open the board on the memory root."""
    root = root_of(args)
    return board_run().run_board(root.path)


def cmd_demo(args: argparse.Namespace) -> int:
    """Open the board on a generated demo root."""
    return board_run().run_demo(getattr(args, "keep", None))
