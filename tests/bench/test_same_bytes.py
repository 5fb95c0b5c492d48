"""bench/same_bytes.py: its odd root is unlike the easy case, and it tells two memboards apart by their bytes."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from bench import same_bytes
from memboard.core.formats.index import IndexFile

REPO = Path(__file__).resolve().parents[2]


def test_the_odd_root_has_escaped_pipes_snapshots_and_rows_memboard_refuses(tmp_path):
    root = same_bytes.odd_root(tmp_path, rows=600)
    index = IndexFile((root.path / "index.md").read_bytes())
    rows = index.rows
    assert len(rows) == 601  # one row duplicated
    piped = [r for r in rows if r.values is not None and "|" in (r.values.get("summary") or "")]
    assert 0.25 < len(piped) / len(rows) < 0.42
    assert len(root.snapshots) == 18  # 3% of the rows
    assert sum(r.problem is not None for r in rows) == 2  # the unknown status, the short row
    assert len({r.id for r in rows}) < len(rows)
    assert {r.status for r in rows if r.problem is None} == {"idle", "active", "stale"}
    assert len(list((root.path / "notes").rglob("*.md"))) == same_bytes.NOTES


def test_the_same_checkout_is_the_same_and_a_changed_message_is_not(tmp_path, capsys):
    changed = tmp_path / "changed"
    changed.mkdir()
    for name in ("app", "widgets", "styles"):
        shutil.copytree(REPO / name, changed / name, ignore=shutil.ignore_patterns("__pycache__"))
    entry = changed / "app" / "cli" / "entry.py"
    entry.write_text(entry.read_text().replace('f"memboard: {message}"', 'f"memboard : {message}"'))
    roots = [same_bytes.bench_root(tmp_path / "roots", 300)]
    a = same_bytes.side_of(str(REPO), "A", sys.executable, tmp_path)
    b = same_bytes.side_of(str(changed), "B", sys.executable, tmp_path)
    assert same_bytes.compare(a, a, roots, tmp_path, only="nobody") == 0
    assert same_bytes.compare(a, b, roots, tmp_path, only="nobody") == 1
    out = capsys.readouterr().out
    assert "DIFFERS  bench 300 rows: memboard show 2026-01-01-0000-nobody-here: stderr" in out
    assert "+memboard : unknown session" in out
