"""Bench: whole-process time of `memboard hook claude` on 10k- and 100k-row roots vs `python -c pass`.

Run: python bench/hook.py [--rows 10000 100000] [--runs 15]. Prints, per size, the median wall
time of a new registration (a fresh conversation), of a resume (the conversation is already
mapped) and of `python -c pass`, with the ratios; the issue's target is <= 5x at 10k rows.
The root's local state also holds a conversation map with one entry per row. Each run starts
from the same root (index.md and the touched map shard restored), so every run registers the
first session of its minute, as a real chat start does, on an index last written a minute ago
(one that is not being written: no settle wait, as bench/run.py measures it). `measure(rows, runs)`
returns the figures as a dict for bench/run.py.
"""

from __future__ import annotations

import json
import os
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
AGENTS = ("cursor-main-agent", "claude-main-agent", "codex-main-agent")
TOPICS = ("未設定", "Refactor the index parser", "整理 memory 規則", "hook latency on Windows", "pipes a\\|b in topics")


def make_root(folder: Path, rows: int) -> Path:
    """A memory root with `rows` realistic rows (CJK text, escaped pipes, references, all statuses)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = ["# Memory Index\n\n", "Working board of the agents.\n\n", HEADER]
    previous = None
    for i in range(rows):
        day = 1 + i % 28
        stamp = f"2025-{1 + (i // 28) % 12:02d}-{day:02d}-{i % 24:02d}{i % 60:02d}"
        sid = f"{stamp}-{AGENTS[i % 3]}-{i}"
        status = ("idle", "active", "stale")[i % 3]
        topic = TOPICS[i % len(TOPICS)]
        summary = (
            "sessionStart 自動註冊，尚未整理主題。"
            if status == "idle"
            else f"Worked on item {i}: parser, 快照合併 and the board"
        )
        refs = previous if i % 10 == 0 and previous else "-"
        ts = f"2025-{1 + (i // 28) % 12:02d}-{day:02d} {i % 24:02d}:{i % 60:02d}"
        out.append(
            f"| {sid} | {AGENTS[i % 3]} | {topic} | {summary} | kw{i % 7}, memory | {status} | {refs} | {ts} | {ts} |\n"
        )
        previous = sid
    out.append("\nNotes below the table stay untouched.\n")
    (folder / "index.md").write_text("".join(out), encoding="utf-8")
    return folder


IDLE_AGE = 60.0  # seconds: how long ago the restored index "was last written"


def restore_index(root: Path, pristine: bytes) -> None:
    """Put the generated index back, last written IDLE_AGE seconds ago (an index nobody is writing)."""
    path = root / "index.md"
    path.write_bytes(pristine)
    then = time.time() - IDLE_AGE
    os.utime(path, (then, then))


def state_folder(root: Path, state: Path | None = None) -> Path:
    """The root's folder in memboard's local state (under state, else this process's state folder)."""
    from memboard.core.config import state_dir
    from memboard.core.files.localstate import ROOTS, root_key

    return (state or state_dir()) / ROOTS / root_key(root.resolve())


def make_map(root: Path, rows: int, state: Path | None = None) -> dict[str, bytes]:
    """A conversation map with one entry per row (as after `rows` hooked chats), in the root's local
    state under state; returns shard bytes by path."""
    from memboard.core.formats.conversations import HEADER, shard_path

    shards: dict[str, list[bytes]] = {}
    for i in range(rows):
        conv = f"{i:08x}-1111-4222-8333-{i:012x}"
        sid = f"2025-{1 + (i // 28) % 12:02d}-{1 + i % 28:02d}-{i % 24:02d}{i % 60:02d}-{AGENTS[i % 3]}-{i}"
        shards.setdefault(shard_path(conv), [HEADER]).append(
            f"{conv}\t{sid}\t{AGENTS[i % 3].split('-')[0]}\t2025-01-01 10:00\n".encode()
        )
    out = {}
    folder = state_folder(root, state)
    for rel, parts in shards.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(parts))
        out[rel] = path.read_bytes()
    return out


def _env(state: Path) -> dict:
    """A subprocess environment: isolated state/config, bytecode caching on (as users have it)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("MEMBOARD_NOW", None)
    env.pop("MEMBOARD_ROOT", None)
    env["MEMBOARD_STATE_DIR"] = str(state)
    env["MEMBOARD_CONFIG"] = str(state / "config.toml")
    return env


def _cpu() -> float:
    """CPU seconds (user + system) used by finished child processes so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(cmd: list[str], env: dict, data: bytes | None = None, cpu: list | None = None) -> tuple[float, bytes]:
    """Wall seconds one subprocess takes, and its stdout; its CPU seconds go to cpu when given."""
    cpu_before = _cpu() if cpu is not None and os.name != "nt" else 0.0
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=data, capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    if cpu is not None and os.name != "nt":
        cpu.append(_cpu() - cpu_before)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return elapsed, proc.stdout


