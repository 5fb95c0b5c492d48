"""The space reads of issue 24 §4 from the outside: restore (texts exact, --history N byte ranges, stale, legacy,
missing), search (matching, lines, headings, layers, limits, exit codes), check (decisions and every finding kind
built here), list (the three sources of known spaces, flags, problems), and that reads write nothing but memboard's
record of known spaces in local state."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from memboard.core.spaces import entries

HISTORY = (
    "\ufeff# 会话记忆历史\r\n"
    "\r\n"
    "### YYYY-MM-DD HH:MM [context: 模板]\r\n"
    "- 触发原因：\r\n"
    "\r\n"
    "### 2026-05-01 10:00 [context: main]\r\n"
    "- 触发原因：first\r\n"
    "```\r\n"
    "### 2026-05-01 10:30 inside a fence\r\n"
    "```\r\n"
    "\r\n"
    "### 2026-05-02 11:00 [context: main]\r\n"
    "- 触发原因：second Needle\r\n"
    "\r\n"
    "### 2026-05-03 12:00 [context: main]\r\n"
    "- 触发原因：third needle"
)
CURRENT = (
    "# 会话记忆\n- Last Updated: 2026-05-30 09:00\n\n## 当前目标\n- find the NEEDLE\n\n## 下一步\n1. needle again\n"
)
RESEARCH_ENTRY = (
    "### 2026-05-02 09:00 [context: main@p]\n- 研究主题：{topic}\n- 当前结论：c\n- 是否有效：{valid}\n"
    "- 是否并入主线：{merged}\n- 关键证据：\n- 关键文件与路径：\n- 下一步：needle next\n- 关键词 / 标签：\n"
)


def space(cli, *args: str):
    """`memboard space ARGS` (no memory root)."""
    return cli("space", *args, use_root=False)


def project(tmp_path: Path, name: str = "p", files: dict[str, str | bytes] | None = None) -> Path:
    """A git project with a .session-memory/ holding files (defaults: CURRENT and HISTORY)."""
    p = tmp_path / name
    (p / ".git").mkdir(parents=True)
    folder = p / ".session-memory"
    folder.mkdir()
    for rel, data in (files if files is not None else {"current.md": CURRENT, "history.md": HISTORY}).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return p


def tree_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under folder with its bytes (and folders as markers)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), folder) + "/"] = b""
        for f in filenames:
            path = os.path.join(dirpath, f)
            out[os.path.relpath(path, folder)] = Path(path).read_bytes()
    return out


# -- restore ------------------------------------------------------------------------------------------------------


def test_restore_json_texts_are_the_files_bom_removed_line_ends_kept(cli, tmp_path):
    p = project(tmp_path)
    res = space(cli, "restore", "--json", "--workspace", str(p))
    assert res.code == 0, res.err
    got = json.loads(res.out)
    assert list(got) == ["space", "last_updated", "stale", "legacy", "current", "history", "dream_notes", "research"]
    assert got["space"]["target"] == str(p / ".session-memory") and got["space"]["rule"] == "git-root"
    assert got["last_updated"] == "2026-05-30 09:00" and got["stale"] is False and got["legacy"] is False
    assert got["current"]["text"] == CURRENT and got["current"]["path"] == str(p / ".session-memory" / "current.md")
    assert got["history"]["text"] == HISTORY.removeprefix("\ufeff")
    assert got["dream_notes"] is None and got["research"] is None
    assert got["history"]["entries"] == 3 and got["current"]["entries"] is None


@pytest.mark.parametrize(("keep", "count"), [("1", 1), ("2", 2), ("0", 0), ("none", 0), ("9", 3)])
def test_restore_history_n_is_the_preamble_and_the_newest_n_byte_ranges(cli, tmp_path, keep, count):
    p = project(tmp_path)
    got = json.loads(space(cli, "restore", "--json", "--history", keep, "--workspace", str(p)).out)
    doc = entries.parse_bytes((p / ".session-memory" / "history.md").read_bytes())
    assert got["history"]["entries"] == count
    expected = doc.preamble.encode("utf-8")[3:] + b"".join(
        e.data for e in doc.entries[len(doc.entries) - count :][:count]
    )
    assert got["history"]["text"].encode("utf-8") == expected


TRICKY = [
    "",
    "no entries at all\n",
    "### 2026-01-01 00:00 first line is an entry",
    "\ufeff### 2026-01-01 00:00 a BOM then an entry\r\n- a\r\n### 2026-01-02 00:00 b\r\n",
    "# p\n   ```\n### 2026-01-01 00:00 fenced\n   ```\n### 2026-01-02 00:00 real\n~~~~\n### x\n~~~\n### y\n~~~~\n",
    "# p\n### YYYY-MM-DD HH:MM template\n- x\n### 2026-01-01 00:00 a\n````\n```\n### in\n````\n### 2026-01-03 b",
    "# p\n    ```\n### 2026-01-01 00:00 four spaces: no fence\n``` x ` y\n### 2026-01-02 00:00 after\n",
    "# p\n\ufeff### not first\n### 2026-01-01 00:00 a\n\xff\n",
    "\ufeff   ~~~\n### 2026-01-01 00:00 fenced from the first line\n~~~\n### 2026-01-02 00:00 out\n",
    "# p\n\t```\n### 2026-01-01 00:00 a tab is no fence\nx ```\n### 2026-01-02 00:00 mid-line ``` is none\n",
    "# p\n### 2026-01-01 00:00 a ``` b\n```\n### in\n```\r\n### 2026-01-02 00:00 c\r\n",
    "# p\n```\n### 2026-01-01 00:00 an unclosed fence to the end\n### more\n",
]


@pytest.mark.parametrize("text", TRICKY)
def test_restore_history_ranges_are_the_entry_parsers(cli, tmp_path, text):
    data = text.encode("utf-8", "surrogateescape").replace("\xff".encode(), b"\xff")
    p = project(tmp_path, files={"current.md": "# c\n", "history.md": data})
    doc = entries.parse_bytes(data)
    for keep in ("all", "1", "2", "none"):
        got = json.loads(space(cli, "restore", "--json", "--history", keep, "--workspace", str(p)).out)["history"]
        count = len(doc.entries) if keep == "all" else 0 if keep == "none" else min(int(keep), len(doc.entries))
        chosen = doc.entries[len(doc.entries) - count :] if count else ()
        expected = (doc.preamble + "".join(e.text for e in chosen)).removeprefix("\ufeff")
        assert got["entries"] == count
        assert got["text"] == expected.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def test_restore_text_prints_each_file_under_its_name_research_only_when_asked(cli, tmp_path):
    research = "# 研究记录\n\n" + RESEARCH_ENTRY.format(topic="t", valid="yes", merged="no")
    p = project(
        tmp_path,
        files={
            "current.md": CURRENT,
            "history.md": "# h\n",
            "research.md": research,
            "dream-notes.md": "# Dream Notes\n",
            "archive/history-archive.md": "# a\nneedle\n",
        },
    )
    res = space(cli, "restore", "--workspace", str(p))
    assert res.out == f"[current.md]\n{CURRENT}[history.md]\n# h\n[dream-notes.md]\n# Dream Notes\n"
    res = space(cli, "restore", "--include-research", "--workspace", str(p))
    assert res.out.endswith(f"[research.md]\n{research}") and "archive" not in res.out


def test_restore_writes_nothing_but_the_record_of_known_spaces(cli, tmp_path, homes):
    p = project(tmp_path)
    state = Path(os.environ["MEMBOARD_STATE_DIR"])
    before, home_before, state_before = tree_bytes(p), tree_bytes(homes), tree_bytes(state)
    for args in (("restore",), ("restore", "--json"), ("search", "needle"), ("check",), ("where",), ("list",)):
        space(cli, *args, "--workspace", str(p)) if args != ("list",) else space(cli, "list")
    assert tree_bytes(p) == before and tree_bytes(homes) == home_before
    after = tree_bytes(state)
    assert {k for k in after if k not in state_before} <= {"spaces/", "spaces/known.tsv"}
    assert after["spaces/known.tsv"] == f"{p / '.session-memory'}\tauto\n".encode()


def test_restore_stale_warns_and_space_stale_days_moves_the_line(cli, tmp_path):
    p = project(tmp_path, files={"current.md": CURRENT.replace("2026-05-30", "2026-05-01"), "history.md": "# h\n"})
    res = space(cli, "restore", "--json", "--workspace", str(p))
    assert json.loads(res.out)["stale"] is True
    assert res.err.count("\n") == 1 and "weak reference" in res.err and "2026-05-01 09:00" in res.err
    assert cli("config", "set", "space_stale_days", "60", use_root=False).code == 0
    res = space(cli, "restore", "--json", "--workspace", str(p))
    assert json.loads(res.out)["stale"] is False and res.err == ""


def test_restore_stale_by_modification_time_without_last_updated(cli, tmp_path):
    p = project(tmp_path, files={"current.md": "# c\n", "history.md": "# h\n"})
    old = datetime(2026, 5, 1, 9, 0).timestamp()
    os.utime(p / ".session-memory" / "current.md", (old, old))
    got = json.loads(space(cli, "restore", "--json", "--workspace", str(p)).out)
    assert got["stale"] is True and got["last_updated"] is None


def test_restore_reads_a_legacy_space_where_it_is_and_says_so(cli, tmp_path):
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    legacy = p / ".codex" / "session-memory"
    legacy.mkdir(parents=True)
    (legacy / "current.md").write_text(CURRENT, encoding="utf-8")
    res = space(cli, "restore", "--json", "--workspace", str(p))
    got = json.loads(res.out)
    assert res.code == 0 and got["legacy"] is True and got["current"]["text"] == CURRENT
    assert got["current"]["path"] == str(legacy / "current.md")
    assert f"legacy memory at {legacy}; memboard space migrate moves it" in res.err
    assert not (p / ".session-memory").exists()


def test_restore_without_a_space_exits_1_with_its_line(cli, tmp_path):
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    res = space(cli, "restore", "--workspace", str(p))
    assert res.code == 1 and res.out == ""
    assert res.err == f"memboard: no session memory at {p / '.session-memory'}; memboard space init creates one\n"


def test_reads_stop_on_an_invalid_config(cli, tmp_path):
    p = project(tmp_path)
    (p / ".session-memory" / "config.toml").write_text("[spaces\n", encoding="utf-8")
    for args in (("restore",), ("search", "needle"), ("check",)):
        res = space(cli, *args, "--workspace", str(p))
        assert res.code == 1 and res.err.count("\n") == 1 and "config.toml" in res.err, args
        assert "NEEDLE" not in res.out


# -- search -------------------------------------------------------------------------------------------------------


def test_search_json_lines_headings_and_layers(cli, tmp_path):
    research = "# 研究记录\n\n" + RESEARCH_ENTRY.format(topic="t", valid="yes", merged="no")
    p = project(
        tmp_path,
        files={
            "current.md": CURRENT,
            "history.md": HISTORY,
            "research.md": research,
            "archive/history-archive.md": "# a\n\n### 2026-01-01 00:00 [context: x]\nneedle old\n",
            "archive/legacy-imports/codex/history.md": "needle imported\n",
        },
    )
    res = space(cli, "search", "needle", "--json", "--workspace", str(p))
    assert res.code == 0
    got = json.loads(res.out)
    t = str(p / ".session-memory")
    assert got[0] == {
        "space": t,
        "file": "current.md",
        "path": f"{t}/current.md",
        "layer": "hot",
        "line": 5,
        "text": "- find the NEEDLE",
        "heading": "## 当前目标",
    }
    assert [(h["file"], h["line"], h["heading"]) for h in got] == [
        ("current.md", 5, "## 当前目标"),
        ("current.md", 8, "## 下一步"),
        ("history.md", 13, "### 2026-05-02 11:00 [context: main]"),
        ("history.md", 16, "### 2026-05-03 12:00 [context: main]"),
    ]
    got = json.loads(
        space(cli, "search", "NEEDLE", "--json", "--include-research", "--include-archive", "--workspace", str(p)).out
    )
    assert [(h["file"], h["layer"]) for h in got][4:] == [
        ("research.md", "research"),
        ("archive/history-archive.md", "archive"),
        ("archive/legacy-imports/codex/history.md", "archive"),
    ]
    assert got[5]["heading"] == "### 2026-01-01 00:00 [context: x]" and got[6]["heading"] is None


def test_search_a_heading_inside_a_fence_is_content(cli, tmp_path):
    p = project(tmp_path)
    got = json.loads(space(cli, "search", "inside a fence", "--json", "--workspace", str(p)).out)
    assert [(h["line"], h["heading"]) for h in got] == [(9, "### 2026-05-01 10:00 [context: main]")]


def test_search_text_output_and_limit(cli, tmp_path):
    p = project(tmp_path)
    res = space(cli, "search", "needle", "--limit", "1", "--workspace", str(p))
    assert res.code == 0
    assert res.out == "[current.md]\n5: - find the NEEDLE\n\n[history.md]\n13: - 触发原因：second Needle\n"


def test_search_exit_codes(cli, tmp_path):
    p = project(tmp_path)
    assert space(cli, "search", "zzz-nothing", "--workspace", str(p)).code == 0
    assert space(cli, "search", "zzz", "--json", "--workspace", str(p)).out == "[]\n"
    assert space(cli, "search", "", "--workspace", str(p)).code == 2
    assert space(cli, "search", "x" * 1001, "--workspace", str(p)).code == 2
    assert space(cli, "search", "x" * 1000, "--workspace", str(p)).code == 0
    assert space(cli, "search", "needle", "--limit", "0", "--workspace", str(p)).code == 2
    (tmp_path / "bare").mkdir()
    res = space(cli, "search", "needle", "--workspace", str(tmp_path / "bare"))
    assert res.code == 1 and "no session memory at" in res.err


def test_search_all_spaces_reads_the_projects_routes_and_known_spaces(cli, tmp_path):
    p = project(tmp_path)
    (p / ".session-memory" / "config.toml").write_text('[spaces]\nr = "research"\n', encoding="utf-8")
    (p / "research" / ".session-memory").mkdir(parents=True)
    (p / "research" / ".session-memory" / "current.md").write_text("route needle\n", encoding="utf-8")
    other = project(tmp_path, "other", {"history.md": "other needle\n"})
    assert space(cli, "where", "--workspace", str(other)).code == 0  # now a known space
    one = json.loads(space(cli, "search", "needle", "--json", "--workspace", str(p)).out)
    assert {h["space"] for h in one} == {str(p / ".session-memory")}
    every = json.loads(space(cli, "search", "needle", "--json", "--all-spaces", "--workspace", str(p)).out)
    assert [h["space"] for h in every][-2:] == [str(p / "research" / ".session-memory"), str(other / ".session-memory")]


# -- check --------------------------------------------------------------------------------------------------------


def check(cli, p: Path, *more: str):
    """`space check --json`: (code, JSON, stderr)."""
    res = space(cli, "check", "--json", "--workspace", str(p), *more)
    return res.code, json.loads(res.out), res.err


def kinds(got) -> list[str]:
    """The kinds of a check's findings."""
    return [f["kind"] for f in got["findings"]]


