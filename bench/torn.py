"""Torn saves: every changing command against an editor that saves index.md the plain way.

Usage: python bench/torn.py [--seconds S] [--workers N] [--rows R] [--keep DIR] [--seed N]
       python bench/torn.py --stall-scan [--trials T]
       python bench/torn.py --idle-cost

The default run starts worker processes that loop over every changing command (register,
register --manual, update, continue, release, archive, organize, doctor --fix and the
Claude hook) and one editor process that, without memboard's lock, saves index.md in one of
three ways: truncate, then write its buffer in 1-4 chunks with pauses from 0 up to 0.8 of the
settle window (before the first chunk too); write a temp file and rename it over index.md;
append one row. Each save adds one hand row. The editor re-reads the file before each save
and checks, right before it writes, that the file it read is still the one at the path, as a
careful editor does; memboard logs the same last-look-to-rename window of each of its writes
(BENCH_REPLACE_LOG). Afterwards `check` demands: every seeded row that nothing removed on
purpose, every hand row and every Session ID memboard announced is in the index or the
archive; the index parses; every command exited 0 or 1 with one line; doctor --fix
converges. A row lost where an editor window and a memboard window overlapped (both
microseconds wide: two writers without a common lock racing) is excused and counted.

--stall-scan measures the editor stall memboard tolerates: one plain save of a 300-row index
pauses once, half written and cut mid-row, for a given time while `update` of a row in the
written half runs; it prints per pause how many trials lost rows.

--idle-cost prints how long memboard slept waiting for index.md to settle in commands on an
index older than the window, right after memboard's own write, and right after a hand save.

tests/reliability/test_torn_saves.py runs the default harness, short and bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

HEADER = (
    "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n"
    "|---|---|---|---|---|---|---|---|---|\n"
)
NOW = "2026-06-01 09:30"
WINDOW = 0.5
COMMANDS = ("register", "manual", "update", "continue", "release", "archive", "organize", "doctor", "hook")
ANNOUNCED = "Your Memory Session ID is: "


def seed_id(n: int) -> str:
    """The ID of the n-th seeded row (distinct minutes, agent `seed`)."""
    day, rest = divmod(n, 24 * 60)
    return f"2026-05-{1 + day:02d}-{rest // 60:02d}{rest % 60:02d}-seed"


def hand_id(n: int) -> str:
    """The ID of the n-th row the editor adds by hand."""
    day, rest = divmod(n, 24 * 60)
    return f"2026-04-{1 + day:02d}-{rest // 60:02d}{rest % 60:02d}-hand"


def hand_row(n: int) -> bytes:
    """The n-th hand row: stale, so organize leaves it alone."""
    return (
        f"| {hand_id(n)} | hand | hand topic {n} | added by hand | hand | stale | - | "
        "2026-04-01 09:00 | 2026-04-01 09:00 |\n"
    ).encode()


def build_root(path: Path, rows: int = 400) -> dict[str, str]:
    """A root whose table ends the file: every 7th row an idle placeholder, the rest with snapshots."""
    from memboard.core.formats.snapshot import render_template

    (path / "sessions").mkdir(parents=True, exist_ok=True)
    lines = ["# Memory Index\n", "\n", "Notes above the table.\n", "\n", HEADER]
    kinds = {}
    for n in range(rows):
        sid = seed_id(n)
        ts = "2026-05-01 08:00"
        if n % 7 == 0:
            status, summary = "idle", "sessionStart 自動註冊，尚未整理主題。"
        else:
            status, summary = ("stale" if n % 5 == 0 else "active"), f"Seeded work item {n}."
            text = render_template(sid, "seed", f"topic {n}", ts, ts, context=summary, status=status)
            (path / "sessions" / f"{sid}.md").write_text(text, encoding="utf-8")
        kinds[sid] = status
        lines.append(f"| {sid} | seed | topic {n} | {summary} | seed | {status} | - | {ts} | {ts} |\n")
    (path / "index.md").write_text("".join(lines), encoding="utf-8")
    old = time.time() - 3600  # seeded long ago: nothing here is being saved right now
    for file in [path / "index.md", *(path / "sessions").iterdir()]:
        os.utime(file, (old, old))
    return kinds


# -- worker ---------------------------------------------------------------------------------


def call(argv: list[str], stdin: bytes | None = None) -> tuple[int, str, str]:
    """Run the CLI (or the hook, with stdin) in this process; code, stdout, stderr (a traceback is 99)."""
    from memboard.cli import main

    raw, err = io.BytesIO(), io.StringIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if stdin is not None:
                from memboard.cli import hook

                code = hook.run(argv[1], argv[argv.index("--root") + 1], None, stdin=io.BytesIO(stdin))
            else:
                code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception:
            import traceback

            traceback.print_exc(file=err)
            code = 99
        out.flush()
    return code, raw.getvalue().decode("utf-8", "replace"), err.getvalue()


def pick(
    kind: str,
    name: str,
    rng: random.Random,
    mine: list[str],
    refs: list[tuple[str, str]],
    sources: list[str],
    snap: str,
    n: int,
) -> tuple[list[str], bytes | None]:
    """The argv (and hook stdin) of one command of this kind; falls back to register when it cannot run."""
    if kind == "manual":
        return [
            "register",
            "--manual",
            "--agent",
            name,
            "--topic",
            f"{name} topic",
            "--summary",
            "work",
            "--json",
        ], None
    if kind == "update" and mine:
        return ["update", rng.choice(mine), "--summary", f"{name} update {n}", "--snapshot", snap], None
    if kind == "continue" and mine:
        return ["continue", rng.choice(sources), "--as", rng.choice(mine)], None
    if kind == "continue":
        return ["continue", rng.choice(sources), "--agent", name], None
    if kind == "release" and refs:
        src, as_id = refs.pop(rng.randrange(len(refs)))
        return ["release", src, "--as", as_id], None
    if kind == "archive" and mine:
        return ["archive", rng.choice(mine), "--json"], None
    if kind == "organize":
        return ["organize", "--json"], None
    if kind == "doctor":
        return ["doctor", "--fix"], None
    if kind == "hook":
        payload = {"session_id": f"conv-{name}-{n}", "hook_event_name": "SessionStart"}
        return ["hook", "claude"], json.dumps(payload).encode()
    return ["register", "--agent", name], None


def label(argv: list[str]) -> str:
    """The command kind an argv runs (as COMMANDS names them)."""
    if argv[0] == "register":
        return "manual" if "--manual" in argv else "register"
    return argv[0]


def note(event: dict, argv: list[str], out: str, mine: list[str], refs: list[tuple[str, str]]) -> None:
    """Record what a successful command announced or removed, and keep the worker's own lists current."""
    for line in out.splitlines():
        if ANNOUNCED in line:
            event["announced"] = line.split(ANNOUNCED, 1)[1].split('"')[0].strip()
    if argv[:2] == ["register", "--manual"]:
        event["announced"] = json.loads(out)["session_id"]
    if argv[0] == "organize":
        event["deleted"] = json.loads(out)["deleted"]
    if argv[0] == "archive":
        event["removed"] = argv[1]
        if argv[1] in mine:
            mine.remove(argv[1])
        refs[:] = [p for p in refs if p[1] != argv[1]]
    if argv[0] == "continue" and "--as" in argv:
        refs.append((argv[1], argv[3]))
    if event.get("announced") and argv[0] != "hook":
        mine.append(event["announced"])


