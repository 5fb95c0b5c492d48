"""Issue 25's lint on a facts.yaml that exists but cannot be read (htrial's findings): a finding, not the silence of
an absent file — an agent gating on `lint --strict` or `verify` must not pass over facts it cannot see."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace with a pointer-complete MEMORY.md."""
    w = tmp_path / "workspace"
    (w / "memory").mkdir(parents=True)
    (w / "MEMORY.md").write_text(
        "# Me\n# Structured facts → memory/facts.yaml\n# Find anything → memory/lookup-index.md\n"
    )
    return w


def test_lint_names_a_facts_yaml_it_cannot_read(cli, ws):
    (ws / "memory" / "facts.yaml").mkdir()
    r = cli("hierarchy", "lint", "--strict", "--json", "--workspace", str(ws), use_root=False)
    assert r.code == 1, r.out
    assert [f["message"] for f in json.loads(r.out) if f["kind"] == "facts_invalid"] == [
        "memory/facts.yaml cannot be read: Is a directory"
    ]
