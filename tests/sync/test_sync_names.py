"""Which sync tool left a copy, from its name: every tool's naming of index.md, a snapshot, an archive file and a note,
rclone's names that do not end in `.md`, unison's, and copies whose original is missing.

`doctor --json` names each copy with `path`, `of`, `tool` (the ids below) and, for Syncthing, `device`; a copy is
never a session nor a note, and a name alone never makes a copy (its content must be the original's).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.doctor import doctor_findings
from tests.support.roots import Mem, idle_line, row_line, snapshot_text
from tests.support.tree import tree

A = "2026-05-30-0800-claude-agent"
B = "2026-05-31-0900-cursor-main-agent"
KEY = "project/decision/db"

# (the copy's file name for an original file named `{o}.md`, tool id, device)
NAMES = [
    ("{o}.sync-conflict-20260531-101500-ABCDEF7.md", "syncthing", "ABCDEF7"),
    ("{o}.sync-conflict-20260531-101500.md", "syncthing", None),
    ("{o} (Laptop's conflicted copy 2026-05-31).md", "dropbox", None),
    ("{o}-DESKTOP-AB12CD3.md", "onedrive", None),
    ("{o} 2.md", "icloud", None),
    ("{o} (1).md", "gdrive", None),
    ("{o} (conflicted copy 2026-05-31 101500).md", "nextcloud", None),
    ("{o}_conflict-20260531-101500.md", "owncloud", None),
    ("{o} (Conflicted copy MacBook 202605311015).md", "obsidian", None),
    ("{o}.md..path1", "rclone", None),
    ("{o}.md..path2", "rclone", None),
    ("{o}.md.conflict1", "rclone", None),
    ("{o}.md.conflict2", "rclone", None),
    ("{o}.conflict1.md", "rclone", None),
    ("{o} (conflict_on_2026-12-01).md", "unison", None),
    ("{o} (conflict on 2026-12-01).md", "unison", None),
    ("{o} (conflict #1_on_2026-12-01).md", "unison", None),
    ("{o} (conflict_on_2026-12-01_was_deleted).md", "unison", None),
]
IDS = [f"{tool}-{i}" for i, (_, tool, _) in enumerate(NAMES)]


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


def copies(cli) -> list[dict]:
    """doctor --json's sync_conflict_copy findings."""
    return [f for f in findings(cli) if f["kind"] == "sync_conflict_copy"]


def keys(found: dict) -> tuple:
    """The keys a copy's finding adds, in order, with their values."""
    return tuple((k, found[k]) for k in list(found)[4:])


@pytest.mark.parametrize("pattern,tool,device", NAMES, ids=IDS)
def test_each_tool_s_copy_of_index_md_is_named_with_its_tool(cli, root, mem, pattern, tool, device):
    data = mem.index(idle_line(A))
    name = pattern.format(o="index")
    (root / name).write_bytes(data + idle_line(B).encode() + b"\n")
    found = findings(cli)
    assert [(f["kind"], f["id"]) for f in found] == [("sync_conflict_copy", "")]
    assert list(found[0]) == ["kind", "id", "message", "fix", "path", "of", "tool", "device"]
    assert keys(found[0]) == (("path", name), ("of", "index.md"), ("tool", tool), ("device", device))
    assert found[0]["message"].startswith(f"{name} is a sync-conflict copy of index.md (")
    assert "is missing" not in found[0]["message"]


@pytest.mark.parametrize("pattern,tool,device", NAMES, ids=IDS)
def test_each_tool_s_copy_of_a_snapshot_is_named_and_never_a_session(cli, root, mem, whole_tree, pattern, tool, device):
    mem.index(row_line(A))
    mem.snapshot(A)
    name = pattern.format(o=A)
    (root / "sessions" / name).write_text(snapshot_text(A, decisions=["Decided on the laptop."]), encoding="utf-8")
    found = findings(cli)
    assert [(f["kind"], f["id"]) for f in found] == [("sync_conflict_copy", A)], found
    assert keys(found[0]) == (
        ("path", f"sessions/{name}"),
        ("of", f"sessions/{A}.md"),
        ("tool", tool),
        ("device", device),
    )
    assert cli("doctor", "--fix").code == 0  # merged (tests/sync/test_sync_merge.py), never a session of its own
    assert not (root / "sessions" / name).exists() and (root / ".memboard" / "conflicts" / "sessions" / name).exists()
    assert [r["id"] for r in json.loads(cli("list", "--json").out)] == [A]