def last_line(path: Path) -> str:
    """The last line of a log (empty when there is none)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return lines[-1].split("\t")[-1] if lines else ""


def worker(root: str, name: str, deadline: float, log_path: str, sources: list[str], seed: int) -> None:
    """Loop over every changing command (each kind in turn, shuffled) until deadline; one JSON line each."""
    from bench.probes import install_from_env

    install_from_env()
    rng = random.Random(seed)
    mine: list[str] = []
    refs: list[tuple[str, str]] = []
    snap = str(Path(log_path).with_suffix(".snap.md"))
    Path(snap).write_text(f"## Decisions\n\n- decided by {name}\n", encoding="utf-8")
    kinds: list[str] = []
    n = 0
    with open(log_path, "a", encoding="utf-8") as log:
        while time.time() < deadline:
            if not kinds:
                kinds = list(COMMANDS)
                rng.shuffle(kinds)
            kind = kinds.pop()
            n += 1
            argv, stdin = pick(kind, name, rng, mine, refs, sources, snap, n)
            start = time.time()
            code, out, err = call([*argv, "--root", root], stdin)
            event = {
                "kind": label(argv),
                "argv": argv,
                "code": code,
                "err": err.strip(),
                "start": start,
                "end": time.time(),
            }
            if code == 0:
                note(event, argv, out, mine, refs)
            if argv[0] == "hook" and "announced" not in event:
                event["err"] = last_line(Path(root) / ".memboard" / "hook.log")
            elif "unknown session" in err and len(argv) > 1 and argv[1] in mine:
                mine.remove(argv[1])
            log.write(json.dumps(event, ensure_ascii=False) + "\n")
            log.flush()


# -- editor ---------------------------------------------------------------------------------


def _sig(st: os.stat_result) -> tuple:
    """A file's identity and version."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _read_fd(path: Path) -> tuple[int, bytes, tuple]:
    """Open path, read it whole; the open fd, the bytes and the signature seen."""
    fd = os.open(path, os.O_RDONLY)
    before = os.fstat(fd)
    chunks = []
    while True:
        piece = os.read(fd, 1 << 20)
        if not piece:
            break
        chunks.append(piece)
    return fd, b"".join(chunks), _sig(before)


