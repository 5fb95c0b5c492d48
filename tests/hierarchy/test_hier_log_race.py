"""`hierarchy log` beside another writer (issue 25 §7, §9): an appender writing today's log line by line in a
process of its own while `hierarchy log` runs loses no line, and every block memboard appended is there."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TODAY = "2026-06-01"  # the suite's fixed clock (MEMBOARD_NOW)
APPENDER = textwrap.dedent(
    """
    import sys, time
    path, count = sys.argv[1], int(sys.argv[2])
    for i in range(count):
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"appender line {i}\\n")
        time.sleep(0.03)
    """
)


@pytest.mark.stress
def test_an_appender_beside_hierarchy_log_loses_no_line(cli, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("MEMBOARD_SETTLE_SECONDS", "0.01")
    ws = tmp_path / "workspace"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Me\n")
    log = ws / "memory" / f"{TODAY}.md"
    log.write_text(f"# {TODAY}\n\n")
    count = 60
    proc = subprocess.Popen([sys.executable, "-c", APPENDER, str(log), str(count)])
    ours: list[str] = []
    try:
        n = 0
        while proc.poll() is None:
            text = f"memboard block {n}"
            r = cli("hierarchy", "log", "--text", text, "--workspace", str(ws), use_root=False)
            assert r.code == 0, r.err
            ours.append(text)
            n += 1
    finally:
        proc.wait(timeout=60)
    lines = log.read_text().splitlines()
    assert [line for line in lines if line.startswith("appender line")] == [f"appender line {i}" for i in range(count)]
    assert len(ours) > 5, "the appends did not run beside the appender"
    assert [line for line in lines if line.startswith("memboard block")] == ours
