"""Entry points of the board: on a memory root, or on a freshly generated demo root."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..core.errors import UsageError
from ..core.files.localstate import folder_of
from ..core.formats.clock import now
from ..core.ops.demo import build_demo
from ..core.ops.notes.demo import build_demo_notes
from .app import MemboardApp


def run_board(path: str | os.PathLike) -> int:
    """Open the board on the memory root at path; returns the exit status."""
    MemboardApp(path).run()
    return 0


def check_demo_target(target: str | os.PathLike) -> Path:
    """target as a Path; UsageError when it is a folder that holds something (the demo never writes among files)."""
    target = Path(target)
    if target.exists() and any(target.iterdir()):
        raise UsageError(f"{target} is not empty; choose an empty or new folder for the demo root")
    return target


def make_demo(target: str | os.PathLike) -> Path:
    """Generate the demo root, its sessions and its notes, into target (which must be empty or absent)."""
    target = check_demo_target(target)
    when = now()
    return build_demo_notes(build_demo(target, when), when)


def run_demo(keep: str | None = None) -> int:
    """Generate the demo root (in a temp folder, or in keep) and open the board on it."""
    if keep:
        path = make_demo(keep)
        return run_board(path)
    with tempfile.TemporaryDirectory(prefix="memboard-demo-") as tmp:
        path = make_demo(Path(tmp) / "memory")
        try:
            return run_board(path)
        finally:  # the throwaway root's revisions in local state go with it
            shutil.rmtree(folder_of(path.resolve()), ignore_errors=True)
