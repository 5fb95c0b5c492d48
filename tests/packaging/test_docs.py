"""The documentation site builds with mkdocs alone, and every page it lists or links to exists."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]


def build(folder: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of the site copied into folder."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",  # not --quiet: mkdocs then drops the warnings that strict mode counts, and builds
            "-f",
            str(folder / "mkdocs.yml"),
            "-d",
            str(folder / "site"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def copy_site(tmp_path: Path) -> Path:
    """The site's sources (mkdocs.yml and docs/) copied into tmp_path."""
    shutil.copy(PROJECT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(PROJECT / "docs", tmp_path / "docs")
    return tmp_path


NEEDS_MKDOCS = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None, reason="mkdocs is not installed (pip install -e '.[test]')"
)


@NEEDS_MKDOCS
def test_the_site_builds_strict_from_a_copy(tmp_path):
    site = copy_site(tmp_path) / "site"
    proc = build(tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (site / "architecture" / "index.html").is_file()
    for page in ("trees", "service", "board", "speed"):
        assert (site / "how-it-is-built" / page / "index.html").is_file(), page
    for page in ("board", "command-line", "json-output", "guarantees", "mcp", "config", "benchmarks"):
        assert (site / page / "index.html").is_file(), page


@NEEDS_MKDOCS
def test_a_link_to_a_heading_no_page_has_fails_the_build(tmp_path):
    copy_site(tmp_path)
    with (tmp_path / "docs" / "config.md").open("a", encoding="utf-8") as f:
        f.write("\nSee [the board's keys](board.md#no-such-heading).\n")
    proc = build(tmp_path)
    assert proc.returncode != 0 and "no-such-heading" in proc.stderr


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
