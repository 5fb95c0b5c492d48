"""`memboard mcp` driven by the SDK's own stdio client: every tool, bad arguments, dry runs, secrets, two writers.

Most tests share one server (the module's `agent`) on one root, each with sessions of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memboard.core.formats.note import Note, render_note
from memboard.mcp.server import INSTRUCTIONS
from tests.mcp.conftest import Agent, connect, running, server_command, server_env
from tests.support.faults import memboard_module
from tests.support.hooks import claude_payload
from tests.support.tree import tree

PROJECT = Path(__file__).resolve().parents[2]
READING = {
    "session_context",
    "session_show",
    "session_list",
    "session_chain",
    "search",
    "mem_context",
    "mem_search",
    "mem_get",
    "mem_suggest_topic_key",
    "space_where",
    "space_restore",
    "space_search",
    "space_check",
    "hierarchy_hot",
    "hierarchy_lint",
    "facts_get",
    "lookup",
    "hierarchy_migrate_plan",
}
PREVIEWING = {"space_archive", "space_migrate", "hierarchy_migrate_apply"}  # writes whose dry_run defaults to true
WRITING = {
    "session_register",
    "session_update",
    "session_continue",
    "session_release",
    "session_archive",
    "memory_organize",
    "mem_save",
    "mem_update",
    "mem_session_summary",
    "space_save",
    "space_research_save",
    "space_dream",
    "facts_set",
    "facts_todo",
    "daily_log",
    *PREVIEWING,
}
ONE_SESSION = {"session_show", "session_chain", "session_update", "session_release", "session_archive"}
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def register(agent: Agent, **fields: str) -> str:
    """A new session through the tool; its Session ID."""
    answer = agent.answer("session_register", agent="claude-main-agent", **fields)
    assert answer["message"] == f"Your Memory Session ID is: {answer['session_id']}"
    return answer["session_id"]


def cli(agent: Agent, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The command line on the server's root, with the server's state and clock."""
    return subprocess.run(
        [sys.executable, "-m", "memboard", *args, "--root", str(agent.root)],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=server_env(agent.state),
        timeout=120,
    )


def snapshot_of(agent: Agent, sid: str) -> str:
    """The session's snapshot text."""
    return (agent.root / "sessions" / f"{sid}.md").read_text(encoding="utf-8")


def test_initialize_names_the_server_and_gives_the_rules_the_docs_give(agent):
    result = agent.session.initialize_result
    assert result is not None and result.server_info.name == "memboard"
    assert result.instructions == INSTRUCTIONS
    page = (PROJECT / "docs" / "mcp.md").read_text(encoding="utf-8")
    assert INSTRUCTIONS in page  # the rules-file text agents are told to use is the server's own


def test_every_tool_has_a_description_and_a_schema_an_agent_can_follow(agent):
    tools = {tool.name: tool for tool in agent.portal.call(agent.session.list_tools).tools}
    assert set(tools) == READING | WRITING
    for name, tool in tools.items():
        assert tool.description and len(tool.description) > 60, name
        schema = tool.input_schema
        assert schema["type"] == "object"
        for field, spec in schema["properties"].items():
            assert spec.get("description"), f"{name}.{field} has no description"
        assert tool.annotations is not None and tool.annotations.read_only_hint is (name in READING), name
        if name in WRITING:
            assert schema["properties"]["dry_run"]["type"] == "boolean" and schema["properties"]["dry_run"][
                "default"
            ] is (name in PREVIEWING), name
        if name in ONE_SESSION:
            assert "session_id" in schema["required"], name
    assert (
        tools["session_archive"].annotations.destructive_hint and tools["memory_organize"].annotations.destructive_hint
    )
    assert tools["session_update"].annotations.destructive_hint  # it rewrites the row and the snapshot in place


