"""A write whose folder is a file says which file is in the way (the OS says only "File exists" or "Not a
directory"), and writes nothing."""

from __future__ import annotations


def test_a_manual_registration_where_sessions_is_a_file_names_it(cli, root):
    assert cli("register").code == 0
    index = (root / "index.md").read_bytes()
    (root / "sessions").write_bytes(b"in the way\n")
    res = cli("register", "--manual", "--topic", "t")
    assert res.code == 1 and res.err.count("\n") == 1
    assert "sessions is a file, not a folder: move it aside" in res.err and res.err.endswith("nothing written\n")
    assert (root / "index.md").read_bytes() == index and (root / "sessions").read_bytes() == b"in the way\n"
