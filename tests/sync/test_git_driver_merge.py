"""Two clones of a repository holding a memory root in one of its folders, each with memboard's merge driver
(issue 26 §5 and its "Done when"): branches that each registered rows and changed different cells merge
clean through `git merge`, `git pull --rebase` and cherry-picks (exit 0, no markers, every row once); the
same cell changed on both sides stops the merge with every row still listed, the hook failing open."""

from __future__ import annotations

import json

import pytest

from tests.support.gitclones import ROOT_IN_REPO, Clone, clone_of, git_home, needs_git, new_repository
from tests.support.hooks import claude_payload

pytestmark = needs_git
__all__ = ["git_home"]  # (a fixture these tests use)

S1, S2 = "2026-06-01-0900-s-one", "2026-06-01-0901-s-two"
NOTE = "project/cache/decision"


@pytest.fixture
def clones(tmp_path, git_home) -> tuple[Clone, Clone]:
    """Clone a and clone b of one repository: two sessions with snapshots and a note, the driver installed in
    both clones."""
    a = new_repository(tmp_path / "a")
    assert (
        a.mb(
            "register", "--manual", "--agent", "s-one", "--topic", "T1", "--summary", "S1", now="2026-06-01 09:00"
        ).code
        == 0
    )
    a.mb("register", "--manual", "--agent", "s-two", "--topic", "T2", "--summary", "S2", now="2026-06-01 09:01")
    saved = a.mb(*_note("Keep the cache in memory."), now="2026-06-01 09:02")
    assert saved.code == 0, saved.err
    assert a.mb("install-merge-driver").code == 0
    a.commit("two sessions and a note")
    b = clone_of(a, tmp_path / "b")
    assert b.mb("install-merge-driver").code == 0
    return a, b


def _note(what: str, title: str = "Cache") -> list[str]:
    """note save of the shared note with this What (and Title)."""
    return [
        "note",
        "save",
        "--title",
        title,
        "--type",
        "fact",
        "--scope",
        "project",
        "--topic-key",
        NOTE,
        "--what",
        what,
    ]


def _diverge(a: Clone, b: Clone) -> None:
    """Each clone registers a row, changes a cell of a different session and adds to the note, and commits."""
    b.mb("register", "--agent", "bee", now="2026-06-01 10:00")
    assert b.mb("update", S2, "--summary", "B changed it", now="2026-06-01 10:00").code == 0
    assert b.mb(*_note("Keep the cache in memory.\n\nB: evict after an hour."), now="2026-06-01 10:00").code == 0
    b.commit("b: a row, S2's summary, a statement")
    a.mb("register", "--agent", "aaa", now="2026-06-01 10:05")
    assert a.mb("update", S1, "--topic", "A changed it", now="2026-06-01 10:05").code == 0
    assert a.mb(*_note("Keep the cache in memory.\n\nA: size it to 1 GB."), now="2026-06-01 10:05").code == 0
    a.commit("a: a row, S1's topic, a statement")


def _clean(clone: Clone) -> None:
    """Every row of both clones listed once, each side's cell change in, both statements in the note, no marker
    anywhere and nothing left to commit."""
    rows = {row["id"]: row for row in clone.rows()}
    assert sorted(clone.ids()) == sorted([S1, S2, "2026-06-01-1000-bee", "2026-06-01-1005-aaa"])
    assert (rows[S1]["topic"], rows[S2]["summary"]) == ("A changed it", "B changed it")
    note = (clone.root / "notes" / f"{NOTE}.md").read_text(encoding="utf-8")
    assert "B: evict after an hour." in note and "A: size it to 1 GB." in note and "Keep the cache" in note
    assert clone.git("grep", "-n", "-e", "<<<<<<<", "-e", ">>>>>>>", check=False).returncode == 1  # no marker
    assert clone.git("status", "--porcelain").stdout == ""
    assert [f["kind"] for f in json.loads(clone.mb("doctor", "--json").out)] == []


def test_branches_that_each_registered_rows_and_changed_different_cells_merge_clean(clones):
    a, b = clones
    _diverge(a, b)
    pulled = a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    _clean(a)


