"""Doctor's memory on a root of many rows and many findings: what a pass holds per row stays bounded.

At 1M rows of bench root b a `doctor --json` peaked at 2.2 GB: each row kept its nine cells (~960 bytes), each of
650k missing snapshots a closure and a Change, and the index's new bytes were made only to be counted. Each of
those, come back, takes this figure past its bound (docs/how-it-is-built/speed.md has the measured figures). And
`doctor --fix`, which writes every missing snapshot, verifies them in memory that grows with their number.
"""

from __future__ import annotations

import gc
import os
import tracemalloc
from datetime import datetime

from bench.roots import generate
from memboard.core.files.root import MemoryRoot
from memboard.core.ops.doctor import findings_and_count

ROWS = 5_000
# bytes a doctor pass holds at its peak per row, beyond the index's own bytes: 758 on this root now (Python 3.11),
# 1,883 with every row's cells kept, each missing snapshot's closure and Change and the new bytes made
BOUND = 950


def test_a_doctor_pass_holds_no_cells_no_closures_and_no_new_index_per_row(tmp_path):
    manifest = generate(tmp_path / "root", ROWS, 6, kind="b")  # (3% of rows with snapshots: 3,273 findings)
    root = MemoryRoot(manifest.path)
    when = datetime(2026, 6, 1, 9, 30)
    first, _ = findings_and_count(root, when)  # (every module imported before the count starts)
    gc.collect()
    tracemalloc.start()
    try:
        findings, changes = findings_and_count(root, when)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert findings == first and len(findings) > ROWS / 2 and changes > ROWS / 2
    assert (peak - manifest.index_bytes) / ROWS <= BOUND


FIXED = 2_000


def test_doctor_fix_verifies_thousands_of_created_snapshots_in_memory_that_grows_with_them_not_their_square(
    tmp_path, cli
):
    """Verifying an applied plan asks of each step whether a later one touches its file: a set of every later path
    per step was n² (24 GB at 100k rows of root b, 65k snapshots created, and the process killed by the kernel)."""
    manifest = generate(tmp_path / "big", FIXED, 6, kind="b")
    stamp = manifest.path.stat().st_mtime - 3600  # (settled files: no wait for the settle window)
    for path in [manifest.path / "index.md", *(manifest.path / "sessions").iterdir()]:
        os.utime(path, (stamp, stamp))
    before = len(list((manifest.path / "sessions").iterdir()))
    gc.collect()
    tracemalloc.start()
    try:
        res = cli("doctor", "--fix", "--root", str(manifest.path), use_root=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.code == 0, res.err
    created = len(list((manifest.path / "sessions").iterdir())) - before
    assert created > 1_000  # (1,299 missing snapshots on this root)
    # what the plan holds (every new snapshot's bytes, the index before and after) and no more: 9 MB on Python
    # 3.11; 48 MB with a set of later paths per step (and growing with the square of the steps)
    assert peak <= 25_000_000, peak