def test_every_tool_works_on_a_session_from_registration_to_archive(agent):
    source = register(
        agent, topic="Parser rework", summary="Rewrote the parser.", snapshot="## Decisions\n\n- Use mistletoe\n"
    )
    context = agent.answer("session_context", session_id=source)
    assert context["session_id"] == source and context["message"] == f"Your Memory Session ID is: {source}"
    assert "- Use mistletoe" in context["snapshot"] and context["row"]["status"] == "active"

    update = agent.answer(
        "session_update", session_id=source, summary="Parser done.", snapshot="## Next Actions\n\n- Ship it\n"
    )
    assert update["added"] == ["- Ship it"] and update["dry_run"] is False
    assert "- Use mistletoe" in snapshot_of(agent, source) and "- Ship it" in snapshot_of(agent, source)
    assert agent.answer("session_show", session_id=source)["row"]["summary"] == "Parser done."
    listed = agent.answer("session_list", status="active")
    assert source in [row["id"] for row in listed["rows"]] and listed["omitted"] == 0
    assert source in [hit["id"] for hit in agent.answer("search", query="mistletoe")["hits"]]

    current = register(agent, topic="Board", summary="Works on the board.")
    agent.answer("session_continue", source_id=source, session_id=current)
    assert [n["id"] for n in agent.answer("session_chain", session_id=source)["referenced_by"]] == [current]
    assert [n["id"] for n in agent.answer("session_context", session_id=current)["related"]["continues_from"]] == [
        source
    ]
    assert agent.answer("session_release", source_id=source, session_id=current)["released"] == source
    assert agent.answer("session_show", session_id=source)["row"]["referenced_by"] == []

    archived = agent.answer("session_archive", session_id=source)
    assert archived["action"] == "archived" and (agent.root / "archive" / source / "session.md").is_file()
    assert agent.answer("session_show", session_id=source)["archived"] is True
    organized = agent.answer("memory_organize")
    assert organized["stale_days"] == 14 and current in organized["kept_active"]


def test_continue_without_an_id_registers_the_agent_first(agent):
    source = register(agent, topic="Docs")
    answer = agent.answer("session_continue", source_id=source, agent="codex-main-agent")
    assert answer["session_id"].endswith("-codex-main-agent") and answer["continues_from"] == source
    assert answer["message"] == f"Your Memory Session ID is: {answer['session_id']}"


def test_session_context_takes_the_hooks_conversation_and_never_guesses(agent):
    conversation = "c0ffee00-1111-4222-8333-944445555666"
    hook = subprocess.run(
        [sys.executable, "-m", "memboard", "hook", "claude", "--root", str(agent.root)],
        input=json.dumps(claude_payload(conversation)).encode(),
        capture_output=True,
        env=server_env(agent.state),
        timeout=120,
    )
    assert hook.returncode == 0, hook.stderr
    [sid] = re.findall(r"Your Memory Session ID is: (\S+?)[\"\\]", hook.stdout.decode())
    register(agent, topic="A later session")  # the latest row is not the hook's
    context = agent.answer("session_context", conversation_id=conversation)
    assert context["session_id"] == sid and context["row"]["status"] == "idle" and context["snapshot"] is None
    assert agent.answer("session_context", conversation_id=conversation, session_id=sid)["session_id"] == sid

    assert "never takes the latest row" in agent.refusal("session_context")
    assert "no Memory Session ID recorded" in agent.refusal("session_context", conversation_id="never-registered")
    assert f"is mapped to {sid}" in agent.refusal(
        "session_context", conversation_id=conversation, session_id="2026-01-01-0000-other"
    )
    assert "invalid conversation_id" in agent.refusal("session_context", conversation_id="two\tparts")


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("session_update", {"session_id": "{sid}", "dryrun": True}, "unknown argument(s) dryrun"),
        ("session_update", {"session_id": 42}, "session_id: Input should be a valid string"),
        ("session_update", {}, "session_id: Field required"),
        ("session_update", {"session_id": "../../etc/passwd"}, "invalid session ID"),
        ("session_update", {"session_id": "2020-01-01-0000-nobody"}, "unknown session 2020-01-01-0000-nobody"),
        ("session_update", {"session_id": "{sid}", "topic": "a\x00b"}, "topic contains a NUL byte"),
        ("session_archive", {"session_id": "{sid}", "dry_run": "yes"}, "dry_run: Input should be a valid boolean"),
        ("session_continue", {"source_id": "{sid}", "session_id": "{sid}"}, "cannot continue from itself"),
        ("session_release", {"source_id": "{sid}"}, "session_id: Field required"),
        ("session_register", {"agent": "Bad Agent"}, "invalid agent name"),
        ("session_list", {"status": "closed"}, "status: Input should be 'idle', 'active' or 'stale'"),
        ("session_list", {"limit": 0}, "limit: Input should be greater than or equal to 1"),
        ("memory_organize", {"stale_days": -1}, "stale_days: Input should be greater than or equal to 0"),
        ("search", {"query": ""}, "query: String should have at least 1 character"),
        ("search", {"query": "x", "since": "someday"}, "since"),
        ("session_show", {"session_id": "x" * 5000}, "invalid session ID"),
        ("no_such_tool", {}, "Unknown tool: no_such_tool"),
    ],
)
def test_bad_arguments_are_a_clear_tool_error_and_nothing_is_written(agent, tool, arguments, says):
    sid = register(agent, topic="Bad arguments")
    before = tree(agent.root)
    arguments = {k: v.replace("{sid}", sid) if isinstance(v, str) else v for k, v in arguments.items()}
    message = agent.refusal(tool, **arguments)
    assert says in message
    if tool in WRITING:
        assert "nothing written" in message
    assert tree(agent.root) == before