def _with_row(data: bytes, row: bytes, rng: random.Random) -> bytes:
    """data with row added at the table's end (usually) or between two rows."""
    lines = data.splitlines(keepends=True)
    table = [i for i, line in enumerate(lines) if line.startswith(b"| 20")]
    at = len(lines) if not table or rng.random() < 0.7 else rng.choice(table)
    if at == len(lines) and lines and not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"
    lines.insert(at, row)
    return b"".join(lines)


def save_truncate(path: Path, n: int, rng: random.Random, max_pause: float) -> dict | None:
    """Truncate, then write the new buffer in chunks with pauses; None when the file moved under the editor."""
    fd1, data, seen = _read_fd(path)
    new = _with_row(data, hand_row(n), rng)
    check = time.time()
    fd2 = os.open(path, os.O_WRONLY)
    try:
        if _sig(os.fstat(fd1)) != seen or os.fstat(fd2).st_ino != seen[1]:
            return None
        os.ftruncate(fd2, 0)
        mod = time.time()
        pieces = rng.randint(1, 4)
        cuts = sorted(rng.sample(range(1, len(new)), pieces - 1)) if pieces > 1 else []
        pos = 0
        for cut in [*cuts, len(new)]:
            time.sleep(rng.uniform(0, max_pause))
            os.write(fd2, new[pos:cut])
            pos = cut
        lost = os.fstat(fd2).st_nlink == 0
    finally:
        os.close(fd2)
        os.close(fd1)
    return {"mode": "truncate", "check": check, "mod": mod, "lost": lost}


def save_rename(path: Path, n: int, rng: random.Random) -> dict | None:
    """Write the new buffer to a temp file and rename it over index.md."""
    fd1, data, seen = _read_fd(path)
    os.close(fd1)
    tmp = path.with_name(f".{path.name}.editor~")
    tmp.write_bytes(_with_row(data, hand_row(n), rng))
    check = time.time()
    if _sig(os.stat(path)) != seen:
        tmp.unlink()
        return None
    os.replace(tmp, path)
    return {"mode": "rename", "check": check, "mod": time.time(), "lost": False}


