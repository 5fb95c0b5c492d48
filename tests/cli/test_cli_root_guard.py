"""A memory root is a folder memboard may fill: `/`, the home folder and folders that already
hold other files (but no index.md, sessions/, archive/, notes/ or .memboard/) are refused for
every change with one line that says how to start a root; empty folders are accepted; the
hook fails open there; doctor says there is nothing to check instead of walking the folder."""

from __future__ import annotations

import json
import os

import pytest

from tests.support.doctor import needing
from tests.support.tree import tree

CHANGING = [
    ["register"],
    ["register", "--manual", "--topic", "t"],
    ["organize"],
    ["doctor", "--fix"],
    ["update", "2026-05-01-0900-cursor-main-agent", "--summary", "s"],
    ["archive", "2026-05-01-0900-cursor-main-agent"],
]


def refused_in_one_line(res) -> None:
    """The refusal contract: exit 2, one stderr line naming the problem and how to start a root."""
    assert res.code == 2, (res.code, res.out, res.err)
    assert len(res.err.strip().splitlines()) == 1, res.err
    assert "is not a memory root" in res.err and "to start a memory root" in res.err and "nothing written" in res.err
    assert "Traceback" not in res.err and "Your Memory Session ID" not in res.out


@pytest.mark.parametrize("argv", CHANGING, ids=lambda a: "-".join(a[:2]))
def test_a_folder_holding_other_files_is_refused_for_changes(cli, tmp_path, argv):
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "README.md").write_text("# my project\n", encoding="utf-8")
    before = tree(project, folders=True)
    res = cli(*argv, "--root", str(project), use_root=False)
    refused_in_one_line(res)
    assert "README.md" in res.err or "src" in res.err
    assert tree(project, folders=True) == before


@pytest.mark.parametrize("argv", CHANGING, ids=lambda a: "-".join(a[:2]))
def test_the_home_folder_is_refused_even_with_a_notes_folder(cli, tmp_path, argv):
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)  # a home folder may well hold a notes/ folder
    (home / ".bashrc").write_text("export X=1\n", encoding="utf-8")
    before = tree(home, folders=True)
    res = cli(*argv, "--root", "~", use_root=False, env={"HOME": str(home), "USERPROFILE": str(home)})
    refused_in_one_line(res)
    assert "home folder" in res.err
    assert tree(home, folders=True) == before


def test_the_filesystem_root_is_refused_even_for_a_dry_run(cli):
    res = cli("register", "--dry-run", "--root", "/", use_root=False)
    refused_in_one_line(res)
    assert "filesystem root" in res.err and res.out == ""


def test_only_foreign_folders_are_refused_empty_ones_and_roots_in_use_are_accepted(cli, tmp_path):
    foreign = tmp_path / "downloads"
    foreign.mkdir()
    (foreign / "invoice.pdf").write_bytes(b"%PDF")
    refused_in_one_line(cli("register", "--root", str(foreign), use_root=False))
    empty = tmp_path / "fresh"
    empty.mkdir()
    (empty / ".DS_Store").write_bytes(b"\x00\x00")  # what Finder drops into any folder it opens
    res = cli("register", "--root", str(empty), use_root=False)
    assert res.code == 0 and "Your Memory Session ID is:" in res.out, res.err
    for marker in ("sessions", "archive", "notes", ".memboard"):
        used = tmp_path / f"in-use-{marker.strip('.')}"
        (used / marker).mkdir(parents=True)
        (used / "README.md").write_text("about this memory\n", encoding="utf-8")
        res = cli("register", "--root", str(used), use_root=False)
        assert res.code == 0, (marker, res.err)


def test_the_hook_fails_open_in_a_foreign_folder_and_writes_nothing_there(cli, tmp_path, state_dir_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "main.py").write_text("print('hi')\n", encoding="utf-8")
    before = tree(project, folders=True)
    payload = json.dumps({"session_id": "abc", "hook_event_name": "SessionStart"}).encode()
    res = cli("hook", "claude", "--root", str(project), input=payload, use_root=False)
    assert (res.code, res.out, res.err) == (0, "", "")
    assert tree(project, folders=True) == before  # not even a .memboard/hook.log
    log = (state_dir_path / "hook.log").read_text(encoding="utf-8").splitlines()
    assert len(log) == 1 and "is not a memory root" in log[0]


def test_doctor_says_there_is_nothing_to_check_instead_of_walking_the_folder(cli, tmp_path):
    project = tmp_path / "project"
    (project / "deep").mkdir(parents=True)
    (project / "deep" / ".index.md.x1.memboard-tmp").write_bytes(b"someone else's file")
    res = cli("doctor", "--root", str(project), use_root=False)
    assert needing(res) == 1  # the root given needs a look: it is none
    assert "not_a_memory_root" in res.out and "nothing to check" in res.out and "stray_temp" not in res.out
    res = cli("doctor", "--json", "--root", str(project), use_root=False)
    assert [f["kind"] for f in json.loads(res.out)] == ["not_a_memory_root"]


@pytest.fixture
def state_dir_path():
    """The isolated local state folder of this test."""
    from pathlib import Path

    return Path(os.environ["MEMBOARD_STATE_DIR"])
