"""Space archive benchmark: `python bench/spaces_archive.py [--runs N] [--json PATH]`.

Issue 24 §10: on a space with a 300-line current.md and 2,000 history entries (about 1 MB),
`memboard space archive --dry-run` (all but the newest 20 entries move, so the plan holds a new
archive file and the cut history.md) takes at most 1 s, median of 5 warm runs of the whole process.
Prints the figure beside `python -c pass`, with its target and PASS/FAIL.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.cli_figures import PASS, memboard_cmd
from bench.spaces import CURRENT_LINES, HISTORY_ENTRIES, generate
from bench.timing import bench_env, median, time_process

ARCHIVE_TARGET = 1.0  # seconds


def main() -> int:
    """Measure and print the figure; exit 1 when it misses its target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        parent = Path(tmp)
        project = parent / "project"
        folder = generate(project)
        (folder / "dream-notes.md").write_text("# Dream Notes\n\n- Last Updated: 2026-12-31 23:59\n", encoding="utf-8")
        size = sum(p.stat().st_size for p in folder.iterdir())
        env = bench_env(parent / "state", {"SESSION_MEMORY_HOME": str(parent / "home")})
        cmd = [*memboard_cmd(), "space", "archive", "--dry-run", "--workspace", str(project)]
        check = subprocess.run(cmd, env=env, capture_output=True)
        if check.returncode != 0 or b"history-archive.md" not in check.stdout:
            print(check.stderr.decode("utf-8", "replace"), file=sys.stderr)
            return 1
        walls, floors = time_process(cmd, env, args.runs, baseline=PASS)
    archive, floor = median(walls), median(floors)
    ok = archive <= ARCHIVE_TARGET
    print(
        f"space archive --dry-run ({CURRENT_LINES}-line current.md, {HISTORY_ENTRIES} history entries, "
        f"{size / 1e6:.1f} MB): {archive:.3f} s median of {len(walls)} (python -c pass {floor:.3f} s); "
        f"target <= {ARCHIVE_TARGET} s: {'PASS' if ok else 'FAIL'}"
    )
    if args.json:
        args.json.write_text(
            json.dumps({"space_archive_dry_run_s": archive, "python_pass_s": floor, "pass": ok}) + "\n"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
