"""Hostile IDs and arguments are refused before any path is built from them.

The root sits beside a trap: files an escaping path would hit. Every command must exit 2
(bad usage) with one line, leave the trap and the root byte for byte, and never ask the
root to build a path from the hostile value.
"""

from __future__ import annotations

import pytest

from memboard.cli import main
from memboard.core.files.root import MemoryRoot
from tests.support.tree import tree

GOOD = "2026-06-01-0930-cursor-main-agent"
HOSTILE = [
    "..",
    "../trap",
    "../../etc/passwd",
    "2026-06-01-0930-a/../../trap",
    "sessions/x",
    "a\\b",
    "..\\trap",
    "C:",
    "C:\\Windows\\x",
    "c:trap",
    "2026-06-01-0930-a\nb",
    "2026-06-01-0930-a|b",
    "2026-06-01-0930-a\x00b",
    "2026-06-01-0930-" + "a" * 5000,
    "/etc/passwd",
    "~root",
    "2026-06-01-0930-A",
    "2026-13-01-0930-a",
    " 2026-06-01-0930-a",
    "",
]


def commands(bad: str) -> list[list[str]]:
    """Every command that takes an ID, with the hostile value in each ID position."""
    from memboard.core.formats.ids import AGENT_RE

    agent = bad.replace("2026-06-01-0930-", "") or ".."
    agents = (
        []
        if AGENT_RE.fullmatch(agent)
        else [["register", "--agent", agent], ["register", "--manual", "--agent", agent]]
    )
    return agents + [
        ["update", bad, "--summary", "x"],
        ["continue", bad, "--as", GOOD],
        ["continue", GOOD, "--as", bad],
        ["release", bad, "--as", GOOD],
        ["release", GOOD, "--as", bad],
        ["archive", bad],
        ["show", bad],
        ["chain", bad],
    ]


@pytest.fixture
def trapped(tmp_path, cli):
    """A root with one live session, beside trap files an escape would reach."""
    root = tmp_path / "memory"
    assert cli("register").code == 0
    trap = tmp_path / "trap"
    trap.mkdir()
    (trap / "index.md").write_text("trap\n")
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "x.md").write_text("trap\n")
    return root


@pytest.mark.parametrize("bad", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_ids_are_refused_before_any_path_is_built(trapped, tmp_path, capsys, monkeypatch, bad):
    built: list[str] = []
    real_abs = MemoryRoot.abs

    def spy(self, rel):
        """Record every relative path the root is asked to build."""
        built.append(rel)
        return real_abs(self, rel)

    monkeypatch.setattr(MemoryRoot, "abs", spy)
    before = tree(tmp_path, links=False)
    for argv in commands(bad):
        built.clear()
        code = main([*argv, "--root", str(trapped)])
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        assert len(err.strip().splitlines()) == 1, err
        assert "Traceback" not in err
        assert len(err) < 400  # a huge value is shown shortened
        suspicious = [rel for rel in built if rel not in ("index.md",) and bad and bad in rel]
        assert suspicious == [], (argv, built)
    assert tree(tmp_path, links=False) == before


@pytest.mark.parametrize("value", ["../x", "a/b", "a\\b", "C:", "a|b", "a\nb", "x" * 300])
def test_hostile_text_arguments_stay_inside_the_cell(cli, root, value):
    """Topic/summary text is data: it may hold anything but NUL and never becomes a path."""
    res = cli("register", "--manual", "--topic", value, "--summary", value)
    assert res.code == 0, res.err
    from memboard.core.formats.index import IndexFile

    rows = IndexFile((root / "index.md").read_bytes()).rows
    assert len(rows) == 1 and rows[0].problem is None
    assert rows[0].get("topic") == " ".join(value.split())
    assert sorted(p.name for p in root.iterdir()) == ["index.md", "sessions"]


def test_nul_in_text_is_refused(root, capsys):
    code = main(["register", "--manual", "--summary", "a\x00b", "--root", str(root)])
    assert code == 2 and "NUL" in capsys.readouterr().err
    assert list(root.iterdir()) == []


@pytest.mark.parametrize("argv", [["organize", "--stale-days", "-1"], ["list", "--status", "closed"]])
def test_bad_arguments_are_usage_errors(cli, argv):
    res = cli(*argv)
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1
