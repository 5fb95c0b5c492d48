"""The space reads against the session-memory skill's own scripts (issue 24 §10): a space the skill initialised
and saved is restored with each file's text identical, and the skill's search and memboard's name the same lines.
Skipped, saying why, where the skill's scripts are absent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.peers import run_skill


def skill(name: str, *args: str, cwd: Path) -> str:
    """Run the skill's script; its stdout (a failure fails the test with its stderr)."""
    ran = run_skill(name, *args, cwd=cwd)
    assert ran.returncode == 0, ran.stderr + ran.stdout
    return ran.stdout


def saved_space(tmp_path: Path) -> Path:
    """A project whose space the skill initialised, an agent edited, and the skill saved and recorded research in."""
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    skill("init", "--workspace", str(p), cwd=p)
    folder = p / ".session-memory"
    current = (folder / "current.md").read_text(encoding="utf-8")
    current = current.replace("## 当前目标\n- \n", "## 当前目标\n- ship the Search index\n- keep search fast\n")
    (folder / "current.md").write_text(current, encoding="utf-8")
    with (folder / "history.md").open("a", encoding="utf-8", newline="") as fh:
        fh.write("\n### 2026-11-30 14:05 [context: main]\n- 触发原因：search was slow\n")
        fh.write(
            "- 发生了什么变化：search index\u2028rebuilt (search)\n```\n### 2026-11-30 14:06 search in a fence\n```\n"
        )
    skill("save", "--workspace", str(p), "--stage", "commit", cwd=p)
    for topic, valid in (("search ranking", "yes"), ("search cache", "no")):
        skill(
            "research_save",
            "--workspace",
            str(p),
            "--stage",
            "commit",
            "--topic",
            topic,
            "--conclusion",
            f"{topic} conclusion",
            "--valid",
            valid,
            "--evidence",
            "bench",
            "--tag",
            "search",
            cwd=p,
        )
    (folder / "archive").mkdir()
    (folder / "archive" / "history-archive.md").write_text(
        "# 归档\n\n### 2026-01-01 00:00 [context: x]\nold search\n", encoding="utf-8"
    )
    (folder / "dream-notes.md").write_text("# Dream Notes\n\n## 判断准则\n- search first\n", encoding="utf-8")
    return p


def test_a_space_the_skill_saved_is_restored_with_each_files_text_identical(cli, tmp_path):
    p = saved_space(tmp_path)
    folder = p / ".session-memory"
    res = cli("space", "restore", "--json", "--include-research", "--workspace", str(p), use_root=False)
    assert res.code == 0, res.err
    got = json.loads(res.out)
    for key, name in (
        ("current", "current.md"),
        ("history", "history.md"),
        ("dream_notes", "dream-notes.md"),
        ("research", "research.md"),
    ):
        assert got[key]["text"].encode("utf-8") == (folder / name).read_bytes(), name
    assert got["research"]["entries"] == 2 and got["history"]["entries"] == 1
    theirs = skill("restore", "--workspace", str(p), cwd=p)
    for key, name in (("current", "current.md"), ("history", "history.md")):
        section = theirs.split(f"\n[{name}]\n", 1)[1]
        assert section.startswith(got[key]["text"].rstrip() + "\n"), name


def _skill_hits(p: Path, query: str) -> list[tuple[str, int, str]]:
    """The skill's search: (file, line, text) per printed match."""
    out = skill(
        "search",
        "--workspace",
        str(p),
        "--query",
        query,
        "--include-research",
        "--include-archive",
        "--limit",
        "50",
        cwd=p,
    )
    hits, file = [], None
    for line in out.splitlines():
        header = re.fullmatch(r"\[(.+)\]", line)
        if header:
            file = header.group(1)
            continue
        found = re.fullmatch(r"(\d+): (.*)", line)
        if file and found:
            hits.append((file, int(found.group(1)), found.group(2)))
    return hits


@pytest.mark.parametrize("query", ["search", "SEARCH", "conclusion", "in a fence", "rebuilt", "nothing-at-all"])
def test_the_skills_search_and_memboards_agree_on_lines(cli, tmp_path, query):
    p = saved_space(tmp_path)
    res = cli(
        "space",
        "search",
        query,
        "--json",
        "--include-research",
        "--include-archive",
        "--limit",
        "50",
        "--workspace",
        str(p),
        use_root=False,
    )
    assert res.code == 0, res.err
    ours = [
        (h["file"], h["line"], h["text"]) for h in json.loads(res.out) if h["file"] != "archive/research-archive.md"
    ]
    theirs = _skill_hits(p, query)
    assert sorted(ours) == sorted(theirs)
    if query == "search":
        assert len(ours) > 8
