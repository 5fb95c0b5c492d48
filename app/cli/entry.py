"""The `memboard` command line: a thin face on the core operations (see DESIGN.md's contract).

Only argparse and json are imported up front; each command imports what it needs, and
`memboard hook` skips building the parser, so the agents' hook stays fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .. import __version__

EPILOG = """exit status: 0 done; 1 refused or failed with nothing written (reason on stderr);
2 bad usage. Every changing command takes --dry-run (print the plan as unified diffs,
write nothing). The memory root comes from --root, MEMBOARD_ROOT, the config's `root`, or
./memory."""


def _err(message: str) -> None:
    """Print one line to stderr."""
    print(f"memboard: {message}", file=sys.stderr)


def _root(args):
    """The MemoryRoot named by args/env/config."""
    from ..core.config import resolve_root
    from ..core.files.root import MemoryRoot

    return MemoryRoot(resolve_root(getattr(args, "root", None)))


def _agent(args) -> str:
    """The agent name: --agent, config agent_name, or the seed's default."""
    from ..core.formats.ids import DEFAULT_AGENT, check_agent

    if getattr(args, "agent", None):
        return check_agent(args.agent)
    from ..core import config

    name = config.load().get("agent_name")
    return check_agent(str(name)) if name else DEFAULT_AGENT


