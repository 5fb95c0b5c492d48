"""The places engine (issue 24 §1, issue 25 §1): allow-lists, symlinks, locks in local state, lock order,
settled reads, revisions in local state and base-folder patches that `git -C BASE apply` replays."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from memboard.core.errors import MemboardError
from memboard.core.files import places, revisions, statepaths
from memboard.core.files.places import Place, assemble, home_tree, legacy_home_trees, project_tree, run, workspace_tree
from memboard.core.files.settle import NotSettled
from memboard.core.files.trees import CREATE, DELETE, MODIFY, MOVE_FROM, MOVE_TO, RMDIR, SESSION_HOME, home_rules
from memboard.core.plan import Change, Plan


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """The global home and the legacy homes, inside the test's folder."""
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(tmp_path / "home" / ".session-memory"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "home" / ".codex"))
    monkeypatch.setenv("CLAUDE_HOME", str(tmp_path / "home" / ".claude"))
    return tmp_path / "home" / ".session-memory"


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under folder by relative path (symlinks as their targets' text)."""
    out: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            out[path.relative_to(folder).as_posix()] = f"-> {os.readlink(path)}".encode()
        elif path.is_file():
            out[path.relative_to(folder).as_posix()] = path.read_bytes()
    return out


def _write(place: Place, rel: str, data: bytes) -> Plan[None]:
    """Apply a plan that writes data to rel in place."""
    return run(
        [place], lambda: assemble("write", None, [place], [Change.write(rel, place.read(rel), data, place.name)])
    )


# allow-lists ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "step", "allowed"),
    [
        (".session-memory/current.md", CREATE, True),
        (".session-memory/archive/history-archive.md", MODIFY, True),
        (".session-memory", RMDIR, True),
        ("research/deep/.session-memory/current.md", CREATE, True),
        ("research/deep-old/.session-memory/current.md", CREATE, False),
        ("other/.session-memory/current.md", CREATE, False),
        ("README.md", CREATE, False),
        ("README.md", MODIFY, False),
        (".git/config", MODIFY, False),
        (".codex/session-memory/current.md", DELETE, True),
        (".codex/session-memory/current.md", MOVE_FROM, True),
        (".codex/session-memory/current.md", CREATE, False),
        (".codex/session-memory/current.md", MODIFY, False),
        (".codex/session-memory/current.md", MOVE_TO, False),
        (".claude/session-memory/archive", RMDIR, True),
        ("research/deep/.claude/session-memory/history.md", MOVE_FROM, True),
        (".codex", RMDIR, True),
        (".codex/config.toml", DELETE, False),
        (".claude/settings.json", MODIFY, False),
        (".codex/session-memory-old/current.md", DELETE, False),
    ],
)
def test_a_project_allows_its_spaces_and_only_moves_out_of_its_legacy_folders(tmp_path, rel, step, allowed):
    tree = project_tree(tmp_path, routes=("research/deep",)).tree
    assert tree.permits(step, rel) is allowed


@pytest.mark.parametrize(
    ("rel", "step", "migrating", "allowed"),
    [
        ("global/current.md", CREATE, False, True),
        ("dreams/20261130T140500+0000-proj-0123abcd.md", CREATE, False, True),
        ("archive/dreams/2026-11/x.md", MOVE_TO, False, True),
        ("registry.json", CREATE, False, False),
        ("registry.json", CREATE, True, True),
        ("registry.json", MOVE_TO, True, True),
        ("registry.json", MODIFY, True, False),
        ("state.json", DELETE, True, False),
        ("logs/dream.log", CREATE, True, True),
        ("sleep.lock", CREATE, True, False),
        ("notes.txt", CREATE, False, False),
    ],
)
def test_the_global_home_allows_its_folders_and_legacy_files_only_where_none_is(home, rel, step, migrating, allowed):
    assert home_tree(migrating).tree.permits(step, rel) is allowed


