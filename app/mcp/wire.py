"""The stdio wire of `memboard mcp`: `initialize` answered while the MCP SDK loads, parse errors, a client that left.

Importing the SDK costs about a second (its protocol types are pydantic models of every protocol
version), and agents give up on a server that is slow to answer `initialize`. So this module,
which imports nothing of the SDK, owns the process's stdin and stdout from the start: a thread
loads the SDK and builds the server while the first request is read, and when that request is
a well-formed `initialize`, the answer the SDK would give is sent at once (`handshake` builds it
from the same facts the SDK reads: the server's name, version, instructions and capabilities,
and the SDK's rule for the protocol version). Then the SDK's server takes the wire over: the
`initialize` is replayed to it, so its connection state is exactly as if it had answered, and
its own answer to that request is dropped (compared with ours first: a difference is said in
one line on stderr). Every later request is the SDK's to answer; `tools/list` is answered once
it has loaded. `MEMBOARD_MCP_EARLY=0` leaves `initialize` to the SDK too.

What the SDK's stdio transport does not do is done here: a line that is not JSON gets the
JSON-RPC parse error (-32700, id null) instead of silence, and a client that stops reading
(its end of stdout closed) ends the server as a closed stdin does, with one line on stderr and
exit code 0, as the command line does on a broken pipe. And a client that sends its requests and
closes stdin at once gets every answer: the end of the input waits for the answers still owed
(the SDK alone drops the requests in flight when its input ends). As the SDK does, fd 0 is pointed at
the null device and fd 1 at stderr while serving, so nothing else can read the client's
requests or write to the wire.
"""

from __future__ import annotations

import json
import os
import select
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from .. import __version__
from ..service.mcp_tools import DEFAULT_PROFILE, profile_tools
from .rules import instructions

# The SDK's protocol versions of the `initialize` handshake (mcp_types.version, SDK 2.3), its latest one, and the
# capabilities it advertises for this server; tests/mcp/test_mcp_wire.py compares the answers built from them with
# the SDK's own, byte for byte, for every version.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE = "2025-11-25"
CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},  # on a memory root only: the one prompt (continue_session) needs a root
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
SDK_MODULES = ("mcp", "mcp_types", "pydantic", "anyio")  # what the server imports first
PARSE_ERROR = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n'
CLIENT_INFO_KEYS = frozenset({"name", "version"})
DRAIN_SECONDS = 300.0  # how long the end of stdin waits for the answers still owed


class Served(Protocol):
    """The SDK's server, built: it serves the wire's two ends until the input ends."""

    def run_on(self, incoming: Incoming, outgoing: Outgoing) -> None:
        """Serve requests read from incoming, answers written to outgoing."""


def handshake(request: dict[str, Any], root_served: bool, tools: str = DEFAULT_PROFILE) -> bytes | None:
    """The SDK's answer to a well-formed `initialize` request to the server of the profiles tools names, as the bytes
    of its line; None for any other request (the SDK answers that one itself)."""
    params = request.get("params")
    request_id = request.get("id")
    if (
        request.get("jsonrpc") != "2.0"
        or request.get("method") != "initialize"
        or set(request) != {"jsonrpc", "id", "method", "params"}
        or isinstance(request_id, bool)
        or not isinstance(request_id, int | str)
        or not isinstance(params, dict)
        or set(params) != {"protocolVersion", "capabilities", "clientInfo"}
        or not isinstance(params["protocolVersion"], str)
        or not plain_capabilities(params["capabilities"])
        or not plain_client(params["clientInfo"])
    ):
        return None
    requested = params["protocolVersion"]
    capabilities = {k: v for k, v in CAPABILITIES.items() if root_served or k != "prompts"}
    result = {
        "capabilities": capabilities,
        "instructions": instructions(profile_tools(tools, root_served), root_served),
        "protocolVersion": requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE,
        "serverInfo": {"name": "memboard", "version": __version__},
    }
    answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def plain_capabilities(capabilities: object) -> bool:
    """Whether the client's capabilities are ones the SDK reads without a doubt: known names, each an empty
    object (or roots with a boolean listChanged)."""
    if not isinstance(capabilities, dict):
        return False
    for name, value in capabilities.items():
        if name not in ("roots", "sampling", "elicitation", "experimental") or not isinstance(value, dict):
            return False
        if name == "roots" and not set(value) <= {"listChanged"}:
            return False
        if name == "roots" and not all(isinstance(v, bool) for v in value.values()):
            return False
        if name in ("sampling", "elicitation") and value:
            return False
        if name == "experimental" and not all(isinstance(v, dict) for v in value.values()):
            return False
    return True


