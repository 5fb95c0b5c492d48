"""Two machines working offline on one root, then a sync tool's reconciliation, then `doctor --fix` (issue 26 §2).

Each machine is a copy of the root that memboard writes into (registrations, updates of a shared session); the
"sync" keeps this machine's version of each file both changed and the other's as a Syncthing copy beside it,
and copies over the files only the other machine wrote. After one `doctor --fix`: every row either machine
wrote is live exactly once, every snapshot item of both is there, each copy is kept under .memboard/conflicts/,
no copy stays in place, no finding has a fix; a second run changes nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.tree import tree

DEVICE = "LAPTOP7"


def run(cli, root: Path, *args: str, stdin: str | None = None) -> str:
    """A memboard command on root; its stdout."""
    res = cli(*args, "--root", str(root), use_root=False, input=stdin)
    assert res.code == 0, (args, res.err)
    return res.out


def registered(cli, root: Path, agent: str, topic: str) -> str:
    """register --manual on root; the new Session ID."""
    out = run(cli, root, "register", "--manual", "--agent", agent, "--topic", topic, "--summary", topic, "--json")
    return json.loads(out)["session_id"]


def sync(here: Path, there: Path) -> None:
    """Syncthing's reconciliation into here: a file both changed keeps here's bytes, there's become a copy."""
    for rel, data in tree(there).items():
        if rel.startswith(".memboard/"):
            continue
        mine = here / rel
        if not mine.exists():
            mine.parent.mkdir(parents=True, exist_ok=True)
            mine.write_bytes(data)
        elif mine.read_bytes() != data:
            stem, dot, ext = mine.name.rpartition(".")
            copy = mine.with_name(f"{stem}.sync-conflict-20260601-093000-{DEVICE}{dot}{ext}")
            copy.write_bytes(data)


def test_two_machines_offline_then_doctor_fix_keeps_everything_of_both(cli, root, tmp_path):
    shared = registered(cli, root, "claude-agent", "Shared work")
    laptop = tmp_path / "laptop"
    shutil.copytree(root, laptop)
    mine = [registered(cli, root, "cursor-desktop", f"Desktop {n}") for n in range(2)]
    theirs = [registered(cli, laptop, "cursor-laptop", f"Laptop {n}") for n in range(2)]
    run(cli, root, "update", shared, "--snapshot", "-", stdin="## Decisions\n\n- Decided on the desktop.\n")
    run(cli, laptop, "update", shared, "--snapshot", "-", stdin="## Decisions\n\n- Decided on the laptop.\n")
    sync(root, laptop)
    copies = sorted(p.relative_to(root).as_posix() for p in root.rglob(f"*{DEVICE}*"))
    assert copies and any(c.startswith("index.") for c in copies)
    kept = {c: (root / c).read_bytes() for c in copies}
    run(cli, root, "doctor", "--fix")
    ids = [r["id"] for r in json.loads(run(cli, root, "list", "--json"))]
    assert sorted(ids) == sorted([shared, *mine, *theirs])  # every row exactly once
    text = (root / "sessions" / f"{shared}.md").read_text(encoding="utf-8")
    assert "Decided on the desktop." in text and "Decided on the laptop." in text
    for rel, data in kept.items():
        assert not (root / rel).exists()
        assert (root / ".memboard" / "conflicts" / rel).read_bytes() == data
    assert [f for f in json.loads(run(cli, root, "doctor", "--json")) if f["fix"]] == []
    after = tree(root)
    assert json.loads(run(cli, root, "doctor", "--fix", "--json"))["changes"] == []
    assert tree(root) == after


def at(minute: int) -> dict[str, str]:
    """The environment of a command run at 09:<minute> on 2026-06-01 (a later command, a later Updated At)."""
    return {"MEMBOARD_NOW": f"2026-06-01 09:{minute:02d}"}