@pytest.mark.parametrize(
    ("rel", "step", "allowed"),
    [
        ("session-memory/global/current.md", MOVE_FROM, True),
        ("session-memory/registry.json", DELETE, True),
        ("session-memory", RMDIR, True),
        ("session-memory/global/current.md", CREATE, False),
        ("session-memory/global/current.md", MODIFY, False),
        ("config.toml", DELETE, False),
        ("settings.json", MODIFY, False),
    ],
)
def test_a_legacy_home_only_lets_files_leave_its_session_memory(home, rel, step, allowed):
    (home.parent / ".codex").mkdir(parents=True)
    (legacy,) = legacy_home_trees()
    assert legacy.name == "codex" and legacy.tree.permits(step, rel) is allowed


@pytest.mark.parametrize(
    ("rel", "step", "allowed"),
    [
        ("MEMORY.md", MODIFY, True),
        ("memory/facts.yaml", MODIFY, True),
        ("memory/lookup-index.md", CREATE, True),
        ("memory/project-book_research-2.md", CREATE, True),
        ("memory/project-Book.md", CREATE, False),
        ("memory/project-.md", CREATE, False),
        ("memory/2026-11-30.md", MODIFY, True),
        ("memory/2026-02-30.md", CREATE, False),
        ("memory/2026-11-30.md", MOVE_FROM, True),
        ("memory/2026-11-30-standup.md", CREATE, False),
        ("memory/2026-11-30-standup.md", MODIFY, False),
        ("memory/2026-11-30-standup.md", MOVE_FROM, True),
        ("memory/migrations/2026-11-30T1405/MEMORY.md", CREATE, True),
        ("memory/daily-archive/2026-10/2026-10-01.md", MOVE_TO, True),
        ("memory/daily-archive/2026-13/2026-10-01.md", MOVE_TO, False),
        ("memory/index.md", MODIFY, False),
        ("AGENTS.md", MODIFY, False),
        ("SOUL.md", CREATE, False),
        ("DREAMS.md", MODIFY, False),
        ("memory/notes.md", CREATE, False),
    ],
)
def test_a_workspace_allows_exactly_the_hierarchy_files(tmp_path, rel, step, allowed):
    assert workspace_tree(tmp_path).tree.permits(step, rel) is allowed


def test_a_plan_writing_outside_the_allow_list_is_refused_with_nothing_written(tmp_path):
    (tmp_path / "p").mkdir()
    project = project_tree(tmp_path / "p")
    changes = [
        Change.write(".session-memory/current.md", None, b"# now\n", "project"),
        Change.write("README.md", None, b"no\n", "project"),
    ]
    with pytest.raises(MemboardError) as err:
        run([project], lambda: assemble("save", None, [project], changes))
    assert "README.md is not a path the project" in str(err.value) and "nothing written" in str(err.value)
    assert "\n" not in str(err.value)
    assert _files(tmp_path / "p") == {}


# symlinks and `..` ---------------------------------------------------------------------------------------


def test_a_symlink_out_of_the_project_is_refused_and_nothing_is_written_through_it(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / ".session-memory").symlink_to(outside)
    project = project_tree(tmp_path / "p")
    with pytest.raises(MemboardError) as err:
        _write(project, ".session-memory/current.md", b"# now\n")
    assert "resolves outside the project" in str(err.value) and "\n" not in str(err.value)
    assert _files(outside) == {}


def test_a_symlink_inside_a_legacy_folder_is_refused_not_followed(tmp_path):
    project_root = tmp_path / "p"
    legacy = project_root / ".codex" / "session-memory"
    legacy.mkdir(parents=True)
    (project_root / "README.md").write_bytes(b"mine\n")
    (legacy / "current.md").symlink_to(project_root / "README.md")
    project = project_tree(project_root)
    change = Change("move", ".codex/session-memory/current.md", b"mine\n", None, dest=".session-memory/current.md")
    with pytest.raises(MemboardError) as err:
        run([project], lambda: assemble("migrate", None, [project], [change]))
    assert "is a symlink" in str(err.value) and "\n" not in str(err.value)
    assert (project_root / "README.md").read_bytes() == b"mine\n" and (legacy / "current.md").is_symlink()
    assert not (project_root / ".session-memory").exists()


