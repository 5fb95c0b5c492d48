"""The commands that change the root: each builds a plan, then prints it (`--dry-run`) or applies it.

The builders are the service layer's (service/builders.py, shared with the MCP server). `--json`
prints the operation's result (service/output.py); `--dry-run` prints the plan as a git patch on
stdout, everything else on stderr, and writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any

from ..core.files.execute import execute
from ..core.files.root import MemoryRoot
from ..core.formats import clock
from ..core.plan import Plan
from ..core.results import Finding, needing_attention
from ..service.builders import (
    Builder,
    archive_plan,
    continue_plan,
    organize_plan,
    register_plan,
    release_plan,
    update_plan,
)
from ..service.output import dry_run_notes, finding_json, finding_text, plan_json
from .args import agent_of, error_line, read_input, root_of
from .output import dump, dump_array
from .progress import file_steps


def print_patch(plan: Plan[Any], notes: list[str]) -> None:
    """A dry run: the plan as a git patch on stdout, in bytes (`memboard X --dry-run | git apply`
    writes what `memboard X` would), and everything else on stderr."""
    sys.stdout.flush()
    binary = getattr(sys.stdout, "buffer", None)
    if binary is not None:
        binary.writelines(plan.patch_pieces())  # (not joined first: a 1M-row organize's patch is 300 MB)
    else:  # a text-only stream (an embedding caller): the patch as text, undecodable bytes replaced
        sys.stdout.write(plan.patch().decode("utf-8", "replace"))
    sys.stdout.flush()
    for line in [*notes, *dry_run_notes(plan)]:
        print(line, file=sys.stderr)


def run_plan(args: argparse.Namespace, build: Builder) -> int:
    """Build a plan, show it (dry run) or apply it, and print the outcome."""
    with file_steps(f"memboard {getattr(args, 'command', None) or ''}".rstrip()) as progress:
        plan = execute(root_of(args), build, dry_run=args.dry_run, progress=progress)
    if getattr(args, "json", False):
        dump(plan_json(plan, bool(args.dry_run)))
        return 0
    if args.dry_run:
        print_patch(plan, plan.report)
        return 0
    for line in plan.report:
        print(line)
    if plan.success:
        print(plan.success)
    if not plan.changes and not plan.report:
        print("nothing to change")
    return 0


def cmd_register(args: argparse.Namespace) -> int:
    """register / register --manual."""
    text = read_input(args.snapshot) if args.manual else args.snapshot
    build = register_plan(agent_of(args), args.manual, args.topic, args.summary, text, args.allow_secrets)
    return run_plan(args, build)


def cmd_update(args: argparse.Namespace) -> int:
    """update ID."""
    text = read_input(args.snapshot)
    return run_plan(args, update_plan(args.id, args.topic, args.summary, args.keywords, text, args.allow_secrets))


def cmd_continue(args: argparse.Namespace) -> int:
    """continue SOURCE_ID [--as ID]."""
    return run_plan(args, continue_plan(args.source, args.as_id, agent_of(args), args.allow_secrets))


def cmd_release(args: argparse.Namespace) -> int:
    """release SOURCE_ID --as ID."""
    return run_plan(args, release_plan(args.source, args.as_id))


def cmd_organize(args: argparse.Namespace) -> int:
    """organize [--stale-days N]."""
    return run_plan(args, organize_plan(args.stale_days))


def cmd_archive(args: argparse.Namespace) -> int:
    """archive ID."""
    return run_plan(args, archive_plan(args.id))


def cmd_doctor(args: argparse.Namespace) -> int:
    """doctor [--fix] [--dry-run] [--json] [--exit-zero]: exit 1 when findings need attention (see verdict)."""
    # lazy: a command loads only its own operation
    from ..core.ops.doctor import findings_and_count, refuse_repairs, repair_plan

    root = root_of(args)
    when = clock.now()
    findings, changes = findings_and_count(root, when)
    from .server import sdk_finding  # lazy: the MCP server's check, for doctor alone

    unavailable = sdk_finding()  # the agents' server is part of the install's health
    extra = [] if unavailable is None else [unavailable]
    findings = [*findings, *extra]
    if args.fix:
        refuse_repairs(findings)  # (one line, before any finding is printed: a file memboard cannot read)
    if args.json and not args.fix:
        dump_array(findings, finding_text)  # (streamed, each finding laid out in one step)
        return verdict(args, needing_attention(findings), repaired=False)
    if args.json:  # --fix --json: the findings, then what was (or would be) changed
        with file_steps("memboard doctor --fix") as progress:
            plan = execute(root, lambda r: repair_plan(r, when), dry_run=args.dry_run, progress=progress)
        dump(
            {
                "findings": [finding_json(f) for f in findings],
                "dry_run": bool(args.dry_run),
                "changes": [c.describe() for c in plan.changes],
            }
        )
        if args.dry_run:
            return verdict(args, needing_attention(findings), repaired=False)
        return verdict(args, left_after(root, when, findings, extra, plan), repaired=True)
    out = sys.stderr if args.fix and args.dry_run else sys.stdout  # a dry run's stdout is the patch alone
    out.write(
        "".join(f"{f.kind}\t{f.id or '-'}\t{f.message}{f'  → fix: {f.fix}' if f.fix else ''}\n" for f in findings)
    )
    if not findings:
        print("no problems found", file=out)
    if not args.fix:
        if changes:
            print(f"run `memboard doctor --fix` to repair ({changes} file change(s); --dry-run to preview)")
        return verdict(args, needing_attention(findings), repaired=False)
    with file_steps("memboard doctor --fix") as progress:
        plan = execute(root, lambda r: repair_plan(r, when), dry_run=args.dry_run, progress=progress)
    if args.dry_run:
        print_patch(plan, [])
        return verdict(args, needing_attention(findings), repaired=False)
    print(f"repaired: {len(plan.changes)} file change(s)" if plan.changes else "nothing to repair")
    return verdict(args, left_after(root, when, findings, extra, plan), repaired=True)


def left_after(
    root: MemoryRoot, when: datetime, findings: list[Finding], extra: list[Finding], plan: Plan[Any]
) -> list[Finding]:
    """What needs attention once `doctor --fix` applied plan: doctor again on the root as the repair left it (a
    fix can mend part of a finding: a note's Topic Key set, its unknown Type left), plus extra (the install's
    findings, which no repair touches); when the plan wrote nothing, the findings as they were."""
    if not plan.changes:
        return needing_attention(findings)
    # lazy: a command loads only its own operation
    from ..core.ops.doctor import findings_and_count

    return needing_attention([*findings_and_count(root, when)[0], *extra])


def verdict(args: argparse.Namespace, left: list[Finding], repaired: bool) -> int:
    """doctor's exit status, as checkers have it, about the root as the command leaves it: 1 when a finding needs
    attention (left: any but history with nothing to do, after a repair what it left; a dry run repairs nothing),
    with one line on stderr saying so (a JSON object under --json); else 0. --exit-zero: 0 and no line, for
    scripts that only read the report."""
    if not left or args.exit_zero:
        return 0
    line = f"memboard: {attention_line(left, repaired)}"
    sys.stderr.write(error_line(line, 1) if args.json else line + "\n")
    return 1


def attention_line(left: list[Finding], repaired: bool) -> str:
    """`N finding(s) need(s) attention (how): kind ×n, kind …`, the kinds in the order doctor found them."""
    kinds: dict[str, int] = {}
    for f in left:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    named = [f"{k} ×{n}" if n > 1 else k for k, n in kinds.items()]
    named = named[:4] + ["…"] if len(named) > 5 else named
    fixable, one = sum(1 for f in left if f.fix), len(left) == 1
    how = (
        "by hand"
        if not fixable
        else f"`memboard doctor --fix` repairs {'it' if one else 'them'}"
        if fixable == len(left)
        else f"`memboard doctor --fix` repairs {fixable:,}, {len(left) - fixable:,} by hand"
    )
    after = "after the repair, " if repaired else ""
    return f"{len(left):,} finding{'' if one else 's'} need{'s' if one else ''} attention ({after}{how}): {', '.join(named)}"
