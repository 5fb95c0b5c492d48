"""`memboard space init`, `space save`, `space research-save` (issue 24 §4): plans previewed as one git patch that
`git -C <base> apply` turns into exactly the planned bytes (CRLF, BOM, no final newline), bad input refused in one
line, and the session-memory skill's scripts reading what memboard writes."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memboard.core.spaces import templates
from tests.support.peers import run_skill, skill

STAMP = "2026-06-01 09:30"  # tests/conftest.py's MEMBOARD_NOW


def project(parent: Path, name: str = "p") -> Path:
    """A git project (no commit yet: no branch in the default work context)."""
    path = parent / name
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def space_files(p: Path, **files: bytes) -> Path:
    """Write p/.session-memory/<name> for each name=bytes (a `_` in the name stands for `.`)."""
    folder = p / ".session-memory"
    folder.mkdir(exist_ok=True)
    for name, data in files.items():
        (folder / name.replace("_", ".")).write_bytes(data)
    return folder


def dry(cli, *args: str, input: str | bytes | None = None):
    """`space ARGS --dry-run`: (exit code, patch bytes, stderr lines)."""
    res = cli("space", *args, "--dry-run", use_root=False, input=input)
    return res.code, res.out.encode("utf-8"), res.err.splitlines()


def git_apply(base: Path, patch: bytes) -> None:
    """`git -C base apply` of patch (failing the test when git refuses it)."""
    done = subprocess.run(["git", "-C", str(base), "apply", "-"], input=patch, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under folder by relative path (the .git folder left out)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(folder).parts
    }


# --- init ------------------------------------------------------------------------------------------------


def test_init_dry_run_patch_creates_the_templates_verbatim(cli, tmp_path):
    p = project(tmp_path)
    (p / "src").mkdir()
    code, patch, err = dry(cli, "init", "--workspace", str(p / "src"))
    assert code == 0
    assert err[0] == f"patch base: {p}"
    assert tree(p) == {}
    git_apply(p, patch)
    assert tree(p) == {f".session-memory/{name}": text.encode() for name, text in templates.TEMPLATES.items()}


def test_init_never_touches_an_existing_file_and_says_nothing_to_change(cli, tmp_path):
    p = project(tmp_path)
    space_files(p, current_md=b"mine\r\n")
    code, patch, _ = dry(cli, "init", "--workspace", str(p))
    git_apply(p, patch)
    assert (p / ".session-memory" / "current.md").read_bytes() == b"mine\r\n"
    assert (p / ".session-memory" / "history.md").read_text(encoding="utf-8") == templates.HISTORY
    code, patch, err = dry(cli, "init", "--workspace", str(p))
    assert (code, patch) == (0, b"")
    assert err[-1] == "dry run: nothing to change"


def test_init_on_the_global_space_patches_from_the_global_home(cli, tmp_path, homes):
    code, patch, err = dry(cli, "init", "--scope", "global", "--workspace", str(tmp_path))
    assert code == 0
    assert err[0] == f"patch base: {homes}"
    git_apply(homes, patch)
    assert (homes / "global" / "research.md").read_text(encoding="utf-8") == templates.RESEARCH


# --- save ------------------------------------------------------------------------------------------------

OLD_CURRENT = (
    "\ufeff# 会话记忆\r\n- Last Updated: 2026-05-01 08:00\r\n\r\n## 当前目标\r\n- old goal\r\n\r\n"
    "## 下一步\r\n1. step a\r\n### displaced heading"
)
OLD_HISTORY = "\ufeff# 会话记忆历史\r\n\r\n### 2026-05-01 08:00 [context: x]\r\n- 触发原因：a"
NEW_CURRENT = "# 会话记忆\n\n## 当前目标\n- new goal\n\n## 下一步\n1. step b\n"
ENTRY = (
    "### 2026-06-01 09:30 [context: p]\r\n- 触发原因：memboard space save\r\n"
    "- 发生了什么变化：current.md 的「当前目标」「下一步」已更新（3 行移入此处）\r\n"
    "- 移出 current.md 的内容（「当前目标」）：\r\n> - old goal\r\n"
    "- 移出 current.md 的内容（「下一步」）：\r\n> 1. step a\r\n> ### displaced heading\r\n"
)


def saved_space(cli, tmp_path) -> Path:
    """A space with CRLF, BOM and no final newline, saved with a new current.md through its dry-run patch."""
    p = project(tmp_path)
    space_files(p, current_md=OLD_CURRENT.encode(), history_md=OLD_HISTORY.encode(), research_md=b"# R")
    new = tmp_path / "new.md"
    new.write_text(NEW_CURRENT, encoding="utf-8")
    code, patch, err = dry(cli, "save", "--workspace", str(p), "--current", str(new))
    assert code == 0, err
    assert err[0] == f"patch base: {p}"
    assert "3 lines move to .session-memory/history.md" in err
    git_apply(p, patch)
    return p


def test_save_patch_writes_current_in_the_files_form_and_quotes_displaced_lines(cli, tmp_path):
    p = saved_space(cli, tmp_path)
    assert tree(p) == {
        ".session-memory/current.md": (
            "\ufeff# 会话记忆\r\n- Last Updated: 2026-06-01 09:30\r\n\r\n## 当前目标\r\n- new goal\r\n\r\n"
            "## 下一步\r\n1. step b\r\n"
        ).encode(),
        ".session-memory/history.md": (OLD_HISTORY + "\r\n\r\n" + ENTRY).encode(),
        ".session-memory/research.md": b"# R",
    }


def test_save_json_names_the_base_the_changes_and_the_displaced_lines(cli, tmp_path):
    p = project(tmp_path)
    space_files(p, current_md=OLD_CURRENT.encode(), history_md=OLD_HISTORY.encode())
    res = cli(
        "space",
        "save",
        "--workspace",
        str(p),
        "--current",
        "-",
        "--dry-run",
        "--json",
        input=NEW_CURRENT,
        use_root=False,
    )
    got = json.loads(res.out)
    assert got["base"] == str(p)
    assert got["dry_run"] is True
    # history.md first: a failure between the writes leaves the displaced lines in both files (test_sptrial_save_order)
    assert got["changes"] == ["modify .session-memory/history.md", "modify .session-memory/current.md"]
    assert got["displaced"] == ["- old goal", "1. step a", "### displaced heading"]
    assert got["history_entry"] == ENTRY.replace("\r\n", "\n")


def test_the_skill_reads_a_saved_space_and_takes_no_displaced_heading_for_an_entry(cli, tmp_path, monkeypatch):
    scripts = skill().parent / "upstream" / "scripts"
    p = saved_space(cli, tmp_path)
    restored = run_skill("restore", "--workspace", str(p), cwd=p)
    assert restored.returncode == 0, restored.stderr
    assert "[current.md]" in restored.stdout and "- new goal" in restored.stdout
    assert "> ### displaced heading" in restored.stdout
    found = run_skill("search", "--workspace", str(p), "--query", "DISPLACED heading", cwd=p)
    assert "[history.md]\n13: > ### displaced heading" in found.stdout.replace("\r", "")
    found = run_skill("search", "--workspace", str(p), "--query", "old goal", cwd=p)
    assert "[history.md]\n10: > - old goal" in found.stdout
    monkeypatch.syspath_prepend(str(scripts))
    spec = importlib.util.spec_from_file_location("skill_archive", scripts / "archive_session_memory.py")
    assert spec is not None and spec.loader is not None
    archive = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "skill_archive", archive)  # (its dataclasses look their module up)
    spec.loader.exec_module(archive)
    text = (p / ".session-memory" / "history.md").read_text(encoding="utf-8")
    _, entries = archive.parse_document_entries(text)
    assert [e.splitlines()[0] for e in entries] == [
        "### 2026-05-01 08:00 [context: x]",
        "### 2026-06-01 09:30 [context: p]",
    ]


def test_save_sections_on_a_new_space_starts_from_the_template_and_creates_it(cli, tmp_path):
    p = project(tmp_path)
    body = tmp_path / "next.md"
    body.write_text("1. write the tests\n", encoding="utf-8")
    code, patch, err = dry(cli, "save", "--workspace", str(p), "--section", f"下一步={body}", "--context", "feat@p")
    assert code == 0, err
    git_apply(p, patch)
    want = templates.CURRENT.replace("# 会话记忆\n\n", f"# 会话记忆\n- Last Updated: {STAMP}\n\n", 1)
    want = want.replace("## 下一步\n1. \n", "## 下一步\n1. write the tests\n")
    assert tree(p) == {
        ".session-memory/current.md": want.encode(),
        ".session-memory/history.md": templates.HISTORY.encode(),
        ".session-memory/research.md": templates.RESEARCH.encode(),
    }


def test_an_unknown_section_is_refused_listing_the_sections(cli, tmp_path):
    p = project(tmp_path)
    space_files(p, current_md=b"# T\n## A\n- a\n## B\n")
    body = tmp_path / "b.md"
    body.write_text("x\n", encoding="utf-8")
    res = cli("space", "save", "--workspace", str(p), "--section", f"C={body}", use_root=False)
    assert res.code == 1
    assert res.err.strip() == "memboard: current.md has no section 'C'; its sections: A, B"
    assert tree(p) == {".session-memory/current.md": b"# T\n## A\n- a\n## B\n"}


def test_a_save_equal_but_for_last_updated_is_nothing_to_change(cli, tmp_path):
    p = project(tmp_path)
    space_files(p, current_md=b"# T\r\n- Last Updated: 2026-01-01 00:00\r\n\r\n## A\r\n- a\r\n", history_md=b"# H\n")
    code, patch, err = dry(cli, "save", "--workspace", str(p), "--current", "-", input="# T\n\n## A\n- a\n")
    assert (code, patch, err[-1]) == (0, b"", "dry run: nothing to change")


def test_the_callers_history_entry_is_kept_verbatim_and_completed(cli, tmp_path):
    p = project(tmp_path)
    space_files(p, current_md=b"## A\n- a1\n- a2\n", history_md=b"# H\n")
    new = tmp_path / "new.md"
    new.write_text("## A\n", encoding="utf-8")
    entry = tmp_path / "entry.md"
    entry.write_text("- 触发原因：split the work\n- 发生了什么变化：a1 done\n- a1\n", encoding="utf-8")
    code, patch, err = dry(cli, "save", "--workspace", str(p), "--current", str(new), "--history-entry", str(entry))
    assert code == 0, err
    git_apply(p, patch)
    assert (p / ".session-memory" / "history.md").read_text(encoding="utf-8") == (
        "# H\n\n### 2026-06-01 09:30 [context: p]\n- 触发原因：split the work\n- 发生了什么变化：a1 done\n- a1\n"
        "- 发生了什么变化：current.md 的「A」已更新（1 行移入此处）\n- 移出 current.md 的内容（「A」）：\n> - a2\n"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--current", "/nonexistent/x.md"], 2, "--current /nonexistent/x.md: cannot read it"),
        (["--section", "A"], 2, "--section takes NAME=FILE"),
        (["--current", "-", "--history-entry", "-"], 2, "only one input can be read from stdin"),
    ],
)
def test_bad_save_input_is_one_line(cli, tmp_path, args, code, message):
    p = project(tmp_path)
    res = cli("space", "save", "--workspace", str(p), *args, use_root=False, input="")
    assert res.code == code
    assert len(res.err.strip().splitlines()) == 1 and message in res.err
    assert tree(p) == {}


def test_a_secret_is_refused_unless_allowed(cli, tmp_path):
    p = project(tmp_path)
    text = "## A\n- token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + "\n"
    res = cli("space", "save", "--workspace", str(p), "--current", "-", "--dry-run", input=text, use_root=False)
    assert res.code == 1 and res.out == ""
    code, patch, _ = dry(cli, "save", "--workspace", str(p), "--current", "-", "--allow-secrets", input=text)
    assert code == 0 and b"ghp_" in patch


def test_an_invalid_config_stops_every_write_with_its_line(cli, tmp_path):
    p = project(tmp_path)
    space_files(p, config_toml=b"[spaces\n")
    res = cli("space", "init", "--workspace", str(p), use_root=False)
    assert res.code == 1 and "config.toml" in res.err and len(res.err.strip().splitlines()) == 1


# --- research-save ---------------------------------------------------------------------------------------

RESEARCH_ARGS = [
    "--topic",
    " FTS5 ranking ",
    "--conclusion",
    "bm25 is enough",
    "--valid",
    "partial",
    "--evidence",
    "bench 1",
    "--evidence",
    " ",
    "--evidence",
    "bench 2",
    "--key-path",
    "app/search.py",
    "--tag",
    "search",
]


def test_research_save_patch_appends_in_the_files_line_ends(cli, tmp_path):
    p = project(tmp_path)
    space_files(p, research_md="\ufeff# 研究记录\r\n\r\n### 2026-01-01 00:00 [context: x]\r\n- 研究主题：t".encode())
    code, patch, err = dry(cli, "research-save", "--workspace", str(p), *RESEARCH_ARGS)
    assert code == 0, err
    assert err[0] == f"patch base: {p}"
    git_apply(p, patch)
    assert (p / ".session-memory" / "research.md").read_bytes() == (
        "\ufeff# 研究记录\r\n\r\n### 2026-01-01 00:00 [context: x]\r\n- 研究主题：t\r\n\r\n"
        "### 2026-06-01 09:30 [context: p]\r\n- 研究主题：FTS5 ranking\r\n- 当前结论：bm25 is enough\r\n"
        "- 是否有效：partial\r\n- 是否并入主线：no\r\n- 关键证据：bench 1; bench 2\r\n- 关键文件与路径：app/search.py\r\n"
        "- 下一步：\r\n- 关键词 / 标签：search\r\n"
    ).encode()


def test_research_save_on_a_missing_file_starts_from_the_template(cli, tmp_path):
    p = project(tmp_path)
    code, patch, _ = dry(cli, "research-save", "--workspace", str(p), "--topic", "t", "--conclusion", "c")
    assert code == 0
    git_apply(p, patch)
    assert set(tree(p)) == {".session-memory/research.md"}
    assert (p / ".session-memory" / "research.md").read_text(encoding="utf-8").startswith(templates.RESEARCH + "\n###")


@pytest.mark.parametrize(
    "args",
    [
        ["--topic", " ", "--conclusion", "c"],
        ["--topic", "t", "--conclusion", ""],
        ["--topic", "t"],
        ["--topic", "t", "--conclusion", "c", "--valid", "maybe"],
        ["--topic", "t", "--conclusion", "c", "--merged", "partial"],
    ],
)
def test_research_save_bad_usage_is_exit_2(cli, tmp_path, args):
    p = project(tmp_path)
    res = cli("space", "research-save", "--workspace", str(p), *args, use_root=False)
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1
    assert tree(p) == {}


def _masked_time(data: bytes) -> bytes:
    """research.md with every entry heading's time replaced (the one difference allowed)."""
    return re.sub(rb"^### \d{4}-\d{2}-\d{2} \d{2}:\d{2} ", b"### T ", data, flags=re.M)


