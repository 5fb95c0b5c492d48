"""Every recorded screenshot in tests/__snapshots__ belongs to a snapshot test that still exists.

syrupy fails a run on a snapshot file no test uses, but not under pytest-xdist, which the suite
runs on (a worker cannot tell whether another used it), and `--snapshot-update` there writes new
and changed snapshots without deleting unused ones. This test keeps the check: it lists the snapshot
tests as pytest collects them and names each file none of them records. Remove such a file by hand,
or prune with `python -m pytest -n 0 --snapshot-update tests/test_*_snapshots.py`.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SNAPSHOTS = TESTS / "__snapshots__"


def recorded_names() -> set[str]:
    """`<module>/<Class>.<test>[<params>]` of every snapshot test, as syrupy names their files."""
    modules = sorted(str(path) for path in TESTS.glob("test_*_snapshots.py"))
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider", *modules],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=TESTS.parent,
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    names = set()
    for line in listed.stdout.splitlines():
        path, _, rest = line.strip().partition("::")
        if rest:
            names.add(f"{Path(path).stem}/{rest.replace('::', '.')}")
    return names


def test_every_snapshot_file_belongs_to_a_snapshot_test():
    names = recorded_names()
    assert names, "no snapshot test was collected"
    files = sorted(path.relative_to(SNAPSHOTS).as_posix() for path in SNAPSHOTS.rglob("*.svg"))
    # a test that records more than one snapshot numbers the others: <name>.1.svg, <name>.2.svg
    unused = [name for name in files if re.sub(r"(\.\d+)?\.svg$", "", name) not in names]
    assert unused == [], f"snapshot files no test records: {unused}"
