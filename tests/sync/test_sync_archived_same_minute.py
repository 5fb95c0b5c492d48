"""Archived on one machine, updated on the other in the same minute (issue 26 §2): what no time decides is open.

The laptop updates a session and archives it at 09:10; the desktop updates it at 09:10 too, with another Topic
and Summary. After the sync one index.md is a copy (either machine's may keep the name) and the desktop's
snapshot is live again beside the archive. No Updated At is later, so the differing Topic and Summary are open
cells: `doctor --fix` merges every item into the archive and leaves them to `resolve`, whose answer keeps the
session archived with the archive's values (ours) or the update's (theirs). Every line either machine wrote
stays visible; two machines resolving the same files write the same bytes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.doctor import needing, went_through
from tests.support.gitclones import clone_of, git_home, needs_git, new_repository
from tests.support.tree import tree

from .test_sync_merge_machines import DEVICE, sync

NOW = {"MEMBOARD_NOW": "2026-06-01 09:10"}
EARLIER = {"MEMBOARD_NOW": "2026-06-01 09:00"}
__all__ = ["git_home"]  # (a fixture the git test uses)
COPY = f"index.sync-conflict-20260601-093000-{DEVICE}.md"


def on(cli, root: Path, *args: str, stdin: str | None = None) -> str:
    """A command on root at 09:10; its stdout (exit 0, or doctor's exit 1 when findings need attention)."""
    res = cli(*args, "--root", str(root), use_root=False, input=stdin, env=NOW)
    assert went_through(res, args), (args, res.err)
    return res.out


def findings(cli, root: Path) -> list[dict]:
    """doctor --json on root."""
    return json.loads(on(cli, root, "doctor", "--json"))


def changed(cli, root: Path, sid: str, machine: str) -> None:
    """The session's Topic, Summary and a decision changed on one machine at 09:10."""
    snapshot = f"## Decisions\n\n- Decided on the {machine.lower()}.\n"
    topic, summary = f"{machine} topic", f"{machine} summary."
    on(cli, root, "update", sid, "--topic", topic, "--summary", summary, "--snapshot", "-", stdin=snapshot)


def archived_there_updated_here(cli, root: Path, tmp_path: Path, row_live: bool) -> tuple[str, Path]:
    """The session both machines changed at 09:10, archived on the laptop; the laptop's files synced into root
    (the desktop) with the desktop's index.md kept under its name (row_live) or the laptop's."""
    res = cli("register", "--manual", "--agent", "claude-agent", "--topic", "Work", "--json", env=EARLIER)
    sid = json.loads(res.out)["session_id"]
    laptop = tmp_path / "laptop"
    shutil.copytree(root, laptop)
    changed(cli, root, sid, "Desktop")
    changed(cli, laptop, sid, "Laptop")
    on(cli, laptop, "archive", sid)
    if row_live:
        sync(root, laptop)  # the desktop's index.md keeps the name, the laptop's is the copy
    else:
        desktop_index = (root / "index.md").read_bytes()
        sync(root, laptop)
        (root / "index.md").write_bytes((laptop / "index.md").read_bytes())
        (root / COPY).write_bytes(desktop_index)
    assert (root / "sessions" / f"{sid}.md").is_file() and (root / "archive" / sid / "session.md").is_file()
    return sid, laptop


@pytest.mark.parametrize("row_live", [True, False], ids=["row-live", "row-in-copy"])
def test_doctor_names_the_open_cells_and_what_to_run_and_keeps_every_line(cli, root, tmp_path, row_live):
    sid, _ = archived_there_updated_here(cli, root, tmp_path, row_live)
    on(cli, root, "doctor", "--fix")
    found = findings(cli, root)
    cells = sorted((f["column"], f["id"], f["fix"]) for f in found if f["kind"] == "conflict_cell")
    assert cells == [("Summary", sid, None), ("Topic", sid, None)], found
    topic = next(f for f in found if f["kind"] == "conflict_cell" and f["column"] == "Topic")
    assert "'Laptop topic'" in topic["message"] and "'Desktop topic'" in topic["message"]
    said = [f for f in found if f["kind"] in ("half_archived", "archived_and_live", "archived_and_updated")]
    assert said and all(f"memboard resolve {sid} --prefer" in f["message"] for f in said), said
    archive = (root / "archive" / sid / "session.md").read_text(encoding="utf-8")
    assert "Decided on the laptop." in archive and "Decided on the desktop." in archive  # every item merged
    # the update's values stay visible until resolve decides: the live snapshot, and the row (live or in the copy)
    assert "Desktop topic" in (root / "sessions" / f"{sid}.md").read_text(encoding="utf-8")
    holder = root / ("index.md" if row_live else COPY)
    assert "Desktop summary." in holder.read_text(encoding="utf-8")
    assert json.loads(on(cli, root, "doctor", "--fix", "--json"))["changes"] == []  # a second run changes nothing


@pytest.mark.parametrize("row_live", [True, False], ids=["row-live", "row-in-copy"])
@pytest.mark.parametrize("prefer", ["ours", "theirs"])
def test_resolve_keeps_the_session_archived_with_the_chosen_values(cli, root, tmp_path, row_live, prefer):
    sid, _ = archived_there_updated_here(cli, root, tmp_path, row_live)
    on(cli, root, "doctor", "--fix")
    live = (root / "sessions" / f"{sid}.md").read_bytes()
    preview = on(cli, root, "resolve", sid, "--prefer", prefer, "--dry-run")
    assert f"rename from sessions/{sid}.md\nrename to .memboard/conflicts/sessions/{sid}.md" in preview
    assert (f"+++ b/archive/{sid}/index.md" in preview) == (prefer == "theirs")  # ours: the archive's values stay
    out = json.loads(on(cli, root, "resolve", sid, "--prefer", prefer, "--json"))
    assert sorted(d["column"] for d in out["decided"]) == ["Summary", "Topic"], out
    topic, summary = ("Laptop topic", "Laptop summary.") if prefer == "ours" else ("Desktop topic", "Desktop summary.")
    meta = (root / "archive" / sid / "index.md").read_text(encoding="utf-8")
    assert f"| Topic | {topic} |" in meta and f"| Summary | {summary} |" in meta
    archive = (root / "archive" / sid / "session.md").read_text(encoding="utf-8")
    assert f"| Topic | {topic} |" in archive
    assert "Decided on the laptop." in archive and "Decided on the desktop." in archive
    assert "Desktop summary." in archive and "Laptop summary." in archive  # (both Summaries, in Current Context)
    assert not (root / "sessions" / f"{sid}.md").exists() and sid not in (root / "index.md").read_text("utf-8")
    assert (root / ".memboard" / "conflicts" / "sessions" / f"{sid}.md").read_bytes() == live  # its bytes kept
    assert not list(root.glob("index.sync-conflict-*"))
    left = [f for f in findings(cli, root) if f["fix"] or f["kind"] in ("conflict_cell", "half_archived")]
    assert [f for f in left if f["kind"] != "preserved_copies"] == []
    assert [f for f in findings(cli, root) if f["kind"] == "archived_and_live"] == []
    assert json.loads(on(cli, root, "doctor", "--fix", "--json"))["changes"] == []


def test_two_machines_resolving_the_same_files_write_the_same_bytes(cli, root, tmp_path):
    sid, _ = archived_there_updated_here(cli, root, tmp_path, row_live=True)
    other = tmp_path / "other"
    shutil.copytree(root, other, ignore=shutil.ignore_patterns(".memboard"))
    for one in (root, other):
        on(cli, one, "doctor", "--fix")
        on(cli, one, "resolve", "--prefer", "theirs")
        assert not (one / "sessions" / f"{sid}.md").exists()  # archived once, on both
    skip = (".memboard/state", ".memboard/cache")
    assert {k: v for k, v in tree(root).items() if not k.startswith(skip)} == {
        k: v for k, v in tree(other).items() if not k.startswith(skip)
    }


# -- through real git: two clones, the merge driver installed in both ----------------------------------------------


@needs_git
@pytest.mark.parametrize("prefer", ["ours", "theirs"])
def test_through_git_archived_on_one_clone_updated_on_the_other_in_the_same_minute(tmp_path, git_home, prefer):
    a = new_repository(tmp_path / "a")
    assert (
        a.mb("register", "--manual", "--agent", "claude-agent", "--topic", "Work", now=EARLIER["MEMBOARD_NOW"]).code
        == 0
    )
    assert a.mb("install-merge-driver").code == 0
    a.commit("a session")
    sid = a.ids()[0]
    b = clone_of(a, tmp_path / "b")
    assert b.mb("install-merge-driver").code == 0
    for clone, machine in ((b, "Desktop"), (a, "Laptop")):
        snapshot = f"## Decisions\n\n- Decided on the {machine.lower()}.\n"
        topic, summary = f"{machine} topic", f"{machine} summary."
        ran = clone.mb(
            "update",
            sid,
            "--topic",
            topic,
            "--summary",
            summary,
            "--snapshot",
            "-",
            now=NOW["MEMBOARD_NOW"],
            input=snapshot,
        )
        assert ran.code == 0, ran.err
    b.commit("b: updated")
    assert a.mb("archive", sid, now=NOW["MEMBOARD_NOW"]).code == 0
    a.commit("a: updated and archived")
    a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False)
    assert needing(a.mb("doctor", "--fix", now="2026-06-01 09:20")) > 0  # the open cells, left to resolve
    cells = [f for f in json.loads(a.mb("doctor", "--json").out) if f["kind"] == "conflict_cell"]
    assert "Desktop summary." in " ".join(f["message"] for f in cells), cells  # open, not finished over
    assert [row["summary"] for row in a.rows() if row["id"] == sid] == ["Desktop summary."]  # still listed
    for step in (("resolve", "--prefer", prefer), ("doctor", "--fix")):
        ran = a.mb(*step, now="2026-06-01 09:20")
        assert ran.code == 0, (step, ran.err)
    topic, summary = ("Laptop topic", "Laptop summary.") if prefer == "ours" else ("Desktop topic", "Desktop summary.")
    meta = (a.root / "archive" / sid / "index.md").read_text(encoding="utf-8")
    assert f"| Topic | {topic} |" in meta and f"| Summary | {summary} |" in meta, meta
    archive = (a.root / "archive" / sid / "session.md").read_text(encoding="utf-8")
    assert "Decided on the laptop." in archive and "Decided on the desktop." in archive
    assert f"| Topic | {topic} |" in archive and "<<<<<<<" not in archive
    assert sid not in a.ids() and not (a.root / "sessions" / f"{sid}.md").exists()  # archived once
    assert [f for f in json.loads(a.mb("doctor", "--json").out) if f["fix"] or f["kind"] == "conflict_cell"] == []
    a.commit("a: merged")
    assert a.git("status", "--porcelain").stdout == ""


def test_a_kept_snapshot_of_that_name_with_other_bytes_keeps_the_live_one_beside_it(cli, root, tmp_path):
    sid, _ = archived_there_updated_here(cli, root, tmp_path, row_live=True)
    on(cli, root, "doctor", "--fix")
    live = (root / "sessions" / f"{sid}.md").read_bytes()
    kept = root / ".memboard" / "conflicts" / "sessions"
    kept.mkdir(parents=True)
    (kept / f"{sid}.md").write_bytes(b"an earlier kept snapshot\n")
    on(cli, root, "resolve", sid, "--prefer", "theirs")
    assert (kept / f"{sid}.md").read_bytes() == b"an earlier kept snapshot\n"  # never overwritten
    assert (kept / f"{sid}.2.md").read_bytes() == live  # the live snapshot's bytes, under a free name beside it
    assert not (root / "sessions" / f"{sid}.md").exists()