@pytest.mark.parametrize("branch", [None, "feat"])
def test_research_save_appends_the_skills_entry_byte_for_byte_and_its_search_finds_it(cli, tmp_path, branch):
    ours, theirs = project(tmp_path / "one", "proj"), project(tmp_path / "two", "proj")
    for p in (ours, theirs):
        if branch:  # a commit on a branch: the default context is `<branch>@<folder>`
            git = ["git", "-C", str(p), "-c", "user.name=t", "-c", "user.email=t@t"]
            subprocess.run([*git, "checkout", "-q", "-b", branch], check=True)
            subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
        init = run_skill("init", "--workspace", str(p), cwd=p)
        assert init.returncode == 0, init.stderr
    code, patch, err = dry(cli, "research-save", "--workspace", str(ours), *RESEARCH_ARGS)
    assert code == 0, err
    git_apply(ours, patch)
    done = run_skill("research_save", "--stage", "commit", "--workspace", str(theirs), *RESEARCH_ARGS, cwd=theirs)
    assert done.returncode == 0, done.stdout + done.stderr
    mine = (ours / ".session-memory" / "research.md").read_bytes()
    assert f"[context: {branch + '@' if branch else ''}proj]".encode() in mine
    assert _masked_time(mine) == _masked_time((theirs / ".session-memory" / "research.md").read_bytes())
    found = run_skill("search", "--workspace", str(ours), "--include-research", "--query", "fts5 RANKING", cwd=ours)
    assert "[research.md]" in found.stdout and "- 研究主题：FTS5 ranking" in found.stdout


