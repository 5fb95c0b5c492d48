"""Same bytes: every read and preview command of two memboards, on the bench's roots, compared byte for byte.

Usage: python bench/same_bytes.py A B [--big] [--roots 1k,10k,odd,100k] [--only TEXT] [--verbose] [--keep DIR]
       [--python PY]

A and B are each one of:
- a checkout (a folder holding `app/` and `pyproject.toml`): run with --python (default: this Python) as the
  package `memboard` made of that checkout's own app/, widgets/ and styles/ (a folder of links, as `.ci/run`
  makes), whatever memboard that Python has installed;
- a Python interpreter (a file named python*): `PY -m memboard`;
- a memboard entry point (any other executable, such as a venv's `memboard` console script).

The roots: the bench's (bench/roots.py, as `bench/run.py` makes them) of 1,000 and 10,000 rows, 100,000 with
--big, and a root unlike that easy case: escaped pipes (`a \\| b`) in a third of the summaries, 3% of the rows
with snapshots, statuses drawn at random whatever a row holds, continuations, and a few rows memboard must
refuse (an unknown status, a duplicated Session ID, a row of too few cells). Each root also holds typed
notes. Every command runs against a fresh copy of its root, at the same path for both sides, with its own
fresh local state, config and home folder, the clock set (MEMBOARD_NOW) and the hash seed fixed; its stdout,
stderr, exit code and what the root then holds (every file's bytes) are compared. A few commands that change
the root run too (each on its own copy: their files are compared as well).

Prints one line per command that differs (and a short diff of the first stream that does), then a summary;
exits 1 when anything differs, 0 when all is the same, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import roots as bench_roots
from bench.cli_figures import payload

NOW = "2026-06-01 09:30"
NOTES = 200  # typed notes in every root
ODD_ROWS = 3000
TIMEOUT = 600


@dataclass
class Side:
    """One memboard to run: how its command line starts."""

    name: str
    argv: list[str]
    view: Path | None = None  # the package folder made for a checkout

    def run(self, args: list[str], env: dict, stdin: bytes | None, cwd: Path) -> tuple[bytes, bytes, int]:
        """stdout, stderr and exit code of `memboard ARGS`."""
        proc = subprocess.run([*self.argv, *args], input=stdin, capture_output=True, env=env, cwd=cwd, timeout=TIMEOUT)
        return proc.stdout, proc.stderr, proc.returncode


def side_of(spec: str, label: str, python: str, work: Path) -> Side:
    """The Side that spec names (see the module's notes)."""
    path = Path(spec).expanduser()
    if path.is_dir():
        if not (path / "app").is_dir():
            raise SystemExit(f"same_bytes: {spec} is a folder without app/: not a memboard checkout")
        view = work / f"package-{label}"
        shutil.rmtree(view, ignore_errors=True)
        package = view / "memboard"
        package.mkdir(parents=True)
        for entry in (path / "app").iterdir():
            (package / entry.name).symlink_to(entry.resolve())
        for extra in ("widgets", "styles"):
            if (path / extra).is_dir():
                (package / extra).symlink_to((path / extra).resolve())
        script = view / "memboard_entry.py"  # what the console script does
        script.write_text("import sys\nfrom memboard.cli import main\nsys.exit(main())\n", encoding="utf-8")
        found = subprocess.run(
            [python, "-c", "import memboard, sys; sys.stdout.write(memboard.__file__)"],
            cwd=view,
            capture_output=True,
            text=True,
        )
        if found.returncode != 0 or not Path(found.stdout).resolve().is_relative_to(path.resolve()):
            raise SystemExit(f"same_bytes: {python} does not import the checkout {spec} first: {found.stderr[-300:]}")
        return Side(f"{label} ({spec})", [python, str(script)], view)
    if not path.is_file() or not os.access(path, os.X_OK):
        raise SystemExit(f"same_bytes: {spec} is neither a checkout, a Python nor a memboard entry point")
    if path.name.startswith("python"):
        return Side(f"{label} ({spec} -m memboard)", [str(path), "-m", "memboard"])
    return Side(f"{label} ({spec})", [str(path)])


# -- the roots ---------------------------------------------------------------------------------------------------


@dataclass
class Root:
    """A pristine generated root and the sessions the commands name."""

    name: str
    path: Path
    ids: list[str] = field(default_factory=list)
    snapshots: list[str] = field(default_factory=list)
    archivable: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _with_notes(root: Root) -> Root:
    """root with NOTES typed notes written under notes/ (the bench's notes generator)."""
    from bench.notes import write_notes  # lazy: it imports memboard, which only the notes need

    root.notes = write_notes(root.path, NOTES)
    return root


def bench_root(base: Path, rows: int) -> Root:
    """The bench's own root of `rows` rows."""
    m = bench_roots.generate(base / f"bench-{rows}", rows)
    return _with_notes(Root(f"bench {rows:,} rows", m.path, m.ids, m.snapshots, m.archivable))


CELL_RE = re.compile(r"(?<!\\)\|")  # a cell boundary: a pipe that is not escaped


def odd_root(base: Path, rows: int = ODD_ROWS) -> Root:
    """A root unlike the easy case (see the module's notes)."""
    m = bench_roots.generate(base / "odd", rows, seed=23, pipe_share=1 / 3)  # (3% of rows get snapshots, as in all)
    rng = random.Random(23)
    index = m.path / "index.md"
    lines = index.read_text(encoding="utf-8").splitlines(keepends=True)
    status_at = [c.strip() for c in bench_roots.HEADER_LINE.strip().strip("|").split("|")].index("Status") + 1
    rows_at = [i for i, line in enumerate(lines) if line.startswith("| ") and line[2:3].isdigit()]
    for i in rows_at:
        cells = CELL_RE.split(lines[i])
        cells[status_at] = f" {rng.choice(('idle', 'active', 'stale'))} "
        lines[i] = "|".join(cells)
    bad, dup, short = rng.sample(rows_at[1:-1], 3)
    cells = CELL_RE.split(lines[bad])
    cells[status_at] = " done "
    lines[bad] = "|".join(cells)
    lines[short] = "|".join(CELL_RE.split(lines[short])[:5]) + "|\n"
    lines.insert(dup + 1, lines[dup])
    index.write_text("".join(lines), encoding="utf-8")
    return _with_notes(Root(f"odd {rows:,} rows", m.path, m.ids, m.snapshots, m.archivable))


# -- the commands ------------------------------------------------------------------------------------------------


@dataclass
class Command:
    """One command line to run on a fresh copy of a root."""

    args: list[str]
    stdin: bytes | None = None
    files: dict[str, str] = field(default_factory=dict)  # files written beside the root first (name -> text)
    rooted: bool = True  # given `--root` (the copy)


def continuing(root: Root) -> tuple[str, str]:
    """A session whose snapshot continues from another, and that source."""
    for sid in reversed(root.snapshots):
        text = (root.path / "sessions" / f"{sid}.md").read_text(encoding="utf-8")
        found = re.search(r"## Continues From\n\n- (\S+)", text)
        if found:
            return sid, found.group(1)
    return root.snapshots[-1], root.ids[0]


SNAPSHOT_TEXT = """# Session: {sid}

## Current Context

Compared the same-bytes run \\| and kept the pipe.

## Decisions

- 保留原始換行。
- Keep every item.
"""


def commands(root: Root) -> list[Command]:
    """The read and preview commands (and a few changing ones) of root."""
    with_source, source = continuing(root)
    plain = root.snapshots[len(root.snapshots) // 2]
    idle = next((sid for sid in root.ids if sid not in root.snapshots), root.ids[0])
    archivable = root.archivable[len(root.archivable) // 2] if root.archivable else plain
    note = root.notes[len(root.notes) // 3]
    snap = {"snapshot.md": SNAPSHOT_TEXT.format(sid=plain)}
    out = [
        Command(["--help"], rooted=False),
        Command(["--version"], rooted=False),
        Command(["list"]),
        Command(["list", "--json"]),
        Command(["list", "--status", "active", "--json"]),
        Command(["list", "--status", "stale"]),
        Command(["show", with_source]),
        Command(["show", with_source, "--json"]),
        Command(["show", idle, "--json"]),
        Command(["show", "2026-01-01-0000-nobody-here"]),
        Command(["chain", with_source]),
        Command(["chain", source, "--json"]),
        Command(["doctor"]),
        Command(["doctor", "--json"]),
        Command(["doctor", "--dry-run"]),
        Command(["doctor", "--fix", "--dry-run"]),
        Command(["doctor", "--fix", "--dry-run", "--json"]),
        Command(["organize", "--dry-run"]),
        Command(["organize", "--dry-run", "--json"]),
        Command(["organize", "--dry-run", "--stale-days", "3"]),
        Command(["archive", archivable, "--dry-run"]),
        Command(["archive", archivable, "--dry-run", "--json"]),
        Command(["archive", idle, "--dry-run"]),
        Command(["update", plain, "--summary", "Same bytes \\| both sides.", "--dry-run"]),
        Command(["update", idle, "--topic", "同步檢查", "--keywords", "a, b", "--dry-run", "--json"]),
        Command(["update", plain, "--snapshot", "../snapshot.md", "--dry-run"], files=snap),
        Command(["register", "--dry-run"]),
        Command(["register", "--manual", "--topic", "T", "--summary", "S", "--dry-run", "--json"]),
        Command(["continue", source, "--dry-run"]),
        Command(["continue", source, "--as", plain, "--dry-run", "--json"]),
        Command(["release", source, "--as", with_source, "--dry-run"]),
        Command(["release", source, "--as", with_source, "--dry-run", "--json"]),
        Command(["whoami", "--conversation", "no-such-conversation"]),
        Command(["search", "obsidian"]),
        Command(["search", "obsidian", "--json"]),
        Command(["search", "索引", "--status", "active", "--limit", "5", "--json"]),
        Command(["search", "pipe", "--archived"]),
        Command(["search", "release", "--kind", "note", "--json"]),
        Command(["note", "list"]),
        Command(["note", "list", "--json"]),
        Command(["note", "show", note]),
        Command(["note", "search", "lock", "--json"]),
        Command(["note", "search", "同步"]),
        Command(["note", "key", "--help"], rooted=False),
        Command(["config", "show"], rooted=False),
        Command(["completion", "bash"], rooted=False),
        # changing commands, each on its own copy: their output and the files they leave are compared
        Command(["organize"]),
        Command(["archive", archivable]),
        Command(["update", plain, "--summary", "Applied on both sides."]),
        Command(["hook", "claude"], stdin=payload("same-bytes-conversation")),
        Command(["doctor", "--fix"]),
    ]
    return out


# -- running and comparing ---------------------------------------------------------------------------------------


def tree_digest(path: Path) -> dict[str, str]:
    """Every file under path (relative name -> SHA-256 of its bytes; links by their target)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            full = Path(dirpath) / name
            rel = full.relative_to(path).as_posix()
            if full.is_symlink():
                out[rel] = "link " + os.readlink(full)
            else:
                out[rel] = hashlib.sha256(full.read_bytes()).hexdigest()
        for d in dirnames:
            if not os.listdir(os.path.join(dirpath, d)):
                out[(Path(dirpath) / d).relative_to(path).as_posix() + "/"] = "empty folder"
    return out


def environment(run: Path) -> dict:
    """The environment of one run: its own state, config and home; the clock, the hash seed and the width set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMBOARD_")}
    env.update(
        MEMBOARD_STATE_DIR=str(run / "state"),
        MEMBOARD_CONFIG=str(run / "state" / "config.toml"),
        MEMBOARD_NOW=NOW,
        HOME=str(run / "home"),
        XDG_CONFIG_HOME=str(run / "home" / ".config"),
        XDG_STATE_HOME=str(run / "home" / ".local" / "state"),
        PYTHONHASHSEED="0",
        COLUMNS="120",
        LINES="40",
        TZ="UTC",
        LC_ALL="C.UTF-8",
        NO_COLOR="1",
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_one(side: Side, root: Root, cmd: Command, run: Path) -> tuple[bytes, bytes, int, dict[str, str]]:
    """cmd by side on a fresh copy of root at run/root; its stdout, stderr, code and the root's files after."""
    if run.exists():
        shutil.rmtree(run)
    (run / "state").mkdir(parents=True)
    (run / "home").mkdir()
    work = run / "root"
    shutil.copytree(root.path, work, symlinks=True)
    then = time.time() - 60  # an index nobody is writing (no settle wait)
    os.utime(work / "index.md", (then, then))
    for name, text in cmd.files.items():
        (run / name).write_text(text, encoding="utf-8")
    args = [*cmd.args, "--root", str(work)] if cmd.rooted else cmd.args
    out, err, code = side.run(args, environment(run), cmd.stdin, work)
    return out, err, code, tree_digest(work)


def first_diff(a: bytes, b: bytes, lines: int = 12) -> str:
    """A few lines of unified diff between a and b."""
    diff = difflib.unified_diff(
        a.decode("utf-8", "replace").splitlines(),
        b.decode("utf-8", "replace").splitlines(),
        "A",
        "B",
        lineterm="",
        n=1,
    )
    return "\n".join(f"      {line}" for line in list(diff)[: lines + 3])


def compare(a: Side, b: Side, roots: list[Root], work: Path, only: str | None, verbose: bool = False) -> int:
    """Run every command of every root with both sides; print what differs; the number of commands that do."""
    differing = total = 0
    for root in roots:
        for cmd in commands(root):
            line = " ".join(cmd.args)
            if only and only not in line:
                continue
            total += 1
            ra = run_one(a, root, cmd, work / "run")
            rb = run_one(b, root, cmd, work / "run")
            names = ("stdout", "stderr", "exit code", "root files")
            differs = [name for name, x, y in zip(names, ra, rb, strict=True) if x != y]
            if verbose:
                said = ra[1].decode("utf-8", "replace").strip().splitlines()
                print(
                    f"  {'differs' if differs else 'same   '}  exit {ra[2]}, {len(ra[0]):>9,} bytes out  {root.name}: "
                    f"memboard {line}{'  (' + said[-1][:80] + ')' if said else ''}"
                )
            if not differs:
                continue
            differing += 1
            print(f"DIFFERS  {root.name}: memboard {line}: {', '.join(differs)}")
            if "exit code" in differs:
                print(f"      exit code {ra[2]} (A) vs {rb[2]} (B)")
            for name, x, y in zip(names[:2], ra[:2], rb[:2], strict=True):
                if x != y:
                    print(f"    {name}:")
                    print(first_diff(x, y))
                    break
            if "root files" in differs:
                changed = sorted(k for k in ra[3].keys() | rb[3].keys() if ra[3].get(k) != rb[3].get(k))
                print(f"    root files that differ: {', '.join(changed[:10])}{' …' if len(changed) > 10 else ''}")
        print(f"  {root.name}: done", file=sys.stderr, flush=True)
    print(f"same_bytes: {total - differing} of {total} commands print the same bytes and leave the same files")
    return differing


def main(argv: list[str] | None = None) -> int:
    """Parse, build the roots, compare."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="a checkout, a Python interpreter or a memboard entry point")
    parser.add_argument("b", help="the same, to compare with A")
    parser.add_argument("--big", action="store_true", help="add the 100,000-row root (several minutes)")
    parser.add_argument(
        "--roots", metavar="LIST", default="1k,10k,odd", help="which roots, of 1k, 10k, odd, 100k (default 1k,10k,odd)"
    )
    parser.add_argument("--only", metavar="TEXT", help="only the commands whose arguments contain TEXT")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="a line for every command: A's exit code, output size and last stderr line",
    )
    parser.add_argument("--keep", metavar="DIR", help="build the roots and runs in DIR and keep them")
    parser.add_argument("--python", default=sys.executable, help="the Python that runs a checkout (default: this one)")
    args = parser.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memboard-same-bytes-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        a = side_of(args.a, "A", args.python, work)
        b = side_of(args.b, "B", args.python, work)
        print(f"A: {a.name}\nB: {b.name}", file=sys.stderr)
        base = work / "roots"
        if base.exists():
            shutil.rmtree(base)
        wanted = args.roots.split(",") + (["100k"] if args.big else [])
        unknown = set(wanted) - {"1k", "10k", "odd", "100k"}
        if unknown:
            parser.error(f"unknown root(s) {', '.join(sorted(unknown))}: use 1k, 10k, odd, 100k")
        makers = {
            "1k": lambda: bench_root(base, 1_000),
            "10k": lambda: bench_root(base, 10_000),
            "odd": lambda: odd_root(base),
            "100k": lambda: bench_root(base, 100_000),
        }
        roots = [makers[name]() for name in makers if name in wanted]
        return 1 if compare(a, b, roots, work, args.only, args.verbose) else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
