"""Run one command as a child and report its own wall time, CPU time and peak memory as JSON.

Usage: python bench/child.py [--expect TEXT] COMMAND [ARGS...]   (stdin is passed through; the
command's stdout goes to /dev/null, or with --expect is read and must hold TEXT, else the report's
code is 97; its stderr ends up in the report's `err`).

Why a separate process: Linux keeps the largest resident size a process ever had across exec,
and a child starts with its parent's. A benchmark run that has generated a 100k-row root is a
big parent, so `ru_maxrss` of its children (from wait4 or the child's own getrusage) would report
the runner's size, not the command's. This small process starts the command from its own small
image, so the command's `ru_maxrss` from wait4 here is the command's own peak (or this process's
size, about 10 MB, when the command stays below it). The wall time runs from the fork to the
wait, so this process's own start is not in it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def main(argv: list[str]) -> int:
    """Run argv, print {"wall", "cpu", "peak_mb", "code", "err"} as one JSON line; exit 0."""
    expect = None
    if argv[:1] == ["--expect"]:
        expect, argv = argv[1].encode("utf-8"), argv[2:]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE if expect else subprocess.DEVNULL, stderr=subprocess.PIPE)
    out = proc.stdout.read() if proc.stdout is not None else b""  # (small: a hook's answer)
    err = proc.stderr.read() if proc.stderr is not None else b""
    _, status, usage = os.wait4(proc.pid, 0)  # not proc.wait(): wait4 also gives the child's own usage
    wall = time.perf_counter() - start
    code = proc.returncode = os.waitstatus_to_exitcode(status)
    if code == 0 and expect is not None and expect not in out:
        code, err = 97, err + b"\nexpected output missing: " + expect
    peak = usage.ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else usage.ru_maxrss / 1024
    report = {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mb": peak,
        "code": code,
        "err": err.decode("utf-8", "replace")[-2000:],
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