def save_append(path: Path, n: int) -> dict:
    """Append one row (one write); its window opens with the file (a rename after that leaves it the old file)."""
    check = time.time()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, hand_row(n))
        mod = time.time()
        lost = os.fstat(fd).st_nlink == 0
    finally:
        os.close(fd)
    return {"mode": "append", "check": check, "mod": mod, "lost": lost}


def editor(root: str, deadline: float, log_path: str, seed: int, window: float, pause: float = 0.8) -> None:
    """Save index.md the three plain ways, without the lock, until deadline; one JSON line per save.

    pause: the longest pause inside a truncate save, as a share of the settle window.
    """
    rng = random.Random(seed)
    path = Path(root) / "index.md"
    n = 0
    with open(log_path, "a", encoding="utf-8") as log:
        while time.time() < deadline:
            time.sleep(rng.uniform(0.6 * window, 4 * window))
            mode = rng.choice(("truncate", "truncate", "rename", "append"))
            n += 1
            if mode == "truncate":
                info = save_truncate(path, n, rng, pause * window)
            elif mode == "rename":
                info = save_rename(path, n, rng)
            else:
                info = save_append(path, n)
            if info is None:
                log.write(json.dumps({"skipped": n}) + "\n")
                continue
            info.update(save=n, id=hand_id(n), end=time.time())
            log.write(json.dumps(info) + "\n")
            log.flush()


# -- driver and check -------------------------------------------------------------------------


