"""Lock throughput: 8 processes register at once on one root; lock waits and rows lost.

Each worker is a separate Python process running the CLI's own path (`execute` with
`plan_register`) in a loop, with `memboard.core.files.execute.locked` wrapped to record how long
each registration waited for the root's lock and how long it then held it. Afterwards the index must hold every
reported Session ID exactly once: a missing one is a lost row.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from .timing import bench_env, percentile

REPO = Path(__file__).resolve().parent.parent
GO_FILE = "go"


def worker(root: str, agent: str, count: int, out: str, go: str) -> None:
    """Register `count` sessions as `agent`, recording lock waits; write them to out as JSON."""
    import memboard.core.files.execute as apply
    from memboard.core.files.root import MemoryRoot
    from memboard.core.formats import clock
    from memboard.core.ops.register import plan_register

    waits: list[float] = []
    holds: list[float] = []
    original = apply.locked  # execute() looks `locked` up in its module, so wrapping it there sees every lock

    @contextmanager
    def recording(r, timeout=None):
        """The real lock, with its wait and hold times recorded."""
        with original(r, timeout) as waited:
            waits.append(waited)
            taken = time.perf_counter()
            try:
                yield waited
            finally:
                holds.append(time.perf_counter() - taken)

    apply.locked = recording
    memory = MemoryRoot(root)
    while not os.path.exists(go):
        time.sleep(0.001)
    ids, failures = [], []
    start = time.perf_counter()
    for _ in range(count):
        try:
            plan = apply.execute(memory, lambda r: plan_register(r, clock.now(), agent))
            ids.append(plan.result.session_id)
        except Exception as exc:  # a failed registration is reported, not a lost row
            failures.append(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    elapsed = time.perf_counter() - start
    Path(out).write_text(
        json.dumps({"ids": ids, "waits": waits, "holds": holds, "failures": failures, "elapsed": elapsed})
    )


def measure(root: Path, state: Path, processes: int = 8, per_process: int = 10) -> dict:
    """Run the workers concurrently on root; lock wait percentiles, throughput, rows lost."""
    from memboard.core.formats.index import IndexFile

    before = len(IndexFile((root / "index.md").read_bytes()).rows)
    work = state / f"lock-{os.getpid()}-{time.time_ns()}"
    work.mkdir(parents=True)
    go = work / GO_FILE
    pythonpath = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = bench_env(state / "lock-state", {"PYTHONPATH": pythonpath})
    procs = []
    for n in range(processes):
        out = work / f"worker-{n}.json"
        cmd = [
            sys.executable,
            "-m",
            "bench.lock_throughput",
            str(root),
            f"bench-writer-{n + 1}",
            str(per_process),
            str(out),
            str(go),
        ]
        procs.append((subprocess.Popen(cmd, cwd=REPO, env=env, stderr=subprocess.PIPE), out))
    time.sleep(0.5 + 0.1 * processes)  # let every worker import and reach the start line
    start = time.perf_counter()
    go.write_text("go")
    for proc, _ in procs:
        _, err = proc.communicate(timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"lock worker failed: {err.decode('utf-8', 'replace').strip().splitlines()[-1:]}")
    wall = time.perf_counter() - start
    reports = [json.loads(out.read_text()) for _, out in procs]
    ids = [i for rep in reports for i in rep["ids"]]
    waits = [w for rep in reports for w in rep["waits"]]
    failures = [f for rep in reports for f in rep["failures"]]
    holds = [h for rep in reports for h in rep["holds"]]
    index = IndexFile((root / "index.md").read_bytes())
    found: dict[str, int] = {}
    for row in index.rows:
        found[row.id] = found.get(row.id, 0) + 1
    lost = sum(1 for i in ids if found.get(i, 0) == 0)
    duplicated = sum(1 for i in ids if found.get(i, 0) > 1)
    return {
        "processes": processes,
        "registrations": len(ids),
        "failed": len(failures),
        "rows_before": before,
        "rows_after": len(index.rows),
        "rows_lost": max(lost, before + len(ids) - len(index.rows)),
        "duplicated": duplicated,
        "wait_p50": percentile(waits, 50),
        "wait_p99": percentile(waits, 99),
        "wait_max": max(waits) if waits else float("nan"),
        "hold_p50": percentile(holds, 50),
        "wall": wall,
        "per_second": len(ids) / wall if wall else float("nan"),
    }


if __name__ == "__main__":
    worker(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
