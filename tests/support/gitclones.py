"""Real git repositories for the merge driver's tests (issue 26 §5): a memory root in a folder of a repository,
and clones of it, each with the memboard command line run on its root.

git runs the driver as a process of its own (the command install-merge-driver wrote into the clone's
config, `python -m memboard` here), with this test's environment: the isolated state folder and a git
config of the test's own (GIT_CONFIG_GLOBAL, no system config), so no user's settings take part.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import runner

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed: the merge driver's tests run real git merges")
ROOT_IN_REPO = "team/memory"  # the memory root is a folder of the repository, not its top


@dataclass
class Ran:
    """A finished memboard command (text)."""

    code: int
    out: str
    err: str


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`git ARGS` in cwd (text output); a failure fails the test when check."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


@pytest.fixture
def git_home(tmp_path, monkeypatch) -> Path:
    """A git config of the test's own (the --global one) and no system config; commits need no user's name."""
    config = tmp_path / "gitconfig"
    config.write_text("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "test@example.invalid")
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    return config


@dataclass
class Clone:
    """A clone of the repository and the memory root in it."""

    top: Path

    @property
    def root(self) -> Path:
        """The memory root's folder."""
        return self.top / ROOT_IN_REPO

    def mb(self, *args: str, now: str | None = None, input: str | None = None) -> Ran:
        """`memboard ARGS --root <this clone's root>` in this process (at the time now, when given)."""
        env = {"MEMBOARD_NOW": now} if now else None
        ran = runner.run([*args, "--root", str(self.root)], input.encode("utf-8") if input else None, env)
        return Ran(ran.code, ran.out.decode("utf-8", "replace"), ran.err.decode("utf-8", "replace"))

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """`git ARGS` in this clone."""
        return git(self.top, *args, check=check)

    def commit(self, message: str) -> None:
        """Commit everything in the clone."""
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    def rows(self) -> list[dict]:
        """`memboard list --json`'s rows."""
        ran = self.mb("list", "--json")
        assert ran.code == 0, ran.err
        return json.loads(ran.out)

    def ids(self) -> list[str]:
        """The Session IDs `memboard list` shows, in order."""
        return [row["id"] for row in self.rows()]

    def index(self) -> str:
        """index.md's text."""
        return (self.root / "index.md").read_text(encoding="utf-8")


def new_repository(path: Path) -> Clone:
    """A repository at path with an empty memory root folder in it (nothing committed)."""
    path.mkdir(parents=True)
    git(path, "init", "-q")
    (path / ROOT_IN_REPO).mkdir(parents=True)
    (path / "README.md").write_text("a project that keeps its agents' memory in team/memory\n", encoding="utf-8")
    return Clone(path)


def clone_of(origin: Clone, path: Path) -> Clone:
    """A clone of origin at path."""
    git(path.parent, "clone", "-q", str(origin.top), str(path))
    return Clone(path)
