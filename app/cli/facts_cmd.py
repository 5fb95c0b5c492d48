"""`memboard facts get|set|todo|touch`: memory/facts.yaml one scalar at a time (issue 25 §3).

A placeholder until the command is built: each handler refuses in one line, writing nothing.
"""

from __future__ import annotations

import argparse

from ..core.errors import Refused


def cmd_get(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_set(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_todo_add(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_todo_done(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_touch(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")
