"""`memboard doctor --fix` merges sync-conflict copies into their originals (issue 26 §2, §3).

From the outside: a root as two machines and a sync tool leave it (an original and its copies), then
`doctor --fix` (and its `--dry-run`, `--json`); what is asserted is the files after it, byte for byte.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.doctor import doctor_findings, fix_report, needing
from tests.support.roots import Mem, index_text, row_line, snapshot_text
from tests.support.tree import tree

A = "2026-05-31-0900-claude-agent"
B = "2026-05-31-0930-cursor-main-agent"
C = "2026-05-31-1000-codex-agent"
SYNC = "sync-conflict-20260531-101500-ABCDEF7"
SYNC2 = "sync-conflict-20260531-101600-BCDEFG8"
COPY = f"index.{SYNC}.md"
COPY2 = f"index.{SYNC2}.md"
KEPT = f".memboard/conflicts/{COPY}"


def write(root: Path, rel: str, text: str) -> None:
    """Write a file of the root (its folders made)."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def files(root: Path) -> dict[str, bytes]:
    """Every file of the root, by relative path (the copies kept under .memboard/conflicts/ included)."""
    return tree(root, skip=(".git",))


def doctor_json(cli, *args: str) -> dict | list:
    """doctor [ARGS] --json, parsed."""
    res = cli("doctor", *args, "--json")
    return fix_report(res) if "--fix" in args else doctor_findings(res)


def fixable(cli) -> list[dict]:
    """The findings doctor would still fix."""
    return [f for f in doctor_json(cli) if f["fix"]]


def snaps(root: Path, *ids: str) -> None:
    """A snapshot for each session (an active row has one)."""
    for sid in ids:
        if not Mem(root).has_snap(sid):
            Mem(root).snapshot(sid)


def two_machines(root: Path) -> None:
    """This machine's index.md holds A; the copy Syncthing kept holds A and B (registered on the other machine,
    whose snapshot synced without a conflict)."""
    snaps(root, A, B)
    Mem(root).index(row_line(A))
    write(root, COPY, index_text([row_line(A), row_line(B, summary="Laptop work.")]))


def test_a_row_only_in_the_copy_is_merged_byte_for_byte_and_the_copy_kept_under_conflicts(cli, root):
    two_machines(root)
    copy = (root / COPY).read_bytes()
    found = doctor_json(cli)
    assert [(f["kind"], f["fix"]) for f in found] == [
        ("sync_conflict_copy", f"merge into index.md: +1 row; keep the copy as {KEPT}")
    ]
    res = cli("doctor", "--fix")
    assert res.code == 0, res.err
    assert (root / "index.md").read_text(encoding="utf-8") == index_text(
        [row_line(A), row_line(B, summary="Laptop work.")]
    )
    assert not (root / COPY).exists()
    assert (root / KEPT).read_bytes() == copy  # byte for byte
    assert fixable(cli) == []
    assert [r["id"] for r in json.loads(cli("list", "--json").out)] == [A, B]


def test_json_lists_the_steps_the_merge_first_the_move_last(cli, root):
    two_machines(root)
    out = doctor_json(cli, "--fix", "--dry-run")
    assert out["changes"] == ["modify index.md", f"move {COPY} -> {KEPT}"]
    assert (root / COPY).exists() and not (root / ".memboard").exists()  # a dry run writes nothing
    out = doctor_json(cli, "--fix")
    assert out["dry_run"] is False and out["changes"] == ["modify index.md", f"move {COPY} -> {KEPT}"]


def test_a_second_run_changes_nothing(cli, root):
    two_machines(root)
    assert cli("doctor", "--fix").code == 0
    after = files(root)
    assert doctor_json(cli, "--fix")["changes"] == []
    assert files(root) == after


def test_two_merges_of_the_same_copies_write_identical_bytes(cli, root, tmp_path):
    """No time, machine or local state enters the merged bytes: two machines merging the same copies agree."""
    two_machines(root)
    other = tmp_path / "other"
    shutil.copytree(root, other)
    assert cli("doctor", "--fix").code == 0
    res = cli("doctor", "--fix", "--root", str(other), use_root=False)
    assert res.code == 0, res.err
    assert files(root) == files(other)


def test_several_copies_fold_in_one_at_a_time_in_name_order(cli, root):
    snaps(root, A, B, C)
    Mem(root).index(row_line(A))
    write(root, COPY2, index_text([row_line(A), row_line(C)]))
    write(root, COPY, index_text([row_line(A), row_line(B)]))
    out = doctor_json(cli, "--fix")
    assert out["changes"] == [
        "modify index.md",
        "modify index.md",
        f"move {COPY} -> {KEPT}",
        f"move {COPY2} -> .memboard/conflicts/{COPY2}",
    ]
    assert (root / "index.md").read_text(encoding="utf-8") == index_text([row_line(A), row_line(B), row_line(C)])


