"""A first search on a large root with no search cache answers from the files while the cache is built beside it,
in a process of its own; a build killed mid-way leaves nothing behind (issue 29)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from memboard.core.search import beside
from tests.support.roots import index_text, row_line

LONG = "measured the vault sync beside the lock queue " * 40  # a row of about 2 KB: a large root in few rows


def state_files() -> list[str]:
    """The names in the tests' search cache folder."""
    folder = Path(os.environ["MEMBOARD_STATE_DIR"]) / "search"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def large_root(root: Path, rows: int) -> None:
    """An index of rows rows of about 2 KB each; the newest names a zeppelin."""
    lines = [
        row_line(f"2026-05-{1 + i // 1440 % 28:02d}-{i // 60 % 24:02d}{i % 60:02d}-agent-{i}", summary=LONG)
        for i in range(rows)
    ]
    lines.append(row_line("2026-05-31-2359-claude-code", topic="zeppelin sync", summary=LONG))
    (root / "index.md").write_text(index_text(lines), encoding="utf-8")


def wait_for(check, seconds: float = 60.0) -> bool:
    """Whether check() comes true within seconds."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if check():
            return True
        time.sleep(0.01)
    return False


def test_a_first_search_answers_before_the_build_it_starts_has_run(cli, mem, root, monkeypatch):
    # the build is asked for but not run (its process is not started): the answer cannot have waited for it
    mem.index(row_line("2026-05-30-0900-claude-code", topic="zeppelin sync"), row_line("2026-05-31-0930-codex-cli"))
    mem.snapshot("2026-05-31-0930-codex-cli", decisions=["keep the zeppelin hangar"])
    started: list[list[str]] = []
    monkeypatch.setattr(beside, "BESIDE_BYTES", 0)
    monkeypatch.setattr(beside, "_spawn", lambda args: started.append(args))
    res = cli("search", "zeppelin", "--json")
    assert res.code == 0 and res.err == ""  # the files' whole answer, read in time
    first = [(h["id"], h["section"]) for h in json.loads(res.out)]
    assert first == [("2026-05-30-0900-claude-code", "Topic"), ("2026-05-31-0930-codex-cli", "Decisions")]
    assert started == [["--supervise", str(root)]] and not [n for n in state_files() if n.endswith(".sqlite3")]
    assert beside.build(beside.MemoryRoot(root)) == 0  # what the process started would do
    res = cli("search", "zeppelin", "--json")
    assert [(h["id"], h["section"]) for h in json.loads(res.out)] == first and started == [["--supervise", str(root)]]


def test_a_first_answer_out_of_time_says_what_it_read(cli, mem, root, monkeypatch):
    mem.index(row_line("2026-05-30-0900-claude-code", topic="zeppelin sync"))
    monkeypatch.setattr(beside, "BESIDE_BYTES", 0)
    monkeypatch.setattr(beside, "_spawn", lambda args: None)
    monkeypatch.setattr("memboard.core.search.engine.FIRST_ANSWER", -1.0)  # no time at all: nothing is read
    res = cli("search", "zeppelin", "--json")
    assert res.code == 0 and json.loads(res.out) == []
    assert res.err.startswith("memboard: the search cache is being built beside this search; this answer is from ")
    assert "search again for the whole answer" in res.err


def test_a_large_root_is_answered_at_once_and_its_cache_is_built_in_another_process(cli_process, root):
    large_root(root, 2500)  # about 5 MB: more than BESIDE_BYTES
    assert (root / "index.md").stat().st_size > beside.BESIDE_BYTES
    res = cli_process("search", "zeppelin", "--json")
    assert res.code == 0
    assert [h["id"] for h in json.loads(res.out)][:1] == ["2026-05-31-2359-claude-code"]  # the newest row first
    assert wait_for(lambda: any(n.endswith(".sqlite3") for n in state_files()))  # built beside, then moved in
    assert wait_for(lambda: not any(n.endswith(".tmp") for n in state_files()))
    res = cli_process("search", "zeppelin", "--json")
    assert res.code == 0 and res.err == "" and json.loads(res.out)[0]["id"] == "2026-05-31-2359-claude-code"


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_a_build_killed_mid_way_leaves_nothing_behind(cli_process, root):
    large_root(root, 6000)  # about 12 MB: a build of a second or more, long enough to be killed in the middle
    assert cli_process("search", "zeppelin").code == 0
    building: list[str] = []
    assert wait_for(lambda: bool(building.extend(n for n in state_files() if n.endswith(".tmp")) or building))
    os.kill(int(building[0].split(".")[-3]), signal.SIGKILL)  # <cache>.<pid>.<hex>.tmp: the builder's pid
    assert wait_for(lambda: not any(n.endswith(".tmp") for n in state_files()), 10)  # its temp file is gone
    assert not [n for n in state_files() if n.endswith(".sqlite3")]  # and no cache was moved in
    res = cli_process("search", "zeppelin", "--json")  # the next search answers and builds again
    assert res.code == 0 and json.loads(res.out)[0]["id"] == "2026-05-31-2359-claude-code"
    assert wait_for(lambda: any(n.endswith(".sqlite3") for n in state_files()))
