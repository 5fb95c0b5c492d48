"""The hierarchy tools (issue 25 §5) on a server with no memory root, driven by the SDK's stdio client: each answer
is the command's `--json`, a dry run's `diff` is the patch `--dry-run` prints, errors are one line, nothing written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memboard.core.hierarchy import migrate
from tests.mcp.conftest import Agent, rootless
from tests.mcp.test_mcp_spaces import cli, cli_json, command_part, files

HOT = (
    "# Identity\n"
    "I am Kim's assistant.\n"
    "- Email: kim.lee@example.com\n"
    "\n"
    "## Rules\n"
    "- Always ask before spending more than $50.\n"
)
FACTS = "# memory/facts.yaml\n# Last updated: 2026-05-01\nidentity:\n  name: Kim\n  email: kim@example.com\ntodos:\n  - renew passport\n"
LOOKUP = "| I need to know... | Go here |\n|---|---|\n| who Kim is | memory/facts.yaml → identity |\n"
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture(scope="module")
def agent(tmp_path_factory) -> Iterator[Agent]:
    """One server with no memory root for the module."""
    with rootless(tmp_path_factory.mktemp("hierarchy-mcp")) as client:
        yield client


def workspace(agent: Agent, name: str, hot: str = HOT) -> Path:
    """A workspace with MEMORY.md, facts.yaml and lookup-index.md."""
    ws = agent.root / name
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text(hot, encoding="utf-8", newline="")
    (ws / "memory" / "facts.yaml").write_text(FACTS, encoding="utf-8", newline="")
    (ws / "memory" / "lookup-index.md").write_text(LOOKUP, encoding="utf-8", newline="")
    return ws


def test_the_hierarchy_tools_are_offered_with_honest_hints(agent):
    tools = {tool.name: tool for tool in agent.portal.call(agent.session.list_tools).tools}
    reads = {"hierarchy_hot", "hierarchy_lint", "facts_get", "lookup", "hierarchy_migrate_plan"}
    writes = {"facts_set", "facts_todo", "daily_log", "hierarchy_migrate_apply"}
    assert reads | writes <= set(tools)
    for name in reads | writes:
        schema = tools[name].input_schema
        assert tools[name].annotations.read_only_hint is (name in reads), name
        assert "workspace" in schema["required"] and "allow_secrets" not in schema["properties"], name
    assert tools["hierarchy_migrate_apply"].input_schema["properties"]["dry_run"]["default"] is True
    assert tools["facts_set"].input_schema["properties"]["dry_run"]["default"] is False
    assert tools["facts_set"].annotations.destructive_hint and not tools["daily_log"].annotations.destructive_hint
    instructions = agent.session.initialize_result.instructions
    assert "hierarchy_hot at session start" in instructions and "lookup before searching" in instructions
    assert "facts_set" in instructions


def test_the_reads_answer_the_commands_json(agent):
    ws = workspace(agent, "reads")
    w = str(ws)
    hot = agent.answer("hierarchy_hot", workspace=w)
    show = cli_json(agent, "hierarchy", "show", "--workspace", w)
    assert hot["text"] == HOT and hot["lines"] == show["hot"]["lines"] == 6
    assert {k: hot[k] for k in show["hot"]} == show["hot"]
    lint = cli_json(agent, "hierarchy", "lint", "--workspace", w)
    assert agent.answer("hierarchy_lint", workspace=w) == lint
    assert hot["lint"]["findings"] == len(lint) and hot["lint"]["kinds"]["fact_in_hot"] >= 1
    assert agent.answer("facts_get", workspace=w, key="identity.email") == cli_json(
        agent, "facts", "get", "identity.email", "--workspace", w
    )
    found = agent.answer("lookup", workspace=w, query="who is Kim")
    assert found == cli_json(agent, "lookup", "who", "is", "Kim", "--workspace", w) and found["kind"] == "facts"
    assert agent.answer("hierarchy_migrate_plan", workspace=w) == cli_json(
        agent, "hierarchy", "migrate", "--plan", "--workspace", w
    )


def test_facts_set_dry_run_is_the_patch_then_it_writes_two_lines(agent):
    ws = workspace(agent, "set")
    w = str(ws)
    before = files(ws)
    answer = agent.answer("facts_set", workspace=w, key="identity.name", value="no", dry_run=True)
    printed = cli(agent, "facts", "set", "identity.name", "no", "--workspace", w, "--dry-run")
    assert printed.returncode == 0 and printed.stderr.startswith(f"patch base: {ws}\n")
    assert answer["diff"] == printed.stdout
    assert command_part(answer) == cli_json(agent, "facts", "set", "identity.name", "no", "--workspace", w, "--dry-run")
    assert files(ws) == before
    written = agent.answer("facts_set", workspace=w, key="identity.name", value="no")
    assert written["dry_run"] is False and written["changed"] is True
    text = (ws / "memory" / "facts.yaml").read_text(encoding="utf-8")
    assert '  name: "no"\n' in text and "# Last updated: 2026-06-01\n" in text
    assert agent.answer("facts_set", workspace=w, key="identity.name", value="no")["message"] == "nothing to change"


def test_todos_and_the_daily_log(agent):
    ws = workspace(agent, "todos")
    w = str(ws)
    added = agent.answer("facts_todo", workspace=w, action="add", item="call Sam")
    assert added["todo"] == "call Sam" and "  - call Sam\n" in (ws / "memory" / "facts.yaml").read_text()
    done = agent.answer("facts_todo", workspace=w, action="done", item="1")
    assert done["todo"] == "renew passport" and done["log"] == "memory/2026-06-01.md"
    assert "- [x] renew passport" in (ws / "memory" / "2026-06-01.md").read_text(encoding="utf-8")

    preview = agent.answer("daily_log", workspace=w, text="met Sam", date="2026-05-30", dry_run=True)
    printed = cli(agent, "hierarchy", "log", "--text", "met Sam", "--date", "2026-05-30", "--workspace", w, "--dry-run")
    assert preview["diff"] == printed.stdout and not (ws / "memory" / "2026-05-30.md").exists()
    assert command_part(preview) == command_part(
        cli_json(agent, "hierarchy", "log", "--text", "met Sam", "--date", "2026-05-30", "--workspace", w, "--dry-run")
    )
    agent.answer("daily_log", workspace=w, text="met Sam", date="2026-05-30")
    assert (ws / "memory" / "2026-05-30.md").read_text(encoding="utf-8") == "# 2026-05-30\n\nmet Sam\n"


def test_migrate_apply_previews_by_default_then_applies_the_decided_plan(agent):
    ws = workspace(agent, "migrate")
    w = str(ws)
    plan = agent.answer("hierarchy_migrate_plan", workspace=w)
    for line in plan["lines"]:
        if line["text"] == "- Email: kim.lee@example.com":
            line.update(to="facts", key="identity.work_email", value="kim.lee@example.com")
    before = files(ws)
    preview = agent.answer("hierarchy_migrate_apply", workspace=w, plan=plan)
    (agent.root / "plan.yaml").write_text(migrate.dump_yaml(plan), encoding="utf-8")  # the bytes the tool keeps
    printed = cli(
        agent, "hierarchy", "migrate", "--apply", str(agent.root / "plan.yaml"), "--workspace", w, "--dry-run"
    )
    assert preview["dry_run"] is True and preview["diff"] == printed.stdout and files(ws) == before
    applied = agent.answer("hierarchy_migrate_apply", workspace=w, plan=plan, dry_run=False)
    assert applied["dry_run"] is False and "verify" in applied
    assert "kim.lee@example.com" not in (ws / "MEMORY.md").read_text(encoding="utf-8")
    assert "work_email: kim.lee@example.com" in (ws / "memory" / "facts.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("facts_set", {"key": "identity.name", "value": TOKEN}, "credential"),
        ("facts_set", {"key": "identity", "value": "x"}, "identity"),
        ("facts_set", {"key": "nope.x", "value": "x"}, "nope"),
        ("facts_set", {"key": "identity.name", "value": "a\nb"}, "line"),
        ("facts_set", {"key": "identity.name", "value": "x", "allow_secrets": True}, "unknown argument"),
        ("facts_todo", {"action": "drop", "item": "x"}, "action"),
        ("daily_log", {"text": "x", "date": "2026-02-30"}, "2026-02-30"),
        ("daily_log", {"text": f"token {TOKEN}"}, "credential"),
        ("lookup", {"query": "nothing like it"}, "no lookup row matches"),
        ("hierarchy_migrate_apply", {"plan": {"lines": []}, "dry_run": False}, "plan"),
        ("facts_get", {"workspace": "relative", "key": "identity.name"}, "absolute"),
    ],
)
def test_errors_are_one_line_and_nothing_is_written(agent, tool, arguments, says):
    ws = workspace(agent, f"bad-{tool}-{abs(hash(json.dumps(arguments, sort_keys=True))) % 10**6}")
    before = files(ws)
    message = agent.refusal(tool, **{"workspace": str(ws), **arguments})
    assert says in message, message
    assert files(ws) == before
