"""`memboard hook cursor|claude|codex`: SessionStart registration from an agent.

The hook reads the agent's JSON on stdin, registers an idle row through the core's register
plan (reusing the row of a conversation it has seen, see core/ops/session_start.py) and answers in the
tool's own JSON shape. It is fail-open: whatever goes wrong, it exits 0, prints no Session
ID and writes one line to the root's hook.log in memboard's local state (or to the state
folder's own hook.log when no root can be told). It imports only the standard library,
filelock and the core modules it needs: no Textual, Rich or mistletoe.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ..core import config
from ..core.errors import UsageError
from ..core.files import statepaths
from ..core.files.execute import execute
from ..core.files.localstate import folder_of
from ..core.files.root import MemoryRoot, not_a_memory_root
from ..core.formats import clock
from ..core.formats.conversations import valid_conversation
from ..core.formats.ids import check_agent
from ..core.ops.session_start import plan_session_start
from ..core.secrets import SecretFound
from .tools import NAMES, TOOLS

LOCK_WAIT_ENV = "MEMBOARD_HOOK_LOCK_TIMEOUT"
DEFAULT_LOCK_WAIT = 3.0
SETTLE_WAIT = 1.0  # seconds the hook waits for an index another program is saving, then it fails open
MAX_INPUT = 4 * 1024 * 1024
LOG_NAME = "hook.log"
LOG_LIMIT = 1024 * 1024


class HookInputError(Exception):
    """The hook's stdin is not a usable SessionStart payload."""


def add_arguments(parser) -> None:
    """The hook command's arguments for argparse (help and usage errors; the fast path reads them itself)."""
    import argparse  # lazy: the hook's own path reads its arguments without argparse (3 ms of imports)

    # no argparse `choices`: an unknown tool is logged and exits 0 like every other hook failure
    parser.add_argument("tool", metavar="{" + ",".join(NAMES) + "}", help="the agent whose hook JSON arrives on stdin")
    parser.add_argument(
        "--agent", metavar="NAME", help="agent name (default: config agent_name, else <tool>-main-agent)"
    )
    parser.add_argument("--root", metavar="DIR", default=argparse.SUPPRESS, help="memory root folder")


def parse_payload(raw: bytes) -> dict:
    """The payload object from stdin bytes: UTF-8, leading BOMs (Cursor on Windows sends up to two) skipped."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise HookInputError("stdin is not UTF-8") from None
    text = text.lstrip("\ufeff \t\r\n")
    if not text:
        raise HookInputError("stdin is empty (expected the hook's JSON)")

    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HookInputError(f"stdin is not JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(payload, dict):
        raise HookInputError(f"stdin JSON is a {type(payload).__name__}, expected an object")
    return payload


def conversation_of(tool: str, payload: dict) -> str | None:
    """The agent's conversation ID (Cursor: conversation_id, others: session_id); None when absent."""
    for key in TOOLS[tool].conversation_keys:
        value = payload.get(key)
        if value is None or value == "":
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not valid_conversation(value):
            raise HookInputError(f"{key} is not a usable conversation ID: {str(value)[:60]!r}")
        return value
    return None


def is_session_start(payload: dict) -> bool:
    """False only when the payload names another event (the hook was wired to the wrong one)."""
    event = payload.get("hook_event_name")
    if not isinstance(event, str) or not event:
        return True
    return event.replace("_", "").lower() == "sessionstart"


def answer(tool: str, message: str) -> str:
    """The stdout JSON each tool reads additional context from."""
    body: dict[str, object]
    if TOOLS[tool].shape == "cursor":
        body = {"additional_context": message}
    else:
        body = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": message}}
    return json.dumps(body)


def agent_for(tool: str, explicit: str | None, cfg: config.Settings) -> str:
    """--agent, else config agent_name, else the tool's main agent name."""

    if explicit:
        return check_agent(explicit)
    name = cfg.agent_name
    return check_agent(name) if name else TOOLS[tool].agent


def lock_wait() -> float:
    """Seconds the hook waits for the root's lock before failing open (short: never block a chat)."""
    raw = os.environ.get(LOCK_WAIT_ENV)
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_LOCK_WAIT
    except ValueError:
        return DEFAULT_LOCK_WAIT


def _payload_folders(payload: dict) -> list[str]:
    """The project folders the agent's payload names (Claude Code and Codex: cwd; Cursor: workspace_roots)."""
    folders = []
    if isinstance(payload.get("cwd"), str):
        folders.append(payload["cwd"])
    roots = payload.get("workspace_roots")
    if isinstance(roots, list):
        folders += [r for r in roots if isinstance(r, str)]
    return [folder for folder in folders if folder]


