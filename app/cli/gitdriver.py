"""`memboard install-merge-driver` and `memboard merge-driver`: git merges memboard's files (issue 26 §5).

A placeholder until the commands are built: each handler refuses in one line, writing nothing.
"""

from __future__ import annotations

import argparse

from ..core.errors import Refused


def cmd_install_merge_driver(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_merge_driver(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")
