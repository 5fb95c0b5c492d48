"""The stdio wire of `memboard mcp` through a real subprocess: `initialize` answered while the SDK cannot have loaded
yet, byte for byte the SDK's own answer; the parse error; a client that stops reading."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from memboard.mcp.wire import HANDSHAKE_VERSIONS, handshake
from tests.mcp.conftest import places_env, server_command, server_env

GATE_PATH = Path(__file__).resolve().parents[1] / "support" / "sdk_gate"


def initialize(request_id: Any = 0, version: str = "2025-06-18", **params: Any) -> dict[str, Any]:
    """An `initialize` request as clients send it."""
    body = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": {**body, **params}}


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


@contextmanager
def server(command: list[str], env: dict[str, str], cwd: Path | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """The server as a subprocess on pipes, killed after 120 s whatever happens."""
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    guard = threading.Timer(120, proc.kill)
    guard.start()
    try:
        yield proc
    finally:
        guard.cancel()
        proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()


def send(proc: subprocess.Popen[bytes], *messages: dict[str, Any] | bytes) -> None:
    assert proc.stdin is not None
    for message in messages:
        proc.stdin.write(message if isinstance(message, bytes) else line(message))
    proc.stdin.flush()


def answer(proc: subprocess.Popen[bytes]) -> bytes:
    assert proc.stdout is not None
    got = proc.stdout.readline()
    assert got, proc.stderr.read().decode() if proc.stderr else ""
    return got


REQUESTS = [
    *(initialize(n, version) for n, version in enumerate(HANDSHAKE_VERSIONS)),
    initialize("string-id", "1999-01-01"),  # a version the SDK does not speak: it answers its latest
    initialize(7, "2026-07-28"),  # the modern era has no handshake: an initialize is still a legacy one
    initialize(8, capabilities={"roots": {"listChanged": True}, "elicitation": {}, "sampling": {}}),
    initialize(9, clientInfo={"name": "codex-mcp-client", "title": "Codex", "version": "0.171.0"}),
]


@pytest.mark.parametrize("rootless", [False, True], ids=["root", "no root"])
def test_the_early_answer_is_the_sdks_own_answer_byte_for_byte(tmp_path, rootless):
    root = tmp_path / "memory"
    root.mkdir()
    if rootless:
        command, env, cwd = [sys.executable, "-m", "memboard", "mcp"], places_env(tmp_path / "home"), tmp_path / "home"
        cwd.mkdir()
    else:
        command, env, cwd = server_command(root), server_env(tmp_path / "state"), None
    with server(command, {**env, "MEMBOARD_MCP_EARLY": "0"}, cwd) as sdk:  # the SDK answers every initialize
        send(sdk, *REQUESTS)
        theirs = {json.loads(got)["id"]: got for got in (answer(sdk) for _ in REQUESTS)}
    tools = "agent" if rootless else "all"  # server_command serves every tool; the rootless one has the default
    for request in REQUESTS:
        assert handshake(request, not rootless, tools) == theirs[request["id"]], request
    with server(command, env, cwd) as early:  # and through the wire, the first one answered early
        send(early, REQUESTS[2], REQUESTS[4])
        assert answer(early) == theirs[REQUESTS[2]["id"]]
        assert answer(early) == theirs[REQUESTS[4]["id"]]
        early.stdin.close()
        assert early.wait(timeout=60) == 0
        assert b"differs" not in early.stderr.read()


@pytest.mark.parametrize(
    "request_",
    [
        {**initialize(), "params": {**initialize()["params"], "capabilities": {"sampling": {"tools": {}}}}},
        {**initialize(), "params": {**initialize()["params"], "_meta": {"progressToken": 1}}},
        {**initialize(), "params": {"protocolVersion": "2025-06-18", "capabilities": {}}},  # no clientInfo
        {**initialize(), "id": None},
        {**initialize(), "id": True},
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        [initialize()],
    ],
)
def test_what_is_not_a_plain_initialize_is_left_to_the_sdk(request_):
    assert handshake(request_, True) is None if isinstance(request_, dict) else True


def test_initialize_is_answered_while_the_sdk_is_still_loading_and_tools_list_follows(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    gate = tmp_path / "gate"
    env = server_env(tmp_path / "state", PYTHONPATH=os.pathsep.join([str(GATE_PATH), str(Path.cwd())]))
    env["MEMBOARD_TEST_SDK_GATE"] = str(gate)
    with server(server_command(root), env) as proc:
        send(proc, initialize(1))
        first = json.loads(answer(proc))  # the SDK cannot load before the gate opens
        assert first["id"] == 1 and first["result"]["serverInfo"]["name"] == "memboard"
        assert not gate.exists()
        send(
            proc,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        )
        gate.touch()
        listed = json.loads(answer(proc))
        assert listed["id"] == 2 and {t["name"] for t in listed["result"]["tools"]} >= {"session_register", "mem_save"}
        send(
            proc,
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "session_list", "arguments": {}}},
        )
        called = json.loads(answer(proc))
        assert called["id"] == 3 and called["result"]["isError"] is False
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0


def test_a_line_that_is_not_json_gets_the_parse_error_before_and_after_the_handshake(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    parse_error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    with server(server_command(root), server_env(tmp_path / "state")) as proc:
        send(proc, b"{not json\n", b"\n", initialize(1))
        assert json.loads(answer(proc)) == parse_error
        assert json.loads(answer(proc))["id"] == 1
        send(
            proc,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        )
        assert json.loads(answer(proc)) == {"jsonrpc": "2.0", "id": 2, "result": {}}
        send(proc, "\u00e9t\u00e9 ]\n".encode(), {"jsonrpc": "2.0", "id": 3, "method": "ping"})
        assert json.loads(answer(proc)) == parse_error
        assert json.loads(answer(proc))["id"] == 3
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0


@pytest.mark.parametrize("stdin_open", [True, False], ids=["stdin open", "stdin closed too"])
def test_a_client_that_stops_reading_ends_the_server_quietly_with_one_line_and_exit_0(tmp_path, stdin_open):
    root = tmp_path / "memory"
    root.mkdir()
    with server(server_command(root), server_env(tmp_path / "state")) as proc:
        send(proc, initialize(1))
        answer(proc)
        proc.stdout.close()
        calls = [
            {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "session_list", "arguments": {}}}
            for n in range(2, 6)
        ]
        send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *calls)
        if not stdin_open:
            proc.stdin.close()
        assert proc.wait(timeout=90) == 0
        err = proc.stderr.read().decode().splitlines()
    assert err[0].startswith("memboard mcp: serving ")
    assert err[1:] == ["memboard mcp: the client stopped reading (broken pipe); stopped"]


@pytest.mark.parametrize("early", ["1", "0"], ids=["early", "sdk"])
def test_requests_sent_with_stdin_closed_at_once_are_all_answered(tmp_path, early):
    root = tmp_path / "memory"
    root.mkdir()
    requests = [
        initialize(0),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "session_list", "arguments": {}}},
    ]
    done = subprocess.run(
        server_command(root),
        input=b"".join(line(r) for r in requests),
        capture_output=True,
        env={**server_env(tmp_path / "state"), "MEMBOARD_MCP_EARLY": early},
        timeout=120,
    )
    answers = [json.loads(got) for got in done.stdout.splitlines()]
    assert done.returncode == 0 and [a["id"] for a in answers] == [0, 1, 2], done.stderr
    assert answers[2]["result"]["isError"] is False
