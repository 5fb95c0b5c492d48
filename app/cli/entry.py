"""The `memboard` entry point: parse, run the command, map errors to exit codes and one-line messages.

Each command's module is imported when the command runs, so a command loads only what it needs:
`memboard hook` (the agents' hot path) and `memboard search` skip even building the parser of
the other commands.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from typing import TYPE_CHECKING

from ..core.errors import MemboardError
from ..core.formats import collector

if TYPE_CHECKING:  # the parsers import argparse themselves; the hook's path never needs it (3 ms)
    import argparse


LONG_LIVED = ("ui", "server")  # the modules of the commands that keep running: the board (and demo), the MCP server


def err(message: str) -> None:
    """Print one line to stderr."""
    print(f"memboard: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse, run, map errors to exit codes and one-line messages."""
    raw = sys.argv[1:] if argv is None else argv
    lead = leading_root(raw)
    if raw[lead : lead + 1] == ["hook"]:  # the agents' hot path: skip building every other command's parser
        code = hook(raw[lead + 1 :] + raw[:lead])
        if argv is None:
            leave(code, fail_open=True)
        return code
    if raw[:1] == ["merge-driver"]:  # what git runs for each file of each merge: skip every other command's parser
        from .gitdriver import fast_main  # lazy: see hook

        with collector.paused():
            driven = fast_main(raw[1:])
        if driven is not None:
            return driven
    if argv is None:
        early_notes(raw)
    with replacing():  # never crash on text that is not valid UTF-8
        args = parse(raw if argv is not None else None)
        code = run(args)
    lookup_read = args.handler == "hierarchy_cmd:cmd_lookup" and args.words[:1] != ["add"]  # (a read, as search)
    if argv is None and (args.handler.startswith(("search:", "spaces_read:")) or lookup_read):
        leave(code)
    return code


def leading_root(raw: list[str]) -> int:
    """How many of raw's first words are a `--root DIR` (or `--root=DIR`) given before the command: 2, 1 or 0."""
    return 2 if raw[:1] == ["--root"] else 1 if raw[:1] and raw[0].startswith("--root=") else 0


NO_NOTE = ("--archived", "--agent", "--kind=session", "--kind=space", "--kind=hierarchy")  # (search's no_note_passes)


def early_notes(raw: list[str]) -> None:
    """For `memboard search` and `note search` with `--root DIR` (or MEMBOARD_ROOT), start the notes' stats in a
    child process now, so that they are taken while Python imports and opens SQLite (docs/how-it-is-built/speed.md);
    the search takes them only if it looks at that very folder's notes, else walks them itself."""
    command = raw[leading_root(raw) :]
    if command[:1] != ["search"] and command[:2] != ["note", "search"]:
        return
    words = raw[: raw.index("--")] if "--" in raw else raw
    root = os.environ.get("MEMBOARD_ROOT")
    for i, word in enumerate(words):
        if word in NO_NOTE or (word == "--kind" and words[i + 1 : i + 2] != ["note"]):
            return
        if word == "--root" and i + 1 < len(words):
            root = words[i + 1]
        elif word.startswith("--root="):
            root = word[len("--root=") :]
    if root:
        from ..core.files import notewalk  # lazy: only a search takes the notes' stats this early

        # ("notes" is formats.layout.NOTES, not imported for it: it loads datetime; a folder spelled otherwise than
        # the search's is never taken, see take_early)
        notewalk.start_early(os.path.join(os.path.expanduser(root), "notes"), "notes", notewalk.NOTES_DEPTH)


