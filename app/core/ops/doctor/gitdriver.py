"""Doctor's check of memboard's git merge driver (issue 26 §5): merge_driver_missing.

The root's .gitattributes travels with the repository, but the driver's definition lives in each clone's
git config (or the user's). A clone that never ran `install-merge-driver` has attributes naming a driver
git does not know, and git then merges index.md, snapshots and notes line by line without a word: the
next merge of two registrations conflicts. Only a root whose .gitattributes names the driver asks git.
"""

from __future__ import annotations

import os
import shlex

from ...files.git import config_get, work_tree_top
from ...files.root import MemoryRoot
from ...results import Finding
from ..mergedriver import ATTRIBUTES, DRIVER, names_driver

MISSING = "merge_driver_missing"


def driver_missing(root: MemoryRoot) -> list[Finding]:
    """merge_driver_missing when the root's .gitattributes names memboard's driver and the git config this
    clone reads does not define it, or defines it with a program that is gone (a memboard uninstalled or
    moved since); none outside a git work tree, or without git."""
    if not names_driver(root.read(ATTRIBUTES)) or work_tree_top(root.real) is None:
        return []
    driver = config_get(root.real, f"merge.{DRIVER}.driver")
    if not driver:
        why = f"this clone's git config does not define merge.{DRIVER}.driver"
    else:
        program = _program(driver)
        if program is None or os.path.exists(program):
            return []
        why = f"merge.{DRIVER}.driver in git config runs {program}, which no longer exists"
    return [
        Finding(
            MISSING,
            "",
            f"{ATTRIBUTES} names memboard's merge driver (merge={DRIVER}) but {why}, so git merges index.md, "
            "snapshots and notes line by line (or fails to merge them) without saying so: run "
            "`memboard install-merge-driver` in this clone",
            subject=ATTRIBUTES,
        )
    ]


def _program(command: str) -> str | None:
    """The program a driver's command line starts, when it names one by its absolute path."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    return words[0] if words and os.path.isabs(words[0]) else None