def test_a_copy_the_original_already_holds_only_moves(cli, root):
    snaps(root, A, B)
    Mem(root).index(row_line(A), row_line(B))
    write(root, COPY, index_text([row_line(A)]))
    before = (root / "index.md").read_bytes()
    found = doctor_json(cli)
    assert found[0]["fix"] == f"index.md holds all of it already; keep the copy as {KEPT}"
    assert doctor_json(cli, "--fix")["changes"] == [f"move {COPY} -> {KEPT}"]
    assert (root / "index.md").read_bytes() == before


def test_a_copy_whose_bytes_are_kept_already_is_deleted(cli, root):
    two_machines(root)
    write(root, KEPT, (root / COPY).read_text(encoding="utf-8"))
    found = doctor_json(cli)
    assert found[0]["fix"] == f"merge into index.md: +1 row; {KEPT} holds its bytes already: delete the copy"
    assert doctor_json(cli, "--fix")["changes"] == ["modify index.md", f"delete {COPY}"]
    assert not (root / COPY).exists() and (root / KEPT).exists()


def test_a_row_a_copy_holds_is_merged_never_restored_as_an_orphan(cli, root):
    """The other machine registered B and wrote its snapshot: the snapshot synced, its row only in the copy."""
    two_machines(root)
    kinds = [f["kind"] for f in doctor_json(cli)]
    assert "orphan_snapshot" not in kinds
    assert cli("doctor", "--fix").code == 0
    assert row_line(B, summary="Laptop work.") in (root / "index.md").read_text(encoding="utf-8")  # not from Metadata
    assert fixable(cli) == []


def test_a_snapshot_copy_keeps_every_item_of_both(cli, root):
    Mem(root).index(row_line(A))
    Mem(root).snapshot(A, decisions=["Decided on the desktop."])
    copy = f"sessions/{A}.{SYNC}.md"
    write(root, copy, snapshot_text(A, decisions=["Decided on the laptop."]))
    assert cli("doctor", "--fix").code == 0, cli("doctor", "--json").out
    text = Mem(root).snap(A)
    assert "- Decided on the desktop." in text and "- Decided on the laptop." in text
    assert not (root / copy).exists() and (root / ".memboard/conflicts" / copy).exists()
    assert fixable(cli) == []


def test_a_note_copy_keeps_every_statement_of_both(cli, root):
    key = "project/decision/db"
    save = ["note", "save", "--topic-key", key, "--title", "Pick the database", "--type", "decision"]
    assert cli(*save, "--scope", "project", "--what", "- PostgreSQL.").code == 0
    original = root / "notes" / f"{key}.md"
    copy = original.with_name(f"db.{SYNC}.md")
    copy.write_text(original.read_text(encoding="utf-8").replace("- PostgreSQL.", "- SQLite for tests."), "utf-8")
    assert cli("doctor", "--fix").code == 0
    text = original.read_text(encoding="utf-8")
    assert "PostgreSQL." in text and "SQLite for tests." in text
    assert not copy.exists() and (root / ".memboard/conflicts/notes/project/decision" / copy.name).exists()
    assert fixable(cli) == []


def test_a_copy_without_its_original_restores_it(cli, root):
    """rclone bisync renames both sides: index.md is gone, its copies hold the rows."""
    snaps(root, A, B)
    write(root, COPY, index_text([row_line(A)]))
    write(root, COPY2, index_text([row_line(B)]))
    out = doctor_json(cli, "--fix")
    assert out["changes"][:2] == ["create index.md", "modify index.md"]
    assert (root / "index.md").read_text(encoding="utf-8") == index_text([row_line(A), row_line(B)])
    assert not (root / COPY).exists() and not (root / COPY2).exists()


# -- open cells, collisions ----------------------------------------------------------------------------------------


def open_cell(root: Path) -> None:
    """The same Summary of A changed on both machines in the same minute."""
    snaps(root, A, B)
    Mem(root).index(row_line(A, summary="Desktop summary."))
    write(root, COPY, index_text([row_line(A, summary="Laptop summary."), row_line(B)]))


