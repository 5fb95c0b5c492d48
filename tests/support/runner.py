"""Run the memboard command line for a test: in this process (the default) or in a process of its own.

A `python -m memboard` process costs 170–300 ms to start; the same command through `main(argv)` takes
about 19 ms. `in_process` therefore runs `memboard.cli.main(argv)` here, with everything a process
would have of its own put in place for the call and put back after it: stdin, stdout and stderr (text
streams over bytes, with the `.buffer` a process's streams have, so that the exact bytes written are
what the test reads), the environment overrides, and the fault a FAULT_AFTER_STEP names. A
SystemExit is its exit status, and an exception nothing caught is a traceback on stderr and status 1,
as the interpreter makes them.

`in_a_process` runs the command as `python -m memboard` (or the fault launcher, tests/support/faultrun.py).
Only a process shows some things: the exit status and the bytes on stdout of the real entry point, the
hook's and the search's fast exits (`os._exit`), signals, and faults that end the process itself
(FAULT_MODE kill, signal, kill-in-write). `run`, which the `cli` fixture calls, hands those faults, and env
overrides that only a process's start reads (PYTHONPATH, LD_PRELOAD, the locale: READ_AT_START), to a
process of its own.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from tests.support.faults import Faults, installed, memboard_module

ENDS_THE_PROCESS = ("kill", "signal", "kill-in-write")  # fault modes that end the process: never in the test's own


@dataclass
class Ran:
    """A finished command: its exit status and the bytes it wrote to stdout and stderr."""

    code: int
    out: bytes
    err: bytes


# what only a process's start reads: the interpreter's PYTHON*, the dynamic loader's LD_* (LD_PRELOAD, and
# libfaketime's FAKETIME* through it), the locale Python's streams take their encoding from
READ_AT_START = ("PYTHON", "LD_", "DYLD_", "FAKETIME", "LANG", "LC_")


def needs_a_process(env: Mapping[str, str], overrides: Mapping[str, str]) -> bool:
    """Whether the command needs a process of its own: env names a fault that ends the process it happens
    in, or the overrides set what only a process's start reads (READ_AT_START)."""
    ends = "FAULT_AFTER_STEP" in env and env.get("FAULT_MODE", "") in ENDS_THE_PROCESS
    return ends or any(name.startswith(READ_AT_START) for name in overrides)


def run(argv: list[str], input: bytes | None = None, env: Mapping[str, str] | None = None) -> Ran:
    """The command in this process, or in its own where only a process shows what it does (needs_a_process)."""
    env = dict(env or {})
    if needs_a_process({**os.environ, **env}, env):
        return in_a_process(argv, input, env)
    return in_process(argv, input, env)


def in_a_process(argv: list[str], input: bytes | None = None, env: Mapping[str, str] | None = None) -> Ran:
    """`python -m memboard ARGV` (the fault launcher when env names a fault), env over this process's."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    cmd = [sys.executable, "-m", *memboard_module(full_env), *argv]
    proc = subprocess.run(cmd, input=input, capture_output=True, env=full_env, timeout=120)
    return Ran(proc.returncode, proc.stdout, proc.stderr)


def in_process(argv: list[str], input: bytes | None = None, env: Mapping[str, str] | None = None) -> Ran:
    """`memboard.cli.main(argv)` here, with its own streams, env and fault for the call's duration."""
    from memboard.cli import main  # (imported on first use, as the command line is by a process)

    env = dict(env or {})
    fault = Faults.from_env({**os.environ, **env})
    stdin = io.TextIOWrapper(io.BytesIO(input or b""), encoding="utf-8", newline="\n")
    out, err = io.BytesIO(), io.BytesIO()
    # a process's own streams: UTF-8 (Python's for a pipe under any locale it starts in, PEP 538/540),
    # no newline translation, stderr backslash-escaping what it cannot encode
    stdout = io.TextIOWrapper(out, encoding="utf-8", newline="\n")
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", newline="\n", line_buffering=True)
    with environment(env), streams(stdin, stdout, stderr), installed(fault) if fault else _nothing():
        try:
            code = exit_status(main(list(argv)))
        except SystemExit as exc:
            code = exit_status(exc.code)
        except Exception:  # the interpreter's own ending: a traceback and status 1
            traceback.print_exc(file=stderr)
            code = 1
        for stream in (stdout, stderr):
            try:
                stream.flush()
            except ValueError:  # closed by the command
                pass
        written = out.getvalue(), err.getvalue()
    return Ran(code, *written)


def exit_status(code: object) -> int:
    """The exit status a process ends with for sys.exit(code) (a text is printed to stderr, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


@contextmanager
def environment(env: Mapping[str, str]) -> Iterator[None]:
    """env over os.environ for the block (COLUMNS and LINES as a process with piped streams sees them), then
    os.environ as it was."""
    before = dict(os.environ)
    os.environ.update(env)
    for name, default in (("COLUMNS", "80"), ("LINES", "24")):  # (no terminal: shutil's fallback size)
        if not os.environ.get(name, "").isdigit():
            os.environ[name] = default
    if "TZ" in env:
        time.tzset()  # (the C library reads TZ once; a process would start with it)
    try:
        yield
    finally:
        for name in [name for name in os.environ if name not in before]:
            del os.environ[name]
        for name, value in before.items():
            if os.environ.get(name) != value:
                os.environ[name] = value
        if "TZ" in env:
            time.tzset()


@contextmanager
def streams(stdin: io.TextIOWrapper, stdout: io.TextIOWrapper, stderr: io.TextIOWrapper) -> Iterator[None]:
    """sys.stdin, sys.stdout and sys.stderr replaced for the block, then put back."""
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


@contextmanager
def _nothing() -> Iterator[None]:
    """No fault to install."""
    yield