@pytest.mark.parametrize(
    ("tool", "arguments", "command"),
    [
        (
            "session_update",
            {"summary": "Now with a plan.", "snapshot": "## Decisions\n\n- Keep the lock\n"},
            ["update", "{sid}", "--summary", "Now with a plan.", "--snapshot", "-"],
        ),
        ("session_archive", {}, ["archive", "{sid}"]),
        ("memory_organize", None, ["organize"]),
    ],
)
def test_dry_run_answers_the_patch_the_command_line_prints_and_writes_nothing(agent, tool, arguments, command):
    sid = register(agent, topic="Dry run", summary="Something to archive.")
    assert cli(agent, "register", "--agent", "codex-cli").returncode == 0  # an idle placeholder for organize to delete
    agent.answer("session_register", agent="cursor-main-agent", dry_run=True)  # a dry registration adds nothing
    before = tree(agent.root)
    call = {} if arguments is None else {"session_id": sid, **arguments}
    answer = agent.answer(tool, dry_run=True, **call)
    printed = cli(
        agent, *[w.replace("{sid}", sid) for w in command], "--dry-run", stdin="## Decisions\n\n- Keep the lock\n"
    )
    assert printed.returncode == 0, printed.stderr
    assert answer["dry_run"] is True and answer["changes"] and answer["diff"] == printed.stdout
    assert answer["notes"][-1] == "dry run: nothing written" and "message" not in answer
    assert tree(agent.root) == before


def test_a_credential_in_the_text_is_refused_and_nothing_is_written(agent):
    sid = register(agent, topic="Secrets")
    before = tree(agent.root)
    message = agent.refusal("session_update", session_id=sid, snapshot=f"## Decisions\n\n- Use token {GITHUB_TOKEN}\n")
    assert "refusing to write a credential" in message and "GitHub token" in message and "nothing written" in message
    assert GITHUB_TOKEN not in message and "--allow-secrets" not in message
    assert "credential" in agent.refusal("session_register", summary=f"key {GITHUB_TOKEN}")
    assert tree(agent.root) == before


SLACK_TOKEN = "xoxb-" + "123456789012-1234567890123-abcdefghijklmnop"