def test_check_decisions(cli, tmp_path):
    p = project(tmp_path, files={"current.md": CURRENT})
    code, got, err = check(cli, p)
    assert code == 1 and got["decision"] == "INIT_FIRST" and err.count("\n") == 1
    assert list(got) == ["decision", "reasons", "current_age_minutes", "history_age_minutes", "events", "findings"]
    (p / ".session-memory" / "history.md").write_text("# h\n", encoding="utf-8")
    code, got, _ = check(cli, p)  # Last Updated 2026-05-30 09:00, now 2026-06-01 09:30: 2 days old
    assert (code, got["decision"], got["current_age_minutes"]) == (0, "SAVE_NOW", 2 * 1440 + 30)
    assert got["reasons"] == ["current.md is stale"]
    code, got, _ = check(cli, p, "--stale-minutes", "5000")
    assert (code, got["decision"]) == (0, "SKIP")
    code, got, _ = check(
        cli,
        p,
        "--stale-minutes",
        "5000",
        "--event",
        "task-completed",
        "--event",
        "goal-changed",
        "--event",
        "goal-changed",
    )
    assert (got["decision"], got["events"], got["reasons"]) == (
        "SAVE_NOW",
        ["goal-changed", "task-completed"],
        ["high-value event detected"],
    )
    assert space(cli, "check", "--event", "nope", "--workspace", str(p)).code == 2
    res = space(cli, "check", "--workspace", str(p), "--stale-minutes", "5000")
    assert res.code == 0 and res.out.startswith("decision: SKIP\n")


