"""`memboard install-merge-driver` and `memboard merge-driver`: git merges memboard's files (issue 26 §5).

install-merge-driver writes the root's .gitattributes and .gitignore through the plan engine (a dry run
prints them as a patch) and defines the driver in git config with `git config`, the one write outside
the root, which the preview names as the commands it runs. merge-driver is what git runs for each of
memboard's files in a merge, a rebase or a cherry-pick: entry.py parses its arguments without building
the other commands' parser, and it loads only the merge of the file's kind.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the driver's fast path builds no parser (argparse costs it 6 ms)
    import argparse


def cmd_install_merge_driver(args: argparse.Namespace) -> int:
    """Preview or apply the root's .gitattributes and .gitignore, then define the driver in git config; under
    --json the outcome is one object {dry_run, changed, files, git_config, scope, message} (a dry run's patch in
    it)."""
    from ..core.errors import MemboardError  # lazy (each import here): the driver's fast path loads this module
    from ..core.files import git  # lazy
    from ..core.files.execute import execute  # lazy
    from ..core.ops.gitdriver import driver_command, install_plan  # lazy
    from .args import root_of  # lazy
    from .changes import print_patch  # lazy
    from .install import memboard_words  # lazy
    from .output import dump  # lazy

    scope: git.Scope = "global" if args.global_config else "local"
    plan = execute(root_of(args), install_plan(driver_command(memboard_words()), scope), dry_run=args.dry_run)
    config = plan.result
    where = "your user's git config" if scope == "global" else "this clone's git config"
    as_json = bool(getattr(args, "json", False))
    answer: dict[str, object] = {
        "dry_run": bool(args.dry_run),
        "changed": bool(plan.changes or config.settings),
        "files": [change.path for change in plan.changes],
        "git_config": [{"key": key, "value": value} for key, value in config.settings],
        "scope": scope,
    }
    if args.dry_run:
        notes = [f"would set in {where}: {command}" for command in config.commands()]
        if as_json:
            dump({**answer, "message": "dry run: nothing written", "patch": plan.patch().decode("utf-8", "replace")})
        elif plan.changes or not config.settings:
            print_patch(plan, notes)
        else:
            for line in [*notes, "dry run: nothing written"]:
                print(line, file=sys.stderr)
        return 0
    lines = [f"{'wrote' if change.kind == 'create' else 'added lines to'} {change.path}" for change in plan.changes]
    if not plan.changes and not config.settings:
        lines = ["nothing to change: git merges this root's files with memboard"]
    for key, value in config.settings:
        failed = git.config_set(config.folder, key, value, scope)
        if failed:
            raise MemboardError(
                f"{key} could not be set in {where} ({failed}); "
                + ("the root's files were written, " if plan.changes else "")
                + "run install-merge-driver again"
            )
        lines.append(f"set in {where}: {key} = {value}")
    if as_json:
        dump({**answer, "message": "; ".join(lines)})
    else:
        print("\n".join(lines))
    return 0


def cmd_merge_driver(args: argparse.Namespace) -> int:
    """What git runs: merge OURS with THEIRS and BASE, the result over OURS; 0 merged, 1 conflicts left."""
    return run_driver(args.base, args.ours, args.theirs, args.path, args.marker_size)


def run_driver(base: str, ours: str, theirs: str, path: str, marker_size: int) -> int:
    """The driver's run: its one line (when it has one) on stderr, where git shows it; never exit 2 or more."""
    from ..core.ops.mergedriver import merge_driver  # lazy: entry.py's fast path imports this module alone

    outcome = merge_driver(Path(base), Path(ours), Path(theirs), path, marker_size, Path.cwd())
    if outcome.message:
        print(f"memboard: {outcome.message}", file=sys.stderr)
    return outcome.code


def fast_main(argv: list[str]) -> int | None:
    """`memboard merge-driver BASE OURS THEIRS [PATH] [--marker-size N]` without argparse (git runs it once per
    file per merge); None when argv is anything else (the full parser then says what is wrong)."""
    words: list[str] = []
    size = 7
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--marker-size" and i + 1 < len(argv) and argv[i + 1].isdigit():
            size, i = int(argv[i + 1]), i + 2
            continue
        if word.startswith("--marker-size=") and word.partition("=")[2].isdigit():
            size, i = int(word.partition("=")[2]), i + 1
            continue
        if word.startswith("-") and word != "-":
            return None
        words.append(word)
        i += 1
    if len(words) not in (3, 4) or size < 1:
        return None
    base, ours, theirs, *rest = words
    return run_driver(base, ours, theirs, rest[0] if rest else "", size)