def resolve_root(cli_root: str | None, cfg: config.Settings, payload: dict):
    """The root by the usual order; a relative --root (a project's shared file names one) and the `./memory` step
    are looked for in the payload's project folders too."""
    if cli_root and not Path(cli_root).expanduser().is_absolute():
        for folder in _payload_folders(payload):
            candidate = Path(folder) / cli_root
            if candidate.is_dir():
                return candidate
    try:
        return config.resolve_root(cli_root, cfg)
    except UsageError:
        for folder in _payload_folders(payload):
            candidate = Path(folder) / "memory"
            if candidate.is_dir():
                return candidate
        raise


def log_folders(root_path) -> list[str]:
    """Where a hook's log line goes: the root's local state folder (a folder that is a memory root), else the
    state folder itself (a foreign folder, `/` or the home folder gets no state folder of its own)."""

    targets = []
    if root_path is not None and os.path.isdir(root_path):
        try:
            real = Path(root_path).resolve()
            if not_a_memory_root(real) is None:
                targets.append(os.fspath(folder_of(real)))
        except (OSError, RuntimeError, ValueError):
            pass
    targets.append(os.fspath(statepaths.base()))
    return targets


def log_line(root_path, tool: str, message: str) -> None:
    """Append one line to the root's hook.log in local state (else the state folder's); never raises."""

    stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    tool = "_".join(str(tool).split())[:40]  # an unknown tool word is the caller's text: one field, one line
    line = f"{stamp}\tmemboard hook {tool}\t{' '.join(str(message).split())}\n".encode("utf-8", "replace")
    for folder in log_folders(root_path):
        try:
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, LOG_NAME)
            try:
                if os.path.getsize(path) > LOG_LIMIT:
                    os.replace(path, path + ".1")
            except OSError:
                pass
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
            return
        except OSError:
            continue


def quiet_root(cli_root: str | None):
    """The configured root for logging, or None when it cannot be told (never raises)."""
    try:
        return config.resolve_root(cli_root)
    except Exception:
        return None


def register_from_hook(tool: str, payload: dict, root_path, cfg: config.Settings, agent: str | None):
    """Register (or find) the conversation's session in the root at root_path; returns the applied plan."""

    root = MemoryRoot(root_path)
    name = agent_for(tool, agent, cfg)
    conversation = conversation_of(tool, payload)
    when = clock.now()
    return execute(
        root,
        lambda r: plan_session_start(r, when, name, conversation, tool, append=True),
        timeout=lock_wait(),
        settle_wait=SETTLE_WAIT,
        quick=True,
    )


def run(tool: str, cli_root: str | None = None, agent: str | None = None, stdin=None) -> int:
    """The whole hook: read stdin, register, print the tool's JSON; exit 0 whatever happens (Cursor, which parses
    the hook's stdout as JSON, gets `{}` when there is no answer)."""
    answered: list[bool] = []  # set by _run once the answer is out
    code = _run(tool, cli_root, agent, stdin, answered)
    if not answered and tool == "cursor":
        _empty_answer()
    return code


def _empty_answer() -> None:
    """Print `{}`: the answer of a hook that failed open, for an agent that reads stdout as JSON."""
    try:
        sys.stdout.write("{}\n")
        sys.stdout.flush()
    except Exception:  # nowhere to print: the hook still exits 0
        pass