def test_check_config_invalid_is_a_finding_and_exit_1(cli, tmp_path):
    p = project(tmp_path)
    (p / ".session-memory" / "config.toml").write_text('[spaces]\na = "/abs"\n', encoding="utf-8")
    code, got, err = check(cli, p)
    assert code == 1 and kinds(got) == ["config_invalid"] and got["decision"] is None
    assert got["findings"][0]["path"] == str(p / ".session-memory" / "config.toml") and "absolute" in err


def test_check_route_findings(cli, tmp_path):
    p = project(tmp_path)
    (p / ".session-memory" / "config.toml").write_text('[spaces]\ngone = "gone"\nsub = "sub"\n', encoding="utf-8")
    (p / "sub" / ".git").mkdir(parents=True)
    _, got, _ = check(cli, p)
    found = {f["kind"]: f for f in got["findings"]}
    assert found["route_missing_dir"]["path"] == str(p / "gone")
    assert found["route_shadowed_by_git"]["path"] == str(p / "sub")


def test_check_legacy_stale_dream_archive_skill_dreaming_stray_temp(cli, tmp_path, homes):
    hist = "# h\n\n" + "".join(f"### 2026-05-01 {i:02d}:00 [context: main]\n- x：{i}\n\n" for i in range(22))
    research = "# r\n\n" + RESEARCH_ENTRY.format(topic="closed", valid="no", merged="no")
    p = project(
        tmp_path,
        files={"current.md": CURRENT.replace("2026-05-30", "2026-05-01"), "history.md": hist, "research.md": research},
    )
    legacy = p / ".claude" / "session-memory"
    legacy.mkdir(parents=True)
    (legacy / "history.md").write_text("# old\n", encoding="utf-8")
    _, got, _ = check(cli, p)
    assert kinds(got) == ["legacy_found", "stale_current", "dream_due"]
    assert got["findings"][0]["path"] == str(legacy) and got["findings"][0]["fix"] == "memboard space migrate"
    dream = "# Dream Notes\n\n- Generated At: 2026-05-03T00:00:00+00:00\n\n## 判断准则\n- x\n"
    (p / ".session-memory" / "dream-notes.md").write_text(dream, encoding="utf-8")
    (p / ".session-memory" / ".history.md.abc.memboard-tmp").write_text("x", encoding="utf-8")
    (homes / "sleep.lock").write_text(json.dumps({"pid": os.getpid()}), encoding="utf-8")
    _, got, _ = check(cli, p)
    assert kinds(got) == ["legacy_found", "stale_current", "archive_due", "stray_temp", "skill_dreaming"]
    assert got["findings"][-1]["message"] == f"the session-memory skill is dreaming (pid {os.getpid()})"
    (homes / "sleep.lock").write_text(json.dumps({"pid": 2**22 + 12345}), encoding="utf-8")  # no such process
    _, got, _ = check(cli, p)
    assert "skill_dreaming" not in kinds(got)


