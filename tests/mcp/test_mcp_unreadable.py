"""Over MCP too, a note file that cannot be read is named, never left out, and one that is a FIFO never blocks the
server: mem_context answers at once (before, it never answered, and every later call queued behind it).

Every call here has a deadline, so a regression fails the test instead of hanging the suite. The mode-000
test runs the server as an unprivileged user (tests/support/process.py), skipped where that cannot be done.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal

from tests.mcp.conftest import Agent, connect, server_env
from tests.support.process import DEADLINE, command_line, memboard, unprivileged

NOTE = ["--type", "gotcha", "--scope", "global", "--what", "Zebrafish lines end in CRLF."]


@contextmanager
def serving(root: Path, state: Path, as_user: bool = False) -> Iterator[Agent]:
    """A server on root (as an unprivileged user when as_user) and a client connected to it."""
    command = command_line("mcp", "--root", str(root), unprivileged=as_user)
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(connect(command, server_env(state))) as session,
    ):
        yield Agent(portal, session, root, state)


def answer(agent: Agent, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's JSON answer, which must come within the deadline and must not be an error."""
    result = agent.portal.call(partial(agent.session.call_tool, tool, arguments, read_timeout_seconds=DEADLINE))
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, text
    return json.loads(text)


def notes_root(tmp_path: Path) -> tuple[Path, Path]:
    """A root with two global notes (ops/crlf and ops/other) and a state folder."""
    root, state = tmp_path / "memory", tmp_path / "state"
    root.mkdir()
    state.mkdir()
    env = server_env(state)
    for key in ("ops/crlf", "ops/other"):
        saved = memboard(root, "note", "save", "--title", f"Note {key}", *NOTE, "--topic-key", key, env=env)
        assert saved.code == 0, saved.err
    return root, state


@pytest.mark.skipif(unprivileged() is not None, reason=unprivileged() or "")
def test_mem_context_and_mem_search_name_a_note_they_cannot_read(tmp_path):
    root, state = notes_root(tmp_path)
    (root / "notes" / "ops" / "crlf.md").chmod(0)
    with serving(root, state, as_user=True) as agent:
        context = answer(agent, "mem_context")
        assert context["unreadable"] == {"notes/ops/crlf.md": "permission denied"}
        assert [note["id"] for note in context["related"]] == ["ops/other"]
        found = answer(agent, "mem_search", query="zebrafish")
        assert [hit["id"] for hit in found["hits"]] == ["ops/other"]
        assert found["unreadable"] == {"notes/ops/crlf.md": "permission denied"}


def test_a_note_that_is_a_fifo_never_blocks_the_server(tmp_path):
    root, state = notes_root(tmp_path)
    os.mkfifo(root / "notes" / "ops" / "pipe.md")
    why = "it is a FIFO, not a regular file"
    with serving(root, state) as agent:
        context = answer(agent, "mem_context")
        assert context["unreadable"] == {"notes/ops/pipe.md": why}
        assert answer(agent, "mem_get", note_id="ops/other")["note"]["id"] == "ops/other"  # a later call answers
        refused = agent.portal.call(
            partial(agent.session.call_tool, "mem_get", {"note_id": "ops/pipe"}, read_timeout_seconds=DEADLINE)
        )
        assert refused.is_error
        line = refused.content[0].text
        assert line.startswith(f"cannot read notes/ops/pipe.md: {why}") and "\n" not in line
        assert answer(agent, "mem_search", query="zebrafish")["unreadable"] == {"notes/ops/pipe.md": why}