def test_pull_rebase_merges_through_the_driver_too(clones):
    a, b = clones
    _diverge(a, b)
    pulled = a.git("pull", "--rebase", str(b.top), "main", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    _clean(a)
    assert a.git("rev-list", "--merges", "HEAD").stdout == ""  # rebased, no merge commit


def test_a_cherry_pick_merges_through_the_driver(clones):
    a, b = clones
    _diverge(a, b)
    a.git("fetch", "-q", str(b.top), "main")
    picked = a.git("cherry-pick", "FETCH_HEAD", check=False)
    assert picked.returncode == 0, picked.stdout + picked.stderr
    _clean(a)


def test_a_same_cell_conflict_stops_the_merge_with_every_row_listed_and_the_hook_failing_open(clones):
    a, b = clones
    _diverge(a, b)
    assert a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False).returncode == 0
    b.git("pull", "-q", "--no-rebase", str(a.top), "main")  # both clones hold the same commits again
    assert b.mb("update", S1, "--summary", "B's summary", now="2026-06-01 11:00").code == 0
    b.commit("b: S1's summary")
    assert a.mb("update", S1, "--summary", "A's summary", now="2026-06-01 11:00").code == 0
    a.commit("a: S1's summary")

    pulled = a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False)
    assert pulled.returncode != 0  # the merge stops for a person to decide
    assert "open cell" in pulled.stderr and "memboard resolve" in pulled.stderr
    unmerged = a.git("diff", "--name-only", "--diff-filter=U").stdout.split()
    assert unmerged == [f"{ROOT_IN_REPO}/index.md"]
    index = a.index()
    table, block = index.split("<<<<<<< ours\n")
    assert f"| {S1} | s-one | A changed it | A's summary |" in table  # the table holds ours' values
    assert "B's summary" in block and block.endswith(">>>>>>> theirs\n")
    listed = a.ids()
    assert set(listed) == {S1, S2, "2026-06-01-1000-bee", "2026-06-01-1005-aaa"}  # every row still listed
    assert all(listed.count(sid) == 1 for sid in set(listed) - {S1})
    hook = a.mb("hook", "claude", input=json.dumps(claude_payload()))
    assert hook.code == 0  # the hook fails open
    markers = json.loads(a.mb("doctor", "--json").out)[0]
    assert markers["kind"] == "index_conflict_markers" and "memboard resolve --prefer ours|theirs" in markers["message"]
    assert "memboard resolve --prefer ours|theirs" in a.mb("list").err  # the readers offer resolve too
    refused = a.mb("register", "--agent", "late")
    assert refused.code == 1 and "memboard resolve --prefer ours|theirs" in refused.err


@pytest.mark.parametrize("prefer, summary", [("theirs", "B's summary"), ("ours", "A's summary")])
def test_resolve_finishes_a_same_cell_conflict_and_the_merge_commits(clones, prefer, summary):
    a, b = clones
    _diverge(a, b)
    assert a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False).returncode == 0
    b.git("pull", "-q", "--no-rebase", str(a.top), "main")
    b.mb("update", S1, "--summary", "B's summary", now="2026-06-01 11:00")
    b.commit("b: S1's summary")
    a.mb("update", S1, "--summary", "A's summary", now="2026-06-01 11:00")
    a.commit("a: S1's summary")
    assert a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False).returncode != 0

    preview = a.mb("resolve", "--prefer", prefer, "--dry-run")
    assert preview.code == 0 and "<<<<<<< ours" in preview.out  # the patch removes the block
    assert "<<<<<<< ours" in a.index()  # a dry run writes nothing
    ran = a.mb("resolve", "--prefer", prefer)
    assert ran.code == 0, ran.err
    assert "<<<<<<<" not in a.index() and ">>>>>>>" not in a.index()
    rows = {row["id"]: row for row in a.rows()}
    assert sorted(a.ids()) == sorted([S1, S2, "2026-06-01-1000-bee", "2026-06-01-1005-aaa"])  # every row once
    assert rows[S1]["summary"] == summary and rows[S1]["topic"] == "A changed it"
    assert a.mb("resolve", "--prefer", prefer).out.strip() == "nothing to resolve"
    a.git("add", "-A")
    a.git("commit", "-q", "--no-edit")  # git's merge finishes
    assert a.git("status", "--porcelain").stdout == ""
    assert [f["kind"] for f in json.loads(a.mb("doctor", "--json").out)] == []


