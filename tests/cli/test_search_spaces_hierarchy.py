"""`memboard search --kind space|hierarchy` (issue 24 §7, issue 25 §6): the hits' shape, which files and layers are
searched, facts found by key and by value, OpenClaw's slugged logs, no memory root needed, and a file changed after a
search found by the next one."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

SPACE_KEYS = {
    "kind",
    "id",
    "state",
    "where",
    "section",
    "path",
    "line",
    "layer",
    "snippet",
    "spans",
    "marked",
    "score",
    "matches",
}
CURRENT = "# 当前状态\n\n## 当前目标\n\n- ship the parser\n\n## 下一步\n\n- write tests\n"
RESEARCH = "# 研究记录\n\n### 2026-05-01 10:00 [context: main]\n- 研究主题：cache\n- 当前结论：parser is fast\n"
ARCHIVED = "# 会话记忆历史归档\n\n### 2026-01-01 10:00 [context: main]\n- 发生了什么变化：old parser removed\n"


@pytest.fixture(autouse=True)
def homes(tmp_path, monkeypatch):
    """A private session-memory home and legacy homes; no memory root anywhere."""
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(tmp_path / "smhome"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codexhome"))
    monkeypatch.setenv("CLAUDE_HOME", str(tmp_path / "claudehome"))
    monkeypatch.delenv("MEMBOARD_ROOT", raising=False)
    monkeypatch.delenv("OPENCLAW_WORKSPACE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)


def space(cli, tmp_path: Path, name: str = "p") -> Path:
    """A git project with a saved space (known to memboard: a command resolved it), research and an archive."""
    p = tmp_path / name
    p.mkdir()
    subprocess.run(["git", "init", "-q", str(p)], check=True)
    assert cli("space", "save", "--workspace", str(p), "--current", "-", input=CURRENT, use_root=False).code == 0
    folder = p / ".session-memory"
    (folder / "research.md").write_text(RESEARCH, encoding="utf-8")
    (folder / "archive").mkdir()
    (folder / "archive" / "history-archive.md").write_text(ARCHIVED, encoding="utf-8")
    return folder


def hits(cli, *args: str) -> list[dict]:
    """`memboard search ARGS --json` with no memory root."""
    done = cli("search", *args, "--json", use_root=False)
    assert done.code == 0, done.err
    return json.loads(done.out)


def test_space_hits_have_the_issues_shape_and_layers(cli, tmp_path):
    folder = space(cli, tmp_path)
    found = hits(cli, "PARSER", "--kind", "space")
    assert [h["path"] for h in found] == [str(folder / "current.md")]
    hit = found[0]
    assert set(hit) == SPACE_KEYS
    assert hit["kind"] == "space" and hit["id"] == str(folder) and hit["state"] == "live" and hit["where"] == "space"
    assert (
        hit["layer"] == "hot" and hit["section"] == "## 当前目标" and hit["line"] == 6
    )  # after the Last Updated line save inserts
    assert hit["marked"] == "## 当前目标 - ship the «parser»" and hit["score"] == 3001 and hit["matches"] == 1

    every = hits(cli, "parser", "--kind", "space", "--include-research", "--include-archive")
    by_layer = {h["layer"]: h for h in every}
    assert [h["layer"] for h in every] == ["hot", "research", "archive"]  # best first: the layer's weight
    assert (
        by_layer["research"]["section"] == "### 2026-05-01 10:00 [context: main]" and by_layer["research"]["line"] == 5
    )
    assert by_layer["archive"]["state"] == "archived" and by_layer["archive"]["path"].endswith("history-archive.md")


def test_hierarchy_finds_facts_by_key_and_value_and_the_cold_layer_only_with_include_archive(cli, tmp_path):
    ws = tmp_path / "ws"
    (ws / "memory" / "migrations").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Me\n\n## Rules\n- Always ask Kim\n", encoding="utf-8")
    (ws / "memory" / "facts.yaml").write_text("# facts\nidentity:\n  email: kim@example.com\n", encoding="utf-8")
    (ws / "memory" / "lookup-index.md").write_text(
        "| I need to know... | Go here |\n|---|---|\n| email of Kim | memory/facts.yaml → identity |\n",
        encoding="utf-8",
    )
    (ws / "memory" / "project-book.md").write_text("# Book\n\n## Status\nKim drafts chapter 2\n", encoding="utf-8")
    (ws / "memory" / "2026-05-01-standup.md").write_text("# 2026-05-01\n\nKim on leave\n", encoding="utf-8")
    (ws / "memory" / "migrations" / "2026-04-01-MEMORY.md").write_text("- Email: kim@old.example\n", encoding="utf-8")

    by_value = hits(cli, "kim@example", "--kind", "hierarchy", "--workspace", str(ws))
    assert len(by_value) == 1 and by_value[0]["path"] == "memory/facts.yaml"
    assert by_value[0]["section"] == "identity.email" and by_value[0]["line"] == 3 and by_value[0]["layer"] == "warm"
    assert by_value[0]["snippet"] == "identity.email: kim@example.com" and by_value[0]["kind"] == "hierarchy"
    assert hits(cli, "identity.email", "--kind", "hierarchy", "--workspace", str(ws))[0]["path"] == "memory/facts.yaml"

    warm_hot = {h["path"]: h for h in hits(cli, "kim", "--kind", "hierarchy", "--workspace", str(ws))}
    assert set(warm_hot) == {"MEMORY.md", "memory/facts.yaml", "memory/lookup-index.md", "memory/project-book.md"}
    assert warm_hot["MEMORY.md"]["layer"] == "hot" and warm_hot["MEMORY.md"]["section"] == "Rules"
    assert warm_hot["memory/lookup-index.md"]["line"] == 3 and warm_hot["memory/project-book.md"]["section"] == "Status"
    cold = {h["path"]: h for h in hits(cli, "kim", "--kind", "hierarchy", "--workspace", str(ws), "--include-archive")}
    assert cold["memory/2026-05-01-standup.md"]["layer"] == "cold"
    assert cold["memory/migrations/2026-04-01-MEMORY.md"]["state"] == "archived"


def test_a_file_changed_after_a_search_is_found_by_the_next(cli, tmp_path):
    folder = space(cli, tmp_path)
    assert hits(cli, "zebra", "--kind", "space") == []
    current = folder / "current.md"
    text = current.read_text(encoding="utf-8").replace("write tests", "feed the zebra")
    current.write_text(text, encoding="utf-8")
    old = os.stat(current).st_mtime_ns - 10_000_000_000  # an old time: only the size and time tell the change
    os.utime(current, ns=(old, old))
    found = hits(cli, "zebra", "--kind", "space")
    assert [h["section"] for h in found] == ["## 下一步"]
    current.write_text(text.replace("zebra", "tiger"), encoding="utf-8")  # same size: its time tells
    assert hits(cli, "zebra", "--kind", "space") == [] and hits(cli, "tiger", "--kind", "space")

    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    facts = ws / "memory" / "facts.yaml"
    facts.write_text("# facts\nname: Kim\n", encoding="utf-8")
    assert hits(cli, "Robin", "--kind", "hierarchy", "--workspace", str(ws)) == []
    facts.write_text("# facts\nname: Robin\n", encoding="utf-8")
    assert hits(cli, "Robin", "--kind", "hierarchy", "--workspace", str(ws))[0]["section"] == "name"


def test_the_options_go_with_their_kinds(cli, tmp_path):
    space(cli, tmp_path)
    for args in (["--include-research"], ["--include-archive"], ["--workspace", str(tmp_path)]):
        done = cli("search", "x", *args, use_root=False)
        assert done.code == 2 and "goes with --kind" in done.err and done.err.count("\n") == 1, args
    done = cli("search", "x", "--kind", "hierarchy", use_root=False, env={"HOME": str(tmp_path)})
    assert done.code == 1 and "no hierarchy workspace" in done.err
    assert cli("search", "", "--kind", "space", use_root=False).code == 2


def test_a_cache_that_is_no_database_is_made_again_and_the_files_still_answer(cli, tmp_path):
    space(cli, tmp_path)
    assert hits(cli, "parser", "--kind", "space")
    cache = Path(os.environ["MEMBOARD_STATE_DIR"]) / "search" / "places.sqlite3"
    assert cache.is_file()
    cache.write_bytes(b"not a database, " * 512)
    assert [h["layer"] for h in hits(cli, "parser", "--kind", "space")] == ["hot"]
    assert cache.read_bytes().startswith(b"SQLite format 3\x00")
