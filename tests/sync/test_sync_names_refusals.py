"""While a sync tool's copy is unmerged, `organize` and `archive` refuse (they delete or move rows whose other
version the copy may hold): exit 1, one line ending "run `memboard doctor --fix` first", nothing written. The
commands that only add keep working, and the board's organize and archive share the refusal."""

from __future__ import annotations

import json

import pytest

from tests.support.roots import Mem, idle_line, row_line, snapshot_text
from tests.support.tree import tree

A = "2026-05-30-0800-claude-agent"
B = "2026-05-31-0900-cursor-main-agent"
OLD = "2026-01-01-0900-codex-agent"
FIRST = "run `memboard doctor --fix` first"


@pytest.fixture
def mem(root) -> Mem:
    """Helpers on the test's memory root."""
    return Mem(root)


@pytest.fixture
def whole_tree(root):
    """A function returning the bytes of every file around and inside the root."""
    return lambda: tree(root.parent, folders=True)


def index_copy(root, mem) -> str:
    """A root with rows to organize and archive, and a Syncthing copy of index.md holding one more row."""
    data = mem.index(idle_line(OLD, updated="2026-01-01 09:00"), row_line(A), idle_line(B))
    mem.snapshot(A)
    name = "index.sync-conflict-20260531-101500-ABCDEF7.md"
    (root / name).write_bytes(data + idle_line("2026-05-31-1000-claude-agent").encode() + b"\n")
    return name


def snapshot_copy(root, mem) -> str:
    mem.index(idle_line(OLD, updated="2026-01-01 09:00"), row_line(A), idle_line(B))
    mem.snapshot(A)
    name = f"{A} (Laptop's conflicted copy 2026-05-31).md"
    (root / "sessions" / name).write_text(snapshot_text(A, decisions=["Laptop."]), encoding="utf-8")
    return f"sessions/{name}"


def rclone_copies(root, mem) -> str:
    """rclone bisync renamed both versions of index.md: only the copies are there."""
    data = mem.index(idle_line(OLD, updated="2026-01-01 09:00"), row_line(A), idle_line(B))
    mem.snapshot(A)
    (root / "index.md").unlink()
    (root / "index.md..path1").write_bytes(data)
    (root / "index.md..path2").write_bytes(data)
    return "index.md..path1"


def archive_copy(root, mem) -> str:
    mem.index(idle_line(OLD, updated="2026-01-01 09:00"), row_line(A), idle_line(B))
    mem.snapshot(A)
    folder = root / "archive" / "2026-04-01-0900-codex-agent"
    folder.mkdir(parents=True)
    (folder / "session.md").write_text(snapshot_text("2026-04-01-0900-codex-agent"), encoding="utf-8")
    (folder / "session (1).md").write_text(snapshot_text("2026-04-01-0900-codex-agent"), encoding="utf-8")
    return "archive/2026-04-01-0900-codex-agent/session (1).md"