# --- the write itself ------------------------------------------------------------------------------------

ODD = {  # CRLF, a BOM, no final newline
    "current_md": OLD_CURRENT.encode(),
    "history_md": OLD_HISTORY.encode(),
    "research_md": "\ufeff# 研究记录\r\n\r\n### 2026-01-01 00:00 [context: x]\r\n- 研究主题：t".encode(),
}


@pytest.mark.parametrize(
    ("files", "command"),
    [
        ({}, ["init"]),
        ({"current_md": b"# mine"}, ["init"]),
        (ODD, ["save", "--current", "NEW"]),
        ({}, ["save", "--current", "NEW"]),
        ({"current_md": OLD_CURRENT.encode()}, ["save", "--section", "下一步=NEW", "--history-entry", "NEW"]),
        (ODD, ["research-save", *RESEARCH_ARGS]),
        ({}, ["research-save", "--topic", "t", "--conclusion", "c"]),
    ],
)
def test_git_apply_of_the_dry_run_reproduces_the_write_byte_for_byte(cli, tmp_path, files, command):
    new = tmp_path / "new.md"
    new.write_bytes(b"- one\r\n### two")
    args = [str(new) if a == "NEW" else a.replace("=NEW", f"={new}") for a in command]
    previewed, written = project(tmp_path / "a"), project(tmp_path / "b")
    for p in (previewed, written):
        if files:
            space_files(p, **files)
    code, patch, err = dry(cli, *args[:1], "--workspace", str(previewed), *args[1:])
    assert code == 0, err
    git_apply(previewed, patch)
    res = cli("space", *args[:1], "--workspace", str(written), *args[1:], use_root=False)
    assert res.code == 0, res.err
    assert tree(written) == tree(previewed) != {}


