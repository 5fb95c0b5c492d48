"""`space dream` and `space archive` from the outside (issue 24 §4, §8, §9): byte-exact previews, the refusals,
a crash between the archive's two writes found by `space check` and finished by the next archive, a writer
appending between them, a hand-edited dream-notes.md kept, snapshots in the global home."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.faults import AfterStep, installed

NOW = "2026-12-02 10:00"
CURRENT = "\ufeff# 会话记忆\r\n\r\n## 有效做法\r\n- 先写测试\r\n\r\n## 未决问题\r\n- 为什么慢"


def entry(minute: int, body: str = "x", ctx: str = "main") -> str:
    return f"### 2026-11-30 10:{minute:02d} [context: {ctx}]\r\n- 触发原因：{body}\r\n"


HISTORY = (
    "\ufeff# 会话记忆历史\r\n\r\n" + entry(1) + "```\r\n### 2026-11-30 10:09 fenced\r\n```\r\n" + entry(1) + entry(2)
)
RESEARCH = (
    "# 研究记录\r\n\r\n"
    "### 2026-11-30 09:00 [context: main]\r\n- 研究主题：A\r\n- 是否有效：unknown\r\n- 是否并入主线：no\r\n"
    "### 2026-11-30 09:01 [context: main]\r\n- 研究主题：B\r\n- 是否有效：partial\r\n- 下一步：go on\r\n"
    "### 2026-11-30 09:02 [context: main]\r\n- 研究主题：A\r\n- 当前结论：dead end\r\n- 是否有效：no"
)
DREAMT = "# Dream Notes\n\n- Last Updated: 2026-11-30 11:00\n\n## 判断准则\n- x\n"


@pytest.fixture(autouse=True)
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The global home (and the legacy ones) inside the test's base folder; the clock fixed."""
    home = tmp_path / "base" / "home"
    (home / "dreams").mkdir(parents=True)
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codexhome"))
    monkeypatch.setenv("CLAUDE_HOME", str(tmp_path / "claudehome"))
    monkeypatch.setenv("MEMBOARD_NOW", NOW)
    return home


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    p = tmp_path / "base" / "p"
    (p / ".git").mkdir(parents=True)
    for rel, text in files.items():
        path = p / ".session-memory" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return p


def space(cli, *args: str, input: str | None = None):
    return cli("space", *args, use_root=False, input=input)


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def applied_preview(cli, tmp_path: Path, *args: str, input: str | None = None) -> dict[str, bytes]:
    """The base folder's files after `git -C BASE apply` of the command's --dry-run, on a copy."""
    base = tmp_path / "base"
    copy = tmp_path / "copy"
    shutil.copytree(base, copy, copy_function=shutil.copy2)
    shown = cli("space", *args, "--dry-run", use_root=False, input=input)
    assert shown.code == 0, shown.err
    said = shown.err.splitlines()[0]
    assert said.startswith("patch base: ")
    at = Path(said.removeprefix("patch base: "))
    patch = tmp_path / "plan.patch"
    patch.write_bytes(shown.out.encode("utf-8"))
    rel = at.relative_to(base)
    subprocess.run(["git", "apply", "--unsafe-paths", str(patch)], cwd=copy / rel, check=True)
    return tree(copy)


def test_archive_dry_run_applies_to_exactly_what_it_writes(cli, tmp_path: Path) -> None:
    p = project(tmp_path, {"history.md": HISTORY, "research.md": RESEARCH, "dream-notes.md": DREAMT})
    (tmp_path / "base/home/dreams/20261001T000000+0000-p-12345678.md").write_bytes(b"old")
    before = tree(tmp_path / "base")
    preview = applied_preview(cli, tmp_path, "archive", "--workspace", str(p), "--keep", "1")
    assert tree(tmp_path / "base") == before  # a dry run writes nothing
    done = space(cli, "archive", "--workspace", str(p), "--keep", "1")
    assert done.code == 0, done.err
    after = tree(tmp_path / "base")
    assert after == preview
    mem = "p/.session-memory/"
    assert after[mem + "history.md"] == ("\ufeff# 会话记忆历史\r\n\r\n" + entry(2)).encode()
    archived = after[mem + "archive/history-archive.md"].decode()
    assert archived.endswith(entry(1) + "```\r\n### 2026-11-30 10:09 fenced\r\n```\r\n" + entry(1))  # two entries
    research = after[mem + "research.md"].decode()
    assert "研究主题：A" not in research and "研究主题：B" in research  # topic A moved whole
    assert after[mem + "archive/research-archive.md"].decode().count("研究主题：A") == 2
    assert "home/archive/dreams/2026-10/20261001T000000+0000-p-12345678.md" in after
    again = space(cli, "archive", "--workspace", str(p), "--keep", "1")
    assert again.code == 0 and "nothing to change" in again.out and tree(tmp_path / "base") == after


