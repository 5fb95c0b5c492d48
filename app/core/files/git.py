"""What memboard asks of git about the repository a memory root lives in (issue 26 §5): where the work
tree's top is, what git config defines, and git's own line merge.

Every question is a `git` command (git reads and writes its own config files; memboard never edits them
by hand). A missing git, or a folder outside any repository, is an answer (None), never an error.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Literal

Scope = Literal["local", "global"]
TIMEOUT = 20


def git(folder: Path | str, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str] | None:
    """`git -C folder ARGS` run to its end (text output), or None when git cannot be started."""
    try:
        return subprocess.run(
            ["git", "-C", str(folder), *args],
            check=False,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def work_tree_top(folder: Path) -> Path | None:
    """The top folder of the git work tree folder lies in; None outside any (or without git)."""
    done = git(folder, "rev-parse", "--show-toplevel")
    if done is None or done.returncode != 0 or not done.stdout.strip():
        return None
    return Path(done.stdout.strip())


def config_get(folder: Path, key: str, scope: Scope | None = None) -> str | None:
    """key's value in git's config as seen from folder (scope: only that file; None: every file git reads)."""
    where = [f"--{scope}"] if scope else []
    done = git(folder, "config", *where, "--get", key)
    if done is None or done.returncode != 0:
        return None
    return done.stdout.rstrip("\n")


def config_set(folder: Path, key: str, value: str, scope: Scope) -> str | None:
    """Set key to value in the clone's (local) or the user's (global) git config; None when done, else git's reason."""
    done = git(folder, "config", f"--{scope}", key, value)
    if done is None:
        return "git cannot be started"
    if done.returncode != 0:
        return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"git config exited {done.returncode}"
    return None


def line_merge(ours: Path, base: Path, theirs: Path, marker_size: int) -> int | None:
    """git's own line merge of theirs into ours (written over ours, conflicts as standard markers labelled ours,
    base and theirs): the number of conflicts, or None when git could not merge (ours is then as it was)."""
    try:
        done = subprocess.run(
            [
                "git",
                "merge-file",
                f"--marker-size={marker_size}",
                "-L",
                "ours",
                "-L",
                "base",
                "-L",
                "theirs",
                str(ours),
                str(base),
                str(theirs),
            ],
            check=False,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=TIMEOUT,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.returncode if 0 <= done.returncode < 128 else None