@pytest.mark.parametrize("leaf", ["session", "index"])
@pytest.mark.parametrize("pattern,tool,device", NAMES, ids=IDS)
def test_each_tool_s_copy_of_an_archive_file_is_named(cli, root, mem, leaf, pattern, tool, device):
    mem.index(idle_line(B))
    folder = root / "archive" / A
    folder.mkdir(parents=True)
    (folder / "index.md").write_text(f"# Archived Session: {A}\n", encoding="utf-8")
    (folder / "session.md").write_text(snapshot_text(A), encoding="utf-8")
    name = pattern.format(o=leaf)
    original = (folder / f"{leaf}.md").read_text(encoding="utf-8")
    (folder / name).write_text(original + "\nfrom the other machine\n", encoding="utf-8")
    found = copies(cli)
    assert [keys(f) for f in found] == [
        (("path", f"archive/{A}/{name}"), ("of", f"archive/{A}/{leaf}.md"), ("tool", tool), ("device", device))
    ]
    assert found[0]["id"] == A


def saved_note(cli, root: Path) -> Path:
    """A note saved at KEY; its file."""
    save = ["note", "save", "--topic-key", KEY, "--title", "Pick the database", "--type", "decision"]
    assert cli(*save, "--scope", "project", "--what", "- PostgreSQL.").code == 0
    return root / "notes" / f"{KEY}.md"


@pytest.mark.parametrize("pattern,tool,device", NAMES, ids=IDS)
def test_each_tool_s_copy_of_a_note_is_a_copy_never_a_note(cli, root, whole_tree, pattern, tool, device):
    original = saved_note(cli, root)
    name = pattern.format(o="db")
    copy = original.with_name(name)
    copy.write_text(original.read_text(encoding="utf-8").replace("PostgreSQL.", "PostgreSQL laptopword."), "utf-8")
    found = findings(cli)
    assert [(f["kind"], f["id"]) for f in found] == [("sync_conflict_copy", KEY)], found
    assert keys(found[0]) == (
        ("path", f"notes/project/decision/{name}"),
        ("of", f"notes/{KEY}.md"),
        ("tool", tool),
        ("device", device),
    )
    assert [n["id"] for n in json.loads(cli("note", "list", "--json").out)] == [KEY]
    assert json.loads(cli("note", "search", "laptopword", "--json").out) == []
    assert json.loads(cli("search", "laptopword", "--json").out) == []
    assert cli("doctor", "--fix").code == 0  # merged into the note (tests/sync/test_sync_merge.py)
    assert not copy.exists() and [n["id"] for n in json.loads(cli("note", "list", "--json").out)] == [KEY]


@pytest.mark.parametrize("pattern,tool,device", NAMES, ids=IDS)
def test_a_name_alone_never_makes_a_copy(cli, root, mem, pattern, tool, device):
    """Files named like every tool's copies whose content is not the original's are no copies."""
    mem.index(idle_line(B))
    mem.snapshot(B)
    (root / pattern.format(o="index")).write_text("# Notes about the index\n\nno table here\n", encoding="utf-8")
    (root / "sessions" / pattern.format(o=A)).write_text(snapshot_text(B), encoding="utf-8")  # names another session
    assert copies(cli) == []


def test_unison_copies_are_named_as_unison_not_dropbox(cli, root, mem):
    data = mem.index(idle_line(A))
    (root / "index (conflict_on_2026-12-01).md").write_bytes(data)
    [found] = copies(cli)
    assert found["tool"] == "unison" and "(unison naming)" in found["message"] and "Dropbox" not in found["message"]


def test_a_syncthing_copy_names_its_device(cli, root, mem):
    """The 7-character device ID Syncthing puts in the name (the device whose version replaced this one)."""
    data = mem.index(idle_line(A))
    (root / "index.sync-conflict-20261201-101500-7QWERTY.md").write_bytes(data)
    [found] = copies(cli)
    assert (found["tool"], found["device"]) == ("syncthing", "7QWERTY")


# -- copies without their original ----------------------------------------------------------------------------------


