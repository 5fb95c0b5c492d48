"""doctor's further findings about what sync tools and git leave: too_many_copies (8 or more copies of one file:
Syncthing deletes copies beyond 10), preserved_copies (merged copies kept under .memboard/conflicts/ for more
than 30 days, for information) and conflict_markers (git's markers in a snapshot, an archive file or a note)."""

from __future__ import annotations

import os
from datetime import datetime

import pytest

from tests.support.doctor import doctor_findings
from tests.support.roots import Mem, idle_line, row_line, snapshot_text
from tests.support.tree import tree

A = "2026-05-30-0800-claude-agent"
B = "2026-05-31-0900-cursor-main-agent"
KEY = "project/decision/db"
CONFLICT = "<<<<<<< HEAD\n- Decided here.\n=======\n- Decided there.\n>>>>>>> laptop\n"


@pytest.fixture
def mem(root) -> Mem:
    """Helpers on the test's memory root."""
    return Mem(root)


@pytest.fixture
def whole_tree(root):
    """A function returning the bytes of every file around and inside the root."""
    return lambda: tree(root.parent, folders=True)


def findings(cli) -> list[dict]:
    """doctor --json."""
    return doctor_findings(cli("doctor", "--json"))


def syncthing(o: str, n: int) -> str:
    """The name of Syncthing's n-th copy of `{o}.md`."""
    return f"{o}.sync-conflict-20260531-1015{n:02d}-ABCDEF7.md"


# -- too_many_copies --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n,warned", [(7, False), (8, True), (10, True)])
def test_eight_or_more_copies_of_index_md_are_warned_about(cli, root, mem, n, warned):
    data = mem.index(idle_line(A))
    for i in range(n):
        (root / syncthing("index", i)).write_bytes(data)
    found = findings(cli)
    assert [f["kind"] for f in found].count("sync_conflict_copy") == n
    many = [f for f in found if f["kind"] == "too_many_copies"]
    if not warned:
        assert many == []
        return
    assert [(f["id"], f["fix"]) for f in many] == [("", None)]
    assert many[0]["message"].startswith(f"index.md has {n} sync-conflict copies: Syncthing keeps at most 10")


def test_too_many_copies_of_a_snapshot_and_of_a_note_name_their_session_and_note(cli, root, mem):
    mem.index(row_line(A))
    mem.snapshot(A)
    for i in range(8):
        mem.snapshot(syncthing(A, i)[:-3], text=snapshot_text(A, decisions=[f"copy {i}"]))
    save = ["note", "save", "--topic-key", KEY, "--title", "T", "--type", "decision", "--scope", "project"]
    assert cli(*save, "--what", "- x.").code == 0
    note = root / "notes" / f"{KEY}.md"
    for i in range(9):
        note.with_name(syncthing("db", i)).write_bytes(note.read_bytes())
    many = [(f["id"], f["message"].split(":")[0]) for f in findings(cli) if f["kind"] == "too_many_copies"]
    assert many == [
        (A, f"sessions/{A}.md has 8 sync-conflict copies"),
        (KEY, f"notes/{KEY}.md has 9 sync-conflict copies"),
    ]


def test_copies_of_different_files_are_counted_apart(cli, root, mem):
    data = mem.index(row_line(A))
    mem.snapshot(A)
    for i in range(4):
        (root / syncthing("index", i)).write_bytes(data)
        mem.snapshot(syncthing(A, i)[:-3], text=snapshot_text(A))
    assert "too_many_copies" not in [f["kind"] for f in findings(cli)]


# -- preserved_copies -------------------------------------------------------------------------------------------------


def preserved(root, rel: str, days_old: float) -> None:
    """A merged copy kept under .memboard/conflicts/, last changed days_old days before doctor's clock (the suite's
    fixed MEMBOARD_NOW)."""
    path = root / ".memboard" / "conflicts" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("kept\n", encoding="utf-8")
    then = datetime(2026, 6, 1, 9, 30).timestamp() - days_old * 86400
    os.utime(path, (then, then))


