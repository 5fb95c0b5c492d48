"""`memboard resolve [ID] --prefer ours|theirs`: deciding what `doctor --fix` left open (issue 26 §2).

A cell changed on both machines in the same minute is left open by the merge (the copy stays in place);
resolve decides it with this machine's value (ours) or the copy's (theirs), then keeps the copy under
.memboard/conflicts/ as every merged copy.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.doctor import doctor_findings, needing
from tests.support.roots import Mem, index_text, row_line
from tests.support.tree import tree

A = "2026-05-31-0900-claude-agent"
B = "2026-05-31-0930-cursor-main-agent"
COPY = "index.sync-conflict-20260531-101500-ABCDEF7.md"
KEPT = f".memboard/conflicts/{COPY}"


def write(root: Path, rel: str, text: str) -> None:
    """Write a file of the root (its folders made)."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def open_cells(root: Path) -> None:
    """Summary of A and of B changed on both machines in the same minute; the copy also holds nothing else."""
    for sid in (A, B):
        Mem(root).snapshot(sid)
    Mem(root).index(row_line(A, summary="Desktop A."), row_line(B, summary="Desktop B."))
    write(root, COPY, index_text([row_line(A, summary="Laptop A."), row_line(B, summary="Laptop B.")]))


def cells(cli) -> list[tuple[str, str]]:
    """The open cells doctor names: (id, column)."""
    return [(f["id"], f["column"]) for f in doctor_findings(cli("doctor", "--json")) if f["kind"] == "conflict_cell"]


def test_prefer_theirs_takes_the_copy_s_values_and_keeps_the_copy(cli, root):
    open_cells(root)
    copy = (root / COPY).read_bytes()
    assert cells(cli) == [(A, "Summary"), (B, "Summary")]
    res = cli("resolve", "--prefer", "theirs")
    assert res.code == 0, res.err
    assert (root / "index.md").read_text(encoding="utf-8") == index_text(
        [row_line(A, summary="Laptop A."), row_line(B, summary="Laptop B.")]
    )
    assert not (root / COPY).exists() and (root / KEPT).read_bytes() == copy
    assert cells(cli) == []


def test_prefer_ours_keeps_this_machine_s_values(cli, root):
    open_cells(root)
    before = (root / "index.md").read_bytes()
    res = cli("resolve", "--prefer", "ours", "--json")
    assert res.code == 0, res.err
    out = json.loads(res.out)
    assert out["prefer"] == "ours" and out["changes"] == [f"move {COPY} -> {KEPT}"]
    assert [(d["id"], d["column"], d["path"]) for d in out["decided"]] == [(A, "Summary", COPY), (B, "Summary", COPY)]
    assert (root / "index.md").read_bytes() == before
    assert not (root / COPY).exists()


def test_one_id_decides_that_session_s_cells_alone_the_copy_stays_for_the_rest(cli, root):
    open_cells(root)
    res = cli("resolve", A, "--prefer", "theirs")
    assert res.code == 0, res.err
    text = (root / "index.md").read_text(encoding="utf-8")
    assert row_line(A, summary="Laptop A.") in text and row_line(B, summary="Desktop B.") in text
    assert (root / COPY).exists()
    assert cells(cli) == [(B, "Summary")]
    assert cli("resolve", B, "--prefer", "ours").code == 0
    assert cells(cli) == [] and not (root / COPY).exists()


def test_an_open_note_title_is_resolved_by_the_note_s_id(cli, root):
    key = "project/decision/db"
    save = ["note", "save", "--topic-key", key, "--title", "Pick the database", "--type", "decision"]
    assert cli(*save, "--scope", "project", "--what", "- PostgreSQL.").code == 0
    original = root / "notes" / f"{key}.md"
    copy = original.with_name("db.sync-conflict-20260531-101500-ABCDEF7.md")
    copy.write_text(original.read_text(encoding="utf-8").replace("Pick the database", "Choose a database"), "utf-8")
    assert needing(cli("doctor", "--fix")) == 2  # the open title, and the copy that stays for resolve
    assert cells(cli) == [(key, "Title")] and copy.exists()
    res = cli("resolve", key, "--prefer", "theirs")
    assert res.code == 0, res.err
    assert "Choose a database" in original.read_text(encoding="utf-8")
    assert not copy.exists() and cells(cli) == []


def test_a_dry_run_prints_the_patch_and_writes_nothing(cli, root, tmp_path):
    open_cells(root)
    real = tmp_path / "real"
    shutil.copytree(root, real)
    before = tree(root)
    dry = cli("resolve", "--prefer", "theirs", "--dry-run")
    assert dry.code == 0, dry.err
    assert tree(root) == before
    assert f"rename from {COPY}\nrename to {KEPT}\n" in dry.out and "+| " + A in dry.out
    assert cli("resolve", "--prefer", "theirs", "--root", str(real), use_root=False).code == 0
    if shutil.which("git"):
        git = ["git", "-c", "core.autocrlf=false", "apply", "--whitespace=nowarn", "-"]
        assert subprocess.run(["git", "init", "-q"], cwd=root).returncode == 0
        applied = subprocess.run(git, cwd=root, input=dry.out.encode(), capture_output=True)
        assert applied.returncode == 0, applied.stderr
        assert tree(root, skip=(".git",)) == tree(real)


def test_nothing_open_is_nothing_to_resolve(cli, root):
    Mem(root).snapshot(A)
    Mem(root).index(row_line(A))
    res = cli("resolve", "--prefer", "ours")
    assert (res.code, res.out.strip()) == (0, "nothing to resolve")
    res = cli("resolve", A, "--prefer", "theirs")
    assert (res.code, res.out.strip()) == (0, "nothing to resolve")


@pytest.mark.parametrize(
    "argv",
    [["resolve", "2026-01-01-0000-nobody-here", "--prefer", "ours"], ["resolve"], ["resolve", "--prefer", "mine"]],
    ids=["unknown-id", "no-prefer", "bad-prefer"],
)
def test_bad_usage_exits_2(cli, root, argv):
    open_cells(root)
    before = tree(root)
    res = cli(*argv)
    assert res.code == 2 and res.err.strip()
    assert tree(root) == before


@pytest.mark.parametrize("step", [1, 2, 3])
def test_a_crash_between_resolve_s_steps_is_finished_by_the_next_run(cli, root, tmp_path, step):
    open_cells(root)
    write(root, "index.sync-conflict-20260531-101600-BCDEFG8.md", index_text([row_line(A, summary="Third A.")]))
    whole = tmp_path / "whole"
    shutil.copytree(root, whole)
    assert cli("resolve", "--prefer", "theirs", "--root", str(whole), use_root=False).code == 0
    crashed = cli("resolve", "--prefer", "theirs", env={"FAULT_AFTER_STEP": str(step), "FAULT_MODE": "kill"})
    assert crashed.code == 137
    res = cli("resolve", "--prefer", "theirs")
    assert res.code == 0, res.err
    assert tree(root) == tree(whole)
    again = cli("resolve", "--prefer", "theirs")
    assert (again.code, again.out.strip()) == (0, "nothing to resolve")
    assert tree(root) == tree(whole)
