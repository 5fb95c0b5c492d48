"""`memboard space where`: the resolution of issue 24 §2 (scopes, project roots, config.toml routes and every
validation rule, legacy folders), and its agreement with the session-memory skill's own resolution."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.support.peers import PEER, run_skill, skill


def where(cli, folder: Path, *more: str):
    """`space where --json --workspace folder`: (exit code, JSON, stderr)."""
    res = cli("space", "where", "--json", "--workspace", str(folder), *more, use_root=False)
    return res.code, json.loads(res.out), res.err


def config(project: Path, text: str) -> Path:
    """Write project/.session-memory/config.toml."""
    path = project / ".session-memory" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_routes_pick_the_longest_match_and_the_json_has_the_issues_fields(cli, tmp_path):
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    cfg = config(p, '[spaces]\nouter = "research"\ninner = "research/deep/"\n')
    (p / "research" / "deep" / "x").mkdir(parents=True)
    (p / "research" / "deep" / ".session-memory").mkdir()
    (p / "research" / "deep" / ".session-memory" / "current.md").write_text("# x\n", encoding="utf-8")
    code, got, _ = where(cli, p / "research" / "deep" / "x")
    assert code == 0
    assert got == {
        "workspace": str(p / "research" / "deep" / "x"),
        "scope": "auto",
        "rule": "configured-space",
        "project_root": str(p),
        "space": "inner",
        "route": "research/deep",
        "target": str(p / "research" / "deep" / ".session-memory"),
        "config": str(cfg),
        "exists": True,
        "legacy": [],
        "problem": None,
    }
    assert list(got) == [
        "workspace",
        "scope",
        "rule",
        "project_root",
        "space",
        "route",
        "target",
        "config",
        "exists",
        "legacy",
        "problem",
    ]


def test_routes_compare_whole_components(cli, tmp_path):
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    config(p, '[routes]\nr = "research"\n')
    (p / "research-old").mkdir()
    _, got, _ = where(cli, p / "research-old")
    assert (got["rule"], got["target"], got["space"]) == ("git-root", str(p / ".session-memory"), None)
    (p / "research").mkdir()
    _, got, _ = where(cli, p / "research")
    assert (got["rule"], got["space"], got["route"]) == ("configured-space", "r", "research")


def test_git_file_of_a_linked_worktree_is_a_project_root(cli, tmp_path):
    p = tmp_path / "wt"
    (p / "sub").mkdir(parents=True)
    (p / ".git").write_text("gitdir: /elsewhere\n", encoding="utf-8")
    _, got, _ = where(cli, p / "sub")
    assert (got["rule"], got["project_root"], got["exists"]) == ("git-root", str(p), False)


def test_project_root_by_config_then_by_memory_else_the_workspace(cli, tmp_path):
    a = tmp_path / "a"
    (a / "b" / "c").mkdir(parents=True)
    (a / "b" / ".session-memory").mkdir()
    (a / "b" / ".session-memory" / "notes.txt").write_text("x", encoding="utf-8")  # not memory
    _, got, _ = where(cli, a / "b" / "c")
    assert (got["rule"], got["target"]) == ("workspace", str(a / "b" / "c" / ".session-memory"))
    (a / "b" / ".session-memory" / "history.md").write_text("# h\n", encoding="utf-8")
    _, got, _ = where(cli, a / "b" / "c")
    assert (got["rule"], got["project_root"], got["exists"]) == ("project-root", str(a / "b"), True)
    config(a, "")  # a config further up wins over memory nearer
    _, got, _ = where(cli, a / "b" / "c")
    assert (got["rule"], got["project_root"], got["config"]) == (
        "project-root",
        str(a),
        str(a / ".session-memory" / "config.toml"),
    )


def test_scopes_workspace_and_global(cli, tmp_path, homes):
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    (p / "sub").mkdir()
    _, got, _ = where(cli, p / "sub", "--scope", "workspace")
    assert (got["rule"], got["target"]) == ("workspace", str(p / "sub" / ".session-memory"))
    _, got, _ = where(cli, p / "sub", "--scope", "global")
    assert (got["rule"], got["target"], got["scope"]) == ("global", str(homes / "global"), "global")


def test_default_home_is_dot_session_memory(cli, tmp_path, monkeypatch):
    monkeypatch.delenv("SESSION_MEMORY_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    _, got, _ = where(cli, tmp_path, "--scope", "global")
    assert got["target"] == str(tmp_path / ".session-memory" / "global")


def test_legacy_memory_is_found_and_named(cli, tmp_path):
    p = tmp_path / "p"
    (p / "deep").mkdir(parents=True)
    legacy = p / ".claude" / "session-memory"
    legacy.mkdir(parents=True)
    (legacy / "current.md").write_text("# c\n", encoding="utf-8")
    _, got, _ = where(cli, p / "deep")
    assert (got["rule"], got["project_root"], got["exists"], got["legacy"]) == (
        "project-root",
        str(p),
        False,
        [str(legacy)],
    )
    res = cli("space", "where", "--workspace", str(p / "deep"), use_root=False)
    assert res.code == 0 and f"legacy: {legacy}" in res.out and f"target: {p / '.session-memory'}" in res.out


def test_top_level_string_keys_when_no_table_has_an_entry(cli, tmp_path):
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    (p / "current-research").mkdir()
    config(p, '"记忆1" = "current-research"\nn = 3\n[spaces]\n')
    _, got, _ = where(cli, p / "current-research")
    assert (got["space"], got["route"]) == ("记忆1", "current-research")
    config(p, '"记忆1" = "current-research"\n[spaces]\nz = "zz"\n')  # a table entry: top-level keys ignored
    _, got, _ = where(cli, p / "current-research")
    assert got["rule"] == "git-root"


def test_a_route_to_a_missing_folder_is_allowed(cli, tmp_path):
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    config(p, '[spaces]\nghost = "not/there"\n')
    code, got, _ = where(cli, p)
    assert code == 0 and got["problem"] is None and got["rule"] == "git-root"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[spaces]\na = "x"\nb = "x/"\n', "appears twice"),
        ('[spaces]\na = "x"\n[routes]\na = "y"\n', "appears twice"),
        ('[spaces]\n" " = "x"\n', "empty name"),
        ('[spaces]\na = ""\n', "empty folder"),
        ('[spaces]\na = "/abs"\n', "absolute"),
        ('[spaces]\na = "x/../y"\n', "escapes"),
        ('[spaces]\na = "."\n', "inside the project"),
        ("[spaces]\na = 3\n", "must be a folder name"),
        ('spaces = "x"\n', "must be a table"),
        ('[spaces]\na = "link"\n', "resolves outside"),
    ],
)
def test_invalid_configs_stop_with_one_line_naming_the_file(cli, tmp_path, text, words):
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    (p / "link").symlink_to(tmp_path)
    cfg = config(p, text)
    code, got, err = where(cli, p)
    assert code == 1
    assert (
        err.strip() == f"memboard: {got['problem']}" and str(cfg) in err and words in err and len(err.splitlines()) == 1
    )
    assert got["target"] is None
    res = cli("space", "where", "--workspace", str(p), use_root=False)
    assert res.code == 1 and res.err.strip() == f"memboard: {got['problem']}"


def test_toml_syntax_errors_name_line_and_column(cli, tmp_path):
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    cfg = config(p, '[spaces]\na = "x"\nb = = 1\n')
    code, got, err = where(cli, p)
    assert code == 1 and err.startswith(f"memboard: invalid config {cfg}: line 3, column 5:")
    assert got["problem"] == err.strip().removeprefix("memboard: ")


def test_a_workspace_that_is_not_a_folder_is_bad_usage(cli, tmp_path):
    res = cli("space", "where", "--workspace", str(tmp_path / "nope"), use_root=False)
    assert res.code == 2 and res.err.count("\n") == 1


# -- agreement with the skill ------------------------------------------------------------------------------------


def _skill_where(folder: Path, scope: str = "auto") -> dict[str, str]:
    """The skill's resolution (its restore prints it as key=value lines before anything else)."""
    ran = run_skill("restore", "--workspace", str(folder), "--scope", scope, cwd=folder)
    fields: dict[str, str] = {}
    for line in ran.stdout.splitlines():
        if "=" in line and not line.startswith("["):
            name, _, value = line.partition("=")
            fields.setdefault(name, value)
    fields["code"] = str(ran.returncode)
    fields["err"] = ran.stderr
    return fields


