"""Doctor's check of memboard's git merge driver (issue 26 §5): merge_driver_missing.

The root's .gitattributes travels with the repository, but the driver's definition lives in each clone's
git config (or the user's). A clone that never ran `install-merge-driver` has attributes naming a driver
git does not know, and git then merges index.md, snapshots and notes line by line without a word: the
next merge of two registrations conflicts. Only a root whose .gitattributes names the driver asks git.
"""

from __future__ import annotations

from ...files.git import config_get, work_tree_top
from ...files.root import MemoryRoot
from ...results import Finding
from ..mergedriver import ATTRIBUTES, DRIVER, names_driver

MISSING = "merge_driver_missing"


def driver_missing(root: MemoryRoot) -> list[Finding]:
    """merge_driver_missing when the root's .gitattributes names memboard's driver and the git config this
    clone reads does not define it (none outside a git work tree, or without git)."""
    if not names_driver(root.read(ATTRIBUTES)) or work_tree_top(root.real) is None:
        return []
    if config_get(root.real, f"merge.{DRIVER}.driver"):
        return []
    return [
        Finding(
            MISSING,
            "",
            f"{ATTRIBUTES} names memboard's merge driver (merge={DRIVER}) but this clone's git config does not define "
            f"merge.{DRIVER}.driver, so git merges index.md, snapshots and notes line by line without saying so: run "
            "`memboard install-merge-driver` in this clone",
            subject=ATTRIBUTES,
        )
    ]