def test_dot_dot_is_refused(tmp_path):
    (tmp_path / "p").mkdir()
    project = project_tree(tmp_path / "p")
    with pytest.raises(MemboardError, match="would leave the project"):
        _write(project, ".session-memory/../README.md", b"x\n")
    assert not (tmp_path / "p" / "README.md").exists()


# locks and local state -----------------------------------------------------------------------------------


def test_the_lock_and_the_revisions_live_in_local_state_never_in_the_project(tmp_path, monkeypatch):
    project_root = tmp_path / "p"
    project_root.mkdir()
    project = project_tree(project_root)
    seen: list[Path] = []
    real_locked = places_lock_module().locked_trees

    def spy(trees, timeout=None):
        seen.extend(tree.lock_file for tree in trees)
        return real_locked(trees, timeout)

    monkeypatch.setattr(places_lock_module(), "locked_trees", spy)
    _write(project, ".session-memory/current.md", b"# one\n")
    _write(project, ".session-memory/current.md", b"# two\n")
    state = Path(os.environ["MEMBOARD_STATE_DIR"])
    assert seen and all(state in lock.parents for lock in seen)
    assert statepaths.lock_file(project_root.resolve()) in seen
    assert _files(project_root) == {".session-memory/current.md": b"# two\n"}  # nothing else in the project
    assert revisions.place_revisions(project, ".session-memory/current.md") == [b"# one\n", b"# two\n"]


def places_lock_module():
    """The lock module (whose locked_trees every plan's locks go through)."""
    from memboard.core.files import lock

    return lock


def test_two_plans_over_the_same_places_in_opposite_orders_do_not_deadlock(tmp_path, home, monkeypatch):
    monkeypatch.setenv("MEMBOARD_LOCK_TIMEOUT", "10")
    project_root = tmp_path / "p"
    project_root.mkdir()
    rounds = 8
    errors: list[BaseException] = []

    def build(order: str, i: int, project: Place, glob: Place, chosen: list[Place]) -> Plan[None]:
        line = f"{order} {i}\n".encode()
        a = project.read(".session-memory/log.md")
        b = glob.read("global/log.md")
        changes = [
            Change.write(".session-memory/log.md", a, (a or b"") + line, "project"),
            Change.write("global/log.md", b, (b or b"") + line, "home"),
        ]
        time.sleep(0.005)  # between the reads and the locks: the other plan gets in
        return assemble("both", None, chosen, changes)

    def append(order: str) -> None:
        try:
            for i in range(rounds):
                project, glob = project_tree(project_root), home_tree()
                chosen = [project, glob] if order == "ph" else [glob, project]
                run(chosen, functools.partial(build, order, i, project, glob, chosen))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=append, args=(order,)) for order in ("ph", "hp")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors and not any(t.is_alive() for t in threads)
    for path in (project_root / ".session-memory" / "log.md", home / "global" / "log.md"):
        lines = path.read_bytes().splitlines()
        assert sorted(lines) == sorted(f"{o} {i}".encode() for o in ("ph", "hp") for i in range(rounds))


def test_a_plan_over_places_is_built_again_when_a_file_changes_before_the_lock(tmp_path, home, monkeypatch):
    project_root = tmp_path / "p"
    (project_root / ".session-memory").mkdir(parents=True)
    (project_root / ".session-memory" / "history.md").write_bytes(b"# History\n")
    project, glob = project_tree(project_root), home_tree()
    builds: list[bytes | None] = []

    def build() -> Plan[None]:
        data = project.read(".session-memory/history.md")
        builds.append(data)
        changes = [
            Change.write(".session-memory/history.md", data, (data or b"") + b"mine\n", "project"),
            Change.write("global/current.md", glob.read("global/current.md"), b"# g\n", "home"),
        ]
        return assemble("two", None, [glob, project], changes)

    lock = places_lock_module()
    real = lock.locked_trees
    calls: list[int] = []

    def edit_then_lock(trees, timeout=None):
        if not calls:
            (project_root / ".session-memory" / "history.md").write_bytes(b"# History\ntheirs\n")
        calls.append(1)
        return real(trees, timeout)

    monkeypatch.setattr(lock, "locked_trees", edit_then_lock)
    run([glob, project], build)
    assert builds[0] == b"# History\n" and builds[-1] == b"# History\ntheirs\n"
    assert (project_root / ".session-memory" / "history.md").read_bytes() == b"# History\ntheirs\nmine\n"


