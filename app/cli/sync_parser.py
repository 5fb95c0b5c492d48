"""The parsers of the commands that merge what sync tools and git leave behind (issue 26): `resolve`,
`install-merge-driver` and `merge-driver` (what git calls)."""

from __future__ import annotations

import argparse
from typing import Any

Sub = Any  # argparse's subparsers action (a private type)


def add_parsers(sub: Sub, changing: argparse.ArgumentParser) -> None:
    """resolve, install-merge-driver and merge-driver."""
    p = sub.add_parser(
        "resolve",
        parents=[changing],
        help="decide open merge cells and git driver conflicts (--prefer ours|theirs)",
        description="Decides the cells that `doctor --fix` left open when merging a sync-conflict copy (every "
        "one, or those of session or note ID) with the original's value (ours) or the copy's (theirs), then "
        "moves the copy to .memboard/conflicts/. Also decides the conflict blocks memboard's git merge driver "
        "left.",
    )
    p.add_argument("id", metavar="ID", nargs="?", help="only this session's or note's open cells")
    p.add_argument("--prefer", choices=["ours", "theirs"], required=True, help="whose value decides each cell")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler="sync:cmd_resolve")

    p = sub.add_parser(
        "install-merge-driver",
        parents=[changing],
        help="make git merge memboard's files with memboard (.gitattributes and git config)",
        description="Writes <root>/.gitattributes naming memboard's merge driver for index.md, snapshots, "
        "archive files and notes, makes <root>/.gitignore ignore .memboard/ except .memboard/conflicts/, and "
        "defines the driver in this clone's git config (--global: the user's). Each clone runs it once.",
    )
    p.add_argument("--global", dest="global_config", action="store_true", help="define the driver in ~/.gitconfig")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON (with --dry-run: the patch in it)")
    p.set_defaults(handler="gitdriver:cmd_install_merge_driver")

    p = sub.add_parser(
        "merge-driver",
        help="git's merge driver for memboard's files (git calls it: %%O %%A %%B %%P)",
        description="Merges BASE (the common ancestor), OURS and THEIRS of one of memboard's files by the "
        "protocol's structure and writes the result over OURS. Exit 0 when everything was decided, 1 when "
        "something is left open as a conflict block.",
    )
    p.add_argument("base", metavar="BASE")
    p.add_argument("ours", metavar="OURS")
    p.add_argument("theirs", metavar="THEIRS")
    p.add_argument("path", metavar="PATH", nargs="?", default="", help="the file's path in the repository (%%P)")
    p.add_argument("--marker-size", type=int, default=7, metavar="N", help="conflict marker length (%%L)")
    p.set_defaults(handler="gitdriver:cmd_merge_driver")