def test_a_written_save_says_what_it_did_and_a_second_is_nothing_to_change(cli, tmp_path):
    p = project(tmp_path)
    space_files(p, current_md=OLD_CURRENT.encode(), history_md=OLD_HISTORY.encode())
    res = cli("space", "save", "--workspace", str(p), "--current", "-", input=NEW_CURRENT, use_root=False)
    assert res.code == 0, res.err
    assert "3 lines move to .session-memory/history.md" in res.out
    assert (p / ".session-memory" / "history.md").read_bytes() == (OLD_HISTORY + "\r\n\r\n" + ENTRY).encode()
    again = cli("space", "save", "--workspace", str(p), "--current", "-", input=NEW_CURRENT, use_root=False)
    assert (again.code, again.out.strip()) == (0, "nothing to change")


def test_an_entry_another_writer_appends_meanwhile_is_kept_and_memboards_goes_after_it(cli, tmp_path, monkeypatch):
    from memboard.core.files import lock

    p = project(tmp_path)
    space_files(p, current_md=b"## A\n- a1\n", history_md=b"# H\n")
    theirs = "### 2026-05-31 10:00 [context: skill]\n- 触发原因：theirs\n"
    real, calls = lock.locked_trees, []

    def append_then_lock(trees, timeout=None):
        if not calls:  # the skill appends right after memboard built its plan, before the lock
            (p / ".session-memory" / "history.md").write_text("# H\n\n" + theirs, encoding="utf-8")
        calls.append(1)
        return real(trees, timeout)

    monkeypatch.setattr(lock, "locked_trees", append_then_lock)
    res = cli("space", "save", "--workspace", str(p), "--current", "-", input="## A\n", use_root=False)
    assert res.code == 0, res.err
    history = (p / ".session-memory" / "history.md").read_text(encoding="utf-8")
    assert history.startswith("# H\n\n" + theirs + "\n### 2026-06-01 09:30 [context: p]\n")
    assert history.endswith("> - a1\n")


