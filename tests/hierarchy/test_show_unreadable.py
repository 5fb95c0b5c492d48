"""`hierarchy show` tells a facts.yaml it cannot read from one that is not there (a folder in its place)."""

from __future__ import annotations

import json


def test_show_names_a_facts_yaml_it_cannot_read_instead_of_calling_it_absent(cli, tmp_path):
    (tmp_path / "MEMORY.md").write_text("# Me\n", encoding="utf-8")
    (tmp_path / "memory" / "facts.yaml").mkdir(parents=True)  # a folder where the file should be
    res = cli("hierarchy", "show", "--workspace", str(tmp_path), use_root=False)
    assert res.code == 0, res.err
    assert "memory/facts.yaml  cannot be read (Is a directory)" in res.out
    data = json.loads(cli("hierarchy", "show", "--workspace", str(tmp_path), "--json", use_root=False).out)
    assert data["warm"]["facts"]["exists"] is False and data["warm"]["facts"]["problem"] == "Is a directory"
    (tmp_path / "memory" / "facts.yaml").rmdir()
    res = cli("hierarchy", "show", "--workspace", str(tmp_path), use_root=False)
    assert "memory/facts.yaml  absent" in res.out
