"""`memboard hierarchy show|lint|init|log|archive-logs` and `memboard lookup` (issue 25 §3).

Each handler parses nothing itself (hierarchy_parser.py holds the arguments) and prints what the
service layer's builder returns (service/hierarchy.py): text, or `--json`; a changing command's
`--dry-run` prints one git patch relative to the workspace on stdout and `patch base: DIR` on stderr,
so that `git -C DIR apply` writes what the command would. `lookup` is a whole-process speed target:
this module imports only what the command it runs needs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..core.errors import UsageError


def _workspace(args: argparse.Namespace) -> Any:
    """The workspace the command works on."""
    # lazy: each command loads its own modules
    from ..service.hierarchy import workspace_of

    return workspace_of(getattr(args, "workspace", None), getattr(args, "root", None))


def _dump(value: object) -> None:
    """Print JSON as memboard prints it."""
    from .output import dump  # lazy: each command loads its own modules

    dump(value)


def cmd_show(args: argparse.Namespace) -> int:
    """`hierarchy show`: the three layers and their sizes."""
    from ..core.hierarchy.show import render  # lazy: each command loads its own modules

    # lazy: each command loads its own modules
    from ..service.hierarchy import (
        limits,
        show_result,
    )

    result = show_result(_workspace(args))
    if args.json:
        _dump(result)
    else:
        lim = limits()
        sys.stdout.write(render(result, lim.hot_max_lines, lim.hot_max_tokens))
    return 0


def cmd_lint(args: argparse.Namespace) -> int:
    """`hierarchy lint [--strict]`: the seed's rules; exit 1 with --strict on a warning or an error."""
    from ..core.hierarchy.lint import failing  # lazy: each command loads its own modules
    from ..service.hierarchy import lint_result  # lazy: each command loads its own modules

    findings = lint_result(_workspace(args))
    if args.json:
        _dump([f.as_json() for f in findings])
    elif findings:
        for f in findings:
            print(f.describe())
    else:
        print("no findings")
    return 1 if args.strict and failing(findings) else 0


def _print_written(args: argparse.Namespace, written: Any) -> int:
    """Print a changing command's outcome as every plan over places is printed (placeout.py): JSON, the dry
    run's patch with `patch base: DIR` first on stderr, or what was done (`nothing to change`)."""
    if args.json:
        _dump(written.as_json())
        return 0
    if written.dry_run:
        from .placeout import print_place_patch  # lazy: each command loads its own modules

        print_place_patch(written.plan, [written.place])
        return 0
    if not written.done:
        print("nothing to change")
    for line in written.done:
        print(line)
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    """`hierarchy init`: create facts.yaml and lookup-index.md, add MEMORY.md's pointers (create-only)."""
    from ..service.hierarchy import init_write  # lazy: each command loads its own modules

    return _print_written(args, init_write(_workspace(args), args.dry_run))


def cmd_log(args: argparse.Namespace) -> int:
    """`hierarchy log (--text|--file) [--date]`: append to a daily log."""
    from ..service.hierarchy import log_write  # lazy: each command loads its own modules

    if args.text is not None:
        text = args.text
    else:
        from .args import read_input  # lazy: each command loads its own modules

        text = read_input(args.file) or ""
    if not text.strip():
        raise UsageError("nothing to append: the text is empty")
    written = log_write(_workspace(args), text, args.date, args.dry_run, args.allow_secrets)
    return _print_written(args, written)


def cmd_archive_logs(args: argparse.Namespace) -> int:
    """`hierarchy archive-logs --before DATE`: move old daily logs to memory/daily-archive/YYYY-MM/."""
    # lazy: each command loads its own modules
    from ..service.hierarchy import archive_write

    return _print_written(args, archive_write(_workspace(args), args.before, args.dry_run))


def cmd_lookup(args: argparse.Namespace) -> int:
    """`lookup QUERY [--all]` (a read) or `lookup add NEED TARGET` (a write)."""
    words: list[str] = args.words
    if words[0] == "add" and len(words) == 3:
        # lazy: each command loads its own modules
        from ..service.hierarchy import lookup_add_write

        for cell in words[1:]:
            if "\n" in cell or "\r" in cell:
                raise UsageError("a lookup cell is one line")
        return _print_written(
            args, lookup_add_write(_workspace(args), words[1], words[2], args.dry_run, args.allow_secrets)
        )
    if args.dry_run:
        raise UsageError("lookup QUERY is a read: --dry-run goes with lookup add NEED TARGET")
    # lazy: each command loads its own modules
    from ..service.hierarchy import lookup_result

    answers = lookup_result(_workspace(args), " ".join(words), args.all, want_value=args.json)
    if args.json:
        _dump(answers if args.all else answers[0])
        return 0
    out = sys.stdout
    for k, a in enumerate(answers):
        if k:
            out.write("\n")
        out.write(f"{a['need']} → {a['target']}  (lookup-index.md line {a['row']})\n")
        if not a["targets"]:
            out.write(f"! row {a['row']}: {a['missing']}\n")
        for t in a["targets"]:
            where = t["path"] + (f" → {t['section']}" if t["section"] else "")
            if t["missing"]:
                out.write(f"! {where}: {t['missing']}\n")
                continue
            out.write(f"--- {where} ({t['kind']})\n")
            out.write(t["text"] if t["text"].endswith("\n") or not t["text"] else t["text"] + "\n")
    return 0
