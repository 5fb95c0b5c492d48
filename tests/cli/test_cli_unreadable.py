"""A file memboard cannot read is not a file that says nothing: organize keeps every row it might protect and
names it, search reads it again at every search and counts it, note list and note search name it, the chain
marks it, show and the changing commands refuse in one line.

A file with mode 000 stops only a user without CAP_DAC_OVERRIDE: those tests run memboard as one
(tests/support/process.py) and are skipped, with the reason, where that cannot be done. A symlink out of
the root needs no such user; an I/O error is simulated in process.
"""

from __future__ import annotations

import errno
import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from memboard.core.files.root import MemoryRoot
from memboard.core.ops.organize import plan_organize
from tests.support.doctor import needing
from tests.support.process import memboard, unprivileged
from tests.support.roots import Mem, idle_line, row_line, snapshot_text

needs_a_user = pytest.mark.skipif(unprivileged() is not None, reason=unprivileged() or "")

OLD = "2026-05-01 09:00"  # 31 days before the suite's clock: an active row with content is marked stale
RECENT = "2026-05-30 09:00"
IDLE = "2026-05-30-0900-cursor-main-agent"  # an idle row that only B's snapshot protects
B = "2026-05-31-0900-claude-agent"  # its snapshot lists IDLE under Continues From
OVERDUE = "2026-05-01-0900-codex-agent"  # an active row organize would mark stale
DENIED = "permission denied"


def board(mem: Mem) -> Path:
    """IDLE (protected by B's Continues From alone), B, OVERDUE; returns B's snapshot."""
    mem.index(idle_line(IDLE), row_line(B, updated=RECENT), row_line(OVERDUE, updated=OLD))
    return mem.snapshot(B, continues=[IDLE])


def organize_json(res) -> dict:
    """The JSON a successful organize printed."""
    assert res.code == 0, res.err
    return json.loads(res.out)


def kept_for(out: dict, path: str, reason: str) -> None:
    """The organize answer kept IDLE and OVERDUE because path could not be read, and said so."""
    assert out["deleted"] == [] and out["marked_stale"] == []
    assert IDLE in out["protected"] and OVERDUE in out["protected"]
    assert out["unreadable"] == {path: reason}
    for sid in (IDLE, OVERDUE):
        assert f"memboard could not read: {path} ({reason})" in out["reasons"][sid]


@needs_a_user
@pytest.mark.parametrize("dry_run", [False, True], ids=["apply", "dry-run"])
def test_organize_keeps_the_rows_a_snapshot_it_cannot_read_may_protect(root, mem, whole_tree, dry_run):
    snap = board(mem)
    snap.chmod(0)
    before = whole_tree()
    extra = ("--dry-run",) if dry_run else ()
    kept_for(organize_json(memboard(root, "organize", "--json", *extra, unprivileged=True)), f"sessions/{B}.md", DENIED)
    text = memboard(root, "organize", *extra, unprivileged=True)
    assert text.code == 0
    assert f"could not read: 1 — sessions/{B}.md (permission denied)" in text.out + text.err
    assert whole_tree() == before
    snap.chmod(0o644)  # readable again (only its ctime changed): read again, never taken from a record
    out = organize_json(memboard(root, "organize", "--json", *extra, unprivileged=True))
    assert out["unreadable"] == {} and out["reasons"][IDLE] == f"listed in Continues From of {B}"


def test_organize_keeps_the_rows_a_snapshot_linked_out_of_the_root_may_protect(cli, root, mem, whole_tree):
    mem.index(idle_line(IDLE), row_line(B, updated=RECENT), row_line(OVERDUE, updated=OLD))
    outside = root.parent / "elsewhere.md"
    outside.write_text(snapshot_text(B, continues=[IDLE]), encoding="utf-8")
    (root / "sessions").mkdir()
    os.symlink(outside, root / "sessions" / f"{B}.md")
    before = whole_tree()
    for extra in (("--dry-run",), ()):
        out = organize_json(cli("organize", "--json", *extra))
        kept_for(out, f"sessions/{B}.md", "it resolves outside the memory root")
        assert whole_tree() == before