def test_a_credential_for_an_agent_name_is_refused_and_nothing_is_written(agent):
    """session_register and session_continue take an agent name that lands in index.md, the Session ID and the
    snapshot's file name: one that is a credential is refused as a text is, naming the field."""
    source = register(agent, topic="Cited source")
    before = tree(agent.root)
    for tool, extra in (("session_register", {}), ("session_continue", {"source_id": source})):
        message = agent.refusal(tool, agent=SLACK_TOKEN, **extra)
        assert f"agent name line 1: Slack token xoxb***({len(SLACK_TOKEN)} chars)" in message, message
        assert "nothing written" in message and SLACK_TOKEN[5:] not in message and "--allow-secrets" not in message
    assert tree(agent.root) == before


async def test_two_clients_writing_at_once_lose_nothing(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    env = server_env(tmp_path / "state")
    async with connect(server_command(root), env) as first, connect(server_command(root), env) as second:

        async def answer(session, tool: str, **arguments) -> dict:
            result = await session.call_tool(tool, arguments)
            assert not result.is_error, result.content[0].text
            return json.loads(result.content[0].text)

        async def registrations(session, name: str) -> list[str]:
            return [
                (await answer(session, "session_register", agent=name, summary=f"{name} {i}"))["session_id"]
                for i in range(5)
            ]

        ids = await asyncio.gather(registrations(first, "alpha-agent"), registrations(second, "beta-agent"))
        shared = ids[0][0]

        async def updates(session, name: str) -> None:
            for i in range(4):
                await answer(
                    session, "session_update", session_id=shared, snapshot=f"## Decisions\n\n- {name} decision {i}\n"
                )

        await asyncio.gather(updates(first, "alpha"), updates(second, "beta"))
    index = (root / "index.md").read_text(encoding="utf-8")
    for sid in ids[0] + ids[1]:
        assert index.count(f"| {sid} |") == 1, sid
        assert (root / "sessions" / f"{sid}.md").is_file()
    snapshot = (root / "sessions" / f"{shared}.md").read_text(encoding="utf-8")
    assert all(f"- {name} decision {i}" in snapshot for name in ("alpha", "beta") for i in range(4))


async def test_a_long_call_does_not_hold_up_the_calls_after_it(tmp_path):
    """A save parked halfway, the root's lock held (the fault launcher's probe sleeps after its first file
    step): reads answer meanwhile, and another write answers at once that the root is locked."""
    root = tmp_path / "memory"
    (root / "notes" / "ops" / "fact").mkdir(parents=True)
    note = Note("Port", "fact", "ops", "ops/fact/port", what="- The API listens on 8080.")
    (root / "notes" / "ops" / "fact" / "port.md").write_text(render_note(note), encoding="utf-8")
    parked = tmp_path / "parked"
    env = server_env(tmp_path / "state", FAULT_AFTER_STEP="1", FAULT_MODE="signal", FAULT_SIGNAL=str(parked))
    env["MEMBOARD_LOCK_TIMEOUT"] = "1"
    command = [sys.executable, "-m", *memboard_module(env), "mcp", "--root", str(root), "--tools", "all"]
    async with connect(command, env) as session:
        slow = asyncio.ensure_future(
            session.call_tool(
                "mem_save", {"title": "Queue", "type": "decision", "scope": "ops", "what": "- Use RabbitMQ."}
            )
        )
        for _ in range(600):
            if parked.exists() or slow.done():
                break
            await asyncio.sleep(0.05)
        assert parked.exists() and not slow.done()  # the save wrote its first file and holds the lock

        async def call(tool: str, **arguments) -> tuple[bool, str]:
            result = await asyncio.wait_for(session.call_tool(tool, arguments), 30)
            return bool(result.is_error), result.content[0].text

        failed, text = await call("mem_get", note_id="ops/fact/port")
        assert not failed and json.loads(text)["what"] == "- The API listens on 8080."
        failed, text = await call("session_list")
        assert not failed and json.loads(text)["total"] == 0
        failed, text = await call("session_register", agent="claude-main-agent")
        assert failed and "memory root is locked by another writer" in text and "nothing written" in text
        assert not slow.done() and not (root / "index.md").exists()
        slow.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await slow


def hostile_roots(tmp_path: Path) -> dict[str, tuple[Path, dict[str, str]]]:
    """Roots a server must not serve: (root, extra environment) by name."""
    (tmp_path / "a-file").write_text("not a folder")
    foreign = tmp_path / "projects"
    (foreign / "src").mkdir(parents=True)
    (foreign / "main.py").write_text("print()")
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "vault" / "raw").mkdir(parents=True)
    (tmp_path / "vault" / "wiki" / "memory").mkdir(parents=True)
    return {
        "missing": (tmp_path / "nowhere", {}),
        "a file": (tmp_path / "a-file", {}),
        "someone else's folder": (foreign, {}),
        "the home folder": (home, {"HOME": str(home)}),
        "inside the wiki": (tmp_path / "vault" / "wiki" / "memory", {}),
    }


