"""What an agent is offered (issue 28 §3): tool profiles and their bytes, honest hints, closed input schemas, output
schemas with structured content, resources and a prompt, and `memboard mcp --help` naming every tool.

The bytes are those of the JSON-RPC line the server writes for `tools/list` (a raw stdio exchange); the rest goes
through the Python SDK's client, which also checks every structured answer against its tool's outputSchema.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memboard.mcp.resources import protocol_text
from memboard.mcp.server import TOOLSETS
from memboard.service.mcp_tools import AGENT_ON_ROOT, AGENT_WITHOUT_ROOT, EVERY_TOOL, FAMILIES
from tests.mcp.conftest import Agent, places_env, rootless, running, server_env

BUDGET = 12_000  # bytes of the default profile's tools/list answer (issue 28 §3: at most 12 KB)
FOLDERS = {"sessions": "session", "notes": "mem", "spaces": "space"}

# The review of every tool's hints against what it can change: (readOnly, destructive, idempotent, why).
HINTS = {
    "session_context": (True, None, None, "reads"),
    "session_show": (True, None, None, "reads"),
    "session_list": (True, None, None, "reads"),
    "session_chain": (True, None, None, "reads"),
    "search": (True, None, None, "reads (its cache lives in local state, not in the memory)"),
    "session_register": (False, False, False, "adds a row and a snapshot; each call a new session"),
    "session_update": (False, True, False, "rewrites the row's cells and merges into the snapshot; stamps Updated At"),
    "session_continue": (False, False, False, "adds references (and may register a new session)"),
    "session_release": (False, True, True, "removes a reference from two files; once gone, nothing left to do"),
    "session_archive": (False, True, True, "moves the row and snapshot out (or deletes a placeholder)"),
    "memory_organize": (False, True, False, "deletes idle rows, marks rows stale as time passes"),
    "mem_context": (True, None, None, "reads"),
    "mem_search": (True, None, None, "reads"),
    "mem_get": (True, None, None, "reads"),
    "mem_suggest_topic_key": (True, None, None, "derives a key, reads nothing"),
    "mem_save": (False, True, False, "the same topic key rewrites the note's texts in place"),
    "mem_update": (False, True, False, "replaces a note's sections in place"),
    "mem_session_summary": (False, True, False, "rewrites the row's Summary, merges into the snapshot"),
    "space_where": (True, None, None, "reads"),
    "space_restore": (True, None, None, "reads"),
    "space_search": (True, None, None, "reads"),
    "space_check": (True, None, None, "reads"),
    "space_save": (False, True, False, "rewrites current.md (displaced lines kept in history.md)"),
    "space_research_save": (False, False, False, "appends an entry to research.md, a new one each call"),
    "space_dream": (False, True, False, "replaces dream-notes.md"),
    "space_archive": (False, True, True, "moves history and research out to archive/"),
    "space_migrate": (False, True, True, "moves legacy folders, deletes identical copies"),
    "hierarchy_hot": (True, None, None, "reads"),
    "hierarchy_lint": (True, None, None, "reads"),
    "facts_get": (True, None, None, "reads"),
    "lookup": (True, None, None, "reads"),
    "hierarchy_migrate_plan": (True, None, None, "proposes, writes nothing"),
    "facts_set": (False, True, True, "replaces a value; the same value again changes nothing"),
    "facts_todo": (False, True, False, "done removes the todo's line from facts.yaml"),
    "daily_log": (False, False, True, "appends; the same block again is nothing to change"),
    "hierarchy_migrate_apply": (False, True, True, "deletes MEMORY.md's moved lines; once applied, nothing left"),
}


def raw_tools_list(command: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[bytes, dict]:
    """The bytes of the line the server writes for tools/list (after initialize), and the initialize result."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(lines[0]).encode() + b"\n")
        proc.stdin.flush()
        initialized = json.loads(proc.stdout.readline())["result"]
        proc.stdin.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines[1:]))
        proc.stdin.flush()
        answer = proc.stdout.readline()
        proc.stdin.close()
        proc.wait(timeout=60)
    return answer.rstrip(b"\n"), initialized


def text(item: Any) -> str:
    """The text of a content block or a resource's contents (the tests read text ones only)."""
    return item.text


def names_of(answer: bytes) -> list[str]:
    """The tool names of a tools/list line."""
    return [tool["name"] for tool in json.loads(answer)["result"]["tools"]]


