"""`memboard hierarchy migrate` and `memboard hierarchy verify`: the seed's five steps (issue 25 §3).

A placeholder until the command is built: each handler refuses in one line, writing nothing.
"""

from __future__ import annotations

import argparse

from ..core.errors import Refused


def cmd_migrate(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")


def cmd_verify(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")