def _tree(tmp_path: Path) -> Path:
    """A project tree with a git root, routes (nested, Chinese, trailing slash), a symlinked folder and a nested
    project without git but with memory."""
    p = tmp_path / "proj"
    for d in ("research/deep/x", "research-old", "docs/a", "other/mem/inner", "现在"):
        (p / d).mkdir(parents=True)
    (p / ".git").mkdir()
    config(p, '[spaces]\nouter = "research"\ninner = "./research/deep/"\n"记忆" = "现在"\n[routes]\nd = "docs"\n')
    (p / "alias").symlink_to(p / "research" / "deep")
    return p


def test_where_agrees_with_the_skill_on_project_trees(cli, tmp_path):
    p = _tree(tmp_path)
    loose = tmp_path / "loose" / "a" / "b"
    loose.mkdir(parents=True)
    (tmp_path / "loose" / ".session-memory").mkdir()
    (tmp_path / "loose" / ".session-memory" / "research.md").write_text("# r\n", encoding="utf-8")
    cfgonly = tmp_path / "cfgonly" / "in"
    cfgonly.mkdir(parents=True)
    config(tmp_path / "cfgonly", 'top = "in"\n')
    bare = tmp_path / "bare"
    bare.mkdir()
    cases = [
        (p, "auto"),
        (p / "research", "auto"),
        (p / "research" / "deep" / "x", "auto"),
        (p / "research-old", "auto"),
        (p / "docs" / "a", "auto"),
        (p / "现在", "auto"),
        (p / "alias", "auto"),
        (p / "other" / "mem" / "inner", "auto"),
        (p / "research", "workspace"),
        (p / "docs", "global"),
        (loose, "auto"),
        (cfgonly, "auto"),
        (tmp_path / "cfgonly", "auto"),
        (bare, "auto"),
    ]
    for folder, scope in cases:
        theirs = _skill_where(folder, scope)
        assert theirs["code"] in ("0", "1"), theirs["err"]
        code, ours, _ = where(cli, folder, "--scope", scope)
        assert code == 0
        assert ours["target"] == theirs["target_dir"], folder
        assert ours["rule"] == theirs["scope"], folder
        assert (ours["space"] or "") == theirs.get("space_name", ""), folder
        assert (ours["route"] or "") == theirs.get("space_path", ""), folder
        assert (ours["config"] or "") == theirs.get("config_path", ""), folder
        assert ours["workspace"] == theirs["workspace"], folder