def _read_input(spec: str | None) -> str | None:
    """Text of FILE, or stdin for `-`, as UTF-8."""
    if spec is None:
        return None
    from ..core.errors import UsageError

    try:
        data = sys.stdin.buffer.read() if spec == "-" else open(spec, "rb").read()
    except OSError as exc:
        raise UsageError(f"cannot read {spec}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"{'stdin' if spec == '-' else spec} is not UTF-8 text") from None
    if "\x00" in text:
        raise UsageError(f"{'stdin' if spec == '-' else spec} contains NUL bytes")
    return text


def _print_patch(plan, notes: list[str]) -> None:
    """A dry run: the plan as a git patch on stdout, in bytes (`memboard X --dry-run | git apply`
    writes what `memboard X` would), and everything else on stderr."""
    sys.stdout.flush()
    binary = getattr(sys.stdout, "buffer", None)
    if binary is not None:
        binary.write(plan.patch())
    else:  # a text-only stream (an embedding caller): the patch as text, undecodable bytes replaced
        sys.stdout.write(plan.patch().decode("utf-8", "replace"))
    sys.stdout.flush()
    from ..core.plan import encoding_notes

    for line in [*notes, *encoding_notes(plan)]:
        print(line, file=sys.stderr)
    print("dry run: nothing written" if plan.changes else "dry run: nothing to change", file=sys.stderr)


def _run(args, build) -> int:
    """Build a plan, show it (dry run) or apply it, and print the outcome."""
    from ..core.files.execute import execute

    root = _root(args)
    plan = execute(root, build, dry_run=args.dry_run)
    if getattr(args, "json", False):
        payload = dict(plan.result)
        payload["dry_run"] = bool(args.dry_run)
        payload["changes"] = [c.describe() for c in plan.changes]
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    if args.dry_run:
        _print_patch(plan, plan.report)
        return 0
    for line in plan.report:
        print(line)
    if plan.success:
        print(plan.success)
    if not plan.changes and not plan.report:
        print("nothing to change")
    return 0


# -- commands ---------------------------------------------------------------------------


def cmd_register(args) -> int:
    """register / register --manual."""
    from ..core.formats import clock
    from ..core.ops.manual import plan_manual
    from ..core.ops.register import plan_register

    agent = _agent(args)
    when = clock.now()
    if args.manual:
        text = _read_input(args.snapshot)
        return _run(
            args, lambda root: plan_manual(root, when, agent, args.topic, args.summary, text, allow_secrets=args.allow_secrets)
        )
    if args.topic or args.summary or args.snapshot:
        from ..core.errors import UsageError

        raise UsageError("--topic, --summary and --snapshot go with --manual (SessionStart rows use the defaults)")
    return _run(args, lambda root: plan_register(root, when, agent))


def cmd_update(args) -> int:
    """update ID."""
    from ..core.formats import clock
    from ..core.ops.update import plan_update

    text = _read_input(args.snapshot)
    when = clock.now()
    return _run(
        args,
        lambda root: plan_update(
            root, args.id, when, args.topic, args.summary, args.keywords, text, allow_secrets=args.allow_secrets
        ),
    )


def cmd_continue(args) -> int:
    """continue SOURCE_ID [--as ID]."""
    from ..core.formats import clock
    from ..core.ops.continue_from import plan_continue

    agent = _agent(args)
    when = clock.now()
    return _run(args, lambda root: plan_continue(root, args.source, when, args.as_id, agent, allow_secrets=args.allow_secrets))


def cmd_release(args) -> int:
    """release SOURCE_ID --as ID."""
    from ..core.ops.release import plan_release

    return _run(args, lambda root: plan_release(root, args.source, args.as_id))


def cmd_organize(args) -> int:
    """organize [--stale-days N]."""
    from ..core.formats import clock
    from ..core.ops.organize import DEFAULT_STALE_DAYS, plan_organize

    days = args.stale_days
    if days is None:
        from ..core import config

        days = int(config.load().get("stale_days", DEFAULT_STALE_DAYS))
    when = clock.now()
    return _run(args, lambda root: plan_organize(root, when, days))


def cmd_archive(args) -> int:
    """archive ID."""
    from ..core.formats import clock
    from ..core.ops.archive import plan_archive

    when = clock.now()
    return _run(args, lambda root: plan_archive(root, args.id, when))


def cmd_list(args) -> int:
    """list [--status S] [--json]."""
    from ..core.ops.query import list_rows

    warnings: list[str] = []
    rows = list_rows(_root(args), args.status, warnings)
    for line in warnings:
        _err(line)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    for r in rows:
        mark = "!" if r["problem"] else " "
        refs = ",".join(r["referenced_by"]) or "-"
        print(f"{mark}{r['id']}\t{r['status']}\t{r['updated_at']}\t{refs}\t{r['topic']}")
    return 0


def cmd_show(args) -> int:
    """show ID [--json]."""
    from ..core.ops.query import show

    warnings: list[str] = []
    info = show(_root(args), args.id, warnings)
    for line in warnings:
        _err(line)
    if args.json:
        print(json.dumps(info, ensure_ascii=False, indent=2))
        return 0
    row = info["row"]
    print(f"{info['id']}{' (archived)' if info['archived'] else ''}")
    for key, value in row.items():
        print(f"  {key}: {value}")
    if info["snapshot"] is not None:
        print(f"--- {info['snapshot_path']}")
        sys.stdout.write(info["snapshot"])
    else:
        print("(no snapshot)")
    return 0


def _print_tree(nodes: list[dict], depth: int, arrow: str) -> None:
    """Print chain nodes as an indented tree with their marks."""
    for node in nodes:
        marks = []
        if node.get("state") != "live":
            marks.append(node["state"])
        if node.get("one_sided"):
            marks.append("one-sided")
        if node.get("cycle"):
            marks.append("cycle")
        tail = f"  [{', '.join(marks)}]" if marks else ""
        topic = f"  {node['topic']}" if node.get("topic") else ""
        print(f"{'  ' * depth}{arrow} {node['id']}{topic}{tail}")
        _print_tree(node.get("children", []), depth + 1, arrow)


def cmd_chain(args) -> int:
    """chain ID [--json]."""
    from ..core.ops.query import chain

    info = chain(_root(args), args.id)
    if args.json:
        print(json.dumps(info, ensure_ascii=False, indent=2))
        return 0
    print(f"{info['id']} ({info['state']})")
    print("continues from:")
    _print_tree(info["continues_from"], 1, "↑")
    print("referenced by:")
    _print_tree(info["referenced_by"], 1, "↓")
    return 0


def cmd_doctor(args) -> int:
    """doctor [--fix] [--dry-run] [--json]."""
    from ..core.formats import clock
    from ..core.files.execute import execute
    from ..core.ops.doctor import diagnose, repair_plan

    root = _root(args)
    when = clock.now()
    findings, plan = diagnose(root, when)
    if args.json and not args.fix:
        print(json.dumps([f.as_dict() for f in findings], ensure_ascii=False, indent=2))
        return 0
    if args.json:  # --fix --json: the findings, then what was (or would be) changed
        plan = execute(root, lambda r: repair_plan(r, when), dry_run=args.dry_run)
        payload = {"findings": [f.as_dict() for f in findings], "dry_run": bool(args.dry_run),
                   "changes": [c.describe() for c in plan.changes]}
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    out = sys.stderr if args.fix and args.dry_run else sys.stdout  # a dry run's stdout is the patch alone
    for f in findings:
        fix = f"  → fix: {f.fix}" if f.fix else ""
        print(f"{f.kind}\t{f.id or '-'}\t{f.message}{fix}", file=out)
    if not findings:
        print("no problems found", file=out)
    if not args.fix:
        if plan.changes:
            print(f"run `memboard doctor --fix` to repair ({len(plan.changes)} file change(s); --dry-run to preview)")
        return 0
    plan = execute(root, lambda r: repair_plan(r, when), dry_run=args.dry_run)
    if args.dry_run:
        _print_patch(plan, [])
        return 0
    print(f"repaired: {len(plan.changes)} file change(s)" if plan.changes else "nothing to repair")
    return 0


def cmd_board(args) -> int:
    """Open the board on the memory root."""
    root = _root(args)
    try:
        from ..board.run import run_board
    except ImportError:
        print("board not built yet; use the commands listed by `memboard --help`")
        return 0
    return run_board(root.path) or 0


def cmd_demo(args) -> int:
    """Open the board on a generated demo root."""
    try:
        from ..board.run import run_demo
    except ImportError:
        print("board not built yet; use the commands listed by `memboard --help`")
        return 0
    return run_demo(getattr(args, "keep", None)) or 0


def cmd_install_hook(args) -> int:
    """install-hook TOOL [--user | --project DIR] [--dry-run]."""
    from .install import cmd_install_hook as run

    return run(args)


def cmd_uninstall_hook(args) -> int:
    """uninstall-hook TOOL [--user | --project DIR] [--dry-run]."""
    from .install import cmd_uninstall_hook as run

    return run(args)


def cmd_completion(args) -> int:
    """completion bash|zsh|fish: print the script for that shell."""
    from .completion import script

    sys.stdout.write(script(args.shell, build_parser()))
    return 0


def cmd_config(args) -> int:
    """config show | set KEY VALUE | path."""
    from .config import cmd_config as run

    return run(args)


# -- parser -----------------------------------------------------------------------------


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one stderr line and exit 2 (the CLI contract)."""

    def error(self, message: str):
        """Print `memboard CMD: error: ...` on one line and exit 2."""
        text = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {text} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", metavar="DIR", default=argparse.SUPPRESS, help="memory root folder")
    changing = argparse.ArgumentParser(add_help=False, parents=[common])
    changing.add_argument("--dry-run", action="store_true", help="print the plan as unified diffs and write nothing")

    parser = OneLineParser(
        prog="memboard",
        description="A terminal board and command line for the Markdown working memory of AI coding agents. "
        "Without a command it opens the board.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--root", metavar="DIR", help="memory root folder")
    parser.add_argument("--version", action="version", version=f"memboard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("demo", help="open the board on a generated demo root")
    p.add_argument("--keep", metavar="DIR", help="generate the demo root in DIR and keep it")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("register", parents=[changing], help="register a session (idle row; --manual: active with snapshot)",
                       description="SessionStart registration appends an idle row with the protocol's defaults. "
                       "--manual writes a snapshot from the template and an active row.")
    p.add_argument("--agent", metavar="NAME", help="agent name (default: config agent_name or cursor-main-agent)")
    p.add_argument("--manual", action="store_true", help="manual registration: snapshot + active row")
    p.add_argument("--topic", metavar="T", help="topic (with --manual)")
    p.add_argument("--summary", metavar="S", help="summary (with --manual)")
    p.add_argument("--snapshot", metavar="FILE|-", help="snapshot sections to merge into the template (with --manual)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--allow-secrets", action="store_true", help=ALLOW_SECRETS_HELP)
    p.set_defaults(func=cmd_register)

    p = sub.add_parser("update", parents=[changing], help="update a session: merge its snapshot, promote to active",
                       description="Merges FILE (or stdin) into the session's snapshot by section, creating the snapshot "
                       "when missing; old items are never dropped. Then updates only the session's index row.")
    p.add_argument("id", metavar="ID")
    p.add_argument("--snapshot", metavar="FILE|-", help="snapshot text with '## ' sections to merge")
    p.add_argument("--topic", metavar="T")
    p.add_argument("--summary", metavar="S")
    p.add_argument("--keywords", metavar="K")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--allow-secrets", action="store_true", help=ALLOW_SECRETS_HELP)
    p.set_defaults(func=cmd_update)

    p = sub.add_parser("continue", parents=[changing], help="continue from a source session",
                       description="Records Continues From in the current snapshot and Referenced By on the source row. "
                       "Without --as, registers a new session manually first.")
    p.add_argument("source", metavar="SOURCE_ID")
    p.add_argument("--as", dest="as_id", metavar="ID", help="the current session's ID")
    p.add_argument("--agent", metavar="NAME", help="agent name for a new registration (without --as)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--allow-secrets", action="store_true", help=ALLOW_SECRETS_HELP)
    p.set_defaults(func=cmd_continue)

    p = sub.add_parser("release", parents=[changing], help="release a reference to a source session")
    p.add_argument("source", metavar="SOURCE_ID")
    p.add_argument("--as", dest="as_id", metavar="ID", required=True, help="the referencing session's ID")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_release)

    p = sub.add_parser("organize", parents=[changing], help="delete idle rows, mark overdue active rows stale",
                       description="The default organize pass: deletes idle rows (keeping referenced ones and reporting "
                       "idle rows that have a snapshot), marks active rows stale when Updated At is older than N days, "
                       "they have a snapshot or a meaningful Summary, and nobody references them.")
    p.add_argument("--stale-days", type=int, metavar="N", help="days without update before active becomes stale (default 14)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_organize)

    p = sub.add_parser("archive", parents=[changing], help="archive one session (placeholder rows are deleted)")
    p.add_argument("id", metavar="ID")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_archive)

    p = sub.add_parser("list", parents=[common], help="rows of the index")
    p.add_argument("--status", choices=["idle", "active", "stale"])
    p.add_argument("--json", action="store_true", help="stable JSON (see README)")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", parents=[common], help="one session: row and snapshot")
    p.add_argument("id", metavar="ID")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("chain", parents=[common], help="a session's reference chain both ways")
    p.add_argument("id", metavar="ID")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_chain)

    p = sub.add_parser("doctor", parents=[changing], help="find inconsistencies (--fix: repair them)")
    p.add_argument("--fix", action="store_true", help="apply the repair plan (with --dry-run: preview it)")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.set_defaults(func=cmd_doctor)

    _add_agent_commands(sub, common)
    from .search import add_parser as add_search

    add_search(sub, common)
    for extra in EXTRA_COMMANDS:
        extra(sub, common, changing)
    return parser


def _add_agent_commands(sub, common) -> None:
    """Agent integration (app/hook.py, install_hook.py, config_cmd.py, completion.py): hook, whoami,
    install-hook, uninstall-hook, config, completion."""
    from . import hook

    p = sub.add_parser("hook", help="read an agent's SessionStart hook JSON on stdin and register (fail-open)",
                       description="Registers an idle row for the agent's conversation (the same conversation always gets "
                       "the same Session ID) and prints the tool's JSON answer. Never fails: errors are logged to "
                       "hook.log in memboard's local state folder and exit 0 without a Session ID.")
    hook.add_arguments(p)
    p.set_defaults(func=hook.cmd_hook)

    p = sub.add_parser("whoami", parents=[common], help="the Memory Session ID a hook registered for a conversation")
    p.add_argument("--conversation", metavar="ID", required=True, help="the agent's conversation/session ID")
    p.add_argument("--json", action="store_true", help="print conversation, session_id and state as JSON")
    p.set_defaults(func=hook.cmd_whoami)

    p = sub.add_parser("install-hook", help="add `memboard hook` to Cursor, Claude Code or Codex settings",
                       description="Merges a SessionStart hook entry into the tool's JSON config without touching other "
                       "hooks; shows the change as a diff and keeps a backup of the file it changes.")
    _hook_file_arguments(p)
    p.add_argument("--command", metavar="CMD", help="the memboard command to run (default: this memboard, absolute)")
    p.set_defaults(func=cmd_install_hook)

    p = sub.add_parser("uninstall-hook", help="remove the hook install-hook added (nothing else)",
                       description="Removes memboard's SessionStart entry from the tool's JSON config, keeping every other "
                       "hook, setting and the file's formatting; shows the change as a diff and keeps a backup.")
    _hook_file_arguments(p)
    p.set_defaults(func=cmd_uninstall_hook)

    p = sub.add_parser("config", help="show, set or locate the user config (TOML)")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    csub.add_parser("show", help="print the config file's settings").set_defaults(action="show")
    cp = csub.add_parser("set", help="set KEY to VALUE (root, agent_name, stale_days, theme, lock_timeout)")
    cp.add_argument("key", metavar="KEY")
    cp.add_argument("value", metavar="VALUE")
    cp.set_defaults(action="set")
    csub.add_parser("path", help="print where the config file lives").set_defaults(action="path")
    p.set_defaults(func=cmd_config)

    p = sub.add_parser("completion", help="print a shell completion script (bash, zsh or fish)",
                       description="Prints a completion script for the shell, generated from this command line's own "
                       "parser. Install: see the README's Shell completion section.")
    p.add_argument("shell", choices=["bash", "zsh", "fish"])
    p.set_defaults(func=cmd_completion)


def _hook_file_arguments(p) -> None:
    """TOOL [--user | --project DIR] [--dry-run], shared by install-hook and uninstall-hook."""
    p.add_argument("tool", choices=["claude", "codex", "cursor"])
    where = p.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="the user's config in the home folder (default)")
    where.add_argument("--project", metavar="DIR", help="the project's config under DIR")
    p.add_argument("--dry-run", action="store_true", help="print the change as a diff and write nothing")


EXTRA_COMMANDS: list = []
ALLOW_SECRETS_HELP = "write even if the text looks like a credential (keys, tokens, password=...)"


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse, run, map errors to exit codes and one-line messages."""
    raw = sys.argv[1:] if argv is None else argv
    lead = 2 if raw[:1] == ["--root"] else 1 if raw[:1] and raw[0].startswith("--root=") else 0
    if raw[lead : lead + 1] == ["hook"]:  # the agents' hot path: skip building every other command's parser
        from .hook import main as hook_main

        return hook_main(raw[lead + 1 :] + raw[:lead])
    from ..core.errors import MemboardError

    for stream in (sys.stdout, sys.stderr):  # never crash on text that is not valid UTF-8
        try:
            stream.reconfigure(errors="replace")
        except (AttributeError, ValueError):
            pass
    if raw[:1] == ["search"]:  # a search builds only its own parser: it must start about as fast as Python
        from .search import build_parser as build_search_parser

        parser = build_search_parser(OneLineParser)
    else:
        parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None) or cmd_board
    try:
        return func(args)
    except MemboardError as exc:
        _err(str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__)
        return exc.exit_code
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except OSError as exc:
        _err(f"failed: {exc.strerror or exc}" + (f" ({exc.filename})" if getattr(exc, "filename", None) else ""))
        return 1
