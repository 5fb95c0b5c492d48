"""Whole-process figures of the command line on generated roots, each beside its baseline run in turn.

Every run goes through bench/child.py, which reports the command's own wall time, CPU time and peak
memory (not the benchmark runner's: see child.py). Baselines, run just before each run of a
command so that both meet the same load:

- the floor: `python -c "open(index,'rb').read().split(b'\\n')"` on the same root (reading and
  splitting the file is what any command of a whole index must do);
- `python -c pass` for `memboard search` (a search must start about as fast as Python);
- `python -c "import filelock"` for the hook: its own cost is its time minus that one.

Changing commands work on their own copy of the root; each run starts from the same files with
an index.md last changed a minute ago (an index that is not being written: no settle wait).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .roots import POSTSCRIPT, Manifest, RootCache
from .timing import Sample, bench_env, sample

PYTHON = sys.executable
PASS = [PYTHON, "-c", "pass"]
FILELOCK = [PYTHON, "-c", "import filelock"]
IMPORT_CLI = [PYTHON, "-c", "import memboard.cli"]
BIG_ROOT_ROWS = 100_000
BIG_ROOT_RUNS = 5  # a 100k-row command takes a second or two: 5 runs keep the full run within minutes
SEARCH_WORD = "obsidian"
IDLE_AGE = 60.0  # seconds: how long ago the index "was last written" before each run


def payload(conversation: str, source: str = "startup") -> bytes:
    """A Claude Code SessionStart payload."""
    return json.dumps(
        {
            "session_id": conversation,
            "transcript_path": "/tmp/bench.jsonl",
            "cwd": "/tmp",
            "hook_event_name": "SessionStart",
            "source": source,
        }
    ).encode("utf-8")


def memboard_cmd() -> list[str]:
    """How a hook or a user runs memboard: the console script beside this Python."""
    script = Path(PYTHON).parent / ("memboard.exe" if sys.platform == "win32" else "memboard")
    return [str(script)] if script.exists() else [PYTHON, "-m", "memboard"]


def floor_cmd(root: Path) -> list[str]:
    """Reading and splitting root's index, as a whole process."""
    return [PYTHON, "-c", f"open({str(root / 'index.md')!r}, 'rb').read().split(b'\\n')"]


@dataclass
class Measured:
    """A command's samples, and its baseline's taken just before each."""

    samples: list[Sample] = field(default_factory=list)
    base: list[Sample] = field(default_factory=list)
    baseline: str = "floor"
    loads: list[float] = field(default_factory=list)


def idle(path: Path) -> None:
    """Make path look written IDLE_AGE seconds ago (an index nobody is writing)."""
    then = time.time() - IDLE_AGE
    os.utime(path, (then, then))


def run_series(
    cmd: Callable[[int], list[str]],
    base: list[str],
    runs: int,
    env: dict,
    baseline: str,
    prepare: Callable[[int], None] | None = None,
    stdin: Callable[[int], bytes | None] | None = None,
    warmup: bool = True,
    expect: str | None = None,
) -> Measured:
    """runs of cmd(i) (after an untimed warm-up, i = -1), each right after one of base."""
    out = Measured(baseline=baseline)
    for i in range(-1 if warmup else 0, runs):
        if prepare:
            prepare(i)
        data = stdin(i) if stdin else None
        if i < 0:
            sample(cmd(i), env, data, expect=expect)
            continue
        out.base.append(sample(base, env))
        out.loads.append(os.getloadavg()[0])
        out.samples.append(sample(cmd(i), env, data, expect=expect))
    return out


def chain_target(manifest: Manifest) -> str:
    """A session with a snapshot that continues from another (chain and show have something to walk)."""
    for sid in reversed(manifest.snapshots):
        text = (manifest.path / "sessions" / f"{sid}.md").read_text(encoding="utf-8")
        if "## Continues From\n\n- " in text:
            return sid
    return manifest.snapshots[-1]