def test_an_open_cell_is_a_finding_the_rest_merged_and_the_copy_left_in_place(cli, root):
    open_cell(root)
    first = next(f for f in doctor_json(cli) if f["kind"] == "sync_conflict_copy")
    assert first["fix"] == (
        f"merge into index.md: +1 row; 1 open cell (Summary of {A}) left to `memboard resolve`: the copy stays in place"
    )
    assert needing(cli("doctor", "--fix")) == 2  # the open cell, and the copy kept for resolve
    assert (root / "index.md").read_text(encoding="utf-8") == index_text(
        [row_line(A, summary="Desktop summary."), row_line(B)]
    )
    assert (root / COPY).exists() and not (root / KEPT).exists()
    found = doctor_json(cli)
    cells = [f for f in found if f["kind"] == "conflict_cell"]
    assert len(cells) == 1
    cell = cells[0]
    assert (cell["id"], cell["fix"], cell["path"], cell["column"]) == (A, None, COPY, "Summary")
    assert (
        "Summary" in cell["message"] and "Desktop summary." in cell["message"] and "Laptop summary." in cell["message"]
    )
    copy = next(f for f in found if f["kind"] == "sync_conflict_copy")
    assert copy["fix"] is None and f"1 open cell (Summary of {A}) left to `memboard resolve`" in copy["message"]
    assert fixable(cli) == []
    assert doctor_json(cli, "--fix")["changes"] == []  # the next run shows only the open cell


def test_the_same_session_id_for_two_sessions_is_an_id_collision_both_rows_kept(cli, root):
    snaps(root, A)
    Mem(root).index(row_line(A))
    other = row_line(A, agent="claude-agent-laptop", summary="Another conversation.")
    write(root, COPY, index_text([other]))
    found = doctor_json(cli)
    assert [(f["kind"], f["id"], f["fix"]) for f in found if f["kind"] == "id_collision"] == [("id_collision", A, None)]
    assert needing(cli("doctor", "--fix")) == 1  # two sessions under one ID: a hand decides
    text = (root / "index.md").read_text(encoding="utf-8")
    assert row_line(A) in text and other in text


# -- the preview, crashes ------------------------------------------------------------------------------------------


