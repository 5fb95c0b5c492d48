"""`memboard space migrate [--global]` and `memboard space add` (issue 24 §4): legacy folders moved file by file
(identical copies deleted, conflicting ones kept under archive/legacy-imports), emptied folders removed, the
contents verified; routes added to config.toml with every other byte kept; previews that `git apply` replays."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memboard.core.files.places import project_tree, run
from memboard.core.plan import Change
from memboard.core.spaces.migrate import project_migration, with_migration
from tests.support.peers import PEER


@pytest.fixture(autouse=True)
def homes(tmp_path, monkeypatch):
    """The global home and the legacy homes inside the test's folder."""
    home = tmp_path / "u"
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(home / ".session-memory"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("CLAUDE_HOME", str(home / ".claude"))
    return home


def files(folder: Path) -> dict[str, bytes]:
    """Every file under folder by relative path (a .git folder left out)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(folder).parts[:1]
    }


def put(folder: Path, layout: dict[str, bytes]) -> None:
    """Write each file of layout under folder."""
    for rel, data in layout.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)


def project(tmp_path: Path, layout: dict[str, bytes], name: str = "p") -> Path:
    """A git project holding layout."""
    root = tmp_path / name
    (root / ".git").mkdir(parents=True)
    put(root, layout)
    return root


LAYOUT = {
    ".codex/session-memory/current.md": b"\xef\xbb\xbf# Current\r\n- a\r\n- b",
    ".codex/session-memory/history.md": b"# H\n\n### 2026-11-30 14:05\n- x\n",
    ".codex/session-memory/archive/history-archive.md": b"# A\r\n",
    ".codex/session-memory/research.md": b"old research",
    ".codex/config.toml": b'model = "x"\n',
    ".claude/session-memory/history.md": b"# H\n\n### 2026-11-30 14:05\n- x\n",
    ".claude/session-memory/current.md": b"claude's own\n",
    ".session-memory/research.md": b"new research\n",
}


def test_migrate_moves_deletes_identical_keeps_conflicts_and_removes_emptied_folders(cli, tmp_path):
    root = project(tmp_path, LAYOUT)
    before = files(root)
    res = cli("space", "migrate", "--workspace", str(root), use_root=False)
    assert res.code == 0, res.err
    after = files(root)
    assert after == {
        ".codex/config.toml": b'model = "x"\n',
        ".session-memory/archive/history-archive.md": b"# A\r\n",
        ".session-memory/archive/legacy-imports/claude/current.md": b"claude's own\n",
        ".session-memory/archive/legacy-imports/codex/research.md": b"old research",
        ".session-memory/current.md": LAYOUT[".codex/session-memory/current.md"],
        ".session-memory/history.md": LAYOUT[".codex/session-memory/history.md"],
        ".session-memory/research.md": b"new research\n",
    }
    # every content is kept; the identical claude copy of history.md counted once
    assert Counter(after.values()) == Counter(before.values()) - Counter([LAYOUT[".claude/session-memory/history.md"]])
    assert not (root / ".claude").exists() and not (root / ".codex" / "session-memory").exists()
    assert (root / ".codex").is_dir()  # it holds the agent's own config.toml
    assert "moved .codex/session-memory/current.md -> .session-memory/current.md" in res.out
    assert "deleted .claude/session-memory/history.md" in res.out
    again = cli("space", "migrate", "--workspace", str(root), use_root=False)
    assert again.code == 0 and again.out.strip() == "nothing to change"


def test_files_are_taken_in_sorted_order_and_taken_import_names_get_numbers(cli, tmp_path):
    root = project(
        tmp_path,
        {
            ".session-memory/current.md": b"new\n",
            ".session-memory/archive/legacy-imports/codex/current.md": b"an older import\n",
            ".codex/session-memory/current.md": b"legacy codex\n",
            ".claude/session-memory/current.md": b"legacy claude\n",
            ".codex/session-memory/b/z.md": b"z\n",
            ".codex/session-memory/a.md": b"a\n",
        },
    )
    res = cli("space", "migrate", "--workspace", str(root), "--json", use_root=False)
    assert res.code == 0, res.err
    out = json.loads(res.out)
    real = root.resolve()
    assert [Path(s["source"]).relative_to(real).as_posix() for s in out["steps"]] == [
        ".codex/session-memory/a.md",
        ".codex/session-memory/b/z.md",
        ".codex/session-memory/current.md",
        ".claude/session-memory/current.md",
    ]
    assert out["base"] == str(real) and out["places"] == [{"kind": "project", "path": str(real)}]
    imports = root / ".session-memory" / "archive" / "legacy-imports"
    assert (imports / "codex" / "current-1.md").read_bytes() == b"legacy codex\n"
    assert (imports / "codex" / "current.md").read_bytes() == b"an older import\n"
    assert (imports / "claude" / "current.md").read_bytes() == b"legacy claude\n"
    assert not (root / ".codex").exists() and not (root / ".claude").exists()


def test_routes_legacy_folders_migrate_beside_their_space(cli, tmp_path):
    root = project(
        tmp_path,
        {
            ".session-memory/config.toml": b'[spaces]\ninner = "research/deep"\n',
            "research/deep/.codex/session-memory/current.md": b"# inner\n",
            "research/deep/notes.txt": b"mine\n",
        },
    )
    res = cli("space", "migrate", "--workspace", str(root / "research" / "deep"), use_root=False)
    assert res.code == 0, res.err
    assert (root / "research/deep/.session-memory/current.md").read_bytes() == b"# inner\n"
    assert not (root / "research/deep/.codex").exists()
    assert (root / "research/deep/notes.txt").read_bytes() == b"mine\n"


def test_a_symlink_in_a_legacy_folder_is_refused_not_followed(cli, tmp_path):
    root = project(tmp_path, {".codex/session-memory/current.md": b"# c\n", "secret.txt": b"secret\n"})
    (root / ".codex/session-memory/history.md").symlink_to(root / "secret.txt")
    before = files(root)
    res = cli("space", "migrate", "--workspace", str(root), use_root=False)
    assert res.code == 1 and "symlink" in res.err and len(res.err.strip().splitlines()) == 1
    assert files(root) == before and (root / ".codex/session-memory/history.md").is_symlink()


def test_a_live_sleep_lock_refuses_migrate(cli, tmp_path, homes):
    root = project(tmp_path, {".codex/session-memory/current.md": b"# c\n"})
    put(homes / ".session-memory", {"sleep.lock": json.dumps({"pid": os.getpid()}).encode()})
    before = files(root)
    res = cli("space", "migrate", "--workspace", str(root), use_root=False)
    assert res.code == 1
    assert res.err.strip() == f"memboard: the session-memory skill is dreaming (pid {os.getpid()}); try again"
    assert files(root) == before


def _git_apply(base: Path, patch: bytes) -> None:
    """git -C base apply the patch (skip without git)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "-C", str(base), "apply", "-"], input=patch, check=True, capture_output=True)


