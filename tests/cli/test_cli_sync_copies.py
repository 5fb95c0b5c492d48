"""Conflict copies that sync tools leave beside index.md and snapshots.

doctor names every copy (confirmed by its content, not by its name alone) and `doctor --fix` merges
it into its original (tests/sync/test_sync_merge.py holds the merge itself); no copy is ever taken for a
session: no orphan row, no separate session in organize's Continues From scan, not listed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.doctor import doctor_findings
from tests.support.roots import idle_line, row_line, snapshot_text

A = "2026-05-30-0800-claude-agent"
B = "2026-05-31-0900-cursor-main-agent"
SOURCE = "2026-05-01-0900-codex-agent"

# (copy's stem, tool) for a file whose original stem is ORIGINAL
NAMES = [
    ("{o}.sync-conflict-20260531-101500-ABCDEF7", "Syncthing"),
    ("{o} (Laptop's conflicted copy 2026-05-31)", "Dropbox"),
    ("{o} (Laptop's conflicted copy 2026-05-31 (1))", "Dropbox"),
    ("{o} (copie en conflit de Laptop 2026-05-31)", "Dropbox"),
    ("{o}-DESKTOP-AB12CD3", "OneDrive"),
    ("{o}-laptop", "OneDrive"),
    ("{o} 2", "iCloud"),
    ("{o} (conflicted copy 2026-05-31 101500)", "Nextcloud"),
    ("{o} (Conflicted copy MacBook 202605311015)", "Obsidian Sync"),
    ("{o} (1)", "Google Drive"),
]


def findings(cli) -> list[dict]:
    """doctor --json."""
    return doctor_findings(cli("doctor", "--json"))


@pytest.mark.parametrize("pattern,tool", NAMES, ids=[t for _, t in NAMES])
def test_a_conflicted_copy_of_index_md_is_named_by_doctor(cli, root, mem, pattern, tool):
    data = mem.index(idle_line(A))
    name = pattern.format(o="index") + ".md"
    (root / name).write_text(data.decode() + idle_line(B) + "\n", encoding="utf-8")
    found = findings(cli)
    assert [(f["kind"], f["id"]) for f in found] == [("sync_conflict_copy", "")]
    assert f"{name} is a sync-conflict copy of index.md ({tool} naming)" in found[0]["message"]
    assert found[0]["fix"] == f"merge into index.md: +1 row; keep the copy as .memboard/conflicts/{name}"


@pytest.mark.parametrize("pattern,tool", NAMES, ids=[t for _, t in NAMES])
def test_a_conflicted_copy_of_a_snapshot_is_named_and_never_a_session(cli, root, mem, whole_tree, pattern, tool):
    mem.index(row_line(A))
    mem.snapshot(A)
    name = pattern.format(o=A) + ".md"
    mem.snapshot(name[:-3], text=snapshot_text(A, decisions=["Decided on the laptop."]))
    found = findings(cli)
    assert [(f["kind"], f["id"]) for f in found] == [("sync_conflict_copy", A)]
    assert f"sessions/{name} is a sync-conflict copy of sessions/{A}.md ({tool} naming)" in found[0]["message"]
    assert found[0]["fix"].startswith(f"merge into sessions/{A}.md: +1 item")  # doctor --fix merges it
    copy = (root / "sessions" / name).read_bytes()
    assert cli("doctor", "--fix").code == 0
    assert not (root / "sessions" / name).exists()
    assert (root / ".memboard" / "conflicts" / "sessions" / name).read_bytes() == copy
    assert "- Decided on the laptop." in mem.snap(A)
    assert [r["id"] for r in json.loads(cli("list", "--json").out)] == [A]


def test_a_onedrive_copy_named_like_a_session_gets_no_phantom_row(cli, root, mem, whole_tree):
    """`<id>-laptop.md` is a valid Session ID by form; its content names <id>: a copy, even once the original is archived."""
    mem.index(idle_line(B))
    mem.snapshot(f"{A}-laptop", text=snapshot_text(A))  # the original A was archived since
    (root / "archive" / A).mkdir(parents=True)
    (root / "archive" / A / "session.md").write_text(snapshot_text(A), encoding="utf-8")
    (root / "archive" / A / "index.md").write_text(f"# Archived Session: {A}\n", encoding="utf-8")
    kinds = [(f["kind"], f["id"]) for f in findings(cli)]
    assert ("sync_conflict_copy", A) in kinds and not [k for k in kinds if k[0] == "orphan_snapshot"]
    archived = (root / "archive" / A / "session.md").read_bytes()
    assert cli("doctor", "--fix").code == 0  # the copy folds into the archived snapshot: A stays archived
    assert (root / "archive" / A / "session.md").read_bytes() == archived  # (it held nothing more)
    assert not (root / "sessions" / f"{A}-laptop.md").exists() and not (root / "sessions" / f"{A}.md").exists()
    assert (root / ".memboard" / "conflicts" / "sessions" / f"{A}-laptop.md").exists()
    assert [r["id"] for r in json.loads(cli("list", "--json").out)] == [B]


def test_content_decides_not_the_name(cli, root, mem):
    """Names that look like copies but whose content is not the original's are no copies; the one real copy is named."""
    mem.index(row_line(A), row_line(f"{A}-laptop"))
    mem.snapshot(A)
    mem.snapshot(f"{A}-laptop")  # a real session of agent claude-agent-laptop, beside A
    (root / "index (1).md").write_text("# Notes about the index\n\nno table here\n", encoding="utf-8")
    mem.snapshot(f"{A} 2", text="# Scratch\n\nmy own notes, no session\n")
    mem.snapshot(f"{A} 3", text=snapshot_text(A))
    found = findings(cli)
    assert [(f["kind"], f["id"]) for f in found] == [("sync_conflict_copy", A), ("stray_file", f"{A} 2")]
    assert found[0]["message"].startswith(f"sessions/{A} 3.md is a sync-conflict copy of sessions/{A}.md (iCloud")