# settled reads -------------------------------------------------------------------------------------------


def test_a_file_that_keeps_being_saved_stops_the_plan_with_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMBOARD_SETTLE_SECONDS", "0.3")
    project_root = tmp_path / "p"
    (project_root / ".session-memory").mkdir(parents=True)
    path = project_root / ".session-memory" / "current.md"
    path.write_bytes(b"# start\n")
    project = project_tree(project_root)
    stop = threading.Event()

    def saver() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            path.write_bytes(b"")
            path.write_bytes(f"# save {n}\n".encode())
            time.sleep(0.01)

    thread = threading.Thread(target=saver)
    thread.start()
    try:
        with pytest.raises(NotSettled) as err:
            run(
                [project],
                lambda: assemble(
                    "save",
                    None,
                    [project],
                    [
                        Change.write(
                            ".session-memory/current.md",
                            project.read(".session-memory/current.md"),
                            b"# mine\n",
                            "project",
                        )
                    ],
                ),
                dry_run=True,
                settle_wait=0.6,
            )
    finally:
        stop.set()
        thread.join()
    assert "still being saved" in str(err.value) or "kept changing" in str(err.value)
    assert "\n" not in str(err.value)


# base-folder patches -------------------------------------------------------------------------------------


def _layout(base: Path) -> None:
    """A project and a global home under base, with CRLF, a BOM and no final newline."""
    (base / "proj" / ".session-memory").mkdir(parents=True)
    (base / "proj" / ".codex" / "session-memory").mkdir(parents=True)
    (base / "proj" / ".session-memory" / "current.md").write_bytes(b"\xef\xbb\xbf# Current\r\n\r\n- a\r\n- b")
    (base / "proj" / ".codex" / "session-memory" / "research.md").write_bytes(b"# R\r\nold")
    (base / "proj" / ".codex" / "session-memory" / "history.md").write_bytes(b"# H\n")
    (base / "home" / "global").mkdir(parents=True)
    (base / "home" / "global" / "history.md").write_bytes(b"# H\r\n\r\n### 2026-11-30 14:05\r\n- x")


def _plan(base: Path) -> tuple[list[Place], Plan[None]]:
    """A plan over the project and the home of _layout (its places, and the plan built dry)."""
    project = project_tree(base / "proj")
    glob = Place(SESSION_HOME, base / "home", home_rules(), "home")
    chosen = [project, glob]

    def build() -> Plan[None]:
        cur = project.read(".session-memory/current.md") or b""
        hist = glob.read("global/history.md") or b""
        changes = [
            Change.write(".session-memory/current.md", cur, cur.replace(b"- b", b"- b\r\n- c")),
            Change(
                "move", ".codex/session-memory/research.md", b"# R\r\nold", None, dest=".session-memory/research.md"
            ),
            Change("delete", ".codex/session-memory/history.md", b"# H\n", None),
            Change.remove_folder(".codex/session-memory"),
            Change.remove_folder(".codex"),
            Change.write("global/history.md", hist, hist + b"\r\n\r\n### 2026-11-30 15:00\r\n- y", "home"),
            Change.write("dreams/20261130T150000+0000-proj-0123abcd.md", None, b"\xef\xbb\xbf# Dream\r\n- z", "home"),
        ]
        return assemble("mixed", None, chosen, [replace_tree(ch, "project") for ch in changes])

    return chosen, run(chosen, build, dry_run=True)


def replace_tree(ch: Change, default: str) -> Change:
    """ch naming default as its place when it names none."""
    return ch if ch.tree else Change(ch.kind, ch.path, ch.before, ch.after, ch.dest, ch.rewrite, default)