def test_an_io_error_on_a_snapshot_keeps_the_rows_it_may_protect(root, mem, monkeypatch):
    board(mem)
    real_open = os.open
    target = os.path.join(str(root), "sessions", f"{B}.md")

    def failing(path, flags, *args, **kw):
        """os.open, failing with EIO for B's snapshot (a disk error, a placeholder whose download fails)."""
        if os.fspath(path) == target:
            raise OSError(errno.EIO, os.strerror(errno.EIO), path)
        return real_open(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", failing)
    plan = plan_organize(MemoryRoot(root), datetime(2026, 6, 1, 9, 30))
    assert plan.changes == []
    assert plan.result.deleted == [] and IDLE in plan.result.protected
    assert plan.result.unreadable == {f"sessions/{B}.md": os.strerror(errno.EIO)}


def zebrafish(mem: Mem) -> Path:
    """A row and its snapshot, whose Decisions alone say "zebrafish"; returns the snapshot."""
    mem.index(row_line(B, updated=RECENT))
    return mem.snapshot(B, decisions=["Pick the zebrafish parser."])


@needs_a_user
@pytest.mark.parametrize("backend", ["cache", "scan"])
def test_search_counts_a_file_it_could_not_read(root, mem, backend):
    env = {"MEMBOARD_SEARCH_NO_FTS": "1"} if backend == "scan" else {}
    zebrafish(mem).chmod(0)
    for _ in range(2):  # (the second search answers from a cache that indexed the file unreadable)
        res = memboard(root, "search", "zebrafish", unprivileged=True, env=env)
        assert res.code == 0, res.err
        assert f"1 file could not be read: sessions/{B}.md (permission denied)" in res.err
        assert B not in res.out
    as_json = memboard(root, "search", "zebrafish", "--json", unprivileged=True, env=env)
    assert json.loads(as_json.out) == [] and "1 file could not be read" in as_json.err


@needs_a_user
def test_the_search_cache_finds_a_file_readable_again_with_the_same_size_and_mtime(root, mem):
    snap = zebrafish(mem)
    aged = snap.stat().st_mtime - 60  # (a file changed within 2 s of a search is read again anyway)
    os.utime(snap, (aged, aged))
    stat = snap.stat()
    snap.chmod(0)
    assert B not in memboard(root, "search", "zebrafish", unprivileged=True).out  # the cache indexes it unreadable
    snap.chmod(0o644)  # (only its ctime changes)
    assert (snap.stat().st_size, snap.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)
    found = memboard(root, "search", "zebrafish", unprivileged=True)
    assert found.out.startswith(B) and "could not be read" not in found.err


NOTE = ["--title", "Keep CRLF", "--type", "gotcha", "--scope", "ops", "--what", "Zebrafish lines end in CRLF."]


@needs_a_user
def test_note_list_and_note_search_name_a_note_they_cannot_read(cli, root):
    assert cli("note", "save", *NOTE, "--topic-key", "ops/crlf").code == 0
    assert cli("note", "save", *NOTE[:-1], "Zebrafish too.", "--topic-key", "ops/other").code == 0
    (root / "notes" / "ops" / "crlf.md").chmod(0)
    listed = memboard(root, "note", "list", "--json", unprivileged=True)
    assert listed.code == 0, listed.err
    assert listed.err == "memboard: cannot read notes/ops/crlf.md: permission denied\n"
    views = {v["id"]: v for v in json.loads(listed.out)}
    assert set(views) == {"ops/crlf", "ops/other"}
    assert views["ops/crlf"]["problem"] == "cannot read notes/ops/crlf.md: permission denied"
    text = memboard(root, "note", "list", "--type", "decision", unprivileged=True)  # a filter cannot tell: listed
    assert text.out.startswith("!ops/crlf") and "cannot read notes/ops/crlf.md" in text.err
    found = memboard(root, "note", "search", "zebrafish", unprivileged=True)
    assert found.code == 0 and "ops/other" in found.out
    assert "1 file could not be read: notes/ops/crlf.md (permission denied)" in found.err


@needs_a_user
@pytest.mark.parametrize("backend", ["cache", "scan"])
def test_search_names_a_notes_folder_it_can_list_but_not_look_into_and_answers_from_the_rest(cli, root, backend):
    """A notes folder readable but not searchable (mode 644): its names are listed but none can be looked up, so
    what it holds is unknown; the search answers from the other notes and names the folder (it failed before)."""
    env = {"MEMBOARD_SEARCH_NO_FTS": "1"} if backend == "scan" else {}
    assert cli("note", "save", *NOTE, "--topic-key", "ops/crlf").code == 0
    assert cli("note", "save", *NOTE[:-1], "Zebrafish too.", "--topic-key", "shut/other").code == 0
    (root / "notes" / "shut").chmod(0o644)
    try:
        for _ in range(2):  # (the second search answers from the cache the first one left)
            res = memboard(root, "search", "zebrafish", unprivileged=True, env=env)
            assert res.code == 0, res.err
            assert res.out.startswith("ops/crlf") and "shut/other" not in res.out
            assert "1 file could not be read: notes/shut/ (permission denied)" in res.err
    finally:
        (root / "notes" / "shut").chmod(0o755)
    found = memboard(root, "search", "zebrafish", unprivileged=True, env=env)
    assert "shut/other" in found.out and "could not be read" not in found.err


@needs_a_user
def test_reading_commands_refuse_a_snapshot_they_cannot_read_and_the_chain_marks_it(root, mem, whole_tree):
    snap = board(mem)
    snap.chmod(0)
    before = whole_tree()
    line = f"memboard: cannot read sessions/{B}.md: permission denied\n"
    for args in (("show", B), ("update", B, "--summary", "More."), ("archive", B), ("chain", B)):
        res = memboard(root, *args, unprivileged=True)
        assert (res.code, res.err) == (1, line), args
    chain = json.loads(memboard(root, "chain", IDLE, "--json", unprivileged=True).out)
    assert [(n["id"], n["unreadable"], n["one_sided"]) for n in chain["referenced_by"]] == []
    mem.index(idle_line(IDLE, refs=B), row_line(B, updated=RECENT))
    chain = json.loads(memboard(root, "chain", IDLE, "--json", unprivileged=True).out)
    assert [(n["id"], n["unreadable"], n["one_sided"]) for n in chain["referenced_by"]] == [(B, DENIED, False)]
    doctor = memboard(root, "doctor", unprivileged=True)
    assert needing(doctor) == 1 and doctor.out.startswith(f"unreadable\t-\tsessions/{B}.md cannot be read: {DENIED};")
    fix = memboard(root, "doctor", "--fix", unprivileged=True)
    assert fix.code == 1 and fix.err.endswith("nothing written\n") and fix.err.count("\n") == 1
    assert whole_tree() == {**before, "memory/index.md": (root / "index.md").read_bytes()}