def test_where_refuses_where_the_skill_refuses(cli, tmp_path):
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    for text in ('[spaces]\na = "x"\nb = "./x"\n', '[spaces]\na = "../up"\n', "[spaces\n", "[spaces]\na = 1\n"):
        config(p, text)
        theirs = _skill_where(p)
        assert theirs["code"] == "1" and "Invalid session-memory config" in theirs["err"], theirs["err"]
        code, ours, _ = where(cli, p)
        assert code == 1 and ours["problem"].startswith("invalid config ")


def test_where_names_the_legacy_folder_the_legacy_skill_uses(cli, tmp_path):
    """Run directly, the skill's scripts are the legacy writer: the folder they pick is memboard's legacy one, by
    the same rule, and memboard's target is its migration target beside it."""
    skill()
    legacy_home = tmp_path / "codexhome" / "session-memory"  # a fresh sleep check: no background dream starts
    legacy_home.mkdir(parents=True)
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()
    (legacy_home / "state.json").write_text(json.dumps({"version": 1, "last_sleep_check_at": stamp}), encoding="utf-8")
    script = PEER / "upstream" / "scripts" / "restore_session_memory.py"
    for with_git in (False, True):
        p = tmp_path / f"legacy{int(with_git)}"
        (p / "a" / "b").mkdir(parents=True)
        if with_git:
            (p / ".git").mkdir()
        (p / ".codex" / "session-memory").mkdir(parents=True)
        (p / ".codex" / "session-memory" / "history.md").write_text("# h\n", encoding="utf-8")
        ran = subprocess.run(
            [sys.executable, str(script), "--workspace", str(p / "a" / "b")],
            cwd=p,
            capture_output=True,
            text=True,
            timeout=60,
        )
        theirs = dict(line.split("=", 1) for line in ran.stdout.splitlines() if "=" in line and "[" not in line)
        _, ours, _ = where(cli, p / "a" / "b")
        assert ours["legacy"] == [theirs["target_dir"]] and ours["rule"] == theirs["scope"]
        assert ours["target"] == str(p / ".session-memory") and ours["project_root"] == theirs["project_root"]
