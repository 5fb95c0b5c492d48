"""`memboard merge-driver` when memboard cannot merge (issue 26 §5): git's own line merge with markers and exit
1, never a traceback and never exit 2 (git takes 2 and up as "keep ours", dropping theirs); and doctor's
merge_driver_missing for a clone whose git config lacks the driver its .gitattributes names."""

from __future__ import annotations

import json

import pytest

from tests.support import runner
from tests.support.gitclones import clone_of, git_home, needs_git, new_repository

pytestmark = needs_git
__all__ = ["git_home"]  # (a fixture these tests use)

HEADER = (
    "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n"
    "|---|---|---|---|---|---|---|---|---|\n"
)


def _row(sid: str, summary: str) -> str:
    """An index row of session sid."""
    return f"| {sid} | a | t | {summary} | k | active | - | 2026-06-01 09:00 | 2026-06-01 09:30 |\n"


def _versions(tmp_path, base: str, ours: str, theirs: str) -> tuple[list[str], object]:
    """The three files git hands the driver, as its arguments."""
    paths = []
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        path = tmp_path / f".merge_file_{name}"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths, tmp_path / ".merge_file_ours"


def test_an_internal_error_is_git_s_line_merge_and_exit_1_never_a_traceback(tmp_path, monkeypatch):
    from memboard.core.merge import kinds

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in the merge")

    monkeypatch.setattr(kinds, "merge_three", broken)
    monkeypatch.chdir(tmp_path)
    base = HEADER + _row("2026-06-01-0900-a", "s")
    argv, ours = _versions(
        tmp_path, base, base + _row("2026-06-01-0901-a", "ours'"), base + _row("2026-06-01-0902-a", "theirs'")
    )
    done = runner.run(["merge-driver", *argv, "index.md", "--marker-size", "7"])
    assert done.code == 1
    err = done.err.decode()
    assert "Traceback" not in err and err.count("\n") == 1 and "a bug in the merge" in err
    merged = ours.read_text(encoding="utf-8")
    assert "<<<<<<< ours\n" in merged and ">>>>>>> theirs\n" in merged
    assert "2026-06-01-0901-a" in merged and "2026-06-01-0902-a" in merged  # both sides' lines are there


@pytest.mark.parametrize("size", [7, 9])
def test_the_line_merge_uses_git_s_marker_size(tmp_path, monkeypatch, size):
    from memboard.core.merge import kinds

    monkeypatch.setattr(kinds, "merge_three", lambda *a, **k: 1 / 0)
    monkeypatch.chdir(tmp_path)
    argv, ours = _versions(tmp_path, "a\n", "b\n", "c\n")
    done = runner.run(["merge-driver", *argv, "sessions/2026-06-01-0900-a.md", f"--marker-size={size}"])
    assert done.code == 1
    assert ours.read_text(encoding="utf-8").startswith("<" * size + " ours\n")