def measure_commands(cache: RootCache, rows: int, runs: int, state: Path, warmup: bool = True) -> dict[str, Measured]:
    """Every command's figures at `rows` rows."""
    mb, env = memboard_cmd(), bench_env(state)
    manifest = cache.get(rows)
    count = min(runs, BIG_ROOT_RUNS) if rows >= BIG_ROOT_ROWS else runs
    out: dict[str, Measured] = {}
    pristine = manifest.path
    floor = floor_cmd(pristine)

    def series(name: str, cmd, base=floor, baseline="floor", env_of=env, **kw) -> None:
        print(f"    {name} @ {rows:,}", file=sys.stderr, flush=True)
        out[name] = run_series(cmd, base, count, env_of, baseline, warmup=warmup, **kw)

    work = cache.copy(rows)
    index = work / "index.md"

    def fresh(_i: int) -> None:
        """Back to the pristine index, last written a minute ago."""
        cache.restore_index(rows, work)
        idle(index)

    hook, answered = mb + ["hook", "claude", "--root", str(work)], "Your Memory Session ID is:"
    series(
        "memboard hook claude (new chat)",
        lambda i: hook,
        FILELOCK,
        "import filelock",
        prepare=fresh,
        stdin=lambda i: payload(f"bench-{rows}-{i}-{time.time_ns()}"),
        expect=answered,
    )
    # the same new chat with config hook_context = "digest" (the ID and what the agent needs on its first turn)
    digest_env = bench_env(state / f"digest-{cache.kind}-{rows}")
    Path(digest_env["MEMBOARD_CONFIG"]).write_text('hook_context = "digest"\n', encoding="utf-8")
    series(
        "memboard hook claude (new chat) · digest",
        lambda i: hook,
        FILELOCK,
        "import filelock",
        digest_env,
        prepare=fresh,
        stdin=lambda i: payload(f"bench-digest-{rows}-{i}-{time.time_ns()}"),
        expect=answered,
    )
    # the generated roots keep text under the table, so a new row is spliced in (the file rewritten, a temp file
    # renamed over it); on an index whose table ends the file the row is appended (O_APPEND): that path too
    table_last = cache.get(rows).path.joinpath("index.md").read_bytes().removesuffix(POSTSCRIPT.encode("utf-8"))

    def appendable(_i: int) -> None:
        """The pristine index without its text under the table, last written a minute ago."""
        index.write_bytes(table_last)
        idle(index)

    for suffix, env_of in (("", env), (" · digest", digest_env)):
        series(
            "memboard hook claude (new chat) · append" + suffix,
            lambda i: hook,
            FILELOCK,
            "import filelock",
            env_of,
            stdin=lambda i: payload(f"bench-append-{rows}-{i}-{time.time_ns()}"),
            prepare=appendable,
            expect=answered,
        )
    series(
        "memboard hook claude (resume)",
        lambda i: hook,
        FILELOCK,
        "import filelock",
        prepare=lambda i: idle(index),
        stdin=lambda i: payload(f"bench-{rows}-resumed", "resume"),
        expect=answered,
    )
    series("memboard register", lambda i: mb + ["register", "--root", str(work)], prepare=fresh)
    series("memboard list --json", lambda i: mb + ["list", "--json", "--root", str(pristine)])
    series("memboard organize --dry-run", lambda i: mb + ["organize", "--dry-run", "--root", str(work)], prepare=fresh)
    series("memboard organize", lambda i: mb + ["organize", "--root", str(work)], prepare=fresh)
    # the preview again, now that an organize kept the record of what each snapshot lists under Continues From (a
    # preview never writes it: the first series above read every snapshot)
    series(
        "memboard organize --dry-run (Continues From record kept)",
        lambda i: mb + ["organize", "--dry-run", "--root", str(work)],
        prepare=fresh,
    )
    # --exit-zero: the bench's roots hold findings (rows without a snapshot), on which doctor exits 1 like a checker;
    # the same work, minus its one line on stderr, so that any other exit still fails the series
    series("memboard doctor", lambda i: mb + ["doctor", "--exit-zero", "--root", str(pristine)])
    series("memboard doctor --json", lambda i: mb + ["doctor", "--json", "--exit-zero", "--root", str(pristine)])
    target = chain_target(manifest)
    series("memboard show", lambda i: mb + ["show", target, "--root", str(pristine)])
    series("memboard chain", lambda i: mb + ["chain", target, "--root", str(pristine)])
    # a row with a snapshot: the update rewrites its row and reads (and rewrites) that one snapshot
    series(
        "memboard update ID --summary x",
        lambda i: mb + ["update", target, "--summary", f"bench {i}", "--root", str(work)],
        prepare=fresh,
    )
    archivable = iter(manifest.archivable)
    series(
        "memboard archive --dry-run",
        lambda i: mb + ["archive", manifest.archivable[0], "--dry-run", "--root", str(work)],
        prepare=fresh,
    )
    series("memboard archive", lambda i: mb + ["archive", next(archivable), "--root", str(work)], prepare=fresh)
    shutil.rmtree(work, ignore_errors=True)

    search_state = state / f"search-{cache.kind}-{rows}"
    search_env = bench_env(search_state)

    def cold(_i: int) -> None:
        """No search cache yet: the search builds it."""
        shutil.rmtree(search_state / "search", ignore_errors=True)

    search = mb + ["search", SEARCH_WORD, "--root", str(pristine)]
    print(f"    memboard search @ {rows:,}", file=sys.stderr, flush=True)
    # the first search builds the cache; above 4 MiB beside it, so wait for it: a search timed while it is
    # being built answers from the files (issue 29's first-search figure), not from the cache
    sample(search, search_env)
    built_beside(search_state / "search")
    out["memboard search (warm cache)"] = run_series(lambda i: search, PASS, count, search_env, "python -c pass")
    # (above 4 MiB the search answers from the files and the cache is built beside it: see built_beside)
    out["memboard search (cold: no cache yet)"] = run_series(
        lambda i: search,
        PASS,
        1 if rows >= BIG_ROOT_ROWS else min(count, 3),
        search_env,
        "python -c pass",
        prepare=cold,
        warmup=False,
    )
    built_beside(search_state / "search")
    return out