def test_copies_kept_more_than_30_days_are_named_for_information(cli, root, mem, whole_tree):
    mem.index(idle_line(A))
    preserved(root, "index.sync-conflict-20260101-101500-ABCDEF7.md", 45)
    preserved(root, f"sessions/{A}.sync-conflict-20260101-101500-ABCDEF7.md", 31)
    preserved(root, "index.sync-conflict-20261120-101500-ABCDEF7.md", 5)
    found = findings(cli)
    assert [(f["kind"], f["id"], f["fix"]) for f in found] == [("preserved_copies", "", None)]
    message = found[0]["message"]
    assert message.startswith("2 merged sync-conflict copies are kept under .memboard/conflicts/ for more than 30 days")
    assert ".memboard/conflicts/index.sync-conflict-20260101" in message and "20261120" not in message
    assert "never deletes them" in message
    before = whole_tree()
    res = cli("doctor", "--fix")
    assert (res.code, res.out.strip().splitlines()[-1], res.err) == (0, "nothing to repair", "")  # information only
    assert whole_tree() == before  # neither deleted nor taken for an older memboard's state


def test_recent_preserved_copies_say_nothing_and_are_no_older_state(cli, root, mem):
    mem.index(idle_line(A))
    preserved(root, "index.sync-conflict-20261120-101500-ABCDEF7.md", 2)
    assert findings(cli) == []


# -- conflict_markers -------------------------------------------------------------------------------------------------


def test_markers_in_a_snapshot_are_named_with_their_lines(cli, root, mem):
    mem.index(row_line(A), idle_line(B))
    text = snapshot_text(A).replace("## Decisions\n", "## Decisions\n" + CONFLICT, 1)
    mem.snapshot(A, text=text)
    marked = [f for f in findings(cli) if f["kind"] == "conflict_markers"]
    assert [(f["id"], f["fix"]) for f in marked] == [(A, None)]
    first = text.splitlines().index("<<<<<<< HEAD") + 1
    assert marked[0]["message"].startswith(
        f"sessions/{A}.md holds merge-conflict markers (lines {first}, {first + 2}, {first + 4})"
    )
    assert "delete the marker lines" in marked[0]["message"]


@pytest.mark.parametrize("leaf", ["session.md", "index.md"])
def test_markers_in_an_archive_file_are_named(cli, root, mem, leaf):
    mem.index(idle_line(B))
    folder = root / "archive" / A
    folder.mkdir(parents=True)
    (folder / "index.md").write_text(f"# Archived Session: {A}\n", encoding="utf-8")
    (folder / "session.md").write_text(snapshot_text(A), encoding="utf-8")
    (folder / leaf).write_text((folder / leaf).read_text(encoding="utf-8") + CONFLICT, encoding="utf-8")
    marked = [(f["id"], f["message"].split(" (")[0]) for f in findings(cli) if f["kind"] == "conflict_markers"]
    assert marked == [(A, f"archive/{A}/{leaf} holds merge-conflict markers")]


def test_markers_in_a_note_are_named(cli, root):
    save = ["note", "save", "--topic-key", KEY, "--title", "T", "--type", "decision", "--scope", "project"]
    assert cli(*save, "--what", "- x.").code == 0
    note = root / "notes" / f"{KEY}.md"
    note.write_text(note.read_text(encoding="utf-8").replace("- x.\n", CONFLICT), encoding="utf-8")
    marked = [(f["kind"], f["id"], f["fix"]) for f in findings(cli) if f["kind"] == "conflict_markers"]
    assert marked == [("conflict_markers", KEY, None)]


def test_marker_like_text_in_a_snapshot_is_no_conflict(cli, root, mem):
    """A fenced example and a setext underline are text, as in index.md."""
    mem.index(row_line(A))
    example = "```\n<<<<<<< HEAD\n=======\n>>>>>>> b\n```\n\nTitle\n=======\n"
    mem.snapshot(A, text=snapshot_text(A).replace("## Decisions\n", "## Decisions\n" + example, 1))
    assert "conflict_markers" not in [f["kind"] for f in findings(cli)]


def test_index_markers_keep_their_own_kind(cli, root, mem):
    data = mem.index(idle_line(A)).decode()
    (root / "index.md").write_text(data + CONFLICT, encoding="utf-8")
    assert [f["kind"] for f in findings(cli)] == ["index_conflict_markers"]
