"""`memboard install-merge-driver` (issue 26 §5): the root's .gitattributes and .gitignore, the driver in git
config, a preview that names the one write outside the root, and a second run that changes nothing."""

from __future__ import annotations

import json
import sys

from tests.support.gitclones import ROOT_IN_REPO, clone_of, git, git_home, needs_git, new_repository

pytestmark = needs_git
__all__ = ["git_home"]  # (a fixture these tests use)

ATTRIBUTES = """# memboard merges its own files (memboard install-merge-driver)
index.md merge=memboard
sessions/*.md merge=memboard
archive/*/index.md merge=memboard
archive/*/session.md merge=memboard
notes/**/*.md merge=memboard
"""
IGNORE = """# memboard's state stays on each machine; copies it preserved after a merge travel
/.memboard/*
!/.memboard/conflicts/
"""


def test_install_writes_the_root_s_files_and_the_clone_s_git_config(tmp_path, git_home):
    repo = new_repository(tmp_path / "repo")
    assert repo.mb("register").code == 0
    ran = repo.mb("install-merge-driver")
    assert ran.code == 0, ran.err
    assert (repo.root / ".gitattributes").read_text(encoding="utf-8") == ATTRIBUTES
    assert (repo.root / ".gitignore").read_text(encoding="utf-8") == IGNORE
    assert not (repo.top / ".gitattributes").exists() and not (repo.top / ".gitignore").exists()  # only in the root
    driver = repo.git("config", "--local", "--get", "merge.memboard.driver").stdout.strip()
    assert driver == f"'{sys.executable}' '-m' 'memboard' merge-driver %O %A %B %P --marker-size %L"
    assert repo.git("config", "--local", "--get", "merge.memboard.name").stdout.strip().startswith("memboard")
    assert "merge.memboard" not in git_home.read_text(encoding="utf-8")
    # git reads the patterns relative to the root: every one of memboard's files, nothing else
    for rel, named in [
        ("index.md", True),
        ("sessions/2026-06-01-0930-a.md", True),
        ("archive/2026-06-01-0930-a/index.md", True),
        ("archive/2026-06-01-0930-a/session.md", True),
        ("notes/project/x/decision.md", True),
        ("notes.md", False),
    ]:
        shown = repo.git("check-attr", "merge", "--", f"{ROOT_IN_REPO}/{rel}").stdout.strip()
        assert shown.endswith("merge: memboard") == named, shown
    assert repo.git("check-attr", "merge", "--", "README.md").stdout.strip().endswith("unspecified")
    assert "set in this clone's git config: merge.memboard.driver" in ran.out

    again = repo.mb("install-merge-driver")
    assert again.code == 0 and again.out.startswith("nothing to change"), again.out


def test_git_ignores_memboard_s_state_but_keeps_the_preserved_copies(tmp_path, git_home):
    repo = new_repository(tmp_path / "repo")
    repo.mb("register")
    assert repo.mb("install-merge-driver").code == 0
    state = repo.root / ".memboard"
    (state / "conflicts" / "sessions").mkdir(parents=True)
    (state / "conflicts" / "index.sync-conflict-20260601-093000-ABCDEF7.md").write_text("kept\n", encoding="utf-8")
    (state / "conflicts" / "sessions" / "x.sync-conflict-20260601-093000-ABCDEF7.md").write_text(
        "k\n", encoding="utf-8"
    )
    (state / "revisions").mkdir()
    (state / "revisions" / "r.md").write_text("local\n", encoding="utf-8")
    (state / "hook.log").write_text("local\n", encoding="utf-8")
    untracked = repo.git("status", "--porcelain", "--untracked-files=all").stdout.splitlines()
    shown = sorted(line[3:] for line in untracked if ".memboard" in line)
    assert shown == [
        f"{ROOT_IN_REPO}/.memboard/conflicts/index.sync-conflict-20260601-093000-ABCDEF7.md",
        f"{ROOT_IN_REPO}/.memboard/conflicts/sessions/x.sync-conflict-20260601-093000-ABCDEF7.md",
    ]