def test_dream_dry_run_applies_to_exactly_what_it_writes_and_keeps_a_hand_edited_file(cli, tmp_path: Path) -> None:
    hand = "# Dream Notes\r\n\r\n## 判断准则\r\n- my own words, no final newline"
    p = project(tmp_path, {"current.md": CURRENT, "research.md": RESEARCH, "dream-notes.md": hand})
    preview = applied_preview(cli, tmp_path, "dream", "--workspace", str(p))
    done = space(cli, "dream", "--workspace", str(p), "--json")
    assert done.code == 0, done.err
    after = tree(tmp_path / "base")
    assert after == preview
    result = json.loads(done.out)
    assert result["mode"] == "extract" and result["kept_old"] is not None
    assert Path(result["kept_old"]).read_bytes() == hand.encode()
    notes = (p / ".session-memory/dream-notes.md").read_bytes()
    assert Path(result["snapshot"]).read_bytes() == notes
    assert Path(result["snapshot"]).name.startswith("20261202T")  # the skill's name: UTC time, label, 8 hex
    assert notes.startswith(b"# Dream Notes\r\n\r\n- Last Updated: 2026-12-02 10:00\r\n- Generated At: ")
    text = notes.decode()
    assert "- 先写测试\r\n" in text and "- dead end\r\n" in text and "- go on\r\n" in text
    assert "- Generated By: memboard extract (verbatim items, not distilled)\r\n" in text


def test_dream_from_notes_checks_the_shape_and_writes_the_sections_verbatim(cli, tmp_path: Path) -> None:
    p = project(tmp_path, {"current.md": CURRENT})
    bad = space(cli, "dream", "--workspace", str(p), "--from", "-", input="## 判断准则\n- a\n- b\n- c\n- d\n")
    assert bad.code == 1 and "more than 3" in bad.err and len(bad.err.strip().splitlines()) == 1
    assert not (p / ".session-memory/dream-notes.md").exists()
    missing = space(cli, "dream", "--workspace", str(p), "--from", str(tmp_path / "nope.md"))
    assert missing.code == 2
    notes = "# mine\n- Author: me\n\n## 正确轨迹\n- 先写测试，再改代码\n\n## 预警信号\n- 月亮是奶酪做的\n"
    preview = applied_preview(cli, tmp_path, "dream", "--workspace", str(p), "--from", "-", input=notes)
    done = space(cli, "dream", "--workspace", str(p), "--from", "-", "--json", input=notes)
    assert done.code == 0, done.err
    assert tree(tmp_path / "base") == preview
    result = json.loads(done.out)
    assert result["unsupported"] == ["月亮是奶酪做的"]
    written = (p / ".session-memory/dream-notes.md").read_text()
    assert written.endswith("\n## 正确轨迹\n- 先写测试，再改代码\n\n## 预警信号\n- 月亮是奶酪做的\n")
    assert "Author" not in written and "# mine" not in written


def test_nothing_to_distil_writes_nothing(cli, tmp_path: Path) -> None:
    p = project(tmp_path, {"current.md": "# 会话记忆\n\n## 有效做法\n- \n"})
    done = space(cli, "dream", "--workspace", str(p))
    assert done.code == 0 and "nothing to distil" in done.out
    assert not (p / ".session-memory/dream-notes.md").exists() and not os.listdir(tmp_path / "base/home/dreams")


def test_archive_before_a_dream_and_beside_a_live_skill_dream_is_refused(cli, tmp_path: Path, homes: Path) -> None:
    p = project(tmp_path, {"history.md": HISTORY})
    before = tree(tmp_path / "base")
    refused = space(cli, "archive", "--workspace", str(p), "--keep", "1")
    assert refused.code == 1
    assert refused.err.strip() == "memboard: " + (
        "these entries have not been through a dream; run memboard space dream first, or --force"
    )
    assert tree(tmp_path / "base") == before
    (homes / "sleep.lock").write_text(json.dumps({"pid": os.getpid()}))
    for args in (["archive", "--force"], ["dream"]):
        busy = space(cli, *args, "--workspace", str(p))
        assert busy.code == 1 and f"the session-memory skill is dreaming (pid {os.getpid()}); try again" in busy.err
    (homes / "sleep.lock").unlink()
    assert tree(tmp_path / "base") == before
    assert space(cli, "archive", "--workspace", str(p), "--keep", "1", "--force").code == 0


