"""The documentation site builds with mkdocs alone, and every page it lists or links to exists."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None, reason="mkdocs is not installed (pip install -e '.[test]')"
)
def test_the_site_builds_strict_from_a_copy(tmp_path):
    shutil.copy(PROJECT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(PROJECT / "docs", tmp_path / "docs")
    site = tmp_path / "site"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--quiet",
            "-f",
            str(tmp_path / "mkdocs.yml"),
            "-d",
            str(site),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (site / "architecture" / "index.html").is_file()
    for page in ("trees", "service", "board", "speed"):
        assert (site / "how-it-is-built" / page / "index.html").is_file(), page


def test_the_architecture_page_says_where_a_tree_a_tool_and_a_view_go():
    text = (PROJECT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for target in ("how-it-is-built/trees.md", "how-it-is-built/service.md", "how-it-is-built/board.md"):
        assert f"]({target})" in text, target
    nav = (PROJECT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in (
        "architecture.md",
        "how-it-is-built/trees.md",
        "how-it-is-built/service.md",
        "how-it-is-built/board.md",
    ):
        assert page in nav, page