def test_rclone_copies_of_a_missing_index_md_are_named_and_the_original_is_said_missing(cli, root, mem, whole_tree):
    """rclone bisync renames both versions: `index.md` is gone, `..path1` and `..path2` hold every row."""
    mem.snapshot(A)
    mem.snapshot(B)
    one = mem.index(row_line(A))
    two = mem.index(row_line(B))
    (root / "index.md").unlink()
    (root / "index.md..path1").write_bytes(one)
    (root / "index.md..path2").write_bytes(two)
    found = copies(cli)
    assert [(f["path"], f["of"], f["tool"]) for f in found] == [
        ("index.md..path1", "index.md", "rclone"),
        ("index.md..path2", "index.md", "rclone"),
    ]
    assert all("index.md itself is missing" in f["message"] for f in found)


def test_copies_of_a_missing_snapshot_and_note_are_named_with_their_original(cli, root, mem):
    mem.index(row_line(A))
    (root / "sessions").mkdir(exist_ok=True)
    (root / "sessions" / f"{A}.md..path1").write_text(snapshot_text(A), encoding="utf-8")
    (root / "sessions" / f"{A}.md..path2").write_text(snapshot_text(A, decisions=["Other."]), encoding="utf-8")
    original = saved_note(cli, root)
    text = original.read_text(encoding="utf-8")
    original.unlink()
    original.with_name("db (conflict_on_2026-12-01).md").write_text(text, encoding="utf-8")
    found = copies(cli)
    assert [(f["path"], f["of"], f["tool"]) for f in found] == [
        (f"sessions/{A}.md..path1", f"sessions/{A}.md", "rclone"),
        (f"sessions/{A}.md..path2", f"sessions/{A}.md", "rclone"),
        ("notes/project/decision/db (conflict_on_2026-12-01).md", f"notes/{KEY}.md", "unison"),
    ]
    assert all("itself is missing" in f["message"] for f in found)
    assert json.loads(cli("note", "list", "--json").out) == []


def test_the_board_s_banner_names_copies_of_a_missing_index_md(root, mem):
    """The board shows no empty memory silently: its banner names the copies that hold the rows."""
    from memboard.core.files.copies import find_copies
    from memboard.core.files.root import MemoryRoot

    data = mem.index(row_line(A))
    (root / "index.md").unlink()
    (root / "index.md..path1").write_bytes(data)
    (root / "index.md..path2").write_bytes(data)
    found = find_copies(MemoryRoot(root))
    assert [(c.path, c.original, c.missing) for c in found] == [
        ("index.md..path1", "index.md", True),
        ("index.md..path2", "index.md", True),
    ]


def test_list_warns_when_only_copies_of_index_md_hold_the_rows(cli, root, mem):
    """`list` shows no empty memory silently: it says where the rows are."""
    data = mem.index(row_line(A))
    (root / "index.md").unlink()
    (root / "index.md..path1").write_bytes(data)
    (root / "index.md..path2").write_bytes(data)
    for argv in (["list"], ["list", "--json"]):
        res = cli(*argv)
        assert res.code == 0, res.err
        assert res.err.strip() == (
            "memboard: warning: index.md is missing, and sync-conflict copies of it hold its rows (index.md..path1, "
            "index.md..path2): run `memboard doctor --fix` to merge them"
        )
    assert json.loads(cli("list", "--json").out) == []


def test_list_of_a_new_root_says_nothing(cli, root):
    res = cli("list", "--json")
    assert (res.code, res.err) == (0, "")


def test_search_never_takes_a_snapshot_s_copy_for_a_session(cli, root, mem):
    """A OneDrive copy `<id>-laptop.md` is named like a session of its own; its content names <id>: no search hit.
    A real session of agent `…-laptop` (its content names itself) is found."""
    mem.index(row_line(A), row_line(f"{A}-laptop"))
    mem.snapshot(A)
    mem.snapshot(f"{A}-desktop7", text=snapshot_text(A, decisions=["zebraword on the desktop."]))
    mem.snapshot(f"{A}.sync-conflict-20260531-101500-ABCDEF7", text=snapshot_text(A, decisions=["zebraword."]))
    mem.snapshot(f"{A}-laptop", text=snapshot_text(f"{A}-laptop", decisions=["zebraword of its own."]))
    hits = json.loads(cli("search", "zebraword", "--json").out)
    assert [(h["kind"], h["id"]) for h in hits] == [("session", f"{A}-laptop")]