def legacy_space(parent: Path) -> Path:
    """A project whose memory the skill's current scripts wrote at the legacy path (.codex/session-memory)."""
    p = project(parent)
    legacy = p / ".codex" / "session-memory"
    legacy.mkdir(parents=True)
    (legacy / "current.md").write_bytes(OLD_CURRENT.encode())
    (legacy / "history.md").write_bytes(OLD_HISTORY.encode())
    return p


def test_a_save_on_legacy_memory_migrates_it_first_in_the_same_plan_visibly(cli, tmp_path):
    p = legacy_space(tmp_path)
    res = cli("space", "save", "--workspace", str(p), "--current", "-", input=NEW_CURRENT, use_root=False)
    assert res.code == 0, res.err
    lines = res.out.splitlines()
    assert lines[:3] == [
        "moved .codex/session-memory/current.md -> .session-memory/current.md",
        "moved .codex/session-memory/history.md -> .session-memory/history.md",
        "removed the empty folder .codex/session-memory",
    ]
    assert not (p / ".codex").exists()
    assert (p / ".session-memory" / "history.md").read_bytes() == (OLD_HISTORY + "\r\n\r\n" + ENTRY).encode()
    assert set(tree(p)) == {".session-memory/current.md", ".session-memory/history.md"}


@pytest.mark.parametrize(
    "command", [["init"], ["save", "--current", "NEW"], ["research-save", "--topic", "t", "--conclusion", "c"]]
)
def test_a_dry_run_with_the_migration_applies_to_the_written_tree(cli, tmp_path, command):
    new = tmp_path / "new.md"
    new.write_text(NEW_CURRENT, encoding="utf-8")
    args = [str(new) if a == "NEW" else a for a in command]
    previewed, written = legacy_space(tmp_path / "a"), legacy_space(tmp_path / "b")
    code, patch, err = dry(cli, args[0], "--workspace", str(previewed), *args[1:])
    assert code == 0, err
    assert b"rename from .codex/session-memory/" in patch
    git_apply(previewed, patch)
    res = cli("space", args[0], "--workspace", str(written), *args[1:], use_root=False)
    assert res.code == 0, res.err
    assert tree(written) == tree(previewed)
    assert not any(path.startswith(".codex") for path in tree(written))