def _run(tool: str, cli_root: str | None, agent: str | None, stdin, answered: list[bool]) -> int:
    """run, noting in answered when the tool's answer went out."""
    root_path = None
    if tool not in TOOLS:
        log_line(
            quiet_root(cli_root),
            tool,
            f"ignored: unknown tool {tool[:40]!r} (use {', '.join(NAMES)}); no Session ID reported",
        )
        return 0
    try:
        if stdin is None and sys.stdin is not None and sys.stdin.isatty():
            raise HookInputError("stdin is a terminal, not the agent's hook JSON")  # never wait for typing
        stream = stdin if stdin is not None else sys.stdin.buffer
        raw = stream.read(MAX_INPUT + 1)
        if len(raw) > MAX_INPUT:
            raise HookInputError(f"stdin is larger than {MAX_INPUT} bytes")
        payload = parse_payload(raw)
        if not is_session_start(payload):
            log_line(
                quiet_root(cli_root),
                tool,
                f"ignored: event {str(payload.get('hook_event_name'))[:40]!r} is not SessionStart",
            )
            return 0

        cfg = config.settings()
        root_path = resolve_root(cli_root, cfg, payload)
        plan = register_from_hook(tool, payload, root_path, cfg, agent)
        if not plan.success:
            raise RuntimeError("registration reported no Session ID")
        out = answer(tool, context_of(plan, tool, cfg, root_path, payload, cli_root)) + "\n"
        answered.append(True)  # (even when printing fails below: half an answer must not be followed by `{}`)
        try:
            sys.stdout.buffer.write(out.encode("ascii"))
            sys.stdout.flush()
        except Exception as exc:  # the row is written; only the answer could not be delivered
            log_line(root_path, tool, f"registered {plan.result.session_id} but could not print the answer: {exc}")
        if plan.result.conversation is None:
            log_line(root_path, tool, f"registered {plan.result.session_id} without a conversation ID (not mapped)")
        return 0
    except BaseException as exc:  # fail-open: a hook never breaks the agent's session
        if root_path is None:
            root_path = quiet_root(cli_root)
        if isinstance(exc, SecretFound):  # (no --allow-secrets here: a hook's agent name or conversation ID is refused)
            detail = exc.refusal("nothing written")
        else:
            detail = str(exc).splitlines()[0] if str(exc) else ""
        log_line(root_path, tool, f"failed open, no Session ID reported: {type(exc).__name__}: {detail}")
        return 0


def context_of(plan, tool: str, cfg: config.Settings, root_path, payload: dict, cli_root: str | None) -> str:
    """The additional context: the Session ID line, or with config hook_context digest the ID and its digest
    (cli/hook_digest.py); a digest that cannot be made is logged and the ID line alone is told."""
    try:
        if cfg.value("hook_context") != "digest":
            return plan.success
        budget = cfg.value("hook_context_bytes")
        budget = budget if isinstance(budget, int) else config.DEFAULT_HOOK_CONTEXT_BYTES
        from .hook_digest import digest  # lazy: only hook_context digest reads what the digest needs

        index = next((ch.before for ch in plan.changes if ch.path == "index.md"), None)
        if index is None:  # (a resumed conversation: nothing was written, the row is read again)
            index = MemoryRoot(root_path).read("index.md")
        result = plan.result
        return digest(
            result.session_id, result.reused, Path(root_path), index, payload, budget, cli_root, result.unmentioned
        )
    except Exception as exc:  # the ID is written and verified: a digest problem never hides it
        log_line(root_path, tool, f"digest left out: {type(exc).__name__}: {str(exc)[:120]}")
        return plan.success


def cmd_hook(args) -> int:
    """`memboard hook TOOL` from the full parser."""
    return run(args.tool, getattr(args, "root", None), args.agent)


def quick_args(argv: list[str]) -> tuple[str, str | None, str | None] | None:
    """(tool, root, agent) from `TOOL [--root DIR] [--agent NAME]`; None when argparse should judge."""
    tool = None
    options: dict[str, str | None] = {"--root": None, "--agent": None}
    i = 0
    while i < len(argv):
        word = argv[i]
        name, eq, value = word.partition("=")
        if name in options and eq:
            options[name] = value
        elif word in options and i + 1 < len(argv):
            options[word] = argv[i + 1]
            i += 1
        elif tool is None and not word.startswith("-"):
            tool = word  # run() logs and ignores a tool it does not know
        else:
            return None
        i += 1
    return (tool, options["--root"], options["--agent"]) if tool else None


def main(argv: list[str]) -> int:
    """The fast path for `memboard hook ...`: no argparse unless the arguments need explaining."""
    quick = quick_args(argv)
    if quick is not None:
        return run(*quick)
    import argparse  # lazy: as in add_arguments

    class FailOpenParser(argparse.ArgumentParser):
        """Usage errors of a hook are logged, never an exit status the agent would see."""

        def error(self, message: str):
            """Log one line and exit 0 (a hook never fails the agent)."""
            named = [
                w.partition("=")[2] or (argv[i + 1] if i + 1 < len(argv) else "")
                for i, w in enumerate(argv)
                if w.partition("=")[0] == "--root"
            ]
            log_line(
                quiet_root(named[-1] if named else None),
                "?",
                f"ignored: bad hook arguments {' '.join(argv)[:80]!r}: {message}",
            )
            if "cursor" in argv:
                _empty_answer()
            self.exit(0)

    parser = FailOpenParser(
        prog="memboard hook", description="Register a session from an agent's SessionStart hook JSON on stdin."
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    return cmd_hook(args)