def test_a_topic_changed_on_both_sides_leaves_a_block_in_the_row_and_in_the_snapshot_and_resolve_decides_both(
    clones,
):
    a, b = clones
    b.mb("update", S2, "--topic", "B's topic", now="2026-06-01 11:00")
    b.commit("b: S2's topic")
    a.mb("update", S2, "--topic", "A's topic", now="2026-06-01 11:00")
    a.commit("a: S2's topic")
    pulled = a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False)
    assert pulled.returncode != 0
    snapshot = f"{ROOT_IN_REPO}/sessions/{S2}.md"
    assert sorted(a.git("diff", "--name-only", "--diff-filter=U").stdout.split()) == [
        f"{ROOT_IN_REPO}/index.md",
        snapshot,
    ]
    text = (a.top / snapshot).read_text(encoding="utf-8")
    assert "| Topic | A's topic |" in text and "| Topic | B's topic |" in text and "<<<<<<< ours" in text
    assert next(row for row in a.rows() if row["id"] == S2)["topic"] == "A's topic"  # the table's, ours
    assert a.mb("resolve", S2, "--prefer", "theirs").code == 0
    text = (a.top / snapshot).read_text(encoding="utf-8")
    assert "<<<<<<<" not in text and "| Topic | B's topic |" in text and "A's topic" not in text
    assert "<<<<<<<" not in a.index() and {row["id"]: row for row in a.rows()}[S2]["topic"] == "B's topic"
    a.git("add", "-A")
    a.git("commit", "-q", "--no-edit")
    assert [f["kind"] for f in json.loads(a.mb("doctor", "--json").out)] == []


def test_a_session_archived_on_one_clone_and_updated_on_the_other_merges_without_losing_the_update(clones):
    a, b = clones
    update = b.mb("update", S1, "--summary", "B's update", "--snapshot", "-", now="2026-06-01 10:00", input=DECIDED)
    assert update.code == 0, update.err
    b.commit("b: S1 updated")
    assert a.mb("archive", S1, now="2026-06-01 10:05").code == 0
    a.commit("a: S1 archived")
    pulled = a.git("pull", "--no-rebase", "--no-edit", str(b.top), "main", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    archived = (a.root / "archive" / S1 / "session.md").read_text(encoding="utf-8")
    assert "B decided to keep the cache." in archived  # git followed the move: b's items merged into the archive
    assert not (a.root / "sessions" / f"{S1}.md").exists()
    assert next(row for row in a.rows() if row["id"] == S1)["summary"] == "B's update"  # the row's update is kept
    assert a.git("grep", "-n", "-e", "<<<<<<<", check=False).returncode == 1
    fixed = a.mb("doctor", "--fix", now="2026-06-01 10:10")
    assert fixed.code == 0, fixed.err
    assert S1 not in a.ids()  # archived once, the update in its archive
    assert "| Summary | B's update |" in (a.root / "archive" / S1 / "index.md").read_text(encoding="utf-8")
    assert "B decided to keep the cache." in (a.root / "archive" / S1 / "session.md").read_text(encoding="utf-8")
    assert [f for f in json.loads(a.mb("doctor", "--json").out) if f["fix"]] == []


DECIDED = "## Decisions\n\n- B decided to keep the cache.\n"


def test_a_same_cell_conflict_in_a_pull_rebase_is_resolved_and_the_rebase_continues(clones, monkeypatch):
    a, b = clones
    _diverge(a, b)
    b.mb("update", S1, "--summary", "B's summary", now="2026-06-01 11:00")
    b.commit("b: S1's summary")
    a.mb("update", S1, "--summary", "A's summary", now="2026-06-01 11:00")
    a.commit("a: S1's summary")
    pulled = a.git("pull", "--rebase", str(b.top), "main", check=False)
    assert pulled.returncode != 0 and "<<<<<<< ours" in a.index()  # stopped on a's commit: ours is b's side
    assert set(a.ids()) >= {S1, S2, "2026-06-01-1000-bee", "2026-06-01-1005-aaa"}
    assert a.mb("resolve", "--prefer", "theirs").code == 0  # theirs: the commit being replayed, a's
    a.git("add", "-A")
    monkeypatch.setenv("GIT_EDITOR", "true")
    done = a.git("rebase", "--continue", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["id"]: row for row in a.rows()}
    assert sorted(a.ids()) == sorted([S1, S2, "2026-06-01-1000-bee", "2026-06-01-1005-aaa"])
    assert rows[S1]["summary"] == "A's summary" and rows[S2]["summary"] == "B changed it"
    assert a.git("status", "--porcelain").stdout == "" and a.git("rev-list", "--merges", "HEAD").stdout == ""