def test_the_default_profile_is_the_agent_set_and_its_tools_list_fits_the_budget(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    command = [sys.executable, "-m", "memboard", "mcp", "--root", str(root)]
    answer, initialized = raw_tools_list(command, server_env(tmp_path / "state"))
    assert names_of(answer) == [name for name in EVERY_TOOL if name in AGENT_ON_ROOT]
    assert len(answer) <= BUDGET, len(answer)
    instructions = initialized["instructions"]
    assert "session_update" in instructions and "memory_organize" not in instructions  # rules of served tools only
    assert "--tools all" in instructions and len(instructions) < 2_000

    home = tmp_path / "home"
    home.mkdir()
    answer, initialized = raw_tools_list([sys.executable, "-m", "memboard", "mcp"], places_env(home), cwd=home)
    assert names_of(answer) == [name for name in EVERY_TOOL if name in AGENT_WITHOUT_ROOT]
    assert len(answer) <= BUDGET, len(answer)
    assert "session_register" not in initialized["instructions"]


@pytest.mark.parametrize("profiles", ["sessions", "notes", "spaces", "hierarchy", "all", "notes,sessions"])
def test_each_profile_lists_its_families_tools(tmp_path, profiles):
    root = tmp_path / "memory"
    root.mkdir()
    command = [sys.executable, "-m", "memboard", "mcp", "--root", str(root), "--tools", profiles]
    answer, _ = raw_tools_list(command, server_env(tmp_path / "state"))
    wanted = EVERY_TOOL if profiles == "all" else [n for f in profiles.split(",") for n in FAMILIES[f]]
    assert sorted(names_of(answer)) == sorted(wanted)


def test_the_config_key_mcp_tools_picks_the_profile_and_a_bad_one_is_one_line(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    state = tmp_path / "state"
    state.mkdir()
    (state / "config.toml").write_text('mcp_tools = "hierarchy"\n', encoding="utf-8")
    command = [sys.executable, "-m", "memboard", "mcp", "--root", str(root)]
    answer, _ = raw_tools_list(command, server_env(state))
    assert names_of(answer) == list(FAMILIES["hierarchy"])
    bad = subprocess.run(
        [*command, "--tools", "agent,nope"], capture_output=True, text=True, env=server_env(state), timeout=60
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == [
        "memboard: unknown tool profile 'nope': use one of agent, sessions, notes, spaces, hierarchy, all "
        "(or several, joined by commas)"
    ]


def test_every_defined_tool_is_in_exactly_one_family():
    defined = [tool.__name__ for toolset in TOOLSETS for tool, _ in toolset(Path("/nonexistent")).tools()]
    assert sorted(defined) == sorted(EVERY_TOOL) and len(set(EVERY_TOOL)) == len(EVERY_TOOL)
    assert set(AGENT_ON_ROOT) <= set(FAMILIES["sessions"]) | set(FAMILIES["notes"])
    assert set(AGENT_WITHOUT_ROOT) <= set(FAMILIES["spaces"]) | set(FAMILIES["hierarchy"])


def test_every_tools_hints_are_the_reviewed_ones(agent: Agent):
    tools = {tool.name: tool for tool in agent.portal.call(agent.session.list_tools).tools}
    assert set(tools) == set(HINTS)
    for name, (read_only, destructive, idempotent, _why) in HINTS.items():
        hints = tools[name].annotations
        assert hints is not None and hints.open_world_hint is False, name
        assert hints.read_only_hint is read_only, name
        if not read_only:
            assert (hints.destructive_hint, hints.idempotent_hint) == (destructive, idempotent), name


def test_input_schemas_are_closed_and_the_server_refuses_what_they_refuse(agent: Agent):
    tools = agent.portal.call(agent.session.list_tools).tools
    for tool in tools:
        schema = tool.input_schema
        assert schema["additionalProperties"] is False, tool.name
        assert "title" not in schema and all("title" not in spec for spec in schema["properties"].values())
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", tool.name
        refusal = agent.refusal(tool.name, zz_unknown=1)
        assert refusal.startswith(f"{tool.name}: unknown argument(s) zz_unknown;") and "nothing written" in refusal


def test_answers_carry_structured_content_beside_the_same_json_text(agent: Agent):
    registered = agent.call("session_register", agent="claude-main-agent", topic="Structured")
    assert not registered.is_error and registered.structured_content == json.loads(text(registered.content[0]))
    sid = registered.structured_content["session_id"]
    listed = agent.call("session_list")
    assert listed.structured_content["rows"][-1]["id"] == sid
    ws = agent.root.parent / "lint-ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("# Memory\n\n- Be brief.\n", encoding="utf-8")
    linted = agent.call("hierarchy_lint", workspace=str(ws))
    assert linted.structured_content == {"result": json.loads(text(linted.content[0]))}  # a list, wrapped
    refused = agent.call("session_show", session_id="2026-01-01-0000-nobody-agent")
    assert refused.is_error and refused.structured_content is None


def test_the_resources_and_the_prompt_are_real(agent: Agent):
    call = agent.portal.call
    resources = {str(r.uri): r for r in call(agent.session.list_resources).resources}
    assert set(resources) == {"memboard://protocol"}
    protocol = call(agent.session.read_resource, "memboard://protocol").contents[0]
    assert text(protocol) == protocol_text() and "| Session ID | Agent Name | Topic |" in text(protocol)
    assert protocol.mime_type == "text/markdown"
    templates = {t.uri_template for t in call(agent.session.list_resource_templates).resource_templates}
    assert templates == {"memboard://session/{session_id}", "memboard://hot/{+workspace}"}

    answer = agent.answer(
        "session_register", agent="claude-main-agent", topic="Resources", snapshot="## Next Actions\n\n- Ship it\n"
    )
    sid = answer["session_id"]
    snapshot = text(call(agent.session.read_resource, f"memboard://session/{sid}").contents[0])
    assert snapshot == (agent.root / "sessions" / f"{sid}.md").read_text(encoding="utf-8")

    ws = agent.root.parent / "hot-ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("# Memory\n\n- Kim prefers short answers.\n", encoding="utf-8")
    hot = text(call(agent.session.read_resource, f"memboard://hot/{ws}").contents[0])
    assert "- Kim prefers short answers." in hot and str(ws / "MEMORY.md") in hot

    prompts = {p.name: p for p in call(agent.session.list_prompts).prompts}
    assert set(prompts) == {"continue_session"}
    assert [(a.name, a.required) for a in prompts["continue_session"].arguments or []] == [
        ("source_id", True),
        ("session_id", False),
    ]
    prompt = call(agent.session.get_prompt, "continue_session", {"source_id": sid})
    said = text(prompt.messages[0].content)
    assert f"session_continue with source_id={sid}" in said and "- Ship it" in said


def test_without_a_root_only_the_hot_memory_is_served_and_no_prompt_is_advertised(tmp_path, agent: Agent):
    offered = agent.session.server_capabilities
    assert offered is not None and offered.prompts is not None and offered.resources is not None
    with rootless(tmp_path / "home") as bare:
        offered = bare.session.server_capabilities  # the one prompt needs a root: prompts are not advertised
        assert offered is not None and offered.prompts is None and offered.resources is not None
        call = bare.portal.call
        assert call(bare.session.list_resources).resources == []
        templates = [t.uri_template for t in call(bare.session.list_resource_templates).resource_templates]
        assert templates == ["memboard://hot/{+workspace}"]


def test_mcp_help_lists_every_tool_by_profile(capsys):
    from memboard.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["mcp", "--help"])
    out = capsys.readouterr().out
    assert stopped.value.code == 0
    entries: dict[str, str] = {}
    label = ""
    for line in out[out.index("tool profiles (") :].splitlines()[1:]:
        if not line.strip():
            continue
        if line.startswith("  ") and not line.startswith("   "):
            label = line.split()[0]
            line = line[len(label) + 2 :]
        entries[label] = entries.get(label, "") + " " + line.strip()
    assert set(entries) == {"agent", *FAMILIES, "all"}
    for family, names in FAMILIES.items():
        assert entries[family].replace(",", " ").split() == list(names)
    assert set(AGENT_ON_ROOT + AGENT_WITHOUT_ROOT) <= set(entries["agent"].replace(",", " ").split())


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    """One server with every tool on a fresh memory root."""
    root = tmp_path_factory.mktemp("surface") / "memory"
    root.mkdir()
    with running(root, tmp_path_factory.mktemp("surface-state")) as client:
        yield client
