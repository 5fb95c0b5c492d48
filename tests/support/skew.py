"""Run memboard with its clock shifted against the files' (libfaketime), as on a share another clock stamps.

A network share, a VM's shared folder or a sync client's mount stamps files with a clock that is not
the memboard process's. The same skew is made here on a local disk: libfaketime (Debian package
`faketime`) is preloaded into the memboard process and shifts every clock reading it makes by
FAKETIME (`+30s`: memboard 30 s ahead of the files' clock, a file saved just now looks 30 s old;
`-30s`: behind, a file saved just now looks 30 s in the future), while stat() keeps reporting the
times the file system wrote (NO_FAKE_STAT=1). The monotonic clock is shifted too, by a constant, so the
intervals memboard measures on it stay true (DONT_FAKE_MONOTONIC=1 would be plainer, but libfaketime
0.9.10 then fails Python's time.sleep with EINVAL).
A preload needs a process of its own, so this runner starts one, whatever the `cli` fixture does;
the tests using it skip, saying why, where libfaketime is not installed (CI installs it).
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

PLACES = (
    "/usr/lib/*/faketime/libfaketime.so.1",  # Debian and Ubuntu (multiarch)
    "/usr/lib/faketime/libfaketime.so.1",
    "/usr/lib64/faketime/libfaketime.so.1",
    "/usr/local/lib/faketime/libfaketime.so.1",
)
SHIFTS = ("+30s", "-30s")
SECONDS = {"+30s": 30.0, "-30s": -30.0}


@cache
def library() -> str | None:
    """The path of libfaketime, or None when it is not installed."""
    for pattern in PLACES:
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None


needs_faketime = pytest.mark.skipif(
    library() is None,
    reason="libfaketime is not installed (Debian package `faketime`): these tests shift memboard's clock with it",
)


def skewed_env(shift: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a memboard process whose clock runs `shift` (`+30s`, `-30s`) from the files' clock."""
    lib = library()
    if lib is None:  # pragma: no cover - the tests skip first
        raise RuntimeError("libfaketime is not installed")
    full = dict(os.environ)
    full.update(env or {})
    full.update(FAKETIME=shift, NO_FAKE_STAT="1", FAKETIME_DISABLE_SHM="1", LD_PRELOAD=lib)
    return full


@dataclass
class Done:
    """A finished memboard process."""

    code: int
    out: str
    err: str


class Skewed:
    """`memboard ARGS --root ROOT` started in a process with a shifted clock; `done()` waits for it."""

    def __init__(self, shift: str, root: Path, *args: str, input: bytes | None = None, env: dict | None = None):
        """Start it, stdin holding input (when given) and closed at once: the command runs from its start."""
        check_shift(shift)
        cmd = [sys.executable, "-m", "memboard", *args, "--root", str(root)]
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=skewed_env(shift, env),
        )
        if input is not None and self.proc.stdin is not None:
            self.proc.stdin.write(input)  # (a hook's payload: far less than a pipe holds)
            self.proc.stdin.close()
            self.proc.stdin = None  # (communicate() must not flush it again)

    def done(self, timeout: float = 60) -> Done:
        """Wait for the process; its exit status and output."""
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
            raise
        return Done(self.proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def run_skewed(shift: str, root: Path, *args: str, input: bytes | None = None, env: dict | None = None) -> Done:
    """Run `memboard ARGS --root ROOT` with a shifted clock to its end."""
    return Skewed(shift, root, *args, input=input, env=env).done()


@cache
def check_shift(shift: str) -> None:
    """Make sure the preload shifts this Python's clock and leaves file times alone (else a test would pass
    for want of a skew): a file just written must look `shift` old to it."""
    probe = (
        "import os, tempfile, time\n"
        "fd, p = tempfile.mkstemp()\n"
        "os.write(fd, b'x'); os.close(fd)\n"
        "print(time.time() - os.stat(p).st_mtime); os.unlink(p)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=skewed_env(shift), check=True
    ).stdout
    seen = float(out.strip())
    if abs(seen - SECONDS[shift]) > 5:
        raise AssertionError(f"libfaketime did not shift the clock by {shift}: a new file looked {seen:.1f} s old")