def git(cwd: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """git isolated from the user's and the system's configuration."""
    import os

    env = dict(os.environ, HOME=str(cwd.parent), GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, env=env, timeout=60)


def several(root: Path) -> None:
    """Copies of index.md and of a snapshot, one of them kept already."""
    two_machines(root)
    snaps(root, C)
    write(root, COPY2, index_text([row_line(C)]))
    write(root, f".memboard/conflicts/{COPY2}", index_text([row_line(C)]))
    Mem(root).snapshot(A, decisions=["Decided on the desktop."])
    write(root, f"sessions/{A}.{SYNC}.md", snapshot_text(A, decisions=["Decided on the laptop."]))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_apply_of_the_dry_run_writes_exactly_what_doctor_fix_writes(cli, root, tmp_path):
    several(root)
    real = tmp_path / "real"
    shutil.copytree(root, real)
    before = files(root)
    dry = cli("doctor", "--fix", "--dry-run")
    assert needing(dry) > 0, dry.err  # a preview repairs nothing
    assert files(root) == before
    assert f"rename from {COPY}\nrename to {KEPT}\n" in dry.out
    assert "--- a/index.md\n+++ b/index.md\n" in dry.out and f"+{row_line(B, summary='Laptop work.')}\n" in dry.out
    done = cli("doctor", "--fix", "--root", str(real), use_root=False)
    assert done.code == 0, done.err
    assert files(real) != before
    assert git(root, "init", "-q").returncode == 0
    applied = git(root, "apply", "--whitespace=nowarn", "-", stdin=dry.out.encode("utf-8"))
    assert applied.returncode == 0, applied.stderr.decode() + dry.out
    assert files(root) == files(real)


@pytest.mark.parametrize("step", [1, 2, 3, 4, 5])
def test_a_crash_after_any_step_is_finished_by_the_next_run(cli, root, tmp_path, step):
    several(root)
    whole = tmp_path / "whole"
    shutil.copytree(root, whole)
    assert cli("doctor", "--fix", "--root", str(whole), use_root=False).code == 0
    crashed = cli("doctor", "--fix", env={"FAULT_AFTER_STEP": str(step), "FAULT_MODE": "kill"})
    assert crashed.code == 137
    res = cli("doctor", "--fix")
    assert res.code == 0, res.err
    assert files(root) == files(whole)
    assert doctor_json(cli, "--fix")["changes"] == []


# -- archived on one machine, updated on the other -----------------------------------------------------------------

LATER = "2026-05-31 11:00"


def archived_here_updated_there(cli, root: Path, index_won_by_the_update: bool) -> None:
    """A archived on this machine; the other machine updated it meanwhile (a later row, a new decision); the sync
    brought its snapshot back (a modify beats a delete) and kept one index.md as a copy."""
    snaps(root, A, B)
    Mem(root).index(row_line(A), row_line(B))
    assert cli("archive", A).code == 0
    archived = (root / "index.md").read_text(encoding="utf-8")
    updated = index_text([row_line(A, summary="Updated on the laptop.", updated=LATER), row_line(B)])
    Mem(root).snapshot(A, decisions=["Use plain Markdown.", "Decided on the laptop."])
    write(root, "index.md", updated if index_won_by_the_update else archived)
    write(root, COPY, archived if index_won_by_the_update else updated)


@pytest.mark.parametrize("index_won_by_the_update", [True, False], ids=["row-live", "row-in-copy"])
def test_archived_on_one_machine_updated_on_the_other_stays_archived_with_the_update(
    cli, root, index_won_by_the_update
):
    archived_here_updated_there(cli, root, index_won_by_the_update)
    found = doctor_json(cli)
    assert "archived_and_updated" in [f["kind"] for f in found]
    assert cli("doctor", "--fix").code == 0, cli("doctor", "--json").out
    assert not (root / "sessions" / f"{A}.md").exists()
    assert A not in (root / "index.md").read_text(encoding="utf-8")
    assert "Decided on the laptop." in (root / "archive" / A / "session.md").read_text(encoding="utf-8")
    meta = (root / "archive" / A / "index.md").read_text(encoding="utf-8")
    assert "| Summary | Updated on the laptop. |" in meta and f"| Updated At | {LATER} |" in meta
    kinds = [f["kind"] for f in doctor_json(cli)]
    assert not {"half_archived", "archived_and_live", "orphan_snapshot"} & set(kinds)
    assert fixable(cli) == []
    assert doctor_json(cli, "--fix")["changes"] == []


# -- what is not merged --------------------------------------------------------------------------------------------


def test_a_copy_memboard_cannot_merge_stays_with_the_reason_and_no_fix(cli, root):
    """A copy with a column the original lacks would lose its cells: not merged, said, the copy left alone."""
    snaps(root, A)
    Mem(root).index(row_line(A))
    wide = index_text([row_line(A) + " extra |", row_line(B) + " more |"]).replace(
        "| Updated At |\n|---|", "| Updated At | Notes |\n|---|---|", 1
    )
    write(root, COPY, wide)
    before = files(root)
    found = [f for f in doctor_json(cli) if f["kind"] == "sync_conflict_copy"]
    assert found[0]["fix"] is None and "nothing is merged" in found[0]["message"]
    assert needing(cli("doctor", "--fix")) == 1  # the copy memboard cannot merge stays for a hand
    assert files(root) == before


def test_a_kept_copy_of_that_name_with_other_bytes_leaves_the_copy_in_place(cli, root):
    two_machines(root)
    write(root, KEPT, "another machine's copy under the same name\n")
    found = doctor_json(cli)
    assert found[0]["fix"] == (
        f"merge into index.md: +1 row; {KEPT} holds other bytes: the copy stays in place (keep or delete it by hand)"
    )
    res = cli("doctor", "--fix", "--json")
    assert json.loads(res.out)["changes"] == ["modify index.md"] and needing(res) == 1  # the copy is left for a hand
    assert (root / COPY).exists() and (root / KEPT).read_text(encoding="utf-8").startswith("another")
    again = next(f for f in doctor_json(cli) if f["kind"] == "sync_conflict_copy")
    assert again["fix"] is None and f"{KEPT} holds other bytes" in again["message"]
    assert doctor_json(cli, "--fix")["changes"] == []


def test_text_outside_the_table_that_differs_is_said_and_kept_in_the_kept_copy(cli, root):
    snaps(root, A, B)
    Mem(root).index(row_line(A))
    write(root, COPY, index_text([row_line(A), row_line(B)], extra="\nA note the laptop wrote below the table.\n"))
    found = doctor_json(cli)[0]
    assert "the text outside the table differs in " in found["fix"], found
    assert cli("doctor", "--fix").code == 0
    assert "A note the laptop wrote" not in (root / "index.md").read_text(encoding="utf-8")
    assert "A note the laptop wrote" in (root / KEPT).read_text(encoding="utf-8")


def test_a_failed_step_exits_1_with_one_line_and_the_next_run_finishes(cli, root, tmp_path):
    several(root)
    whole = tmp_path / "whole"
    shutil.copytree(root, whole)
    assert cli("doctor", "--fix", "--root", str(whole), use_root=False).code == 0
    res = cli("doctor", "--fix", env={"FAULT_AFTER_STEP": "2"})
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1 and "incomplete" in res.err
    assert cli("doctor", "--fix").code == 0
    assert files(root) == files(whole)
