"""The package people install and redistribute: metadata, one version, an sdist that builds and tests."""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest

import memboard

PROJECT = Path(__file__).resolve().parents[2]
SHIPPED_FOLDERS = ("tests", "bench", "screenshots", "styles", "docs")
RAW_BASE = "https://raw.githubusercontent.com/memboard/memboard/main/"


def project_files() -> list[str]:
    """The project's files (tracked or new, not ignored), as git sees them; a walk outside a checkout."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=PROJECT,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
        names = [n for n in out.decode("utf-8").split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        skipped = {"__pycache__", ".git", ".hypothesis", ".pytest_cache", "build", "dist"}
        names = [
            p.relative_to(PROJECT).as_posix()
            for p in PROJECT.rglob("*")
            if p.is_file()
            and not skipped & set(p.relative_to(PROJECT).parts)
            and not p.name.endswith((".pyc", ".egg-info"))
            and ".egg-info" not in p.as_posix()
        ]
    return sorted(n for n in names if (PROJECT / n).is_file())


def built(tmp_path_factory, kind: str) -> Path:
    """Build the sdist or wheel (kind) from a copy of the project with setuptools' own build hook; its path."""
    src = tmp_path_factory.mktemp("src")
    for name in project_files():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    code = f"from setuptools import build_meta; print(build_meta.build_{kind}({str(out)!r}))"
    res = subprocess.run([sys.executable, "-c", code], cwd=src, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    return out / res.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> tuple[set[str], Message]:
    """Build the sdist from a copy of the project (setuptools' own build hook); its names and PKG-INFO."""
    # (the version from its metadata: importing setuptools here would swap distutils under whatever this worker
    # imported before, which fails once anything in it looked for pip)
    found = importlib.metadata.version("setuptools")
    if int(found.split(".")[0]) < 77:
        pytest.skip(f"building the sdist needs setuptools>=77, found {found} (pip install -e '.[test]')")
    archive = built(tmp_path_factory, "sdist")
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        prefix = names[0].split("/")[0] + "/"
        member = tar.extractfile(prefix + "PKG-INFO")
        assert member is not None
        info = member.read().decode("utf-8")
    inside = {n[len(prefix) :] for n in names if n.startswith(prefix)}
    return inside, Parser().parsestr(info)


def test_sdist_ships_the_whole_test_suite_benchmarks_screenshots_and_styles(sdist):
    inside, _ = sdist
    wanted = [n for n in project_files() if n.split("/")[0] in SHIPPED_FOLDERS]
    assert wanted and [n for n in wanted if n not in inside] == []
    for must in (
        "LICENSE",
        "README.md",
        "pyproject.toml",
        "tests/conftest.py",
        "tests/hooks/conftest.py",
        "tests/corpus/files/utf16.md",
        "docs/screenshots/board.svg",
        "screenshots/make_screenshots.py",
        "styles/board.tcss",
        "app/cli/entry.py",
        "widgets/session_table.py",
    ):
        assert must in inside, must
    assert any(n.startswith("tests/__snapshots__/") and n.endswith(".svg") for n in inside)
    assert not [n for n in inside if "__pycache__" in n or n.endswith(".pyc")]


def test_sdist_metadata_names_license_version_and_urls(sdist):
    _, meta = sdist
    assert meta["Version"] == memboard.__version__
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert urls["Repository"] == "https://github.com/memboard/memboard"
    assert urls["Issues"] == "https://github.com/memboard/memboard/issues"
    assert "Programming Language :: Python :: 3.11" in meta.get_all("Classifier")
    assert "tomlkit>=0.12" in meta.get_all("Requires-Dist")


def test_license_is_mit_by_the_contributors():
    text = (PROJECT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Copyright (c) 2026 memboard contributors" in text


def test_version_lives_in_one_place():
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "memboard.__version__"}
    literal = re.compile(re.escape(memboard.__version__).encode())
    holders = [p for p in (PROJECT / "app").rglob("*.py") if literal.search(p.read_bytes())]
    assert holders == [PROJECT / "app" / "__init__.py"]


def test_version_option_prints_the_package_version():
    code = "import memboard; memboard.__version__ = '9.8.7'; from memboard.cli import main; raise SystemExit(main(['--version']))"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (res.returncode, res.stdout) == (0, "memboard 9.8.7\n")
    real = subprocess.run([sys.executable, "-m", "memboard", "--version"], capture_output=True, text=True, timeout=60)
    assert real.stdout == f"memboard {memboard.__version__}\n"


def test_readme_images_are_absolute_urls_of_files_in_the_repository():
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", readme)
    assert images  # the board's screenshot; the others are in docs/ (tests/packaging/test_docs_move.py)
    for url in images:
        assert url.startswith(RAW_BASE), url
        assert (PROJECT / url[len(RAW_BASE) :]).is_file(), url