def hook_command() -> list[str]:
    """The memboard console script next to this Python (what install-hook writes), else -m."""
    script = Path(sys.executable).with_name("memboard")
    if script.exists():
        return [str(script), "hook", "claude"]
    return [sys.executable, "-m", "memboard", "hook", "claude"]


def measure(rows: int, runs: int = 15) -> dict:
    """Median whole-process seconds: new registration, resumed conversation, `python -c pass`."""
    with tempfile.TemporaryDirectory(prefix="memboard-bench-hook-") as tmp:
        base = Path(tmp)
        root = make_root(base / "memory", rows)
        state = base / "state"
        state.mkdir()
        env = _env(state)
        pristine = (root / "index.md").read_bytes()
        shards = make_map(root, rows, state)
        folder = state_folder(root, state)
        cmd = hook_command() + ["--root", str(root)]
        payload = {
            "transcript_path": "/tmp/t.jsonl",
            "cwd": str(base),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
        from memboard.core.formats.conversations import shard_path

        def fresh(conversation: str) -> None:
            """Back to the generated root: the index and the shard this conversation lands in."""
            restore_index(root, pristine)
            rel = shard_path(conversation)
            if rel in shards:
                (folder / rel).write_bytes(shards[rel])
            else:
                (folder / rel).unlink(missing_ok=True)

        fresh("warm-up")
        _timed(cmd, env, json.dumps(dict(payload, session_id="warm-up")).encode())  # writes bytecode caches
        _timed([sys.executable, "-c", "pass"], env)
        new, resume, bare = [], [], []
        new_cpu, resume_cpu, bare_cpu = [], [], []
        for n in range(runs):
            conv = f"bench-{rows}-{n}"
            fresh(conv)
            data = json.dumps(dict(payload, session_id=conv)).encode()
            seconds, out = _timed(cmd, env, data, new_cpu)
            if b"Your Memory Session ID is:" not in out:
                raise RuntimeError(f"hook reported no Session ID: {out!r}")
            new.append(seconds)
            seconds, out = _timed(
                cmd, env, json.dumps(dict(payload, session_id=conv, source="resume")).encode(), resume_cpu
            )
            if b"Your Memory Session ID is:" not in out:
                raise RuntimeError(f"resume reported no Session ID: {out!r}")
            resume.append(seconds)
            bare.append(_timed([sys.executable, "-c", "pass"], env, None, bare_cpu)[0])
        index_bytes = len(pristine)
    med_new, med_resume, med_bare = statistics.median(new), statistics.median(resume), statistics.median(bare)
    result = {
        "rows": rows,
        "runs": runs,
        "index_bytes": index_bytes,
        "hook_new_s": med_new,
        "hook_resume_s": med_resume,
        "python_pass_s": med_bare,
        "ratio_new": med_new / med_bare,
        "ratio_resume": med_resume / med_bare,
        "hook_new_min_s": min(new),
        "python_pass_min_s": min(bare),
        "ratio_new_min": min(new) / min(bare),
    }
    if new_cpu and bare_cpu and statistics.median(bare_cpu) > 0:
        # CPU time is steadier than wall time on a busy machine; reported alongside
        result["cpu_new_s"] = statistics.median(new_cpu)
        result["cpu_resume_s"] = statistics.median(resume_cpu)
        result["cpu_pass_s"] = statistics.median(bare_cpu)
        result["cpu_ratio_new"] = result["cpu_new_s"] / result["cpu_pass_s"]
    return result


def main(argv: list[str] | None = None) -> int:
    """Print the figures for each size."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    print(
        f"{'rows':>8} {'index':>9} {'hook new':>10} {'hook resume':>12} {'python -c pass':>15} {'new/pass':>9} {'resume/pass':>12} {'cpu new/pass':>13} {'min new/pass':>13}"
    )
    for rows in args.rows:
        r = measure(rows, args.runs)
        print(
            f"{r['rows']:>8} {r['index_bytes'] / 1e6:>7.1f}MB {r['hook_new_s'] * 1000:>8.1f}ms {r['hook_resume_s'] * 1000:>10.1f}ms"
            f" {r['python_pass_s'] * 1000:>13.1f}ms {r['ratio_new']:>8.2f}x {r['ratio_resume']:>11.2f}x"
            f" {r.get('cpu_ratio_new', float('nan')):>12.2f}x {r['ratio_new_min']:>12.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
