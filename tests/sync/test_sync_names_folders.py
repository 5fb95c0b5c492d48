"""A freshly shared folder: what a sync tool puts in it (Syncthing's `.stfolder` and `.stignore`, Dropbox's
`.dropbox`) does not make it someone else's folder. A new machine registers there, and doctor checks it."""

from __future__ import annotations

import json

import pytest

from tests.support.tree import tree

MARKERS = [(".stfolder", "dir"), (".stignore", "file"), (".dropbox", "file"), (".stfolder", "file")]


def shared_folder(tmp_path, markers: list[tuple[str, str]]):
    """An empty folder holding only the sync tools' markers given."""
    folder = tmp_path / "shared"
    folder.mkdir()
    for name, kind in markers:
        if kind == "dir":
            (folder / name).mkdir()
        else:
            (folder / name).write_text("// synced\n" if name == ".stignore" else "", encoding="utf-8")
    return folder


@pytest.mark.parametrize("name,kind", MARKERS, ids=[f"{n}-{k}" for n, k in MARKERS])
def test_a_new_machine_registers_into_a_freshly_shared_folder(cli, tmp_path, name, kind):
    folder = shared_folder(tmp_path, [(name, kind)])
    res = cli("register", "--root", str(folder), use_root=False)
    assert res.code == 0, res.err
    assert "Your Memory Session ID is:" in res.out and (folder / "index.md").is_file()
    assert (folder / name).exists()  # the tool's marker stays where it was


def test_every_marker_together_is_still_an_empty_folder(cli, tmp_path):
    folder = shared_folder(tmp_path, [(".stfolder", "dir"), (".stignore", "file"), (".dropbox", "file")])
    doctor = cli("doctor", "--json", "--root", str(folder), use_root=False)
    assert (doctor.code, json.loads(doctor.out)) == (0, [])
    assert "not a memory root" not in doctor.out + doctor.err
    assert cli("register", "--manual", "--topic", "t", "--root", str(folder), use_root=False).code == 0


def test_a_folder_with_other_files_beside_the_markers_is_still_refused(cli, tmp_path):
    folder = shared_folder(tmp_path, [(".stfolder", "dir")])
    (folder / "README.md").write_text("# mine\n", encoding="utf-8")
    before = tree(folder, folders=True)
    res = cli("register", "--root", str(folder), use_root=False)
    assert res.code == 2 and "is not a memory root" in res.err and "README.md" in res.err
    assert tree(folder, folders=True) == before
    doctor = cli("doctor", "--json", "--root", str(folder), use_root=False)
    assert [f["kind"] for f in json.loads(doctor.out)] == ["not_a_memory_root"]


def test_a_name_close_to_a_marker_is_someone_else_s_file(cli, tmp_path):
    folder = shared_folder(tmp_path, [(".stfolder.bak", "file")])
    assert cli("register", "--root", str(folder), use_root=False).code == 2