def plain_client(info: object) -> bool:
    """Whether clientInfo is a name and a version, both strings (what every client sends)."""
    return (
        isinstance(info, dict)
        and set(info) <= CLIENT_INFO_KEYS | {"title"}
        and set(info) >= CLIENT_INFO_KEYS
        and all(isinstance(v, str) for v in info.values())
    )


class Wire:
    """The process's stdin and stdout, claimed: lines in, whole lines out under one lock, a broken pipe noticed."""

    def __init__(self) -> None:
        """Keep private copies of fd 0 and 1, then point fd 0 at the null device and fd 1 at stderr."""
        sys.stdout.flush()
        self.fd_in, self.fd_out = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        self.lock = threading.Lock()
        self.broken = False
        self.pending = b""
        self.ended = False
        self.wake_r, self.wake_w = os.pipe() if os.name == "posix" else (-1, -1)
        self.open_requests: set[str] = set()  # ids (as JSON) of the requests read and not yet answered
        self.settled = threading.Condition()

    def track(self, message: object, asked: bool) -> None:
        """Note a request read (asked) or a response written, by its id."""
        if not isinstance(message, dict) or "id" not in message or ("method" in message) != asked:
            return
        with self.settled:
            key = json.dumps(message["id"])
            if asked:
                self.open_requests.add(key)
            else:
                self.open_requests.discard(key)
            self.settled.notify_all()

    def drain(self) -> None:
        """Wait (at most DRAIN_SECONDS) until every request read is answered or the wire is broken: a client that
        sends its requests and closes stdin still gets its answers (the SDK drops those in flight at the end)."""
        with self.settled:
            self.settled.wait_for(lambda: not self.open_requests or self.broken, timeout=DRAIN_SECONDS)

    def send(self, line: bytes) -> None:
        """Write one whole line; a client that stopped reading marks the wire broken and ends the input."""
        with self.lock:
            if self.broken:
                return
            try:
                view = memoryview(line)
                while view:
                    view = view[os.write(self.fd_out, view) :]
            except (BrokenPipeError, ConnectionResetError):
                self.broken = True
                if self.wake_w >= 0:
                    os.write(self.wake_w, b"x")
                with self.settled:  # no answer owed can reach a client that stopped reading
                    self.settled.notify_all()

    def line(self) -> bytes:
        """The next line from the client (b"" at the end: stdin closed, or the client stopped reading)."""
        while b"\n" not in self.pending and not self.ended:
            chunk = self.read()
            self.ended = not chunk
            self.pending += chunk
        line, newline, self.pending = self.pending.partition(b"\n")
        return line + newline

    def read(self) -> bytes:
        """One read of stdin, or b"" once the wire is broken."""
        if self.wake_r >= 0:
            ready, _, _ = select.select([self.fd_in, self.wake_r], [], [])
            if self.wake_r in ready:
                return b""
        if self.broken:
            return b""
        return os.read(self.fd_in, 65536)

    def message(self) -> tuple[bytes, Any]:
        """The next JSON line and its value (b"", None at the end); a line that is not JSON is answered with the
        parse error and skipped, and so is a blank line (no message at all)."""
        while True:
            line = self.line()
            if not line:
                return b"", None
            if not line.strip():
                continue
            try:
                return line, json.loads(line)
            except ValueError:
                self.send(PARSE_ERROR)


