"""`main(argv)` called as a function (the suite's `cli` fixture, an embedding caller) leaves the process as it
found it, and the fixture's in-process runner shows a command as its own process would."""

from __future__ import annotations

import contextlib
import gc
import io
import os
import sys
import time

from memboard.cli import main
from tests.support import runner
from tests.support.roots import row_line


class ReaderGone(io.StringIO):
    """A stdout whose reader left: every write is a broken pipe."""

    def write(self, text: str) -> int:
        """Refuse the write as a closed pipe does."""
        raise BrokenPipeError(32, "Broken pipe")


def test_a_broken_pipe_under_main_leaves_the_callers_stdout_in_place(mem, root):
    mem.index(row_line("2026-05-01-0900-agent"))
    gone = ReaderGone()
    with contextlib.redirect_stdout(gone):
        assert main(["list", "--root", str(root)]) == 0
        assert sys.stdout is gone  # (a process swaps its own stdout for devnull; a caller's stream stays theirs)


def test_main_leaves_the_callers_streams_handling_unencodable_text_as_before(mem, root):
    mem.index(row_line("2026-05-01-0900-agent"))
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # (strict, as a caller's stream may be)
    with contextlib.redirect_stdout(out):
        assert main(["list", "--root", str(root)]) == 0
    assert out.errors == "strict"  # (the command replaced what it could not encode; the caller's stream is theirs)


def test_main_returns_from_the_hook_and_the_search_with_the_collector_as_it_was(root):
    for argv in (["hook", "claude"], ["search", "anything"]):
        assert gc.isenabled()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main([*argv, "--root", str(root)])  # (a process would end here: os._exit after the answer)
        assert gc.isenabled()


def test_the_runner_gives_the_command_its_streams_and_env_and_puts_back_the_tests(root):
    streams = sys.stdin, sys.stdout, sys.stderr
    before = dict(os.environ)
    ran = runner.in_process(["update", "nope", "--summary", "x", "--root", str(root)], env={"MEMBOARD_NOW": "bad"})
    assert ran.code != 0 and ran.out == b"" and ran.err.startswith(b"memboard: ") and ran.err.count(b"\n") == 1
    assert (sys.stdin, sys.stdout, sys.stderr) == streams and dict(os.environ) == before
    offset = time.localtime().tm_gmtoff
    with runner.environment({"TZ": "UTC-05:30" if offset != 19800 else "UTC+01:00"}):
        assert time.localtime().tm_gmtoff != offset  # (a process starts with its TZ; here it is set for the call)
    assert time.localtime().tm_gmtoff == offset


def test_the_runner_answers_as_the_commands_own_process_does(mem, root):
    """Exit status, stdout and stderr bytes alike, for usage errors (argparse's SystemExit), refusals, text,
    JSON, a dry run's patch and stdin."""
    mem.index(row_line("2026-05-01-0900-agent", summary="caf\u00e9 \u4e2d\u6587"))
    cases = [
        (["no-such-command"], None),
        (["--version"], None),
        (["list"], None),
        (["list", "--json"], None),
        (["show", "2026-05-01-0900-agent", "--json"], None),
        (["update", "nope", "--summary", "x"], None),
        (["update", "2026-05-01-0900-agent", "--snapshot", "-", "--dry-run"], b"## Decisions\n\n- d\n"),
        (["hook", "claude"], b'{"session_id": "c-1", "hook_event_name": "SessionStart"}'),
    ]
    for argv, stdin in cases:
        full = [*argv, "--root", str(root)]
        here, there = runner.in_process(full, stdin), runner.in_a_process(full, stdin)
        assert (here.code, here.out, here.err) == (there.code, there.out, there.err), argv


def test_the_runner_hands_a_fault_that_ends_the_process_to_a_process(mem, root):
    mem.index(row_line("2026-05-01-0900-agent"))
    killed = runner.run(["register", "--root", str(root)], env={"FAULT_AFTER_STEP": "1", "FAULT_MODE": "kill"})
    assert killed.code == 137  # (os._exit in this process would have ended the test run)
    raised = runner.run(["register", "--root", str(root)], env={"FAULT_AFTER_STEP": "1"})
    assert raised.code == 1 and b"incomplete" in raised.err
    assert runner.needs_a_process({}, {"LD_PRELOAD": "libfaketime.so.1"}) and runner.needs_a_process({}, {"LANG": "C"})
    assert not runner.needs_a_process({}, {"MEMBOARD_NOW": "2026-06-01 09:30", "HOME": "/home/u"})