def test_a_crash_between_the_writes_is_found_by_check_and_finished_by_the_next_archive(cli, tmp_path: Path) -> None:
    p = project(tmp_path, {"history.md": HISTORY, "dream-notes.md": DREAMT, "current.md": CURRENT})
    crashed = cli(
        "space", "archive", "--workspace", str(p), "--keep", "1", use_root=False, env={"FAULT_AFTER_STEP": "1"}
    )
    assert crashed.code == 1 and "incomplete" in crashed.err
    mem = p / ".session-memory"
    assert (mem / "history.md").read_bytes() == HISTORY.encode()  # the source untouched, the archive written
    assert (mem / "archive/history-archive.md").read_bytes().endswith((entry(1)).encode())
    check = json.loads(space(cli, "check", "--workspace", str(p), "--json").out)
    assert "half_archived" in [f["kind"] for f in check["findings"]]
    archive_before = (mem / "archive/history-archive.md").read_bytes()
    finished = space(cli, "archive", "--workspace", str(p), "--keep", "1")
    assert finished.code == 0, finished.err
    assert (mem / "history.md").read_bytes() == ("\ufeff# 会话记忆历史\r\n\r\n" + entry(2)).encode()
    assert (mem / "archive/history-archive.md").read_bytes() == archive_before  # nothing archived twice
    check = json.loads(space(cli, "check", "--workspace", str(p), "--json").out)
    assert "half_archived" not in [f["kind"] for f in check["findings"]]


def test_a_writer_between_the_archive_and_the_source_keeps_its_entries(cli, tmp_path: Path) -> None:
    p = project(tmp_path, {"history.md": HISTORY, "dream-notes.md": DREAMT})
    history = p / ".session-memory/history.md"
    theirs = "\r\n" + entry(30, "theirs", "fork")

    calls: list[int] = []

    def append() -> None:  # once: right after the archive file's write (the sources' plan is written next)
        if not calls:
            calls.append(1)
            with history.open("ab") as f:
                f.write(theirs.encode())

    with installed(AfterStep(1, append)):
        done = space(cli, "archive", "--workspace", str(p), "--keep", "1")
    assert done.code == 0, done.err
    assert history.read_bytes().decode() == "\ufeff# 会话记忆历史\r\n\r\n" + entry(2) + theirs


def test_a_moved_entry_changed_between_the_writes_stops_incomplete_with_it_in_both(cli, tmp_path: Path) -> None:
    p = project(tmp_path, {"history.md": HISTORY, "dream-notes.md": DREAMT})
    history = p / ".session-memory/history.md"

    calls: list[int] = []

    def edit() -> None:
        if calls:
            return
        calls.append(1)
        history.write_bytes(history.read_bytes().replace("触发原因：x".encode(), "触发原因：y".encode(), 1))

    with installed(AfterStep(1, edit)):
        done = space(cli, "archive", "--workspace", str(p), "--keep", "1")
    assert done.code == 1 and "incomplete" in done.err
    assert "触发原因：y" in history.read_text(encoding="utf-8")
    assert entry(1).encode() in (p / ".session-memory/archive/history-archive.md").read_bytes()


def test_the_global_space_archives_in_the_home(cli, tmp_path: Path, homes: Path) -> None:
    (homes / "global").mkdir()
    (homes / "global/history.md").write_bytes(HISTORY.encode())
    (homes / "global/dream-notes.md").write_bytes(DREAMT.encode())
    preview = applied_preview(cli, tmp_path, "archive", "--scope", "global", "--keep", "1")
    done = space(cli, "archive", "--scope", "global", "--keep", "1")
    assert done.code == 0, done.err
    assert tree(tmp_path / "base") == preview
    assert (homes / "global/archive/history-archive.md").exists()


def test_an_entry_kept_equal_to_the_archives_last_is_not_taken_for_a_half_done_move(cli, tmp_path: Path) -> None:
    same = "\ufeff# 会话记忆历史\r\n\r\n" + entry(1) + entry(1)
    p = project(tmp_path, {"history.md": same, "dream-notes.md": DREAMT})
    for _ in range(2):
        done = space(cli, "archive", "--workspace", str(p), "--keep", "1")
        assert done.code == 0, done.err
        check = json.loads(space(cli, "check", "--workspace", str(p), "--json").out)
        assert "half_archived" not in [f["kind"] for f in check["findings"]]
    mem = p / ".session-memory"
    assert (mem / "history.md").read_bytes() == ("\ufeff# 会话记忆历史\r\n\r\n" + entry(1)).encode()
    assert (mem / "archive/history-archive.md").read_bytes().count(entry(1).encode()) == 1


SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"


def test_dream_refuses_a_secret_unless_allowed(cli, tmp_path: Path) -> None:
    p = project(tmp_path, {"current.md": CURRENT})
    notes = f"## 判断准则\n- token {SECRET}\n"
    refused = space(cli, "dream", "--workspace", str(p), "--from", "-", input=notes)
    assert refused.code == 1 and SECRET not in refused.err
    assert not (p / ".session-memory/dream-notes.md").exists()
    allowed = space(cli, "dream", "--workspace", str(p), "--from", "-", "--allow-secrets", input=notes)
    assert allowed.code == 0, allowed.err


