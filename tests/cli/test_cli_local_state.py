"""memboard's own state (revisions, conversation map, hook log) lives in local state, per machine
and per root, never in the (synced) memory root; what an older memboard left in
`<root>/.memboard/` is read there and moved by `doctor --fix`: copied first, then removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.doctor import needing
from tests.support.roots import row_line, snapshot_text
from tests.support.tree import tree

A = "2026-05-30-0800-claude-agent"
B = "2026-05-31-0900-cursor-main-agent"
CONV = "8f1c2d3e-4b5a-4c6d-9e8f-0a1b2c3d4e5f"
SECRET_REV = snapshot_text(A, decisions=["Use password=hunter2 for the staging database."])
REVS = {"00000001780000000000-aaaaaaaaaaaa.md": SECRET_REV, "00000001780000000001-bbbbbbbbbbbb.md": snapshot_text(A)}


def local(root: Path) -> Path:
    """The root's local state folder."""
    from memboard.core.files.localstate import folder_of

    return folder_of(root.resolve())


@pytest.fixture
def legacy(root, mem):
    """A root as an older memboard left it: revisions, a conversation-map shard and hook logs in .memboard/."""
    from memboard.core.formats.conversations import HEADER, shard_path

    mem.index(row_line(A))
    mem.snapshot(A)
    state = root / ".memboard"
    for name, text in REVS.items():
        path = state / "revisions" / A / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    shard = state / shard_path(CONV)
    shard.parent.mkdir(parents=True)
    shard.write_bytes(HEADER + f"{CONV}\t{A}\tclaude\t2026-05-30 08:00\n".encode())
    (state / "hook.log").write_text("2026-05-30T08:00:00\tmemboard hook claude\tnewer old line\n", encoding="utf-8")
    (state / "hook.log.1").write_text("2026-05-29T08:00:00\tmemboard hook claude\toldest line\n", encoding="utf-8")
    local(root).mkdir(parents=True)
    (local(root) / "hook.log").write_text(
        "2026-06-01T09:00:00\tmemboard hook claude\tafter the upgrade\n", encoding="utf-8"
    )
    return {
        rel: data
        for rel, data in tree(root, folders=True).items()
        if rel.startswith(".memboard/") and not rel.endswith("/")
    }


def test_changes_keep_revisions_and_hook_state_out_of_the_root(cli, root, mem):
    res = cli("register", "--manual", "--topic", "T")
    sid = res.out.strip().rsplit(" ", 1)[-1]
    assert cli("update", sid, "--summary", "more").code == 0
    assert cli("hook", "claude", input=json.dumps({"session_id": CONV})).code == 0
    assert sorted(p.name for p in root.iterdir()) == ["index.md", "sessions"]
    assert len(list((local(root) / "revisions" / sid).iterdir())) == 2
    assert (local(root) / "root.txt").read_text(encoding="utf-8") == f"{root.resolve()}\n"
    assert list((local(root) / "conversations").iterdir())


def test_doctor_moves_an_older_memboards_state_into_local_state(cli, root, legacy, whole_tree):
    from memboard.core.formats.conversations import shard_path

    found = json.loads(cli("doctor", "--json").out)
    assert [f["kind"] for f in found] == ["state_in_root"]
    assert "2 snapshot revision(s), 1 conversation-map shard(s), 2 hook log file(s)" in found[0]["message"]
    assert str(local(root)) in found[0]["fix"]
    before, local_before = whole_tree(), tree(local(root), folders=True)
    dry = cli("doctor", "--fix", "--dry-run")
    assert needing(dry) == 1 and "+++ /dev/null" in dry.out  # a preview repairs nothing: still exit 1
    assert (
        whole_tree() == before and tree(local(root), folders=True) == local_before
    )  # a preview writes nothing anywhere
    res = cli("doctor", "--fix")
    assert res.code == 0, res.err
    assert not (root / ".memboard").exists()  # the emptied folders go too
    for name, text in REVS.items():
        assert (local(root) / "revisions" / A / name).read_text(encoding="utf-8") == text
    assert (
        legacy[f".memboard/{shard_path(CONV)}"].splitlines()[1]
        in (local(root) / shard_path(CONV)).read_bytes().splitlines()
    )
    assert (local(root) / "hook.log").read_text(encoding="utf-8").splitlines() == [
        "2026-05-29T08:00:00\tmemboard hook claude\toldest line",
        "2026-05-30T08:00:00\tmemboard hook claude\tnewer old line",
        "2026-06-01T09:00:00\tmemboard hook claude\tafter the upgrade",
    ]
    assert json.loads(cli("doctor", "--json").out) == []  # converged
    who = cli("whoami", "--conversation", CONV)
    assert (who.code, who.out.strip()) == (0, f"Your Memory Session ID is: {A}")


def test_revisions_an_older_memboard_kept_are_still_read(root, legacy):
    from memboard.board.loader import load_detail
    from memboard.core.files.root import MemoryRoot

    detail = load_detail(MemoryRoot(root), A)
    assert detail.revisions == list(REVS.values())  # the current snapshot equals the newest


def test_a_crash_midway_through_the_move_loses_nothing(cli, root, legacy):
    res = cli("doctor", "--fix", env={"FAULT_AFTER_STEP": "2", "FAULT_MODE": "kill"})
    assert res.code == 137
    left = {rel for rel in legacy if (root / rel).exists()}
    assert 0 < len(left) < len(legacy)
    for name, text in REVS.items():  # copied before anything left the root
        assert (local(root) / "revisions" / A / name).read_text(encoding="utf-8") == text
    assert cli("doctor", "--fix").code == 0
    assert not (root / ".memboard").exists()
    assert len((local(root) / "hook.log").read_text(encoding="utf-8").splitlines()) == 3  # merged once, not twice


def test_a_file_local_state_holds_differently_stays_in_the_root(cli, root, legacy):
    name = next(iter(REVS))
    clash = local(root) / "revisions" / A / name
    clash.parent.mkdir(parents=True)
    clash.write_text("another machine's bytes under the same name", encoding="utf-8")
    assert needing(cli("doctor", "--fix")) == 1  # the clashing file is left for a hand
    assert (root / ".memboard" / "revisions" / A / name).read_text(encoding="utf-8") == REVS[name]
    kept = [f for f in json.loads(cli("doctor", "--json").out) if f["kind"] == "state_in_root"]
    assert len(kept) == 1 and f".memboard/revisions/{A}/{name}" in kept[0]["message"] and kept[0]["fix"] is None