def test_a_space_init_created_is_known_from_then_on(cli, tmp_path):
    p = project(tmp_path)
    dry(cli, "init", "--workspace", str(p))
    listed = cli("space", "list", "--json", use_root=False)
    assert str(p / ".session-memory") not in listed.out  # a dry run writes nothing, not even the record
    assert cli("space", "init", "--workspace", str(p), use_root=False).code == 0
    listed = cli("space", "list", "--json", use_root=False)
    assert listed.code == 0, listed.err
    assert str(p / ".session-memory") in listed.out


def test_a_routed_space_is_patched_from_the_project_root_with_the_space_name_as_context(cli, tmp_path):
    p = project(tmp_path)
    space_files(p, config_toml='[spaces]\n"记忆1" = "research/deep"\n'.encode())
    (p / "research" / "deep" / "x").mkdir(parents=True)
    code, patch, err = dry(
        cli, "research-save", "--workspace", str(p / "research" / "deep" / "x"), "--topic", "t", "--conclusion", "c"
    )
    assert code == 0, err
    assert err[0] == f"patch base: {p}"
    assert b"+++ b/research/deep/.session-memory/research.md" in patch
    git_apply(p, patch)
    text = (p / "research" / "deep" / ".session-memory" / "research.md").read_text(encoding="utf-8")
    assert "### 2026-06-01 09:30 [context: 记忆1]\n" in text


def test_a_global_save_migrates_the_legacy_global_space_first(cli, tmp_path, homes):
    legacy = tmp_path / "codexhome" / "session-memory" / "global"
    legacy.mkdir(parents=True)
    (legacy / "current.md").write_bytes(b"# g\n## A\n- old\n")
    code, _, err = dry(cli, "save", "--scope", "global", "--current", "-", input="# g\n## A\n- new\n")
    assert code == 0, err
    assert err[0] == f"patch base: {tmp_path}"  # the deepest folder holding the home and the legacy home
    res = cli("space", "save", "--scope", "global", "--current", "-", input="# g\n## A\n- new\n", use_root=False)
    assert res.code == 0, res.err
    assert not legacy.exists()
    assert (homes / "global" / "current.md").read_bytes() == b"# g\n- Last Updated: 2026-06-01 09:30\n\n## A\n- new\n"
    assert (homes / "global" / "history.md").read_text(encoding="utf-8").endswith("> - old\n")


def test_a_save_that_would_migrate_is_refused_while_the_skill_dreams_and_one_that_would_not_is_not(
    cli, tmp_path, homes
):
    import os

    (homes / "sleep.lock").write_text(
        json.dumps({"pid": os.getpid(), "started_at": "2026-06-01T09:00:00Z"}), encoding="utf-8"
    )
    p = legacy_space(tmp_path)
    res = cli("space", "save", "--workspace", str(p), "--current", "-", input=NEW_CURRENT, use_root=False)
    assert res.code == 1 and "the session-memory skill is dreaming (pid" in res.err
    assert (p / ".codex" / "session-memory" / "current.md").exists() and not (p / ".session-memory").exists()
    q = project(tmp_path / "other")
    assert cli("space", "init", "--workspace", str(q), use_root=False).code == 0


def test_a_given_context_is_taken_stripped_as_the_skill_takes_it(cli, tmp_path):
    p = project(tmp_path)
    code, patch, _ = dry(
        cli, "research-save", "--workspace", str(p), "--topic", "t", "--conclusion", "c", "--work-context", "  fork-1 "
    )
    assert code == 0
    assert b"+### 2026-06-01 09:30 [context: fork-1]\n" in patch


def test_init_where_the_space_folder_is_a_file_names_the_file_in_the_way(cli, tmp_path):
    p = project(tmp_path)
    (p / ".session-memory").write_bytes(b"not a folder\n")
    res = cli("space", "init", "--workspace", str(p), use_root=False)
    assert res.code == 1 and res.err.count("\n") == 1
    assert ".session-memory is a file, not a folder" in res.err and "nothing written" in res.err
    assert (p / ".session-memory").read_bytes() == b"not a folder\n"