SETUPS = [index_copy, snapshot_copy, rclone_copies, archive_copy]
COMMANDS = [
    ["organize"],
    ["organize", "--dry-run"],
    ["organize", "--json"],
    ["archive", A],
    ["archive", B],
    ["archive", A, "--dry-run"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: "-".join(a[:1] + a[2:]) + ("-A" if A in a else ""))
@pytest.mark.parametrize("setup", SETUPS, ids=lambda f: f.__name__)
def test_organize_and_archive_refuse_while_a_copy_is_unmerged(cli, root, mem, whole_tree, setup, argv):
    copy = setup(root, mem)
    before = whole_tree()
    res = cli(*argv)
    assert (res.code, res.out) == (1, ""), (res.code, res.out, res.err)
    lines = res.err.strip().splitlines()
    if "--json" in argv:  # the same one line, as a JSON object
        lines = [json.loads(line)["error"] for line in lines]
    assert len(lines) == 1 and lines[0].endswith(FIRST), res.err
    assert copy in lines[0] and "nothing written" in lines[0] and "Traceback" not in res.err
    assert whole_tree() == before


def test_the_refusal_names_at_most_three_copies(cli, root, mem):
    data = mem.index(row_line(A))
    for n in range(1, 6):
        (root / f"index ({n}).md").write_bytes(data)
    res = cli("organize")
    assert (
        res.code == 1
        and "5 sync-conflict copies are not merged yet (index (1).md, index (2).md, index (3).md, …)" in res.err
    )


@pytest.mark.parametrize("setup", SETUPS, ids=lambda f: f.__name__)
def test_commands_that_only_add_keep_working_beside_a_copy(cli, root, mem, setup):
    setup(root, mem)
    res = cli("register")
    assert res.code == 0, res.err
    sid = res.out.strip().rsplit(" ", 1)[-1]
    assert cli("update", sid, "--summary", "carried on").code == 0
    assert cli("register", "--manual", "--topic", "t").code == 0
    save = ["note", "save", "--topic-key", "p/x", "--title", "T", "--type", "decision", "--scope", "project"]
    assert cli(*save, "--what", "- x.").code == 0


def test_organize_and_archive_work_again_once_the_copy_is_gone(cli, root, mem):
    name = index_copy(root, mem)
    assert cli("organize").code == 1
    (root / name).unlink()
    res = cli("organize", "--json")
    assert res.code == 0 and OLD in json.loads(res.out)["deleted"]
    assert cli("archive", A).code == 0


def test_a_note_s_copy_does_not_stop_organize_or_archive(cli, root, mem):
    """Neither touches notes: a note's copy is doctor's to name, not a reason to refuse."""
    mem.index(idle_line(OLD, updated="2026-01-01 09:00"), row_line(A))
    mem.snapshot(A)
    save = ["note", "save", "--topic-key", "p/db", "--title", "T", "--type", "decision", "--scope", "project"]
    assert cli(*save, "--what", "- x.").code == 0
    note = root / "notes" / "p" / "db.md"
    note.with_name("db.sync-conflict-20260531-101500-ABCDEF7.md").write_bytes(note.read_bytes())
    assert cli("organize").code == 0
    assert cli("archive", A).code == 0


def test_the_board_s_organize_flow_shares_the_refusal(root, mem):
    """The board builds organize and archive with the same operations: the refusal, in the board's words."""
    from datetime import datetime

    from memboard.board.wording import fix_for, refusal_words
    from memboard.core.errors import Refused
    from memboard.core.files.root import MemoryRoot
    from memboard.core.ops.archive import plan_archive
    from memboard.core.ops.organize import plan_organize

    index_copy(root, mem)
    for build in (lambda r: plan_organize(r, datetime(2026, 6, 1)), lambda r: plan_archive(r, A, datetime(2026, 6, 1))):
        with pytest.raises(Refused) as caught:
            build(MemoryRoot(root))
        said = refusal_words(caught.value)
        assert said.endswith("press d (doctor) and apply its repairs first") and "memboard doctor" not in said
        fix = fix_for(caught.value, None)
        assert fix is not None and fix.action == "doctor"


ONLY_IN_COPY = "2026-05-31-1000-claude-agent"
LOOKUPS = [
    ["update", ONLY_IN_COPY, "--summary", "carried on"],
    ["update", ONLY_IN_COPY, "--summary", "carried on", "--json"],
    ["show", ONLY_IN_COPY],
    ["chain", ONLY_IN_COPY],
    ["continue", ONLY_IN_COPY, "--as", A],
    ["continue", A, "--as", ONLY_IN_COPY],
    ["release", ONLY_IN_COPY, "--as", A],
]


@pytest.mark.parametrize("argv", LOOKUPS, ids=lambda a: "-".join(x for x in a if x != ONLY_IN_COPY)[:40])
def test_a_row_only_in_an_unmerged_copy_is_named_with_the_copy_and_doctor_fix(cli, root, mem, whole_tree, argv):
    """A hook's row that, for a moment, only a copy of index.md holds (the sync kept the other machine's
    index.md under its name): the one-line refusal names the copy and `memboard doctor --fix`, not only
    "unknown session"; nothing is written."""
    copy = index_copy(root, mem)
    before = whole_tree()
    res = cli(*argv)
    assert (res.code, res.out) == (1, ""), (res.code, res.out, res.err)
    lines = res.err.strip().splitlines()
    if "--json" in argv:
        lines = [json.loads(line)["error"] for line in lines]
    assert len(lines) == 1 and "Traceback" not in res.err, res.err
    assert f"unknown session {ONLY_IN_COPY}" in lines[0] or f"unknown source session {ONLY_IN_COPY}" in lines[0]
    assert copy in lines[0] and "memboard doctor --fix" in lines[0], lines[0]
    assert whole_tree() == before
    assert cli("doctor", "--fix").code == 0
    assert cli(*argv).code == 0 or argv[0] == "release"  # (merged: the row is there; release has no link to drop)


def test_an_unknown_session_without_copies_is_said_as_before(cli, root, mem):
    mem.index(row_line(A))
    res = cli("update", ONLY_IN_COPY, "--summary", "x")
    assert res.code == 1 and res.err.strip() == f"memboard: unknown session {ONLY_IN_COPY}: no row in index.md"
