"""dream and archive against the session-memory skill's own scripts (issue 24 §10): after `space dream` and
`space archive` the skill's restore and search read the result; the skill's research-save running in a loop
during `space archive` loses no entry. Skipped, saying why, where the skill's scripts are absent."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memboard.core.spaces.entries import parse
from tests.support.peers import run_skill, skill


@pytest.fixture(autouse=True)
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private global home whose fresh state.json keeps the skill's preflight from starting a dream."""
    skill()  # (skips where the scripts are absent)
    home = tmp_path / "smhome"
    home.mkdir()
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()
    (home / "state.json").write_text(json.dumps({"version": 1, "last_sleep_check_at": stamp}), encoding="utf-8")
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codexhome"))
    monkeypatch.setenv("CLAUDE_HOME", str(tmp_path / "claudehome"))
    monkeypatch.delenv("MEMBOARD_NOW")  # the skill stamps its entries with the real clock: so does the dream
    return home


def sk(name: str, *args: str, cwd: Path) -> str:
    ran = run_skill(name, *args, cwd=cwd)
    assert ran.returncode == 0, ran.stderr + ran.stdout
    return ran.stdout


def research(p: Path, topic: str, valid: str = "unknown", merged: str = "no", conclusion: str = "c") -> None:
    sk(
        "research_save",
        "--workspace",
        str(p),
        "--stage",
        "commit",
        "--topic",
        topic,
        "--conclusion",
        conclusion,
        "--valid",
        valid,
        "--merged",
        merged,
        cwd=p,
    )


def a_space(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    sk("init", "--workspace", str(p), cwd=p)
    mem = p / ".session-memory"
    current = (mem / "current.md").read_text(encoding="utf-8")
    current = current.replace("## 有效做法\n- \n", "## 有效做法\n- zebrafish indexing works\n")
    (mem / "current.md").write_text(current, encoding="utf-8")
    with (mem / "history.md").open("a", encoding="utf-8", newline="") as fh:
        for n in range(4):
            fh.write(f"\n### 2026-11-30 14:0{n} [context: main]\n- 触发原因：old change {n} walrus\n")
        fh.write("```\n### 2026-11-30 14:09 a fenced line, never an entry\n```\n")
        fh.write("\n### 2026-11-30 15:00 [context: main]\n- 触发原因：newest narwhal\n")
    return p


def test_the_skills_restore_and_search_read_what_dream_and_archive_wrote(cli, tmp_path: Path) -> None:
    p = a_space(tmp_path)
    research(p, "dead topic", valid="no", conclusion="octopus dead end")
    research(p, "live topic", conclusion="still open")
    dreamt = cli("space", "dream", "--workspace", str(p), use_root=False)
    assert dreamt.code == 0, dreamt.err
    done = cli("space", "archive", "--workspace", str(p), "--keep", "1", use_root=False)
    assert done.code == 0, done.err
    mem = p / ".session-memory"
    restored = sk("restore", "--workspace", str(p), cwd=p)
    assert "newest narwhal" in restored and "old change 0 walrus" not in restored
    assert "zebrafish indexing works" in restored
    found = sk("search", "--workspace", str(p), "--query", "zebrafish", cwd=p)
    assert "[dream-notes.md]" in found  # the extraction's item, as the skill's search reads it
    cold = sk("search", "--workspace", str(p), "--query", "walrus", "--include-archive", cwd=p)
    assert "[archive/history-archive.md]" in cold and "old change 0 walrus" in cold
    deep = blocks(sk("search", "--workspace", str(p), "--query", "octopus", "--include-research", cwd=p))
    assert "[dream-notes.md]" in deep and "[research.md]" not in deep  # the closed topic left research.md
    assert "octopus dead end" in (mem / "archive/research-archive.md").read_text(encoding="utf-8")
    assert "still open" in (mem / "research.md").read_text(encoding="utf-8")


def blocks(output: str) -> dict[str, list[str]]:
    """The skill's search output by file: `[name]` then its matching lines."""
    out: dict[str, list[str]] = {}
    name = None
    for line in output.splitlines():
        if line.startswith("[") and line.endswith("]"):
            name = line
            out[name] = []
        elif name is not None and line.strip():
            out[name].append(line)
    return out


def _entries(path: Path) -> list[str]:
    return [e.text.rstrip("\n") for e in parse(path.read_text(encoding="utf-8")).entries] if path.exists() else []


def test_the_skills_research_save_in_a_loop_during_archive_loses_no_entry(cli, tmp_path: Path) -> None:
    p = a_space(tmp_path)
    for n in range(3):
        research(p, f"closed {n}", valid="no", conclusion=f"closed conclusion {n}")
    research(p, "open", conclusion="open conclusion")
    assert cli("space", "dream", "--workspace", str(p), use_root=False).code == 0
    mem = p / ".session-memory"
    before = _entries(mem / "research.md")
    errors: list[str] = []

    def loop() -> None:
        for n in range(12):
            ran = run_skill(
                "research_save", "--workspace", str(p), "--stage", "commit", "--topic", f"loop {n}",
                "--conclusion", f"loop conclusion {n}", cwd=p,
            )  # fmt: skip
            if ran.returncode != 0:
                errors.append(ran.stderr)

    writer = threading.Thread(target=loop)
    writer.start()
    codes = []
    while writer.is_alive():
        codes.append(cli("space", "archive", "--workspace", str(p), "--skip-history", use_root=False).code)
        time.sleep(0.05)
    writer.join()
    codes.append(cli("space", "archive", "--workspace", str(p), "--skip-history", use_root=False).code)
    assert not errors
    kept = _entries(mem / "research.md")
    archived = _entries(mem / "archive/research-archive.md")
    held = kept + archived
    for text in before:
        assert text.strip() in [h.strip() for h in held]
    for n in range(12):
        assert any(f"- 当前结论：loop conclusion {n}" in h for h in kept), f"loop entry {n} lost"
    assert len(codes) >= 2 and codes[-1] == 0, codes
    for n in range(3):  # the last archive, with no writer beside it, leaves no closed topic in research.md
        assert not any(f"closed conclusion {n}" in h for h in kept)
        assert any(f"closed conclusion {n}" in h for h in archived)