def laptop_index_arrives(cli, root: Path, laptop: Path, winner: str) -> tuple[dict, dict]:
    """The laptop's index.md reaches the desktop as Syncthing leaves it (winner's under the name, the other as a
    sync-conflict copy); doctor --fix merges it with nothing left to fix. The rows of both machines by ID."""
    copy = root / f"index.sync-conflict-20260601-094400-{DEVICE}.md"
    if winner == "desktop":  # the desktop's index.md (the row doctor wrote) stays, the laptop's is the copy
        copy.write_bytes((laptop / "index.md").read_bytes())
    else:  # the laptop's index.md replaces the desktop's, which becomes the copy
        copy.write_bytes((root / "index.md").read_bytes())
        (root / "index.md").write_bytes((laptop / "index.md").read_bytes())
    assert cli("doctor", "--fix", env=at(45)).code == 0
    found = json.loads(cli("doctor", "--json", env=at(46)).out)
    assert [f for f in found if f["kind"] == "conflict_cell" or f["fix"]] == [], found
    assert not copy.exists()
    rows = {r["id"]: r for r in json.loads(cli("list", "--json").out)}
    theirs = {r["id"]: r for r in json.loads(cli("list", "--json", "--root", str(laptop), use_root=False).out)}
    return rows, theirs


@pytest.mark.parametrize("winner", ["desktop", "laptop"])
def test_a_snapshot_synced_before_its_row_and_restored_as_an_orphan_yields_to_the_row(cli, root, tmp_path, winner):
    """The race of two machines writing while connected: the laptop's hook registers a session and two updates
    give it a snapshot and a Summary; the snapshot reaches the desktop before index.md does, and the desktop's
    `doctor --fix` restores the row from the snapshot's Metadata (its Keywords and Summary guessed). When the
    laptop's index.md arrives, it conflicts with the desktop's (either may be kept, the other a copy). The
    restored row has the real row's Updated At; the merge takes the real row's cells: no open cell, no update
    lost, the same row on both sides."""
    registered(cli, root, "claude-agent", "Shared work")
    laptop = tmp_path / "laptop"
    shutil.copytree(root, laptop)
    hooked = cli("hook", "claude", "--root", str(laptop), use_root=False, input='{"session_id": "c1"}', env=at(40))
    sid = hooked.out.split("Your Memory Session ID is: ")[1].split('"')[0]
    for minute, summary in ((41, "Laptop: first."), (42, "Laptop: second.")):
        assert cli("update", sid, "--summary", summary, "--root", str(laptop), use_root=False, env=at(minute)).code == 0
    rel = f"sessions/{sid}.md"
    (root / rel).write_bytes((laptop / rel).read_bytes())  # the snapshot arrives first
    assert cli("doctor", "--fix", env=at(43)).code == 0
    assert sid in {r["id"] for r in json.loads(cli("list", "--json").out)}  # restored from the snapshot
    rows, theirs = laptop_index_arrives(cli, root, laptop, winner)
    assert rows[sid] == theirs[sid]
    assert rows[sid]["summary"] == "Laptop: second."


@pytest.mark.parametrize("winner", ["desktop", "laptop"])
def test_a_snapshot_synced_before_its_row_and_caught_up_from_yields_to_the_row(cli, root, tmp_path, winner):
    """The same race for a session both machines know: the laptop updates its Summary (the snapshot and the row
    change), the snapshot reaches the desktop before index.md does, and the desktop's `doctor --fix` catches its
    row up from the snapshot (row_behind_snapshot: Updated At from the snapshot, the old Summary kept). When the
    laptop's index.md arrives, the two rows have one Updated At and two Summaries: the caught-up row is the
    guess and yields to the real one (the busy Syncthing test's open cell: 'update 2' against 'update 3')."""
    sid = registered(cli, root, "claude-agent", "Shared work")
    laptop = tmp_path / "laptop"
    shutil.copytree(root, laptop)
    ran = cli("update", sid, "--summary", "Laptop: later.", "--root", str(laptop), use_root=False, env=at(41))
    assert ran.code == 0, ran.err
    rel = f"sessions/{sid}.md"
    (root / rel).write_bytes((laptop / rel).read_bytes())  # the snapshot arrives first
    found = json.loads(cli("doctor", "--json", env=at(42)).out)
    assert [f["kind"] for f in found] == ["row_behind_snapshot"], found  # (the race this test is about)
    assert cli("doctor", "--fix", env=at(43)).code == 0
    rows, theirs = laptop_index_arrives(cli, root, laptop, winner)
    assert rows[sid] == theirs[sid]
    assert rows[sid]["summary"] == "Laptop: later."