class Incoming:
    """The SDK's stdin: the replayed first line, then the wire's lines (a file's `readline`, as anyio wraps it)."""

    def __init__(self, wire: Wire, replay: bytes):
        """Read from wire after replay (b"": nothing to replay)."""
        self.wire, self.replay = wire, replay

    def readline(self) -> str:
        """The next line as text ("" at the end, once every request read is answered)."""
        if self.replay:
            line, self.replay = self.replay, b""
            message = json.loads(line)
        else:
            line, message = self.wire.message()
        if not line:
            self.wire.drain()
            return ""
        self.wire.track(message, asked=True)
        return line.decode("utf-8", errors="replace")


class Outgoing:
    """The SDK's stdout: its lines to the wire, except its answer to the `initialize` answered already."""

    def __init__(self, wire: Wire, answered: bytes | None):
        """Write to wire; answered is the early answer's line (None: nothing was answered early)."""
        self.wire, self.answered = wire, answered
        self.drop = json.loads(answered)["id"] if answered is not None else None

    def write(self, text: str) -> int:
        """Send one line of the SDK's (it writes each message whole)."""
        data = text.encode("utf-8")
        try:
            self.wire.track(json.loads(data), asked=False)
        except ValueError:
            pass
        if self.answered is not None and self.is_the_answered(data):
            if data != self.answered:
                print(
                    "memboard mcp: warning: the SDK's initialize answer differs from the one sent early "
                    "(set MEMBOARD_MCP_EARLY=0 and report it)",
                    file=sys.stderr,
                    flush=True,
                )
            self.answered = None
            return len(text)
        self.wire.send(data)
        return len(text)

    def is_the_answered(self, data: bytes) -> bool:
        """Whether data is the SDK's answer to the request answered early."""
        try:
            message = json.loads(data)
        except ValueError:
            return False
        return isinstance(message, dict) and "method" not in message and message.get("id") == self.drop

    def flush(self) -> None:
        """Nothing to flush: each line is written whole."""


def sdk_missing() -> str | None:
    """The first module the server imports that is not installed (None: all are there); no import is run."""
    from importlib.util import find_spec  # lazy: only the server's start asks

    for name in SDK_MODULES:
        if find_spec(name) is None:
            return name
    return None


def serve(
    root: Path | None, tools: str, load: Callable[[], Served], said: Callable[[BaseException], str | None]
) -> int:
    """Serve on stdio the tools of the profiles tools names: the server that load builds (in a thread) answers all
    but an early `initialize`; said turns a failure to load into its one line (None: a defect, raised as it is).
    The exit code: 0 when the client ends (stdin closed, or stdout no longer read), 1 when the server cannot load."""
    loaded: list[Served] = []
    failed: list[BaseException] = []

    def build() -> None:
        """Load the SDK and build the server."""
        try:
            loaded.append(load())
        except BaseException as exc:
            failed.append(exc)

    loader = threading.Thread(target=build, name="memboard-mcp-load", daemon=True)
    loader.start()
    wire = Wire()
    served = root if root is not None else "spaces and hierarchies (no memory root)"
    print(f"memboard mcp: serving {served} on stdio", file=sys.stderr, flush=True)
    first, request = wire.message()
    answered = None
    if first and isinstance(request, dict) and os.environ.get("MEMBOARD_MCP_EARLY", "1") != "0" and not failed:
        answered = handshake(request, root is not None, tools)
        if answered is not None:
            wire.send(answered)
    loader.join()
    if failed:
        line = said(failed[0])
        if line is None:
            raise failed[0]
        print(f"memboard: {line}", file=sys.stderr, flush=True)
        return 1
    if first:
        loaded[0].run_on(Incoming(wire, first), Outgoing(wire, answered))
    if wire.broken:
        print("memboard mcp: the client stopped reading (broken pipe); stopped", file=sys.stderr, flush=True)
    return 0
