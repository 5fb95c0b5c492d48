"""The space tools (issue 24 §6) on a server with no memory root, driven by the SDK's stdio client: each answer is
the command's `--json`, a dry run's `diff` is the patch `--dry-run` prints, errors are one line with nothing written."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcp.conftest import Agent, places_env, rootless

PLAN_KEYS = ("report", "diff", "notes", "message", "proposal")  # what an answer adds to the command's --json
CURRENT = "# 当前状态\n\n## 当前目标\n\n- ship the parser\n\n## 下一步\n\n- write the tests\n- old step\n"
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture(scope="module")
def agent(tmp_path_factory) -> Iterator[Agent]:
    """One server with no memory root for the module."""
    with rootless(tmp_path_factory.mktemp("spaces-mcp")) as client:
        yield client


def cli(agent: Agent, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`memboard ARGS` in the server's environment (its state, homes and clock), with no memory root."""
    return subprocess.run(
        [sys.executable, "-m", "memboard", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=places_env(agent.root),
        cwd=agent.root,
        timeout=120,
    )


def cli_json(agent: Agent, *args: str, stdin: str | None = None) -> object:
    """The command's --json (it must succeed)."""
    done = cli(agent, *args, "--json", stdin=stdin)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def project(agent: Agent, name: str, current: str | None = CURRENT) -> Path:
    """A git project under the server's home, with a saved space (current.md) unless current is None."""
    path = agent.root / name
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    if current is not None:
        done = cli(agent, "space", "save", "--workspace", str(path), "--current", "-", stdin=current)
        assert done.returncode == 0, done.stderr
    return path


def files(folder: Path) -> dict[str, bytes]:
    """Every file under folder (the .git folder left out)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(folder).parts
    }


def command_part(answer: dict) -> dict:
    """An answer without what a tool adds to the command's --json."""
    return {k: v for k, v in answer.items() if k not in PLAN_KEYS}


def test_without_a_memory_root_the_server_offers_the_space_and_hierarchy_tools_with_honest_hints(agent):
    tools = {tool.name: tool for tool in agent.portal.call(agent.session.list_tools).tools}
    assert "session_register" not in tools and "mem_save" not in tools
    reads = {"space_where", "space_restore", "space_search", "space_check"}
    assert reads | {"space_save", "space_research_save", "space_dream", "space_archive", "space_migrate"} <= set(tools)
    for name in reads:
        assert tools[name].annotations.read_only_hint is True, name
    assert tools["space_archive"].annotations.destructive_hint and tools["space_migrate"].annotations.destructive_hint
    assert tools["space_save"].annotations.destructive_hint and not tools["space_save"].annotations.read_only_hint
    assert not tools["space_research_save"].annotations.idempotent_hint
    for name in tools:
        if name.startswith("space_"):
            schema = tools[name].input_schema
            assert "workspace" in schema["required"] and "allow_secrets" not in schema["properties"], name
    assert tools["space_archive"].input_schema["properties"]["dry_run"]["default"] is True
    assert tools["space_save"].input_schema["properties"]["dry_run"]["default"] is False
    events = tools["space_check"].input_schema["properties"]["events"]["items"]["enum"]
    choices = cli(agent, "space", "check", "--event", "nope").stderr
    assert events and all(f"'{event}'" in choices for event in events)  # the command line's choices, as listed
    instructions = agent.session.initialize_result.instructions
    assert "space_save" in instructions and "instead of editing" in instructions


def test_the_reads_answer_the_commands_json(agent):
    p = project(agent, "reads")
    ws = str(p)
    assert agent.answer("space_where", workspace=ws) == cli_json(agent, "space", "where", "--workspace", ws)
    assert agent.answer("space_restore", workspace=ws, history=1, include_research=True) == cli_json(
        agent, "space", "restore", "--workspace", ws, "--history", "1", "--include-research"
    )
    hits = agent.answer("space_search", workspace=ws, query="PARSER")
    assert hits == cli_json(agent, "space", "search", "parser", "--workspace", ws) and hits
    assert hits[0]["file"] == "current.md" and hits[0]["heading"] == "## 当前目标"
    check = agent.answer("space_check", workspace=ws, events=["goal-changed"])
    assert check == cli_json(agent, "space", "check", "--workspace", ws, "--event", "goal-changed")
    assert check["decision"] == "SAVE_NOW"


def test_save_dry_run_is_the_command_lines_patch_and_writes_nothing_then_save_applies(agent):
    p = project(agent, "save")
    ws = str(p)
    new = CURRENT.replace("- old step\n", "")
    before = files(p)
    answer = agent.answer("space_save", workspace=ws, current=new, reason="step done", dry_run=True)
    printed = cli(
        agent, "space", "save", "--workspace", ws, "--current", "-", "--reason", "step done", "--dry-run", stdin=new
    )
    assert printed.returncode == 0 and printed.stderr.startswith(f"patch base: {p}\n")
    assert answer["diff"] == printed.stdout and answer["dry_run"] is True
    assert command_part(answer) == cli_json(
        agent, "space", "save", "--workspace", ws, "--current", "-", "--reason", "step done", "--dry-run", stdin=new
    )
    assert files(p) == before

    written = agent.answer("space_save", workspace=ws, current=new, reason="step done")
    assert written["dry_run"] is False and written["moved_to_history"] == 1
    history = (p / ".session-memory" / "history.md").read_text(encoding="utf-8")
    assert "> - old step" in history and "- 触发原因：step done" in history
    assert (p / ".session-memory" / "current.md").read_text(encoding="utf-8").count("old step") == 0
    again = agent.answer("space_save", workspace=ws, current=new)
    assert again["changes"] == [] and again["message"] == "nothing to change"


def test_sections_and_research_save_write_what_the_command_writes(agent):
    mine, theirs = project(agent, "research-mcp"), project(agent, "research-cli")
    fields = {"topic": "FTS5", "conclusion": "fast enough", "valid": "yes", "evidence": ["bench", "profile"]}
    answer = agent.answer("space_research_save", workspace=str(mine), tags=["search"], **fields)
    printed = cli_json(
        agent,
        "space",
        "research-save",
        "--workspace",
        str(theirs),
        "--topic",
        "FTS5",
        "--conclusion",
        "fast enough",
        "--valid",
        "yes",
        "--evidence",
        "bench",
        "--evidence",
        "profile",
        "--tag",
        "search",
    )
    as_theirs = json.loads(json.dumps(command_part(answer)).replace("research-mcp", "research-cli"))
    assert as_theirs == printed
    assert {k: v.replace(b"research-mcp", b"research-cli") for k, v in files(mine).items()} == files(theirs)
    entry = (mine / ".session-memory" / "research.md").read_text(encoding="utf-8")
    assert "- 关键证据：bench; profile" in entry

    sections = agent.answer("space_save", workspace=str(mine), sections={"下一步": "- ship it\n"}, dry_run=True)
    assert "+- ship it" in sections["diff"] and "-- write the tests" in sections["diff"]


def test_dream_without_notes_is_a_proposal_that_writes_nothing(agent):
    p = project(agent, "dream", CURRENT + "\n## 有效做法\n\n- small commits\n\n## 未决问题\n\n- which cache?\n")
    before, home = files(p), files(agent.root / "smhome") if (agent.root / "smhome").exists() else {}
    answer = agent.answer("space_dream", workspace=str(p))
    assert answer["proposal"] is True and answer["dry_run"] is True
    printed = cli(agent, "space", "dream", "--workspace", str(p), "--dry-run")
    assert answer["diff"] == printed.stdout and "+- small commits" in answer["diff"]
    assert files(p) == before
    assert (files(agent.root / "smhome") if (agent.root / "smhome").exists() else {}) == home

    notes = "## 正确轨迹\n\n- small commits\n\n## 预警信号\n\n- which cache?\n"
    written = agent.answer("space_dream", workspace=str(p), notes=notes)
    assert written["dry_run"] is False and "proposal" not in written
    assert "- small commits" in (p / ".session-memory" / "dream-notes.md").read_text(encoding="utf-8")


def test_archive_and_migrate_preview_by_default(agent):
    p = project(agent, "legacy", None)
    legacy = p / ".codex" / "session-memory"
    legacy.mkdir(parents=True)
    (legacy / "current.md").write_text(CURRENT, encoding="utf-8")
    before = files(p)
    answer = agent.answer("space_migrate", workspace=str(p))
    printed = cli(agent, "space", "migrate", "--workspace", str(p), "--dry-run")
    assert answer["dry_run"] is True and answer["diff"] == printed.stdout
    assert command_part(answer) == cli_json(agent, "space", "migrate", "--workspace", str(p), "--dry-run")
    assert files(p) == before
    moved = agent.answer("space_migrate", workspace=str(p), dry_run=False)
    assert moved["dry_run"] is False and (p / ".session-memory" / "current.md").read_text(encoding="utf-8") == CURRENT
    assert not (p / ".codex").exists()

    q = project(agent, "archive")
    before = files(q)
    preview = agent.answer("space_archive", workspace=str(q), keep=0, force=True)
    printed = cli(agent, "space", "archive", "--workspace", str(q), "--keep", "0", "--force", "--dry-run")
    assert preview["dry_run"] is True and preview["diff"] == printed.stdout
    assert files(q) == before


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("space_save", {"current": f"# T\n\n- token {TOKEN}\n"}, "credential"),
        ("space_save", {}, "pass current or sections"),
        ("space_save", {"current": "x", "allow_secrets": True}, "unknown argument"),
        ("space_research_save", {"topic": "t", "conclusion": "c", "valid": "maybe"}, "valid"),
        ("space_research_save", {"topic": "t", "conclusion": f"key {TOKEN}"}, "credential"),
        ("space_dream", {"notes": "## 随便\n\n- x\n"}, "dream"),
        ("space_archive", {"keep": -1}, "keep"),
        ("space_restore", {"workspace": "relative/path"}, "absolute"),
    ],
)
def test_bad_arguments_and_secrets_are_one_line_errors_with_nothing_written(agent, tool, arguments, says):
    name = f"bad-{tool}-{abs(hash(json.dumps(arguments, sort_keys=True))) % 10**6}"
    p = project(agent, name)
    before, home = files(p), files(agent.root / "smhome")
    message = agent.refusal(tool, **{"workspace": str(p), **arguments})
    assert says in message, message
    assert files(p) == before and files(agent.root / "smhome") == home


def test_an_invalid_config_is_a_tool_error_for_reads_and_writes(agent):
    p = project(agent, "badconfig")
    (p / ".session-memory" / "config.toml").write_text("[spaces\n", encoding="utf-8")
    before = files(p)
    for tool, extra in [("space_where", {}), ("space_check", {}), ("space_save", {"current": "x\n"})]:
        message = agent.refusal(tool, workspace=str(p), **extra)
        assert "config.toml" in message, (tool, message)
    assert files(p) == before


def test_an_unreadable_config_still_stops_the_server_in_one_line(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = places_env(home)
    (home / "state").mkdir()
    (home / "state" / "config.toml").write_text("root = [unclosed\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "memboard", "mcp"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        cwd=home,
        timeout=120,
    )
    err = done.stderr.decode()
    assert done.returncode != 0 and done.stdout == b"" and err.startswith("memboard: ") and err.count("\n") == 1, err