def test_check_archive_due_needs_entries_the_dream_covers(cli, tmp_path):
    hist = "# h\n\n" + "".join(f"### 2026-05-01 {i:02d}:00 [context: main]\n- x：{i}\n\n" for i in range(21))
    dream = "# Dream Notes\n- Last Updated: 2026-05-01 10:00\n"
    p = project(
        tmp_path,
        files={"current.md": CURRENT.replace("2026-05-30", "2026-05-01"), "history.md": hist, "dream-notes.md": dream},
    )
    _, got, _ = check(cli, p)
    assert "archive_due" in kinds(got)  # one entry beyond 20, from 00:00, before the dream
    earlier = dream.replace("2026-05-01 10:00", "2026-04-30 23:00")
    (p / ".session-memory" / "dream-notes.md").write_text(earlier, encoding="utf-8")
    _, got, _ = check(cli, p)
    assert "archive_due" not in kinds(got) and "dream_due" in kinds(got)


# -- list ---------------------------------------------------------------------------------------------------------


def test_list_shows_every_source_of_known_spaces(cli, tmp_path, homes):
    research = (
        "# r\n\n"
        + RESEARCH_ENTRY.format(topic="a", valid="yes", merged="no")
        + "\n"
        + RESEARCH_ENTRY.format(topic="b", valid="yes", merged="yes")
    )
    rooted = project(tmp_path, "rooted", {"current.md": CURRENT, "history.md": HISTORY, "research.md": research})
    (rooted / ".session-memory" / "config.toml").write_text('[spaces]\nr = "r"\n', encoding="utf-8")
    (rooted / "r" / ".session-memory").mkdir(parents=True)
    (rooted / "r" / ".session-memory" / "current.md").write_text("# c\n", encoding="utf-8")
    seen = project(tmp_path, "seen", {"history.md": "# h\n"})
    registered = project(tmp_path, "registered", {"current.md": "# c\n"})
    broken = project(tmp_path, "broken", {"current.md": "# c\n"})
    (broken / ".session-memory" / "config.toml").write_text("[spaces\n", encoding="utf-8")
    legacy_only = tmp_path / "legacyonly"
    (legacy_only / ".git").mkdir(parents=True)
    (legacy_only / ".codex" / "session-memory").mkdir(parents=True)
    (legacy_only / ".codex" / "session-memory" / "current.md").write_text("# c\n", encoding="utf-8")
    assert cli("config", "set", "space_roots", str(rooted), use_root=False).code == 0
    assert space(cli, "where", "--workspace", str(seen)).code == 0
    registry = {
        "version": 1,
        "projects": {
            str(registered / ".session-memory"): {
                "target_dir": str(registered / ".session-memory"),
                "scope": "git-root",
            },
            str(broken / ".session-memory"): {"target_dir": str(broken / ".session-memory"), "scope": "git-root"},
        },
    }
    (homes / "registry.json").write_text(json.dumps(registry), encoding="utf-8")
    codex = tmp_path / "codexhome" / "session-memory"
    codex.mkdir(parents=True)
    legacy_target = legacy_only / ".codex" / "session-memory"
    (codex / "registry.json").write_text(
        json.dumps({"projects": {str(legacy_target): {"target_dir": str(legacy_target), "scope": "git-root"}}}),
        encoding="utf-8",
    )
    res = space(cli, "list", "--json")
    assert res.code == 0, res.err
    got = {item["space"]: item for item in json.loads(res.out)}
    assert list(got) == [
        str(rooted / ".session-memory"),
        str(rooted / "r" / ".session-memory"),
        str(seen / ".session-memory"),
        str(registered / ".session-memory"),
        str(broken / ".session-memory"),
        str(legacy_only / ".session-memory"),
    ]
    top = got[str(rooted / ".session-memory")]
    assert (top["sources"], top["rule"], top["history_entries"], top["research_open"], top["research_topics"]) == (
        ["space_roots"],
        "git-root",
        3,
        1,
        2,
    )
    assert top["last_updated"] == "2026-05-30 09:00" and top["updated_age_minutes"] == 2 * 1440 + 30
    assert got[str(rooted / "r" / ".session-memory")]["name"] == "r"
    assert got[str(seen / ".session-memory")]["sources"] == ["memboard"]
    assert got[str(registered / ".session-memory")]["sources"] == ["registry"]
    bad = got[str(broken / ".session-memory")]
    assert bad["flags"] == ["config!"] and "config.toml" in bad["problem"]
    assert got[str(legacy_only / ".session-memory")]["flags"][0] == "legacy"
    text = space(cli, "list")
    assert text.code == 0 and f"! {broken / '.session-memory'}: invalid config" in text.out
    assert text.out.splitlines()[0].split() == [
        "SPACE",
        "PROJECT",
        "RULE",
        "UPDATED",
        "HISTORY",
        "RESEARCH",
        "DREAM",
        "FLAGS",
    ]