def test_the_dry_run_patch_applied_in_its_base_gives_the_bytes_of_the_migration(cli, tmp_path):
    previewed = project(tmp_path / "a", LAYOUT)
    written = project(tmp_path / "b", LAYOUT)
    dry = cli("space", "migrate", "--workspace", str(previewed), "--dry-run", use_root=False)
    assert dry.code == 0 and dry.err.splitlines()[0] == f"patch base: {previewed.resolve()}"
    assert files(previewed) == dict(LAYOUT)  # nothing written
    _git_apply(previewed, dry.out.encode("utf-8"))
    assert cli("space", "migrate", "--workspace", str(written), use_root=False).code == 0
    assert files(previewed) == files(written)
    assert not (previewed / ".claude").exists()


GLOBAL_LEGACY = {
    ".codex/config.toml": b'model = "x"\n',
    ".codex/session-memory/global/current.md": b"\xef\xbb\xbf# G\r\n- a",
    ".codex/session-memory/global/history.md": b"# H\n",
    ".codex/session-memory/registry.json": b'{"projects": {}}\n',
    ".codex/session-memory/state.json": b'{"version": 1}',
    ".codex/session-memory/logs/dream.log": b"log\r\n",
    ".codex/session-memory/dreams/20261130T140500+0000-p-0123abcd.md": b"# Dream\n",
    ".codex/session-memory/sleep.lock": b'{"pid": 0}',
    ".claude/settings.json": b"{}\n",
    ".claude/session-memory/global/history.md": b"# H\n",
    ".claude/session-memory/global/research.md": b"r\n",
    ".session-memory/registry.json": b'{"projects": {"/p": {}}}\n',
}