def test_a_file_that_is_none_of_memboard_s_merges_line_by_line_with_git_s_status(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv, ours = _versions(tmp_path, "one\ntwo\nthree\n", "ONE\ntwo\nthree\n", "one\ntwo\nTHREE\n")
    done = runner.run(["merge-driver", *argv, "team/memory/sessions/nested/deeper.md"])
    assert (done.code, ours.read_text(encoding="utf-8")) == (0, "ONE\ntwo\nTHREE\n")
    argv, ours = _versions(tmp_path, "one\n", "ours\n", "theirs\n")
    assert runner.run(["merge-driver", *argv, "elsewhere/readme.md"]).code == 1


def test_a_clone_missing_the_driver_gets_merge_driver_missing(tmp_path, git_home):
    repo = new_repository(tmp_path / "repo")
    repo.mb("register")
    assert json.loads(repo.mb("doctor", "--json").out) == []  # no attributes naming the driver: git is not asked
    assert repo.mb("install-merge-driver").code == 0
    repo.commit("memory root with the merge driver")
    assert "merge_driver_missing" not in [f["kind"] for f in json.loads(repo.mb("doctor", "--json").out)]
    other = clone_of(repo, tmp_path / "other")  # the attributes came along; this clone's config lacks the driver
    findings = json.loads(other.mb("doctor", "--json").out)
    missing = [f for f in findings if f["kind"] == "merge_driver_missing"]
    assert len(missing) == 1 and missing[0]["fix"] is None
    assert "memboard install-merge-driver" in missing[0]["message"]
    text = other.mb("doctor")
    assert "merge_driver_missing" in text.out
    assert other.mb("install-merge-driver").code == 0
    assert "merge_driver_missing" not in other.mb("doctor").out


def test_a_version_that_is_no_index_table_gets_git_s_line_merge_and_exit_1(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = HEADER + _row("2026-06-01-0900-a", "s")
    theirs = "someone replaced the table with prose\n"
    argv, ours = _versions(tmp_path, base, base + _row("2026-06-01-0901-a", "ours'"), theirs)
    done = runner.run(["merge-driver", *argv, "index.md", "--marker-size", "7"])
    assert done.code == 1
    err = done.err.decode()
    assert err.count("\n") == 1 and "not readable as memboard's index" in err and "Traceback" not in err
    merged = ours.read_text(encoding="utf-8")
    assert "<<<<<<< ours\n" in merged and theirs in merged and "2026-06-01-0901-a" in merged


def test_the_driver_loads_only_the_merge_of_its_file_s_kind(tmp_path):
    """git starts the driver once per file of each merge: no parser of the other commands, no plan engine, no
    merge of another kind, nothing of the board."""
    import subprocess
    import sys

    base = HEADER + _row("2026-06-01-0900-a", "s")
    argv, ours = _versions(
        tmp_path, base, base + _row("2026-06-01-0901-a", "ours'"), base + _row("2026-06-01-0902-a", "theirs'")
    )
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memboard", "merge-driver", *argv, "index.md", "--marker-size", "7"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "memboard.core.merge.index" in imported
    heavy = {"argparse", "textual", "rich", "mistletoe", "memboard.cli.parser", "memboard.core.plan"}
    assert not imported & (heavy | {"memboard.core.merge.documents", "memboard.core.files.execute"})
    assert "2026-06-01-0901-a" in ours.read_text(encoding="utf-8") and "2026-06-01-0902-a" in ours.read_text()


def test_a_driver_whose_program_is_gone_is_merge_driver_missing(tmp_path, git_home):
    repo = new_repository(tmp_path / "repo")
    repo.mb("register")
    assert repo.mb("install-merge-driver").code == 0
    gone = tmp_path / "old venv" / "bin" / "memboard"
    repo.git("config", "--local", "merge.memboard.driver", f"'{gone}' merge-driver %O %A %B %P --marker-size %L")
    findings = json.loads(repo.mb("doctor", "--json").out)
    missing = [f for f in findings if f["kind"] == "merge_driver_missing"]
    assert len(missing) == 1 and f"runs {gone}, which no longer exists" in missing[0]["message"]
    assert repo.mb("install-merge-driver").code == 0  # install puts this memboard back
    assert "merge_driver_missing" not in repo.mb("doctor").out


@pytest.mark.parametrize("root_at", ["notes/memory", "team/archive/x", ""])
def test_the_root_is_the_folder_whose_attributes_name_the_driver_whatever_its_own_path(tmp_path, monkeypatch, root_at):
    """A root kept at notes/memory is no note's folder: its index.md merges as an index (a note's merge would
    not read it, and git's line merge would conflict on the two appended rows)."""
    root = tmp_path / root_at
    root.mkdir(parents=True, exist_ok=True)
    (root / ".gitattributes").write_text("index.md merge=memboard\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    base = HEADER + _row("2026-06-01-0900-a", "s")
    argv, ours = _versions(
        tmp_path, base, base + _row("2026-06-01-0901-a", "ours'"), base + _row("2026-06-01-0902-a", "theirs'")
    )
    path = f"{root_at}/index.md" if root_at else "index.md"
    done = runner.run(["merge-driver", *argv, path, "--marker-size", "7"])
    assert done.code == 0, done.err
    assert ours.read_text(encoding="utf-8") == base + _row("2026-06-01-0901-a", "ours'") + _row(
        "2026-06-01-0902-a", "theirs'"
    )