def test_copies_inside_an_archive_folder_are_named(cli, root, mem):
    mem.index(idle_line(B))
    folder = root / "archive" / A
    folder.mkdir(parents=True)
    (folder / "index.md").write_text(f"# Archived Session: {A}\n", encoding="utf-8")
    (folder / "session.md").write_text(snapshot_text(A), encoding="utf-8")
    (folder / "session (1).md").write_text(snapshot_text(A, decisions=["Other machine."]), encoding="utf-8")
    found = [f for f in findings(cli) if f["kind"] == "sync_conflict_copy"]
    assert [(f["id"], f["message"].split(";")[0]) for f in found] == [
        (A, f"archive/{A}/session (1).md is a sync-conflict copy of archive/{A}/session.md (Google Drive naming)")
    ]


def test_organize_takes_a_copy_for_its_original_not_a_session_of_its_own(cli, root, mem, whole_tree):
    """A copy's Continues From speaks for its original (the board's release picker reads it so); organize itself
    refuses while the copy is unmerged (tests/sync/test_sync_names_refusals.py)."""
    from memboard.core.files.root import MemoryRoot
    from memboard.core.ops.organize import continued_sources

    copy = f"{A}.sync-conflict-20260531-101500-ABCDEF7"
    mem.index(idle_line(SOURCE), row_line(A))
    mem.snapshot(A)
    mem.snapshot(copy, text=snapshot_text(A, continues=[SOURCE]))
    assert continued_sources(MemoryRoot(root), {SOURCE, A}) == {SOURCE: [A]}  # on behalf of A, not of the copy
    before = whole_tree()
    res = cli("organize", "--json")
    assert res.code == 1 and json.loads(res.err)["error"].endswith("run `memboard doctor --fix` first"), res.err
    assert whole_tree() == before


# -- notes ---------------------------------------------------------------------------------------------------------

