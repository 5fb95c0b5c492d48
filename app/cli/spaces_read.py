"""The reads of `memboard space`: where, list, restore, search, check (issue 24 §2, §4).

A placeholder until the command is built: each handler refuses in one line, writing nothing.
"""

from __future__ import annotations

import argparse

from ..core.errors import Refused


def cmd_where(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_list(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_restore(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_search(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_check(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")
