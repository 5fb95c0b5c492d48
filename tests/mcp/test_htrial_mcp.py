"""Issue 25's MCP tools refusing a plan (htrial's findings): the one error line says `nothing written` once,
as the command line says it, not twice."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.mcp.conftest import Agent, rootless


@pytest.fixture(scope="module")
def agent(tmp_path_factory) -> Iterator[Agent]:
    """One server with no memory root for the module."""
    with rootless(tmp_path_factory.mktemp("htrial-mcp")) as client:
        yield client


def test_a_plan_missing_a_line_is_refused_saying_nothing_written_once(agent):
    ws = agent.root / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Me\n- Email: kim@example.com\n- Sam.\n")
    plan = agent.answer("hierarchy_migrate_plan", workspace=str(ws))
    text = agent.refusal("hierarchy_migrate_apply", workspace=str(ws), plan={**plan, "lines": plan["lines"][:1]})
    assert text == "MEMORY.md line 2 is missing from the plan; nothing written"
