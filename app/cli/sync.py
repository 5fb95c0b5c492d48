"""`memboard resolve`: decide the open cells of a merge and the git driver's conflict blocks (issue 26 §2, §5).

A placeholder until the command is built: the handler refuses in one line, writing nothing.
"""

from __future__ import annotations

import argparse

from ..core.errors import Refused


def cmd_resolve(args: argparse.Namespace) -> int:
    """Not built yet: refuse in one line."""
    raise Refused("this command is not built yet; nothing written")