def built_beside(folder: Path, limit: float = 600.0) -> None:
    """Wait until a cache built beside a first search (a root above 4 MiB: core/search/beside.py) is in place, so that
    its build does not run beside the next figures."""
    until = time.monotonic() + limit
    while time.monotonic() < until and not (
        any(p.suffix == ".sqlite3" for p in folder.glob("*")) and not any(p.suffix == ".tmp" for p in folder.glob("*"))
    ):
        time.sleep(0.1)


def measure_pipes(piped: RootCache, plain: RootCache, rows: int, runs: int, state: Path) -> dict[str, Measured]:
    """list --json and organize --dry-run on root b and on the same root without its escaped pipes, run by run
    in turn (the plain root's run is the baseline): what the pipes cost."""
    mb, env = memboard_cmd(), bench_env(state)
    count = min(runs, BIG_ROOT_RUNS) if rows >= BIG_ROOT_ROWS else runs
    roots = {}
    for cache in (piped, plain):
        work = cache.copy(rows)
        roots[cache.kind] = work
    out = {}
    for name, args in (("list --json", ["list", "--json"]), ("organize --dry-run", ["organize", "--dry-run"])):
        print(f"    escaped pipes: {name} @ {rows:,}", file=sys.stderr, flush=True)
        for work in roots.values():
            idle(work / "index.md")
        out[name] = run_series(
            lambda i, args=args: mb + args + ["--root", str(roots[piped.kind])],
            mb + args + ["--root", str(roots[plain.kind])],
            count,
            env,
            "the same root without the pipes",
        )
    for work in roots.values():
        shutil.rmtree(work, ignore_errors=True)
    return out


def measure_baselines(state: Path, runs: int) -> dict[str, list[Sample]]:
    """`python -c pass`, `import filelock` and `import memboard.cli` on their own."""
    env = bench_env(state)
    return {
        name: [sample(cmd, env) for _ in range(runs)]
        for name, cmd in (
            ("python -c pass", PASS),
            ("python -c 'import filelock'", FILELOCK),
            ("python -c 'import memboard.cli'", IMPORT_CLI),
        )
    }
