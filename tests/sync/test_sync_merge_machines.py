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