def test_migrate_global_brings_the_legacy_homes_in_and_leaves_what_is_not_memory(cli, tmp_path, homes):
    put(homes, GLOBAL_LEGACY)
    before = files(homes)
    res = cli("space", "migrate", "--global", use_root=False)
    assert res.code == 0, res.err
    after = files(homes)
    assert after == {
        ".codex/config.toml": b'model = "x"\n',
        ".codex/session-memory/sleep.lock": b'{"pid": 0}',  # the skill's: never moved
        ".claude/settings.json": b"{}\n",
        ".session-memory/global/current.md": b"\xef\xbb\xbf# G\r\n- a",
        ".session-memory/global/history.md": b"# H\n",
        ".session-memory/global/research.md": b"r\n",
        ".session-memory/registry.json": b'{"projects": {"/p": {}}}\n',  # never overwritten
        ".session-memory/archive/legacy-imports/codex/registry.json": b'{"projects": {}}\n',
        ".session-memory/state.json": b'{"version": 1}',
        ".session-memory/logs/dream.log": b"log\r\n",
        ".session-memory/dreams/20261130T140500+0000-p-0123abcd.md": b"# Dream\n",
    }
    assert Counter(after.values()) == Counter(before.values()) - Counter([b"# H\n"])
    assert not (homes / ".claude" / "session-memory").exists() and (homes / ".claude").is_dir()
    assert (homes / ".codex" / "session-memory").is_dir()  # sleep.lock stays in it
    assert "left .codex/session-memory/sleep.lock" in res.out
    again = cli("space", "migrate", "--global", use_root=False)
    assert again.code == 0 and "nothing to change" in again.out


