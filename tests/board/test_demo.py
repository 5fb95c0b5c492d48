"""The demo root: deterministic, realistic, and every state the board should show."""

from __future__ import annotations

import json
from pathlib import Path

from memboard.board.run import make_demo
from memboard.core.files.revisions import list_revisions
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.clock import now
from memboard.core.formats.index import IndexFile
from memboard.core.formats.snapshot import vanished
from memboard.core.ops.demo import build_demo
from tests.support.tree import tree


def test_demo_is_deterministic_for_a_fixed_now(tmp_path):
    a = build_demo(tmp_path / "a", now())
    b = build_demo(tmp_path / "b", now())
    assert tree(a, skip=(".memboard",)) == tree(b, skip=(".memboard",))


def test_demo_holds_every_state(demo_root, ids):
    index = IndexFile((demo_root / "index.md").read_bytes())
    rows = {r.id: r for r in index.rows if not r.problem}
    assert 35 <= len(index.rows) <= 45
    assert sum(1 for r in index.rows if r.problem) == 1  # a row broken by hand
    statuses = [r.status for r in rows.values()]
    assert statuses.count("idle") >= 5 and statuses.count("stale") >= 3 and statuses.count("active") >= 10
    topics = " ".join(r.get("topic") for r in rows.values())
    assert any("\u4e00" <= ch <= "\u9fff" for ch in topics) and "Hook latency" in topics
    assert rows[ids["sync1"]].refs == [ids["sync2"]] and rows[ids["sync2"]].refs == [ids["sync3"]]
    for name in ("archived1", "archived2", "archived3"):
        assert (demo_root / "archive" / ids[name] / "index.md").exists()
        assert (demo_root / "archive" / ids[name] / "session.md").exists()
    root = MemoryRoot(demo_root)
    revs = list_revisions(root, ids["broken"])
    assert len(revs) == 2
    old, new = (r.read_text(encoding="utf-8") for r in revs)
    assert vanished(old, new), "the demo's lossy merge must show policy breaks"
    assert (demo_root / "sessions" / f"{ids['broken']}.md").read_text(encoding="utf-8") == new


def test_demo_root_passes_through_the_cli(cli, root, ids):
    build_demo(root / "demo", now())
    res = cli("list", "--json", "--root", str(root / "demo"), use_root=False)
    assert res.code == 0, res.err
    rows = json.loads(res.out)
    assert len(rows) >= 35
    res = cli("chain", ids["sync3"], "--json", "--root", str(root / "demo"), use_root=False)
    assert res.code == 0, res.err
    chain = json.loads(res.out)
    assert chain["continues_from"][0]["id"] == ids["sync2"]
    res = cli("doctor", "--root", str(root / "demo"), use_root=False)
    assert "one_sided_link" in res.out and "malformed_row" in res.out


def test_demo_keep_refuses_a_non_empty_folder(cli, tmp_path):
    target = tmp_path / "full"
    target.mkdir()
    (target / "notes.md").write_text("mine\n", encoding="utf-8")
    res = cli("demo", "--keep", str(target), use_root=False)
    assert res.code == 2 and "not empty" in res.err and len(res.err.strip().splitlines()) == 1
    assert [p.name for p in target.iterdir()] == ["notes.md"]


def test_make_demo_into_a_new_folder(tmp_path):
    path = make_demo(tmp_path / "new" / "memory")
    assert (path / "index.md").exists() and (path / "sessions").is_dir()


def test_the_throwaway_demo_takes_its_local_state_with_it(monkeypatch):
    """`memboard demo` without --keep leaves no revisions of its temp root in local state."""
    from memboard.board import run
    from memboard.core.files.localstate import folder_of

    seen = []

    def fake_board(path):
        folder = folder_of(Path(path).resolve())
        seen.append((folder, (folder / "revisions").is_dir()))
        return 0

    monkeypatch.setattr(run, "run_board", fake_board)
    assert run.run_demo() == 0
    [(folder, had_revisions)] = seen
    assert had_revisions and not folder.exists()