def test_list_flags_stale_dream_due_archive_due(cli, tmp_path):
    p = project(tmp_path, files={"current.md": CURRENT.replace("2026-05-30", "2026-05-01"), "history.md": HISTORY})
    space(cli, "where", "--workspace", str(p))
    got = json.loads(space(cli, "list", "--json").out)
    assert got[0]["flags"] == ["stale", "dream-due"]


def test_list_of_nothing_is_empty(cli):
    res = space(cli, "list", "--json")
    assert (res.code, res.out) == (0, "[]\n")


def test_check_and_list_report_half_archived(cli, tmp_path):
    entries_text = "".join(f"### 2026-05-0{i} 10:00 [context: main]\n- a：{i}\n\n" for i in (1, 2))
    dream = "# Dream Notes\n- Last Updated: 2026-05-05 10:00\n"
    p = project(
        tmp_path, files={"current.md": CURRENT, "history.md": "# h\n\n" + entries_text, "dream-notes.md": dream}
    )
    crashed = cli(
        "space", "archive", "--workspace", str(p), "--keep", "1", use_root=False, env={"FAULT_AFTER_STEP": "1"}
    )  # the archive file written, the source not yet
    assert crashed.code == 1
    _, got, _ = check(cli, p)
    found = [f for f in got["findings"] if f["kind"] == "half_archived"]
    assert [f["path"] for f in found] == [str(p / ".session-memory" / "history.md")]
    assert "half-archived" in json.loads(space(cli, "list", "--json").out)[0]["flags"]
    assert space(cli, "archive", "--workspace", str(p), "--keep", "1").code == 0
    _, got, _ = check(cli, p)
    assert "half_archived" not in kinds(got)
    assert "half-archived" not in json.loads(space(cli, "list", "--json").out)[0]["flags"]