def test_existing_lines_are_kept_and_only_what_is_missing_is_added(tmp_path, git_home):
    repo = new_repository(tmp_path / "repo")
    repo.mb("register")
    attributes = b"*.png binary\r\nindex.md merge=union\r\nsessions/*.md merge=memboard"  # CRLF, no final newline
    ignore = b".memboard/\r\n*.tmp\r\n"  # an older setup that ignores the whole folder
    (repo.root / ".gitattributes").write_bytes(attributes)
    (repo.root / ".gitignore").write_bytes(ignore)
    preview = repo.mb("install-merge-driver", "--dry-run")
    assert preview.code == 0, preview.err
    assert (repo.root / ".gitattributes").read_bytes() == attributes  # a dry run writes nothing
    assert repo.git("config", "--get", "merge.memboard.driver", check=False).returncode == 1
    assert "+index.md merge=memboard\r" in preview.out  # the patch, in the file's line endings
    assert "would set in this clone's git config: git config --local merge.memboard.driver" in preview.err
    ran = repo.mb("install-merge-driver")
    assert ran.code == 0, ran.err
    after = (repo.root / ".gitattributes").read_bytes()
    assert after.startswith(attributes + b"\r\n\r\n")  # every line kept, then memboard's
    added = after[len(attributes) :].decode().split("\r\n")
    assert "index.md merge=memboard" in added and "sessions/*.md merge=memboard" not in added
    assert repo.git("check-attr", "merge", "--", f"{ROOT_IN_REPO}/index.md").stdout.strip().endswith("memboard")
    assert (repo.root / ".gitignore").read_bytes().startswith(ignore)
    (repo.root / ".memboard" / "conflicts").mkdir(parents=True)
    (repo.root / ".memboard" / "conflicts" / "c.md").write_text("kept\n", encoding="utf-8")
    (repo.root / ".memboard" / "local.db").write_text("local\n", encoding="utf-8")
    untracked = repo.git("status", "--porcelain", "--untracked-files=all").stdout
    assert f"{ROOT_IN_REPO}/.memboard/conflicts/c.md" in untracked and "local.db" not in untracked
    assert repo.mb("install-merge-driver").out.startswith("nothing to change")


def test_global_defines_the_driver_in_the_user_s_config(tmp_path, git_home):
    repo = new_repository(tmp_path / "repo")
    repo.mb("register")
    preview = repo.mb("install-merge-driver", "--global", "--dry-run")
    assert "would set in your user's git config: git config --global merge.memboard.driver" in preview.err
    assert "merge.memboard" not in git_home.read_text(encoding="utf-8")
    ran = repo.mb("install-merge-driver", "--global")
    assert ran.code == 0, ran.err
    assert "set in your user's git config" in ran.out
    assert repo.git("config", "--global", "--get", "merge.memboard.driver").stdout.strip().endswith("%L")
    assert repo.git("config", "--local", "--get", "merge.memboard.driver", check=False).returncode == 1
    # another clone of the repository needs nothing more: the attributes travel, the user's config defines it
    repo.commit("memory root with the merge driver")
    other = clone_of(repo, tmp_path / "other")
    assert other.mb("install-merge-driver", "--global").out.startswith("nothing to change")
    doctor = json.loads(other.mb("doctor", "--json").out)
    assert "merge_driver_missing" not in [f["kind"] for f in doctor]


def test_a_root_outside_any_repository_or_not_yet_a_root_is_refused(tmp_path, git_home):
    plain = tmp_path / "plain" / "memory"
    plain.mkdir(parents=True)
    ran = new_repository(tmp_path / "repo").mb("install-merge-driver")
    assert ran.code == 1 and "no memory root yet" in ran.err and ran.err.count("\n") == 1
    assert not (tmp_path / "repo" / ROOT_IN_REPO / ".gitattributes").exists()
    from tests.support import runner

    (plain / "index.md").write_text("", encoding="utf-8")
    done = runner.run(["install-merge-driver", "--root", str(plain)])
    assert done.code == 1 and b"not inside a git work tree" in done.err, done.err
    assert sorted(p.name for p in plain.iterdir()) == ["index.md"]
    assert git(tmp_path, "config", "--global", "--get", "merge.memboard.driver", check=False).returncode == 1


def test_without_git_install_says_so_in_one_line(tmp_path, git_home, monkeypatch):
    repo = new_repository(tmp_path / "repo")
    repo.mb("register")
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    ran = repo.mb("install-merge-driver")
    assert ran.code == 1 and "git cannot be started" in ran.err and ran.err.count("\n") == 1
    assert not (repo.root / ".gitattributes").exists()


def test_install_prints_json_under_json_a_dry_run_with_its_patch(tmp_path, git_home):
    # --json on every command that prints something (issue 28 §6): install-merge-driver refused it
    repo = new_repository(tmp_path / "repo")
    assert repo.mb("register").code == 0
    dry = repo.mb("install-merge-driver", "--dry-run", "--json")
    assert dry.code == 0, dry.err
    shown = json.loads(dry.out)
    assert shown["dry_run"] is True and shown["changed"] is True and shown["scope"] == "local"
    assert shown["files"] == [".gitattributes", ".gitignore"] and "merge=memboard" in shown["patch"]
    assert {item["key"] for item in shown["git_config"]} >= {"merge.memboard.driver", "merge.memboard.name"}
    assert not (repo.root / ".gitattributes").exists()
    done = json.loads(repo.mb("install-merge-driver", "--json").out)
    assert done["dry_run"] is False and done["changed"] is True and "set in this clone's git config" in done["message"]
    assert (repo.root / ".gitattributes").read_text(encoding="utf-8") == ATTRIBUTES
    again = json.loads(repo.mb("install-merge-driver", "--json").out)
    assert again["changed"] is False and again["message"].startswith("nothing to change") and again["files"] == []
