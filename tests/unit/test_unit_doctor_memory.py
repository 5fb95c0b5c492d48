"""Doctor's memory on a root of many rows and many findings: what a pass holds per row stays bounded.

At 1M rows of bench root b a `doctor --json` peaked at 2.2 GB: each row kept its nine cells (~960 bytes), each of
650k missing snapshots a closure and a Change, and the index's new bytes were made only to be counted. Each of
those, come back, takes this figure past its bound (docs/how-it-is-built/speed.md has the measured figures).
"""

from __future__ import annotations

import gc
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