KEY = "project/decision/db"
# the copy's name for an original named `db`, and the tool: every naming above, and the ones that are note IDs too
NOTE_NAMES = [*NAMES, ("{o}_conflict-20260531-101500", "ownCloud"), ("{o}.sync-conflict-20260531-101500", "Syncthing")]
NAMED_LIKE_NOTES = [("{o}-laptop", "OneDrive"), ("{o}_conflict-20260531-101500", "ownCloud"), NOTE_NAMES[-1]]


def note_with_copy(cli, root: Path, pattern: str) -> str:
    """A note saved at KEY and a sync tool's copy of it beside it, holding a word only the copy has; the copy's path."""
    save = ["note", "save", "--topic-key", KEY, "--title", "Pick the database", "--type", "decision"]
    assert cli(*save, "--scope", "project", "--what", "- PostgreSQL.").code == 0
    original = root / "notes" / f"{KEY}.md"
    copy = original.with_name(pattern.format(o="db") + ".md")
    copy.write_text(original.read_text(encoding="utf-8").replace("PostgreSQL.", "PostgreSQL laptopword."), "utf-8")
    return copy.relative_to(root).as_posix()


@pytest.mark.parametrize("pattern,tool", NOTE_NAMES, ids=[f"{t}-{i}" for i, (_, t) in enumerate(NOTE_NAMES)])
def test_a_conflicted_copy_of_a_note_is_named_as_a_copy_never_as_a_second_note(cli, root, whole_tree, pattern, tool):
    """A sync tool's copy of notes/<key>.md naming that key is a sync_conflict_copy, as for snapshots: not a misnamed
    note (whose advice would make a second note on the topic) nor a note whose Topic Key is wrong (whose fix would)."""
    copy = note_with_copy(cli, root, pattern)
    found = findings(cli)
    assert [(f["kind"], f["id"]) for f in found] == [("sync_conflict_copy", KEY)], found
    message = found[0]["message"]
    assert message.startswith(f"{copy} is a sync-conflict copy of notes/{KEY}.md ({tool} naming)")
    assert found[0]["fix"].startswith(f"merge into notes/{KEY}.md") and found[0]["fix"].endswith(
        f"keep the copy as .memboard/conflicts/{copy}"
    )
    assert "rename" not in message and "topic key" not in message.lower()
    res = cli("doctor", "--fix")
    assert res.code == 0, res.err
    assert not (root / copy).exists() and (root / ".memboard" / "conflicts" / copy).exists()
    assert "laptopword" in (root / "notes" / f"{KEY}.md").read_text(encoding="utf-8")
    assert [n["id"] for n in json.loads(cli("note", "list", "--json").out)] == [KEY]


@pytest.mark.parametrize("pattern,tool", NAMED_LIKE_NOTES, ids=[t for _, t in NAMED_LIKE_NOTES])
def test_no_listing_or_search_shows_a_note_s_conflict_copy(cli, root, pattern, tool):
    """A copy whose name is a note ID as well (`db-laptop`, `db_conflict-…`) is still no note: `note list`, `note
    search` and `memboard search` leave it out (the board's notes view and mem_context read the same lists)."""
    note_with_copy(cli, root, pattern)
    assert [n["id"] for n in json.loads(cli("note", "list", "--json").out)] == [KEY]
    assert json.loads(cli("note", "search", "laptopword", "--json").out) == []
    assert json.loads(cli("search", "laptopword", "--json").out) == []
    assert [n["id"] for n in json.loads(cli("note", "search", "PostgreSQL", "--json").out)] == [KEY]


def test_a_note_named_like_a_copy_is_a_note_when_it_names_its_own_key(cli, root):
    """Content decides: `db-laptop` whose Metadata says `project/decision/db-laptop` is a note of its own."""
    save = [
        "note",
        "save",
        "--title",
        "Pick the database",
        "--type",
        "decision",
        "--scope",
        "project",
        "--what",
        "- x.",
    ]
    assert cli(*save, "--topic-key", KEY).code == 0
    assert cli(*save, "--topic-key", f"{KEY}-laptop").code == 0
    assert sorted(n["id"] for n in json.loads(cli("note", "list", "--json").out)) == [KEY, f"{KEY}-laptop"]
    assert findings(cli) == []