def test_git_apply_of_a_dry_run_patch_in_its_base_reproduces_the_bytes_of_the_write(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    previewed, written = tmp_path / "a", tmp_path / "b"
    _layout(previewed)
    _layout(written)
    chosen, plan = _plan(previewed)
    base = places.plan_base(plan, chosen)
    assert base == previewed.resolve()
    data = places.patch(plan, chosen, base)
    assert _files(previewed / "proj")[".codex/session-memory/history.md"] == b"# H\n"  # a dry run wrote nothing
    subprocess.run(["git", "-C", str(base), "apply", "-"], input=data, check=True, capture_output=True)
    chosen_b, _ = _plan(written)
    run(chosen_b, lambda: _plan(written)[1])
    assert _files(previewed) == _files(written)
    assert not (written / "proj" / ".codex").exists() and not (previewed / "proj" / ".codex").exists()
    assert (written / "home" / "global" / "history.md").read_bytes().endswith(b"- y")


def test_the_base_of_a_plan_in_one_place_is_that_place(tmp_path, home):
    project_root = tmp_path / "p"
    project_root.mkdir()
    project, glob = project_tree(project_root), home_tree()
    plan = run(
        [project, glob],
        lambda: assemble(
            "one", None, [project, glob], [Change.write(".session-memory/current.md", None, b"x\n", "project")]
        ),
        dry_run=True,
    )
    assert places.plan_base(plan, [project, glob]) == project_root.resolve()
    assert places.patch(plan, [project, glob], project_root.resolve()).startswith(
        b"diff --git a/.session-memory/current.md"
    )


def test_a_place_keeps_its_newest_revisions_only(tmp_path):
    (tmp_path / "p").mkdir()
    project = project_tree(tmp_path / "p")
    for n in range(revisions.PLACE_KEEP + 8):
        assert revisions.record_place(project, ".session-memory/current.md", f"# {n}\n".encode())
    kept = revisions.place_revisions(project, ".session-memory/current.md")
    assert len(kept) == revisions.PLACE_KEEP and kept[-1] == f"# {revisions.PLACE_KEEP + 7}\n".encode()
    assert not revisions.record_place(project, ".session-memory/current.md", kept[-1])  # the newest already


def test_removing_a_folder_the_plan_does_not_empty_is_refused_with_nothing_written(tmp_path):
    legacy = tmp_path / "p" / ".codex" / "session-memory"
    legacy.mkdir(parents=True)
    (legacy / "current.md").write_bytes(b"# c\n")
    (legacy / "history.md").write_bytes(b"# h\n")
    project = project_tree(tmp_path / "p")
    changes = [
        Change("delete", ".codex/session-memory/current.md", b"# c\n", None, tree="project"),
        Change("rmdir", ".codex/session-memory", None, None, tree="project"),
    ]
    with pytest.raises(MemboardError, match=r"not empty \(it holds 'history.md'\); nothing written"):
        run([project], lambda: assemble("tidy", None, [project], changes))
    assert (legacy / "current.md").read_bytes() == b"# c\n"


def test_removing_a_folder_an_earlier_step_writes_in_is_refused(tmp_path):
    (tmp_path / "p" / ".session-memory").mkdir(parents=True)
    project = project_tree(tmp_path / "p")
    changes = [
        Change.write(".session-memory/current.md", None, b"# c\n", "project"),
        Change("rmdir", ".session-memory", None, None, tree="project"),
    ]
    with pytest.raises(MemboardError, match=r"writes \.session-memory/current\.md in it; nothing written"):
        run([project], lambda: assemble("odd", None, [project], changes))
    assert not (tmp_path / "p" / ".session-memory" / "current.md").exists()


def test_a_file_caught_mid_save_is_waited_for_and_the_plan_built_on_its_settled_bytes(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMBOARD_SETTLE_SECONDS", "0.4")
    project_root = tmp_path / "p"
    (project_root / ".session-memory").mkdir(parents=True)
    path = project_root / ".session-memory" / "current.md"
    path.write_bytes(b"")  # truncated: another program is about to write it again
    project = project_tree(project_root)

    def saver() -> None:
        for n in range(20):
            path.write_bytes(b"")
            path.write_bytes(f"# save {n}\n".encode())
            time.sleep(0.02)
        path.write_bytes(b"# saved\n- all of it\n")

    thread = threading.Thread(target=saver)
    thread.start()
    try:
        plan = run(
            [project],
            lambda: assemble(
                "save",
                None,
                [project],
                [
                    Change.write(
                        ".session-memory/current.md", project.read(".session-memory/current.md"), b"x\n", "project"
                    )
                ],
            ),
            dry_run=True,
        )
    finally:
        thread.join()
    assert plan.changes[0].before == b"# saved\n- all of it\n"


def test_a_previewed_plan_over_places_is_applied_exactly_or_refused_as_stale(tmp_path, home):
    from memboard.core.errors import StalePlan

    project_root = tmp_path / "p"
    (project_root / ".session-memory").mkdir(parents=True)
    path = project_root / ".session-memory" / "history.md"
    path.write_bytes(b"# H\n")
    project, glob = project_tree(project_root), home_tree()
    chosen = [project, glob]

    def build() -> Plan[None]:
        data = project.read(".session-memory/history.md") or b""
        changes = [
            Change.write(".session-memory/history.md", data, data + b"- mine\n", "project"),
            Change.write("global/current.md", glob.read("global/current.md"), b"# g\n", "home"),
        ]
        return assemble("two", None, chosen, changes)

    preview = run(chosen, build, dry_run=True)
    path.write_bytes(b"# H\n- theirs\n")
    with pytest.raises(StalePlan) as stale:
        places.apply_previewed(chosen, preview, build)
    assert path.read_bytes() == b"# H\n- theirs\n" and not (home / "global").exists()
    fresh = stale.value.fresh_plan
    places.apply_previewed(chosen, fresh, build)
    assert path.read_bytes() == b"# H\n- theirs\n- mine\n"
    assert (home / "global" / "current.md").read_bytes() == b"# g\n"


def test_a_workspace_plan_may_move_openclaws_slugged_log_but_never_write_one(tmp_path):
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    slug = tmp_path / "ws" / "memory" / "2026-10-01-standup.md"
    slug.write_bytes(b"# standup\r\n")
    ws = workspace_tree(tmp_path / "ws")
    with pytest.raises(MemboardError, match=r"2026-10-02-x\.md is not a path the hierarchy workspace"):
        run([ws], lambda: assemble("log", None, [ws], [Change.write("memory/2026-10-02-x.md", None, b"x\n", ws.name)]))
    move = Change(
        "move",
        "memory/2026-10-01-standup.md",
        b"# standup\r\n",
        None,
        dest="memory/daily-archive/2026-10/2026-10-01-standup.md",
        tree=ws.name,
    )
    run([ws], lambda: assemble("archive-logs", None, [ws], [move]))
    assert _files(tmp_path / "ws") == {"memory/daily-archive/2026-10/2026-10-01-standup.md": b"# standup\r\n"}


def test_an_agents_answer_of_a_dry_run_names_base_places_and_the_patch(tmp_path):
    from memboard.service.places import place_change_json

    previewed, written = tmp_path / "a", tmp_path / "b"
    _layout(previewed)
    _layout(written)
    chosen, plan = _plan(previewed)
    answer = place_change_json(plan, chosen, dry_run=True, result={"op": "mixed"})
    assert answer["op"] == "mixed" and answer["base"] == str(previewed.resolve()) and answer["dry_run"] is True
    assert [p["kind"] for p in answer["places"]] == ["project", "session-memory home"]
    assert answer["changes"][0] == "modify home/global/history.md"  # the other place's steps are written first
    assert answer["notes"][-1] == "dry run: nothing written"
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(
        ["git", "-C", answer["base"], "apply", "-"], input=answer["diff"].encode(), check=True, capture_output=True
    )
    run(_plan(written)[0], lambda: _plan(written)[1])
    assert _files(previewed) == _files(written)
