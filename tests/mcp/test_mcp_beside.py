"""Over MCP, the first `search` or `mem_search` on a large root with no search cache answers from the files while the
cache is built in a process of its own (issue 29: the agent waited 13.9 s for the whole build at 100k rows)."""

from __future__ import annotations

from bench.notes import write_notes
from tests.cli.test_cli_search_beside import large_root, wait_for
from tests.mcp.conftest import running


def test_the_first_search_tools_answer_while_the_cache_is_built_beside(tmp_path):
    root, state = tmp_path / "memory", tmp_path / "state"
    root.mkdir()
    large_root(root, 2500)  # about 5 MB: more than beside.BESIDE_BYTES
    ids = write_notes(root, 20)
    with running(root, state) as agent:
        first = agent.answer("search", query="zeppelin")
        assert [h["id"] for h in first["hits"]][:1] == ["2026-05-31-2359-claude-code"]
        notes = agent.answer("mem_search", query="lock rule")
        assert notes["hits"] and {h["id"] for h in notes["hits"]} <= set(ids)
        folder = state / "search"
        assert wait_for(lambda: any(p.name.endswith(".sqlite3") for p in folder.glob("*")))  # built, moved in
        assert wait_for(lambda: not any(p.name.endswith(".tmp") for p in folder.glob("*")))
        again = agent.answer("mem_search", query="lock rule")
        assert "partial" not in again and [h["id"] for h in again["hits"]] == [h["id"] for h in notes["hits"]]
        assert agent.answer("search", query="zeppelin")["hits"] == first["hits"]