def test_check_reports_half_migrated_legacy_files(cli, tmp_path):
    p = project(tmp_path, files={"current.md": CURRENT, "history.md": HISTORY})
    legacy = p / ".codex" / "session-memory"
    legacy.mkdir(parents=True)
    (legacy / "history.md").write_text(HISTORY, encoding="utf-8")  # moved, its legacy copy not yet removed
    _, got, _ = check(cli, p)
    found = {f["kind"]: f for f in got["findings"]}
    assert found["half_migrated"]["path"] == str(legacy) and "1 file(s)" in found["half_migrated"]["message"]
    assert "legacy_found" in found
    (legacy / "history.md").write_text("# other bytes\n", encoding="utf-8")
    _, got, _ = check(cli, p)
    assert "half_migrated" not in kinds(got) and "legacy_found" in kinds(got)


def test_the_global_space_and_its_legacy_copy(cli, tmp_path, homes):
    legacy = tmp_path / "claudehome" / "session-memory" / "global"
    legacy.mkdir(parents=True)
    (legacy / "current.md").write_text(CURRENT, encoding="utf-8")
    res = space(cli, "restore", "--json", "--scope", "global")
    got = json.loads(res.out)
    assert res.code == 0 and got["legacy"] is True and got["space"]["target"] == str(homes / "global")
    assert f"legacy memory at {legacy}" in res.err
    _, found, _ = check(cli, tmp_path, "--scope", "global")
    fixes = [f["fix"] for f in found["findings"] if f["kind"] == "legacy_found"]
    assert fixes == ["memboard space migrate --global"]
    (homes / "global").mkdir()
    (homes / "global" / "history.md").write_text("# h\nglobal needle\n", encoding="utf-8")
    hits = json.loads(space(cli, "search", "needle", "--json", "--scope", "global").out)
    assert [(h["file"], h["line"]) for h in hits] == [("history.md", 2)]