def test_the_global_dry_run_patch_is_relative_to_the_folder_holding_every_home(cli, tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    for home in (a, b):
        put(home, GLOBAL_LEGACY)

    def use(home: Path) -> None:
        monkeypatch.setenv("SESSION_MEMORY_HOME", str(home / ".session-memory"))
        monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
        monkeypatch.setenv("CLAUDE_HOME", str(home / ".claude"))

    use(a)
    dry = cli("space", "migrate", "--global", "--dry-run", use_root=False)
    assert dry.code == 0, dry.err
    assert dry.err.splitlines()[0] == f"patch base: {a.resolve()}"
    _git_apply(a, dry.out.encode("utf-8"))
    use(b)
    assert cli("space", "migrate", "--global", use_root=False).code == 0
    assert files(a) == files(b)


def test_a_write_command_puts_the_migration_first_in_its_own_plan(tmp_path):
    root = project(tmp_path, {".codex/session-memory/current.md": b"# c\n- a\n"})
    place = project_tree(root)

    def build():
        migration = project_migration(place)
        cur = migration.after(place, ".session-memory/current.md")
        assert cur == b"# c\n- a\n"
        change = Change.write(".session-memory/current.md", cur, cur + b"- b\n", "project")
        return with_migration(migration, "space save", None, [place], [change], "saved")

    plan = run([place], build, dry_run=True)
    assert [c.describe() for c in plan.changes][:2] == [
        "move .codex/session-memory/current.md -> .session-memory/current.md",
        "rmdir .codex/session-memory",
    ]
    assert plan.report[0].startswith("moved .codex/session-memory/current.md")
    run([place], build)
    assert files(root) == {".session-memory/current.md": b"# c\n- a\n- b\n"}


# add ------------------------------------------------------------------------------------------------------


def test_add_creates_the_config_with_the_route(cli, tmp_path):
    root = project(tmp_path, {})
    res = cli("space", "add", "记忆1", "current-research", "--workspace", str(root), use_root=False)
    assert res.code == 0, res.err
    assert (root / ".session-memory/config.toml").read_bytes() == '[spaces]\n"记忆1" = "current-research"\n'.encode()
    (root / "current-research").mkdir()
    where = json.loads(
        cli("space", "where", "--json", "--workspace", str(root / "current-research"), use_root=False).out
    )
    assert where["space"] == "记忆1" and where["rule"] == "configured-space"


def test_add_keeps_every_other_byte_and_the_files_line_ends(cli, tmp_path):
    text = b'# my routes\r\n[spaces]\r\nresearch = "research"  # deep work\r\n\r\n# the next table\r\n[other]\r\nx = 1'
    root = project(tmp_path, {".session-memory/config.toml": text})
    res = cli("space", "add", "deep", "research/deep/", "--workspace", str(root), use_root=False)
    assert res.code == 0, res.err
    out = (root / ".session-memory/config.toml").read_bytes()
    assert out == text.replace(b"# deep work\r\n", b'# deep work\r\n"deep" = "research/deep/"\r\n')


def test_add_to_top_level_routes_keeps_them_top_level(cli, tmp_path):
    text = b'"a" = "one"\n\n[meta]\nv = 1\n'
    root = project(tmp_path, {".session-memory/config.toml": text})
    assert cli("space", "add", "b", "two", "--workspace", str(root), use_root=False).code == 0
    assert (root / ".session-memory/config.toml").read_bytes() == b'"a" = "one"\n"b" = "two"\n\n[meta]\nv = 1\n'


@pytest.mark.parametrize(
    ("name", "subdir", "words"),
    [
        ("research", "other", "appears twice"),
        ("new", "research", "appears twice"),
        ("new", "../up", "escapes the project"),
        ("new", "/abs", "absolute"),
        ("  ", "x", "name is empty"),
    ],
)
def test_add_refuses_what_reading_would_refuse_in_one_line(cli, tmp_path, name, subdir, words):
    text = b'[spaces]\nresearch = "research"\n'
    root = project(tmp_path, {".session-memory/config.toml": text})
    res = cli("space", "add", name, subdir, "--workspace", str(root), use_root=False)
    assert res.code == 1 and words in res.err and len(res.err.strip().splitlines()) == 1
    assert (root / ".session-memory/config.toml").read_bytes() == text


def test_add_refuses_an_invalid_config_naming_it(cli, tmp_path):
    root = project(tmp_path, {".session-memory/config.toml": b"[spaces\n"})
    res = cli("space", "add", "a", "b", "--workspace", str(root), use_root=False)
    assert res.code == 1 and "config.toml" in res.err and "line 1" in res.err
    assert (root / ".session-memory/config.toml").read_bytes() == b"[spaces\n"


def test_add_migrates_a_legacy_config_first_and_its_patch_applies(cli, tmp_path):
    layout = {".codex/session-memory/config.toml": b'[spaces]\r\nold = "old"\r\n'}
    previewed, written = project(tmp_path / "a", layout), project(tmp_path / "b", layout)
    dry = cli("space", "add", "new", "new", "--workspace", str(previewed), "--dry-run", use_root=False)
    assert dry.code == 0, dry.err
    assert dry.err.splitlines()[0] == f"patch base: {previewed.resolve()}"
    _git_apply(previewed, dry.out.encode("utf-8"))
    assert cli("space", "add", "new", "new", "--workspace", str(written), use_root=False).code == 0
    assert (
        files(previewed)
        == files(written)
        == {".session-memory/config.toml": b'[spaces]\r\nold = "old"\r\n"new" = "new"\r\n'}
    )


# interop: the skill's public scripts run as they are (the legacy layout) -----------------------------------


def legacy_skill(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the skill's script name straight from upstream/scripts (so writing the legacy paths)."""
    script = PEER / "upstream" / "scripts" / f"{name}_session_memory.py"
    if not script.is_file():
        pytest.skip(f"the session-memory skill's scripts are not at {PEER}")
    ran = subprocess.run(
        [sys.executable, str(script), *args], cwd=cwd, env=dict(os.environ), capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr + ran.stdout
    return ran


def test_legacy_data_the_skills_scripts_wrote_migrates_with_every_files_bytes(cli, tmp_path, homes):
    legacy_home = homes / ".codex" / "session-memory"
    legacy_home.mkdir(parents=True)
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()  # a fresh check: no background dream
    (legacy_home / "state.json").write_text(json.dumps({"version": 1, "last_sleep_check_at": stamp}), encoding="utf-8")
    root = project(tmp_path, {})
    legacy_skill("init", "--workspace", str(root), cwd=root)
    legacy_skill("save", "--workspace", str(root), "--stage", "commit", cwd=root)
    legacy_skill(
        "research_save",
        "--workspace",
        str(root),
        "--stage",
        "commit",
        "--topic",
        "cache",
        "--conclusion",
        "works",
        cwd=root,
    )
    legacy_skill("init", "--scope", "global", cwd=root)
    legacy = root / ".codex" / "session-memory"
    assert (legacy / "current.md").is_file() and (legacy_home / "registry.json").is_file()
    project_before = files(legacy)
    home_before = files(legacy_home)
    assert cli("space", "migrate", "--workspace", str(root), use_root=False).code == 0
    assert files(root / ".session-memory") == project_before
    assert not (root / ".codex").exists()
    res = cli("space", "migrate", "--global", use_root=False)
    assert res.code == 0, res.err
    moved = files(homes / ".session-memory")
    assert moved == {rel: data for rel, data in home_before.items() if rel != "sleep.lock"}
    where = json.loads(cli("space", "where", "--json", "--workspace", str(root), use_root=False).out)
    assert where["exists"] is True and where["legacy"] == []


def test_a_linked_agent_folder_without_session_memory_is_no_legacy_folder(cli, tmp_path):
    elsewhere = tmp_path / "dotfiles" / "claude"
    elsewhere.mkdir(parents=True)
    (elsewhere / "settings.json").write_bytes(b"{}\n")
    root = project(tmp_path, {".codex/session-memory/current.md": b"# c\n"})
    (root / ".claude").symlink_to(elsewhere)
    res = cli("space", "migrate", "--workspace", str(root), use_root=False)
    assert res.code == 0, res.err
    assert (root / ".session-memory/current.md").read_bytes() == b"# c\n"
    assert (root / ".claude").is_symlink() and files(elsewhere) == {"settings.json": b"{}\n"}


def test_legacy_memory_reached_through_a_linked_agent_folder_is_refused(cli, tmp_path):
    elsewhere = tmp_path / "dotfiles" / "codex"
    put(elsewhere, {"session-memory/current.md": b"# theirs\n"})
    root = project(tmp_path, {})
    (root / ".codex").symlink_to(elsewhere)
    res = cli("space", "migrate", "--workspace", str(root), use_root=False)
    assert res.code == 1 and "symlink" in res.err and len(res.err.strip().splitlines()) == 1
    assert files(elsewhere) == {"session-memory/current.md": b"# theirs\n"}
    assert not (root / ".session-memory").exists()


def test_a_project_held_by_another_writer_waits_then_stops_naming_the_lock_in_local_state(cli, tmp_path, monkeypatch):
    from memboard.core.files import lock

    root = project(tmp_path, {".codex/session-memory/current.md": b"# c\n"})
    monkeypatch.setenv("MEMBOARD_LOCK_TIMEOUT", "0.3")
    with lock.locked_trees([project_tree(root).tree], timeout=1):
        res = cli("space", "migrate", "--workspace", str(root), use_root=False)
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1
    assert f"project {root.resolve()} is locked by another writer" in res.err
    assert os.environ["MEMBOARD_STATE_DIR"] in res.err  # the lock file is in local state, not in the project
    assert files(root) == {".codex/session-memory/current.md": b"# c\n"}
    assert cli("space", "migrate", "--workspace", str(root), use_root=False).code == 0


def test_add_refuses_a_credential_unless_allowed(cli, tmp_path):
    root = project(tmp_path, {})
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    res = cli("space", "add", "x", token, "--workspace", str(root), use_root=False)
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1
    assert not (root / ".session-memory").exists()
    assert cli("space", "add", "x", token, "--workspace", str(root), "--allow-secrets", use_root=False).code == 0


def test_the_skill_uses_a_route_space_add_wrote(cli, tmp_path):
    from tests.support.peers import run_skill

    home = tmp_path / "u" / ".session-memory"
    home.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()  # a fresh check: no background dream
    (home / "state.json").write_text(json.dumps({"version": 1, "last_sleep_check_at": stamp}), encoding="utf-8")
    root = project(tmp_path, {".session-memory/config.toml": b'# routes\n[spaces]\nold = "old"\n'})
    (root / "research" / "deep").mkdir(parents=True)
    assert cli("space", "add", "记忆1", "research/deep", "--workspace", str(root), use_root=False).code == 0
    ran = run_skill("init", "--workspace", str(root / "research" / "deep"), cwd=root)
    assert ran.returncode == 0, ran.stderr + ran.stdout
    assert "space_name=记忆1" in ran.stdout and "scope=configured-space" in ran.stdout
    assert (root / "research/deep/.session-memory/current.md").is_file()
    assert not (root / ".session-memory/current.md").exists()


def test_a_routed_legacy_project_the_skill_wrote_migrates_with_its_config(cli, tmp_path, homes):
    legacy_home = homes / ".codex" / "session-memory"
    legacy_home.mkdir(parents=True)
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()
    (legacy_home / "state.json").write_text(json.dumps({"version": 1, "last_sleep_check_at": stamp}), encoding="utf-8")
    root = project(tmp_path, {".codex/session-memory/config.toml": '[spaces]\n"记忆1" = "research"\n'.encode()})
    (root / "research").mkdir()
    legacy_skill("init", "--workspace", str(root / "research"), cwd=root)
    legacy_skill("init", "--workspace", str(root), cwd=root)
    before = {**{f"root/{k}": v for k, v in files(root / ".codex/session-memory").items()}}
    before.update({f"research/{k}": v for k, v in files(root / "research/.codex/session-memory").items()})
    assert "research/current.md" in before and "root/current.md" in before
    res = cli("space", "migrate", "--workspace", str(root / "research"), use_root=False)
    assert res.code == 0, res.err
    after = {f"root/{k}": v for k, v in files(root / ".session-memory").items()}
    after.update({f"research/{k}": v for k, v in files(root / "research/.session-memory").items()})
    assert after == before
    assert not (root / ".codex").exists() and not (root / "research/.codex").exists()
    where = json.loads(cli("space", "where", "--json", "--workspace", str(root / "research"), use_root=False).out)
    assert where["space"] == "记忆1" and where["config"] == str(root.resolve() / ".session-memory/config.toml")


def test_a_global_migration_is_never_planned_with_its_copies_written_after_the_deletes(tmp_path, homes):
    from memboard.core.errors import MemboardError
    from memboard.core.files.places import home_tree, legacy_home_trees
    from memboard.core.spaces.migrate import global_migration

    put(homes, {".codex/session-memory/global/current.md": b"# g\n"})
    home, legacy = home_tree(migrating=True), legacy_home_trees()
    migration = global_migration(home, legacy)
    with pytest.raises(MemboardError, match="must not have it as its first place"):
        with_migration(migration, "space save", None, [home, *legacy], [])
    plan = with_migration(migration, "space save", None, [*legacy, home], [])
    assert [ch.describe() for ch in plan.elsewhere] == ["create global/current.md"]
    assert [ch.describe() for ch in plan.changes] == [
        "delete session-memory/global/current.md",
        "rmdir session-memory/global",
        "rmdir session-memory",
    ]


@pytest.mark.parametrize("step", [1, 2, 3])
def test_a_migration_killed_after_any_step_loses_nothing_and_the_next_run_finishes(cli, tmp_path, monkeypatch, step):
    layout = {
        ".codex/session-memory/global/current.md": b"# g\r\n",
        ".codex/session-memory/global/history.md": b"# h",
        ".claude/session-memory/global/history.md": b"# h",
        ".claude/session-memory/dreams/d.md": b"dream\n",
    }
    clean, crashed = tmp_path / "clean", tmp_path / "crashed"
    for home in (clean, crashed):
        put(home, layout)

    def use(home: Path) -> None:
        monkeypatch.setenv("SESSION_MEMORY_HOME", str(home / ".session-memory"))
        monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
        monkeypatch.setenv("CLAUDE_HOME", str(home / ".claude"))

    use(clean)
    assert cli("space", "migrate", "--global", use_root=False).code == 0
    use(crashed)
    res = cli("space", "migrate", "--global", use_root=False, env={"FAULT_AFTER_STEP": str(step), "FAULT_MODE": "kill"})
    assert res.code != 0
    contents = Counter(files(crashed).values())
    assert set(contents) == set(Counter(layout.values()))  # every content is somewhere
    again = cli("space", "migrate", "--global", use_root=False)
    assert again.code == 0, again.err
    assert files(crashed) == files(clean)