@contextmanager
def replacing() -> Iterator[None]:
    """stdout and stderr replace what they cannot encode within the block, then handle it as before (main is also
    called in-process, by tests and embedding callers: their streams are left as they were)."""
    saved = []
    for stream in (sys.stdout, sys.stderr):
        try:
            before = stream.errors
            stream.reconfigure(errors="replace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):
            continue
        saved.append((stream, before))
    try:
        yield
    finally:
        for stream, before in saved:
            try:
                stream.reconfigure(errors=before)  # type: ignore[union-attr]
            except (AttributeError, ValueError, OSError):  # (OSError: a reader that left, see _run)
                pass


def hook(argv: list[str]) -> int:
    """`memboard hook ...` with the cyclic garbage collector off while it runs, as for every one-shot command
    (see run): its imports alone would trigger seven collections."""
    with collector.paused():
        from ..core import config  # lazy: entry.py itself loads only the errors (the hook's path counts each import)
        from .hook import main as hook_main  # lazy: the hook loads only its own modules (see tests/hooks)

        with config.once():  # the config file is read once per command
            return hook_main(argv)


def leave(code: int, fail_open: bool = False) -> None:
    """End a search's or a hook's process now that its answer is printed: it holds no lock, no file open for
    writing and no thread (a hook has released the lock and closed every file it wrote), and the interpreter's
    own teardown (a last collection, every module's finalizers) cost a search a sixth of its time and a
    hook 10 ms. fail_open: the code stands even when the answer cannot be flushed (a hook exits 0 whatever
    happens)."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: the process was started with that stream closed
                stream.flush()
    except (BrokenPipeError, ValueError):  # a reader that left: the answer has nowhere to go
        code = code if fail_open else code or 1
    except OSError:
        if not fail_open:
            raise
    os._exit(code)


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The parsed arguments (`memboard search`, `note search` and the space reads build only their own parser: they
    must start about as fast as Python)."""
    raw = sys.argv[1:] if argv is None else argv
    from .args import OneLineParser, globals_everywhere  # lazy: see hook (argparse is 3 ms the hook never needs)

    OneLineParser.json_errors = "--json" in raw[: raw.index("--")] if "--" in raw else "--json" in raw
    command = raw[leading_root(raw) :]  # (`--root DIR search ...` takes the same fast path as `search ... --root DIR`)
    if raw[:1] == ["space"] and raw[1:2] and raw[1] in ("where", "list", "restore", "search", "check"):
        from . import space_parser  # lazy: the space reads start about as fast as Python too

        return globals_everywhere(space_parser.build_parser()).parse_args(argv)
    if command[:1] == ["search"] or command[:2] == ["note", "search"]:
        from . import search  # lazy: see above

        return globals_everywhere(
            search.build_parser() if command[:1] == ["search"] else search.build_note_parser()
        ).parse_args(argv)
    if raw[:1] == ["lookup"]:  # a whole-process speed target, as search is
        from .hierarchy_parser import parse_lookup  # lazy: see above

        return parse_lookup(argv)
    from .parser import build_parser, command_parser  # lazy: see above

    name = command[0] if command and not command[0].startswith("-") else None
    helped = any(word in ("-h", "--help") for word in raw)  # (the whole parser's help lists every command)
    one = command_parser(name) if name is not None and not helped else None
    return globals_everywhere(one or build_parser()).parse_args(argv)


def run(args: argparse.Namespace) -> int:
    """Run the command args name (its handler is `module:function` of memboard.cli), mapping errors to exit codes.

    The cyclic garbage collector is off while a one-shot command runs: the command is one short
    process, reference counting frees what it lets go, and at 100k rows each collection pass would
    walk every row object the command holds (organize and doctor spent a sixth of their time there).
    The board and the MCP server run until they are stopped: they keep it on.
    """
    with collector.paused(args.handler.partition(":")[0] not in LONG_LIVED):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """run, with the collector as run leaves it."""
    module, _, name = args.handler.partition(":")
    try:
        command = getattr(import_module(f"{__package__}.{module}"), name)  # lazy: each command loads its own code
        if module in LONG_LIVED:  # the board and the MCP server see the config as it is when they read it
            code: int = command(args)
            return code
        from ..core import config  # lazy: entry.py itself loads only the errors (the hook's path counts each import)

        with config.once():  # a one-shot command reads the config file once
            code = command(args)
        return code
    except MemboardError as exc:
        line = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        if getattr(args, "json", False):  # a script reading --json reads its errors as JSON too
            from .args import error_line  # lazy: only an error under --json needs it

            sys.stderr.write(error_line(f"memboard: {line}", exc.exit_code))
        else:
            err(line)
        return exc.exit_code
    except KeyboardInterrupt:
        err("interrupted")
        return 130
    except BrokenPipeError:
        if sys.stdout is sys.__stdout__:  # the process's own stdout; a caller's stream (main in-process) stays theirs
            try:
                sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stays open for the interpreter's final flush
            except OSError:
                pass
        return 0
    except OSError as exc:
        err(f"failed: {exc.strerror or exc}" + (f" ({exc.filename})" if getattr(exc, "filename", None) else ""))
        return 1
