"""Concurrency stress and lock figures: 8 writer processes plus a hand editor on one root.

Usage: python bench/lock.py [--seconds S] [--workers N] [--rows R] [--no-editor] [--keep DIR] [--compare]

--compare runs twice, first with plain filelock (BENCH_LOCK_QUEUE=0), then with the FIFO
ticket queue, and prints both sets of figures.

Each worker is its own Python process looping over the real CLI entry point (`register`,
`register --manual`, `update`, `continue`, `release`, `organize`, `archive`) and logging
what each command reported. A separate "editor" process rewrites one unrelated line of
index.md the way an editor saves (read, change the line, write the whole file back) and
never takes memboard's lock. Afterwards `check` proves: every printed ID has its row, an
archive, or was deleted by an organize/archive that reported it; no ID is duplicated; no
seeded row vanished that nothing deleted; every file parses; the editor's last edit
survived. The script prints throughput and lock wait percentiles (p50/p99/max).

tests/reliability/test_stress.py runs the same harness, smaller and bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEADER = (
    "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n"
    "|---|---|---|---|---|---|---|---|---|\n"
)
HAND_PREFIX = "hand-edited: "
NOW = "2026-06-01 09:30"


def seed_id(n: int) -> str:
    """The ID of the n-th seeded row (distinct minutes, agent `seed`)."""
    day, rest = divmod(n, 24 * 60)
    hour, minute = divmod(rest, 60)
    return f"2026-05-{1 + day:02d}-{hour:02d}{minute:02d}-seed"


def build_root(path: Path, rows: int = 1200) -> dict:
    """A root with `rows` rows: 15% idle placeholders, the rest active/stale with snapshots."""
    from memboard.core.formats.snapshot import render_template

    path.mkdir(parents=True, exist_ok=True)
    (path / "sessions").mkdir(exist_ok=True)
    lines = ["# Memory Index\n", "\n", f"{HAND_PREFIX}0\n", "\n", HEADER]
    kinds = {}
    for n in range(rows):
        sid = seed_id(n)
        ts = f"2026-05-{1 + n // 1440:02d} 08:00"
        if n % 7 == 0:
            status, summary = "idle", "sessionStart 自動註冊，尚未整理主題。"
        else:
            status = "stale" if n % 11 == 0 else "active"
            summary = f"Seeded work item {n} with a real summary."
            text = render_template(sid, "seed", f"topic {n}", ts, ts, context=summary, status=status)
            (path / "sessions" / f"{sid}.md").write_text(text, encoding="utf-8")
        kinds[sid] = status
        lines.append(f"| {sid} | seed | topic {n} | {summary} | seed | {status} | - | {ts} | {ts} |\n")
    lines.append("\nText after the table stays.\n")
    (path / "index.md").write_text("".join(lines), encoding="utf-8")
    return kinds


# -- worker -------------------------------------------------------------------------------


def _call(argv: list[str]) -> tuple[int, str, str]:
    """Run the CLI in this process; return code, stdout, stderr (a traceback is code 99)."""
    from memboard.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception:
            import traceback

            traceback.print_exc(file=err)
            code = 99
    return code, out.getvalue(), err.getvalue()


def worker(root: str, name: str, deadline: float, log_path: str, sources: list[str], seed: int) -> None:
    """Loop over mixed commands until deadline; log one JSON line per command."""
    from bench.probes import install_from_env

    install_from_env()
    rng = random.Random(seed)
    mine: list[str] = []  # IDs this worker registered and believes live
    refs: list[tuple[str, str]] = []  # (source, as_id) continuations
    snap_file = Path(log_path).with_suffix(".snap.md")
    snap_file.write_text("## Decisions\n\n- decided by " + name + "\n", encoding="utf-8")
    base = ["--root", root]
    with open(log_path, "a", encoding="utf-8") as log:
        while time.time() < deadline:
            r = rng.random()
            if refs and rng.random() < 0.2:
                src, as_id = refs.pop(rng.randrange(len(refs)))
                argv = ["release", src, "--as", as_id]
            elif r < 0.25 or not mine:
                argv = ["register", "--agent", name]
            elif r < 0.40:
                argv = [
                    "register",
                    "--manual",
                    "--agent",
                    name,
                    "--topic",
                    f"{name} topic",
                    "--summary",
                    "work in progress",
                    "--json",
                ]
            elif r < 0.58:
                argv = [
                    "update",
                    rng.choice(mine),
                    "--summary",
                    f"{name} update {rng.random():.4f}",
                    "--snapshot",
                    str(snap_file),
                ]
            elif r < 0.70:
                src, as_id = rng.choice(sources), rng.choice(mine)
                argv = ["continue", src, "--as", as_id]
            elif r < 0.77:
                argv = ["organize", "--json"]
            else:
                argv = ["archive", rng.choice(mine), "--json"]
            start = time.time()
            code, out, err = _call(argv + base)
            event = {"argv": argv, "code": code, "err": err.strip(), "start": start, "end": time.time()}
            if code == 0:
                if argv[0] == "register":
                    sid = json.loads(out)["session_id"] if "--json" in argv else out.strip().rsplit(": ", 1)[-1]
                    event["registered"] = sid
                    mine.append(sid)
                elif argv[0] == "organize":
                    event["deleted"] = json.loads(out)["deleted"]
                elif argv[0] == "archive":
                    info = json.loads(out)
                    event[info["action"]] = argv[1]
                    mine.remove(argv[1]) if argv[1] in mine else None
                    refs[:] = [p for p in refs if p[1] != argv[1]]
                elif argv[0] == "continue":
                    refs.append((argv[1], argv[3]))
            elif "unknown session" in err and len(argv) > 1 and argv[1] in mine:
                mine.remove(argv[1])  # deleted by someone's organize
            log.write(json.dumps(event, ensure_ascii=False) + "\n")
            log.flush()


def editor(root: str, deadline: float, log_path: str, seed: int) -> None:
    """Save index.md like an editor: read, change the `hand-edited:` line, write it all back."""
    rng = random.Random(seed)
    path = Path(root) / "index.md"
    counter = 0
    with open(log_path, "a", encoding="utf-8") as log:
        while time.time() < deadline:
            time.sleep(rng.uniform(0.6, 2.0))  # a quick typist; saves closer than the settle window never settle
            start = time.time()
            data = path.read_bytes()
            lines = data.split(b"\n")
            at = next((i for i, l in enumerate(lines) if l.startswith(HAND_PREFIX.encode())), None)
            if at is None:
                log.write(json.dumps({"error": "hand line missing", "start": start}) + "\n")
                continue
            counter += 1
            lines[at] = f"{HAND_PREFIX}{counter}".encode()
            with open(path, "wb") as fh:  # a plain whole-file rewrite: truncate, then write
                fh.write(b"\n".join(lines))
            log.write(json.dumps({"edit": counter, "start": start, "end": time.time()}) + "\n")
            log.flush()


# -- driver -------------------------------------------------------------------------------


def run_stress(root: Path, seconds: float = 20.0, workers: int = 8, use_editor: bool = True, seed: int = 1) -> dict:
    """Run workers (and the editor) as separate processes on root; return their logs and lock figures."""
    work = Path(tempfile.mkdtemp(prefix="memboard-stress-"))
    stats = work / "lock-stats.txt"
    env = dict(os.environ)
    env["BENCH_LOCK_STATS"] = str(stats)
    env.setdefault("MEMBOARD_NOW", NOW)
    sources = [seed_id(n) for n in range(1, 400) if n % 7 and n % 11][:40]
    start = time.time() + 1.0  # let every process import before the clock starts
    deadline = start + seconds
    procs = []
    me = str(Path(__file__).resolve())
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
        procs.append((log, subprocess.Popen(args, env=env)))
    ed_log = work / "editor.jsonl"
    ed = None
    if use_editor:
        # the editor stops early so its last save is followed by many memboard writes
        args = [
            sys.executable,
            me,
            "--editor",
            "--root",
            str(root),
            "--deadline",
            str(deadline - seconds * 0.2),
            "--log",
            str(ed_log),
            "--seed",
            str(seed),
        ]
        ed = subprocess.Popen(args, env=env)
    for _, p in procs:
        p.wait(timeout=seconds + 120)
    if ed:
        ed.wait(timeout=seconds + 120)
    events = []
    for log, _proc in procs:
        events += [json.loads(l) for l in log.read_text(encoding="utf-8").splitlines() if l.strip()]
    edits = [json.loads(l) for l in ed_log.read_text(encoding="utf-8").splitlines()] if ed_log.exists() else []
    waits, holds = [], []
    if stats.exists():
        for line in stats.read_text().splitlines():
            w, h, _pid = line.split()
            waits.append(float(w))
            holds.append(float(h))
    return {
        "events": events,
        "edits": edits,
        "waits": waits,
        "holds": holds,
        "seconds": seconds,
        "exit_codes": [p.returncode for _, p in procs] + ([ed.returncode] if ed else []),
    }


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values (0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def figures(result: dict) -> dict:
    """Throughput and lock wait/hold figures of a run."""
    events = result["events"]
    ok = sum(1 for e in events if e["code"] == 0)
    waits, holds = result["waits"], result["holds"]
    return {
        "commands": len(events),
        "succeeded": ok,
        "throughput_per_s": round(len(events) / result["seconds"], 1),
        "writes_per_s": round(len(waits) / result["seconds"], 1),
        "lock_wait_p50_ms": round(percentile(waits, 0.50) * 1000, 2),
        "lock_wait_p99_ms": round(percentile(waits, 0.99) * 1000, 2),
        "lock_wait_max_ms": round(max(waits, default=0) * 1000, 2),
        "lock_hold_p50_ms": round(percentile(holds, 0.50) * 1000, 2),
        "lock_hold_mean_ms": round(statistics.fmean(holds) * 1000, 2) if holds else 0.0,
        "editor_saves": sum(1 for e in result["edits"] if "edit" in e),
    }


def check(root: Path, seeded: dict, result: dict) -> list[str]:
    """Everything that went wrong, as lines (empty when the run kept every promise)."""
    from memboard.core.formats.index import IndexFile
    from memboard.core.formats.snapshot import Snapshot

    problems: list[str] = []
    events = result["events"]
    for e in events:
        if e["code"] not in (0, 1):
            problems.append(f"{' '.join(e['argv'])}: exit {e['code']}: {e['err'][-400:]}")
        elif e["code"] == 1 and len(e["err"].splitlines()) != 1:
            problems.append(f"{' '.join(e['argv'])}: error is not one line: {e['err'][:400]!r}")
    if any(code != 0 for code in result["exit_codes"]):
        problems.append(f"a worker process failed: exit codes {result['exit_codes']}")
    data = (root / "index.md").read_bytes()
    index = IndexFile(data)
    if not index.has_table or index.problems:
        problems.append(f"index.md does not parse as the board: {index.problems}")
    ids = [r.id for r in index.rows]
    dupes = {i for i in ids if ids.count(i) > 1} if len(ids) != len(set(ids)) else set()
    if dupes:
        problems.append(f"duplicated IDs: {sorted(dupes)[:5]}")
    bad = [r for r in index.rows if r.problem]
    if bad:
        problems.append(f"malformed rows: {[(r.line, r.problem) for r in bad[:3]]}")
    live = set(ids)
    deleted, archived, promised = set(), set(), {}
    for e in events:
        deleted.update(e.get("deleted", []))
        if "deleted" in e and isinstance(e["deleted"], str):
            deleted.add(e["deleted"])
        if "archived" in e:
            archived.add(e["archived"])
        if "registered" in e:
            promised[e["registered"]] = e
    # a row may vanish only when an editor save that read the file before the row was written
    # finished after memboard verified it (the editor wrote back a stale buffer)
    saves = [(e["start"], e["end"]) for e in result["edits"] if "edit" in e]

    def editor_overlap(ev: dict) -> bool:
        """Whether an editor save ran while this command ran."""
        return any(s < ev["end"] and f > ev["start"] for s, f in saves)

    lost_to_editor = 0
    for sid, ev in promised.items():
        if sid in live or sid in deleted:
            continue
        if sid in archived:
            if not (root / "archive" / sid / "index.md").is_file():
                problems.append(f"{sid} was archived but archive/{sid}/index.md is missing")
            continue
        if editor_overlap(ev):
            lost_to_editor += 1
            continue
        problems.append(f"registered {sid} (printed) is gone and nothing deleted it")
    for sid, status in seeded.items():
        if sid not in live and sid not in deleted and sid not in archived:
            problems.append(f"seeded row {sid} ({status}) vanished and nothing deleted it")
    result["lost_to_editor"] = lost_to_editor
    for path in sorted((root / "sessions").glob("*.md")):
        snap = Snapshot(path.read_bytes())
        if not snap.sections:
            problems.append(f"{path.name} has no sections")
    for path in root.rglob("*.memboard-tmp"):
        problems.append(f"stray temp file {path.relative_to(root)}")
    edits = [e["edit"] for e in result["edits"] if "edit" in e]
    if any("error" in e for e in result["edits"]):
        problems.append("the editor found its hand-edited line missing (a stale write dropped it)")
    if edits:
        hand = [l for l in data.decode("utf-8", "replace").splitlines() if l.startswith(HAND_PREFIX)]
        if hand != [f"{HAND_PREFIX}{edits[-1]}"]:
            problems.append(f"the editor's last save ({edits[-1]}) was lost: {hand}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Run the stress (or act as one of its worker processes)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--rows", type=int, default=1200)
    ap.add_argument("--no-editor", action="store_true")
    ap.add_argument("--keep", metavar="DIR")
    ap.add_argument("--compare", action="store_true", help="plain filelock first, then the FIFO queue")
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
        editor(args.root, args.deadline, args.log, args.seed)
        return 0
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memboard-bench-"))
    os.environ.setdefault("MEMBOARD_STATE_DIR", str(base / "state"))
    os.environ.setdefault("MEMBOARD_CONFIG", str(base / "state" / "config.toml"))
    modes = ["0", "1"] if args.compare else [os.environ.get("BENCH_LOCK_QUEUE", "1")]
    failed = 0
    for mode in modes:
        os.environ["BENCH_LOCK_QUEUE"] = mode
        print(
            f"== lock: {'FIFO ticket queue on filelock' if mode != '0' else 'plain filelock (polling)'}; "
            f"{args.workers} writers, {args.rows} rows, {args.seconds:g}s, editor {'off' if args.no_editor else 'on'}"
        )
        failed += run_once(base / f"memory-{mode}", args)
    return 1 if failed else 0


def run_once(root: Path, args) -> int:
    """One stress run with figures and the check; 0 when every promise held."""
    seeded = build_root(root, args.rows)
    result = run_stress(root, args.seconds, args.workers, not args.no_editor, args.seed)
    for key, value in figures(result).items():
        print(f"{key}: {value}")
    problems = check(root, seeded, result)
    print(f"rows lost to editor saves that overlapped a write: {result['lost_to_editor']}")
    refusals: dict[str, int] = {}
    for e in result["events"]:
        if e["code"] == 1:
            key = re.sub(r"\d{4}-\d{2}-\d{2}-\d{4}-[a-z0-9-]+", "<id>", e["err"])[:90]
            refusals[key] = refusals.get(key, 0) + 1
    for key, count in sorted(refusals.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  refused x{count}: {key}")
    for p in problems[:20]:
        print("PROBLEM:", p)
    print("ok" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main())