def test_a_server_on_a_missing_or_hostile_root_refuses_to_start_with_one_line(tmp_path):
    for name, (root, extra) in hostile_roots(tmp_path).items():
        before = tree(tmp_path)
        done = subprocess.run(
            server_command(root),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=server_env(tmp_path / "state", **extra),
            timeout=120,
        )
        err = done.stderr.decode()
        assert done.returncode == 2 and done.stdout == b"", (name, err)
        assert err.startswith("memboard: ") and err.count("\n") == 1, (name, err)
        assert tree(tmp_path) == before, name


def test_a_root_that_goes_away_while_serving_is_an_error_of_that_call(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    with running(root, tmp_path / "state") as agent:
        assert agent.answer("session_list")["total"] == 0
        root.rmdir()
        assert "does not exist" in agent.refusal("session_list")
        assert "does not exist" in agent.refusal("session_register", topic="lost")
    assert not root.exists()


@pytest.mark.parametrize("gone", ["mcp", "anyio", "starlette"])  # the SDK; a package it needs first; one it needs later
def test_a_missing_or_broken_sdk_is_one_line_naming_the_install_command_and_exit_1(tmp_path, gone):
    root = tmp_path / "memory"
    root.mkdir()
    code = (
        f"import sys; sys.modules[{gone!r}] = None; from memboard.cli import main; "
        f"raise SystemExit(main(['mcp', '--root', {str(root)!r}]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=b'{"jsonrpc":"2.0","id":0,"method":"ping"}\n',
        capture_output=True,
        env=server_env(tmp_path / "state"),
        timeout=120,
    )
    lines = done.stderr.decode().splitlines()
    if gone == "starlette":  # found only as the SDK loads, while the server waits for its first request
        assert lines.pop(0).startswith("memboard mcp: serving ")
    assert done.returncode == 1 and done.stdout == b"" and len(lines) == 1, done.stderr
    assert lines[0].startswith("memboard: memboard mcp cannot start: the MCP SDK 2.x does not load (No module named ")
    assert f"'{gone}" in lines[0] and lines[0].endswith(f"install it: {sys.executable} -m pip install 'mcp>=2.3,<3'")


def test_stdout_carries_only_json_rpc_and_the_log_goes_to_stderr(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "session_register", "arguments": {"topic": "Raw"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "session_update", "arguments": {"session_id": "bad"}},
        },
    ]
    proc = subprocess.Popen(
        server_command(root),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(tmp_path / "state"),
    )
    guard = threading.Timer(120, proc.kill)
    guard.start()
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        lines: list[str] = []
        while not all(any(f'"id":{n}' in line.replace(" ", "") for line in lines) for n in (2, 3)):  # in any order
            line = proc.stdout.readline().decode()
            assert line, proc.stderr.read().decode()
            lines.append(line)
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
        lines += proc.stdout.read().decode().splitlines()
    finally:
        guard.cancel()
    replies = {m["id"]: m for m in map(json.loads, lines) if "id" in m}
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in lines)
    assert replies[2]["result"]["isError"] is False and replies[3]["result"]["isError"] is True
    assert "memboard mcp: serving" in proc.stderr.read().decode()