def test_a_folder_without_memory_is_not_remembered(cli, tmp_path):
    (tmp_path / "empty").mkdir()
    assert space(cli, "where", "--workspace", str(tmp_path / "empty")).code == 0
    assert space(cli, "restore", "--workspace", str(tmp_path / "empty")).code == 1
    assert json.loads(space(cli, "list", "--json").out) == []


def test_search_all_spaces_reads_nothing_of_a_project_whose_config_is_invalid(cli, tmp_path):
    p = project(tmp_path)
    broken = project(tmp_path, "broken", {"history.md": "broken needle\n"})
    assert space(cli, "where", "--workspace", str(broken)).code == 0  # known while its config was fine
    (broken / ".session-memory" / "config.toml").write_text("[spaces\n", encoding="utf-8")
    every = json.loads(space(cli, "search", "needle", "--json", "--all-spaces", "--workspace", str(p)).out)
    assert every and {h["space"] for h in every} == {str(p / ".session-memory")}


def test_check_a_last_updated_ahead_of_the_clock_is_unknown_age_not_fresh(cli, tmp_path):
    # now is 2026-06-01 09:30: a day ahead is a clock that is off (the age is unknown: save), three minutes is not
    ahead = CURRENT.replace("2026-05-30 09:00", "2026-06-02 09:00")
    p = project(tmp_path, files={"current.md": ahead, "history.md": "# h\n"})
    code, got, _ = check(cli, p, "--stale-minutes", "5000")
    assert (code, got["decision"], kinds(got)) == (0, "SAVE_NOW", ["future_time"])
    assert got["reasons"] == ["current.md's Last Updated is in the future: its age is unknown"]
    assert "2026-06-02 09:00" in got["findings"][0]["message"] and "clock" in got["findings"][0]["message"]
    listed = space(cli, "list")
    assert listed.code == 0 and " future " in listed.out.splitlines()[1]
    slightly = CURRENT.replace("2026-05-30 09:00", "2026-06-01 09:33")
    (p / ".session-memory" / "current.md").write_text(slightly, encoding="utf-8")
    code, got, _ = check(cli, p, "--stale-minutes", "5000")
    assert (code, got["decision"], kinds(got)) == (0, "SKIP", [])
    assert " 0m " in space(cli, "list").out.splitlines()[1]