def legacy_project(tmp_path: Path, files: dict[str, str]) -> Path:
    p = tmp_path / "base" / "p"
    (p / ".git").mkdir(parents=True)
    for rel, text in files.items():
        path = p / ".codex/session-memory" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return p


def test_dream_on_legacy_data_migrates_it_first_in_the_same_plan(cli, tmp_path: Path) -> None:
    p = legacy_project(tmp_path, {"current.md": CURRENT, "history.md": HISTORY})
    preview = applied_preview(cli, tmp_path, "dream", "--workspace", str(p))
    done = space(cli, "dream", "--workspace", str(p))
    assert done.code == 0, done.err
    assert tree(tmp_path / "base") == preview
    mem = p / ".session-memory"
    assert (mem / "current.md").read_bytes() == CURRENT.encode() and (mem / "dream-notes.md").exists()
    assert not (p / ".codex").exists()
    assert "moved .codex/session-memory/current.md -> .session-memory/current.md" in done.out


def test_archive_on_legacy_data_migrates_it_first(cli, tmp_path: Path) -> None:
    p = legacy_project(tmp_path, {"history.md": HISTORY, "dream-notes.md": DREAMT})
    preview = applied_preview(cli, tmp_path, "archive", "--workspace", str(p), "--keep", "1")
    done = space(cli, "archive", "--workspace", str(p), "--keep", "1", "--json")
    assert done.code == 0, done.err
    assert tree(tmp_path / "base") == preview
    mem = p / ".session-memory"
    assert (mem / "history.md").read_bytes() == ("\ufeff# 会话记忆历史\r\n\r\n" + entry(2)).encode()
    assert not (p / ".codex").exists()
    result = json.loads(done.out)
    assert result["history"]["moved"] == 2 and any(".codex" in c for c in result["changes"])
    refused = legacy_project(tmp_path / "other", {"history.md": HISTORY})
    before = tree(tmp_path / "other")
    assert space(cli, "archive", "--workspace", str(refused), "--keep", "1").code == 1  # no dream: not migrated
    assert tree(tmp_path / "other") == before


def test_a_routed_space_is_labelled_by_its_name_and_patched_from_the_project_root(cli, tmp_path: Path) -> None:
    p = project(tmp_path, {"config.toml": '[spaces]\n"inner space" = "research/deep"\n'})
    inner = p / "research/deep"
    (inner / ".session-memory").mkdir(parents=True)
    (inner / ".session-memory/current.md").write_text("# 会话记忆\n\n## 未决问题\n- 为什么慢\n")
    preview = applied_preview(cli, tmp_path, "dream", "--workspace", str(inner))
    done = space(cli, "dream", "--workspace", str(inner), "--json")
    assert done.code == 0, done.err
    assert tree(tmp_path / "base") == preview
    result = json.loads(done.out)
    assert result["base"] == str(tmp_path / "base")
    assert Path(result["snapshot"]).name.startswith("20261202T") and "-inner-space-" in result["snapshot"]
    assert (inner / ".session-memory/dream-notes.md").exists() and not (p / ".session-memory/dream-notes.md").exists()


def test_the_preview_lists_the_candidates_left_out(cli, tmp_path: Path) -> None:
    items = "".join(f"- step {n}\n" for n in range(5))
    p = project(tmp_path, {"current.md": f"# 会话记忆\n\n## 未决问题\n{items}"})
    shown = space(cli, "dream", "--workspace", str(p), "--dry-run")
    assert shown.code == 0
    assert "left out of 预警信号 (more than 3): step 3" in shown.err and "step 4" in shown.err
    assert "+- step 2\n" in shown.out and "+- step 3\n" not in shown.out


def test_the_global_space_dreams_in_the_home(cli, tmp_path: Path, homes: Path) -> None:
    (homes / "global").mkdir()
    (homes / "global/current.md").write_bytes(CURRENT.encode())
    done = space(cli, "dream", "--scope", "global", "--json")
    assert done.code == 0, done.err
    result = json.loads(done.out)
    assert result["base"] == str(homes) and "-global-" in Path(result["snapshot"]).name
    assert (homes / "global/dream-notes.md").read_bytes() == Path(result["snapshot"]).read_bytes()


def test_the_global_space_with_legacy_data_migrates_it_first(cli, tmp_path: Path, homes: Path) -> None:
    legacy = tmp_path / "codexhome/session-memory/global"
    legacy.mkdir(parents=True)
    (legacy / "current.md").write_bytes(CURRENT.encode())
    done = space(cli, "dream", "--scope", "global", "--json")
    assert done.code == 0, done.err
    result = json.loads(done.out)
    assert (homes / "global/current.md").read_bytes() == CURRENT.encode() and not legacy.exists()
    assert (homes / "global/dream-notes.md").read_bytes() == Path(result["snapshot"]).read_bytes()