def run(
    root: Path, seconds: float = 20.0, workers: int = 3, seed: int = 1, window: float = WINDOW, pause: float = 0.8
) -> dict:
    """Run workers and the editor (pausing up to `pause` of the window) as separate processes on root; their logs."""
    work = Path(tempfile.mkdtemp(prefix="memboard-torn-"))
    env = dict(os.environ)
    env["BENCH_REPLACE_LOG"] = str(work / "replaced.txt")
    env["MEMBOARD_SETTLE_SECONDS"] = str(window)
    env.setdefault("MEMBOARD_NOW", NOW)
    sources = [seed_id(n) for n in range(1, 200) if n % 7 and n % 5][:30]
    start = time.time() + 1.0
    deadline = start + seconds
    me = str(Path(__file__).resolve())
    procs = []
    for w in range(workers):
        log = work / f"w{w}.jsonl"
        args = [
            sys.executable,
            me,
            "--worker",
            f"w{w}",
            "--root",
            str(root),
            "--deadline",
            str(deadline),
            "--log",
            str(log),
            "--sources",
            ",".join(sources),
            "--seed",
            str(seed * 100 + w),
        ]
        procs.append((log, subprocess_popen(args, env)))
    ed_log = work / "editor.jsonl"
    ed = subprocess_popen(
        [
            sys.executable,
            me,
            "--editor",
            "--root",
            str(root),
            "--deadline",
            str(deadline - 2),
            "--log",
            str(ed_log),
            "--seed",
            str(seed),
            "--window",
            str(window),
            "--pause",
            str(pause),
        ],
        env,
    )
    for _, p in procs:
        p.wait(timeout=seconds + 120)
    ed.wait(timeout=seconds + 120)
    events = []
    for log, _ in procs:
        events += [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    saves = [json.loads(line) for line in ed_log.read_text(encoding="utf-8").splitlines()] if ed_log.exists() else []
    windows = []
    index = (root / "index.md").resolve()
    replaced = work / "replaced.txt"
    if replaced.exists():
        for line in replaced.read_text(encoding="utf-8", errors="replace").splitlines():
            checked, done, path = line.split(" ", 2)
            if Path(path) == index:
                windows.append((float(checked), float(done)))
    return {
        "events": events,
        "saves": saves,
        "windows": windows,
        "seconds": seconds,
        "exit_codes": [p.returncode for _, p in procs] + [ed.returncode],
    }


def subprocess_popen(args: list[str], env: dict):
    """Start one helper process."""
    import subprocess

    return subprocess.Popen(args, env=env)


def races(result: dict) -> list[tuple[dict, tuple[float, float]]]:
    """(editor save, memboard window) pairs whose last-look-to-write windows overlapped."""
    out = []
    for save in result["saves"]:
        if "save" not in save:
            continue
        for w in result["windows"]:
            if save["check"] <= w[1] and w[0] <= save["mod"]:
                out.append((save, w))
    return out


def check(root: Path, seeded: dict, result: dict) -> list[str]:
    """Everything that went wrong, as lines (empty when every promise held)."""
    from memboard.core.formats.index import IndexFile

    problems: list[str] = []
    for e in result["events"]:
        if e["code"] not in (0, 1):
            problems.append(f"{' '.join(e['argv'])}: exit {e['code']}: {e['err'][-400:]}")
        elif e["code"] == 1 and len(e["err"].splitlines()) != 1:
            problems.append(f"{' '.join(e['argv'])}: error is not one line: {e['err'][:400]!r}")
    if any(result["exit_codes"]):
        problems.append(f"a helper process failed: exit codes {result['exit_codes']}")
    data = (root / "index.md").read_bytes()
    index = IndexFile(data)
    if not index.has_table or index.problems or not data.endswith(b"\n"):
        problems.append(f"index.md is not a whole board: {index.problems}")
    ids = [r.id for r in index.rows]
    if len(ids) != len(set(ids)):
        problems.append(f"duplicated IDs: {sorted({i for i in ids if ids.count(i) > 1})[:5]}")
    problems += [f"malformed row at line {r.line + 1}: {r.problem}" for r in index.rows if r.problem][:5]
    kept = set(ids) | {p.name for p in (root / "archive").iterdir()} if (root / "archive").is_dir() else set(ids)
    removed = set()
    for e in result["events"]:
        removed.update(e.get("deleted", []))
        if e.get("removed"):
            removed.add(e["removed"])
    raced = races(result)
    raced_saves = {save["save"] for save, _ in raced}
    raced_times = [w for _, w in raced]
    for sid, status in seeded.items():
        if sid not in kept and sid not in removed:
            problems.append(f"seeded row {sid} ({status}) vanished and nothing removed it")
    excused = 0
    for save in result["saves"]:
        if "save" in save and save["id"] not in kept:
            if save["save"] in raced_saves:
                excused += 1
            else:
                problems.append(f"hand row {save['id']} ({save['mode']} save, lost={save['lost']}) vanished")
    for e in result["events"]:
        sid = e.get("announced")
        if sid and sid not in kept and sid not in removed:
            if any(e["start"] <= w[1] and w[0] <= e["end"] for w in raced_times):
                excused += 1
            else:
                problems.append(f"{' '.join(e['argv'][:2])} announced {sid}, which is gone and nothing removed it")
    result["races"], result["excused"] = len(raced), excused
    return problems


def figures(result: dict) -> dict:
    """Outcome counts per command and editor saves per mode."""
    events = result["events"]
    out: dict = {"commands": len(events), "succeeded": sum(1 for e in events if e["code"] == 0)}
    for kind in COMMANDS:
        mine = [e for e in events if e["kind"] == kind]
        out[f"{kind}_ok"] = sum(1 for e in mine if e["code"] == 0)
        out[f"{kind}_refused"] = sum(1 for e in mine if e["code"] == 1)
    out["incomplete"] = sum(1 for e in events if "incomplete" in e["err"])
    out["conflicts"] = sum(1 for e in events if "incomplete" in e["err"] and "changed while memboard" in e["err"])
    out["not_settled"] = sum(1 for e in events if "still being saved" in e["err"])
    out["hook_failed_open"] = sum(1 for e in events if e["kind"] == "hook" and "announced" not in e)
    for mode in ("truncate", "rename", "append"):
        out[f"editor_{mode}"] = sum(1 for s in result["saves"] if s.get("mode") == mode)
    durations = sorted(e["end"] - e["start"] for e in events)
    if durations:
        out["command_p50_ms"] = round(durations[len(durations) // 2] * 1000)
        out["command_max_ms"] = round(durations[-1] * 1000)
    return out


def converge(root: Path) -> list[str]:
    """Run doctor --fix once; what a second doctor would still fix (empty when it converged)."""
    from memboard.core.files.execute import execute
    from memboard.core.files.root import MemoryRoot
    from memboard.core.formats import clock
    from memboard.core.ops.doctor import diagnose

    mroot = MemoryRoot(root)
    execute(mroot, lambda r: diagnose(r, clock.now())[1])
    findings, plan = diagnose(mroot, clock.now())
    return [f"doctor --fix did not converge: {f.kind} {f.id}" for f in findings if f.fix] if plan.changes else []


# -- the stall the guarantee covers, and what an idle index costs -------------------------------


def stall_trial(base: Path, pause: float, rows: int, window: float) -> int:
    """One plain save that stops half written (mid-row) for `pause` seconds while `update` runs; rows lost."""
    import shutil

    from memboard.core.files.execute import execute
    from memboard.core.files.root import MemoryRoot
    from memboard.core.formats import clock
    from memboard.core.formats.index import IndexFile
    from memboard.core.ops.update import plan_update

    root = base / "stall"
    shutil.rmtree(root, ignore_errors=True)
    build_root(root, rows)
    path = root / "index.md"
    full = path.read_bytes() + hand_row(1)
    cut = len(full) // 2
    fh = open(path, "r+b")
    fh.truncate(0)
    fh.write(full[:cut])
    fh.flush()
    later = threading.Timer(pause, lambda: (fh.write(full[cut:]), fh.close()))
    later.start()
    target = seed_id(3)  # in the written half: building on the torn file would "succeed"
    mroot = MemoryRoot(root)
    try:
        execute(mroot, lambda r: plan_update(r, target, clock.now(), summary="after the stall"))
    except Exception:  # a refusal loses nothing; only what is on disk afterwards counts
        pass
    later.join()
    expected = row_ids_of(full)
    return len(expected - {r.id for r in IndexFile(path.read_bytes()).rows})


def row_ids_of(data: bytes) -> set[str]:
    """Session IDs of the table rows in data."""
    from memboard.core.formats.index import IndexFile

    return {r.id for r in IndexFile(data).rows}


def stall_scan(trials: int, window: float, rows: int = 300) -> list[tuple[float, int]]:
    """Per pause (seconds), in how many trials rows were lost; prints each line as it goes."""
    base = Path(tempfile.mkdtemp(prefix="memboard-stall-"))
    os.environ.setdefault("MEMBOARD_STATE_DIR", str(base / "state"))
    os.environ.setdefault("MEMBOARD_CONFIG", str(base / "state" / "config.toml"))
    os.environ["MEMBOARD_SETTLE_SECONDS"] = str(window)
    out = []
    for share in (0.2, 0.5, 0.8, 0.9, 0.95, 1.05, 1.2, 1.6):
        pause = round(share * window, 3)
        lost = sum(1 for _ in range(trials) if stall_trial(base, pause, rows, window))
        out.append((pause, lost))
        print(f"stall {pause * 1000:5.0f} ms ({share:.2f} x window): rows lost in {lost}/{trials} trials", flush=True)
    return out


def idle_cost(runs: int = 20) -> dict:
    """Seconds memboard slept waiting for index.md to settle, per kind of index (total over runs commands)."""
    from memboard.core.files import root as root_module
    from memboard.core.files.execute import execute
    from memboard.core.formats import clock
    from memboard.core.ops.update import plan_update

    base = Path(tempfile.mkdtemp(prefix="memboard-idle-"))
    os.environ.setdefault("MEMBOARD_STATE_DIR", str(base / "state"))
    os.environ.setdefault("MEMBOARD_CONFIG", str(base / "state" / "config.toml"))
    slept = [0.0]
    real_sleep = root_module.time.sleep

    class Clock:
        """root.py's view of the time module, with sleep counted."""

        def __getattr__(self, name):
            """Everything but sleep is the time module's own."""
            return getattr(time, name)

        @staticmethod
        def sleep(seconds: float) -> None:
            """Sleep, and count it."""
            slept[0] += seconds
            real_sleep(seconds)

    root_module.time = Clock()  # type: ignore[assignment]
    out = {}
    try:
        for case in ("older than the window", "right after memboard's own write", "right after a hand save"):
            path = base / case.replace(" ", "-").replace("'", "")
            build_root(path, 400)
            mroot = root_module.MemoryRoot(path)
            slept[0] = 0.0
            start = time.perf_counter()
            for k in range(runs):
                if case.startswith("right after a hand"):
                    (path / "index.md").write_bytes((path / "index.md").read_bytes())
                elif case.startswith("older"):
                    old = time.time() - 60
                    os.utime(path / "index.md", (old, old))
                execute(mroot, lambda r, k=k: plan_update(r, seed_id(1 + k % 6), clock.now(), summary=f"run {k}"))
            out[case] = (slept[0], time.perf_counter() - start)
            print(f"index {case}: slept {slept[0]:.3f} s in {runs} updates ({out[case][1]:.2f} s in all)", flush=True)
    finally:
        root_module.time = time
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the harness (or act as one of its processes) and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--rows", type=int, default=400)
    ap.add_argument("--window", type=float, default=WINDOW)
    ap.add_argument("--pause", type=float, default=0.8, help="longest pause inside a save, as a share of the window")
    ap.add_argument("--keep", metavar="DIR")
    ap.add_argument("--stall-scan", action="store_true")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--idle-cost", action="store_true")
    ap.add_argument("--worker")
    ap.add_argument("--editor", action="store_true")
    ap.add_argument("--root")
    ap.add_argument("--deadline", type=float)
    ap.add_argument("--log")
    ap.add_argument("--sources", default="")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.root, args.worker, args.deadline, args.log, args.sources.split(","), args.seed)
        return 0
    if args.editor:
        editor(args.root, args.deadline, args.log, args.seed, args.window, args.pause)
        return 0
    if args.stall_scan:
        stall_scan(args.trials, args.window)
        return 0
    if args.idle_cost:
        idle_cost()
        return 0
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memboard-torn-bench-"))
    os.environ.setdefault("MEMBOARD_STATE_DIR", str(base / "state"))
    os.environ.setdefault("MEMBOARD_CONFIG", str(base / "state" / "config.toml"))
    root = base / "memory"
    seeded = build_root(root, args.rows)
    print(
        f"== {args.workers} workers, editor saving by truncate+chunks (pauses up to {args.pause:g} of the window) / "
        f"rename / append, {args.rows} rows, {args.seconds:g} s, settle window {args.window:g} s"
    )
    result = run(root, args.seconds, args.workers, args.seed, args.window, args.pause)
    problems = check(root, seeded, result) + converge(root)
    for key, value in figures(result).items():
        print(f"{key}: {value}")
    print(
        f"races (an editor's and a memboard last-look-to-write window overlapped): {result['races']}, "
        f"rows lost to them and excused: {result['excused']}"
    )
    reasons: dict[str, int] = {}
    for e in result["events"]:
        if e["code"] == 1 or (e["kind"] == "hook" and "announced" not in e):
            key = re.sub(r"\d{4}-\d{2}-\d{2}-\d{4}-[a-z0-9-]+", "<id>", e["err"])[:100]
            reasons[key] = reasons.get(key, 0) + 1
    for key, count in sorted(reasons.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  refused x{count}: {key}")
    for p in problems[:20]:
        print("PROBLEM:", p)
    print("ok" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main())
