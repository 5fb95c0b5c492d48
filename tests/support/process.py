"""memboard run as a process, for what only a process shows: as a user whom a mode-000 file refuses, and
with a deadline.

The suite may run as root, whom file modes do not stop (CAP_DAC_OVERRIDE). `unshare -U
--map-user=1000` starts a command in a user namespace as an ordinary user that owns the test's
files (the caller's own uid is mapped to it) but has no capability outside the namespace: a file
with mode 000 then fails to open with EACCES, while the test's 0700 folders stay usable. Where
that is not allowed (no `unshare`, user namespaces off), `unprivileged()` says why, for a skip.
A suite run as an ordinary user needs none of it and runs the command as it is.

Every command here has a deadline: a read that blocks (a FIFO opened for reading waits for a
writer) fails the test with `Hung` instead of hanging the suite.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conftest import Result

DEADLINE = 30.0  # seconds a command may take before the test calls it hung (a prompt one takes about 0.3 s)
PROBE = "import sys\ntry:\n    open(sys.argv[1], 'rb')\nexcept PermissionError:\n    print('denied')\n"


class Hung(AssertionError):
    """A command did not return within its deadline (it blocked, on a FIFO say)."""


@functools.cache
def _prefix() -> tuple[tuple[str, ...], str | None]:
    """The command prefix that runs a process as a user a mode-000 file refuses, or why there is none."""
    if os.name != "posix":
        return (), "file modes do not deny reads here"
    if os.geteuid() != 0:
        return (), None  # an ordinary user already: no prefix needed
    unshare = shutil.which("unshare")
    if unshare is None:
        return (), "no `unshare` on this machine to run memboard as an unprivileged user"
    prefix = (unshare, "-U", "--map-user=1000")
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "probe"
        probe.write_text("x")
        probe.chmod(0)
        try:
            run = subprocess.run(
                [*prefix, sys.executable, "-c", PROBE, str(probe)], capture_output=True, text=True, timeout=DEADLINE
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return (), f"`unshare -U` cannot run here ({exc})"
    if run.returncode != 0 or run.stdout.strip() != "denied":
        return (), f"`unshare -U --map-user=1000` is not permitted here ({run.stderr.strip() or run.stdout.strip()})"
    return prefix, None


def unprivileged() -> str | None:
    """Why memboard cannot be run as a user whom a mode-000 file refuses (None: it can)."""
    return _prefix()[1]


def command_line(*args: str, unprivileged: bool = False) -> list[str]:
    """The command line of `memboard ARGS`, as an unprivileged user when asked (see the module's notes)."""
    prefix = _prefix()[0] if unprivileged else ()
    return [*prefix, sys.executable, "-m", "memboard", *args]


def memboard(
    root: Path,
    *args: str,
    unprivileged: bool = False,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    deadline: float = DEADLINE,
) -> Result:
    """Run `memboard ARGS --root root` in a process of its own (this process's environment, plus env); Hung when
    it does not return within deadline seconds."""
    full_env = {**os.environ, **(env or {})}
    cmd = [*command_line(*args, unprivileged=unprivileged), "--root", str(root)]
    try:
        proc = subprocess.run(cmd, input=input, capture_output=True, env=full_env, timeout=deadline)
    except subprocess.TimeoutExpired:
        raise Hung(f"`memboard {' '.join(args)}` did not return within {deadline:g}s") from None
    return Result(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))
