"""Defect found by installing from a clean clone (issue 24): `pip install .` left out memboard.core.spaces and
memboard.core.hierarchy, so every `memboard space …` command of an installed memboard died with a traceback
(ModuleNotFoundError). The package list in pyproject.toml is explicit; every package folder must be in it."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_package_folder_is_in_the_installed_package_list() -> None:
    setup = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(setup["packages"])
    found = set()
    for package, folder in setup["package-dir"].items():
        base = REPO / folder
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            found.add(".".join([package, *rel.parts]))
    assert found - listed == set(), "package folders pyproject.toml does not install"
