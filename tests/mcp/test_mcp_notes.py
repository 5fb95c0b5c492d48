"""The note tools of `memboard mcp` (seed 001) driven by the SDK's own stdio client: saves, the conflict policy,
reads, bad arguments, secrets, dry runs, two writers, and the notes session_context shows.

Most tests share one server (the module's `agent`) on one root, each on topic keys of its own.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memboard.core.formats.topic import SCOPES, TYPES
from memboard.core.ops.notes import CHOICES
from tests.mcp.conftest import Agent, connect, running, server_command, server_env
from tests.mcp.test_mcp_server import GITHUB_TOKEN, cli, register
from tests.support.tree import tree

NOTE_TOOLS = {
    "mem_save",
    "mem_update",
    "mem_session_summary",
    "mem_suggest_topic_key",
    "mem_search",
    "mem_get",
    "mem_context",
}
HOSTILE_KEYS = [
    "..",
    "../x",
    "/etc/passwd",
    "a//b",
    "A/b",
    "a/../b",
    ".hidden",
    "con",
    "筆記/x",
    "a b",
    "a\\b",
    "a~1",
    "x" * 65,
    "/".join(["a"] * 11),
    "new\nline",
]


def save(
    agent: Agent, key: str | None, title: str, note_type: str, what: str, scope: str = "project", **more: Any
) -> dict:
    """mem_save that must succeed; its answer."""
    fields = {"title": title, "type": note_type, "scope": scope, "what": what, **more}
    if key is not None:
        fields["topic_key"] = key
    return agent.answer("mem_save", **fields)


def written(agent: Agent) -> dict[str, bytes]:
    """Every file a save may write: the root's, and the note revisions in local state."""
    kept = {
        f"state/{p.relative_to(agent.state).as_posix()}": p.read_bytes()
        for p in agent.state.glob("roots/*/revisions/notes/**/*")
        if p.is_file()
    }
    return tree(agent.root) | kept


def note_file(agent: Agent, note_id: str) -> str:
    """A note's file as text."""
    return (agent.root / "notes" / f"{note_id}.md").read_text(encoding="utf-8")


def test_the_note_tools_are_listed_with_their_enums_and_hints(agent):
    tools = {tool.name: tool for tool in agent.portal.call(agent.session.list_tools).tools}
    assert set(tools) >= NOTE_TOOLS
    save_schema = tools["mem_save"].input_schema["properties"]
    assert save_schema["type"]["enum"] == list(TYPES) and save_schema["scope"]["enum"] == list(SCOPES)
    assert save_schema["choice"]["enum"] == list(CHOICES)  # optional: leave it out (the schema lists no null)
    assert set(tools["mem_save"].input_schema["required"]) == {"title", "type", "scope", "what"}
    search_schema = tools["mem_search"].input_schema["properties"]
    assert search_schema["status"]["enum"] == ["active", "superseded"]
    assert tools["mem_update"].input_schema["properties"]["type"]["enum"] == list(TYPES)
    assert "conflict" in tools["mem_save"].description and "choice" in tools["mem_save"].description
    for name in ("mem_save", "mem_update", "mem_session_summary"):
        assert tools[name].annotations.read_only_hint is False and tools[name].annotations.destructive_hint
    for name in ("mem_search", "mem_get", "mem_context", "mem_suggest_topic_key"):
        assert tools[name].annotations.read_only_hint is True


def test_every_note_tool_works_from_save_to_session_summary(agent):
    key = agent.answer("mem_suggest_topic_key", scope="tool", type="gotcha", title="Café: CRLF breaks the parser")
    assert key == {"topic_key": "tool/gotcha/cafe-crlf-breaks-the-parser"}
    saved = save(
        agent,
        None,
        "Café: CRLF breaks the parser",
        "gotcha",
        "- The parser drops CRLF lines.",
        scope="tool",
        why="Windows editors.",
        project="tools-demo",
    )
    assert (saved["outcome"], saved["note_id"], saved["dry_run"]) == ("created", key["topic_key"], False)
    assert saved["changes"] == [f"create notes/{key['topic_key']}.md"] and saved["conflict"] is None

    got = agent.answer("mem_get", note_id=key["topic_key"])
    assert got["note"]["type"] == "gotcha" and got["note"]["project"] == "tools-demo"
    assert got["what"] == "- The parser drops CRLF lines." and got["why"] == "Windows editors."
    assert got["text"] == note_file(agent, key["topic_key"])
    hits = agent.answer("mem_search", query="CRLF lines", type="gotcha")["hits"]
    assert [(h["kind"], h["id"], h["type"], h["scope"]) for h in hits] == [("note", key["topic_key"], "gotcha", "tool")]
    assert agent.answer("mem_search", query="CRLF lines", scope="ops")["hits"] == []

    updated = agent.answer("mem_update", note_id=key["topic_key"], learned="Normalize on read.")
    assert (updated["outcome"], updated["added"]) == ("updated", ["Normalize on read."])
    assert "- The parser drops CRLF lines." in note_file(agent, key["topic_key"])
    context = agent.answer("mem_context", project="tools-demo")
    assert key["topic_key"] in [n["id"] for n in context["related"]] and "what" not in context["related"][0]

    sid = register(agent, topic="Notes over MCP", snapshot="## Decisions\n\n- Keep notes as Markdown\n")
    summary = agent.answer(
        "mem_session_summary",
        session_id=sid,
        goal="Wire the note tools",
        accomplished=["mem_save", "mem_get"],
        next_steps="- Bench them\n- Document them\n",
        relevant=[f"notes/{key['topic_key']}.md"],
    )
    assert summary["session_id"] == sid and "- Accomplished: mem_save" in summary["added"]
    snapshot = (agent.root / "sessions" / f"{sid}.md").read_text(encoding="utf-8")
    for line in (
        "- Keep notes as Markdown",
        "- Goal: Wire the note tools",
        "- Bench them",
        "- Document them",
        f"- notes/{key['topic_key']}.md",
    ):
        assert line in snapshot, line
    row = agent.answer("session_show", session_id=sid)["row"]
    assert row["status"] == "active" and row["summary"] == "Wire the note tools — Accomplished: mem_save; mem_get"


def test_the_same_topic_key_updates_the_same_note_and_keeps_the_previous_text(agent):
    key = "project/same-key/port"
    assert save(agent, key, "Port", "config", "- The API listens on 8080.")["outcome"] == "created"
    first = note_file(agent, key)
    again = save(agent, key, "Port", "config", "- The API listens on 8080.\n- Metrics on 9100.")
    assert (again["outcome"], again["added"], again["dropped"], again["revision"]) == (
        "updated",
        ["- Metrics on 9100."],
        [],
        True,
    )
    assert sorted(p.name for p in (agent.root / "notes" / "project" / "same-key").iterdir()) == ["port.md"]
    got = agent.answer("mem_get", note_id=key)
    assert got["previous"] == first and got["revisions"] >= 2 and "- Metrics on 9100." in got["what"]
    unchanged = save(agent, key, "Port", "config", "- The API listens on 8080.\n- Metrics on 9100.")
    assert (unchanged["outcome"], unchanged["changes"]) == ("unchanged", [])
    other = save(agent, "project/same-key/host", "Host", "config", "- The API runs on db1.")
    assert other["outcome"] == "created" and "- Metrics on 9100." in note_file(agent, key)  # topics never overwrite


def test_a_new_preference_supersedes_the_old_with_links_both_ways(agent):
    key = "global/preference/mcp-theme"
    save(agent, key, "Theme", "preference", "Dark theme.", scope="global")
    newer = save(agent, key, "Theme", "preference", "Light theme.", scope="global")
    assert (newer["outcome"], newer["superseded"], newer["dropped"]) == ("superseded", f"{key}~1", ["Dark theme."])
    now, before = agent.answer("mem_get", note_id=key), agent.answer("mem_get", note_id=f"{key}~1")
    assert (
        now["note"]["status"] == "active"
        and now["note"]["supersedes"] == [f"{key}~1"]
        and now["what"] == "Light theme."
    )
    assert before["note"]["status"] == "superseded" and before["note"]["superseded_by"] == [key]
    assert before["what"] == "Dark theme."
    hits = agent.answer("mem_search", query="theme", scope="global")["hits"]
    assert [h["id"] for h in hits if h["id"].startswith(key)] == [key, f"{key}~1"]  # active first
    assert [h["id"] for h in agent.answer("mem_search", query="theme", status="superseded")["hits"]] == [f"{key}~1"]


def test_a_changed_decision_answers_both_texts_writes_nothing_and_is_saved_on_a_choice(agent):
    key = "project/conflict/database"
    save(agent, key, "Database", "decision", "- Use PostgreSQL 15.\n- Keep one primary.")
    before = written(agent)
    for dry_run in (False, True):
        answer = save(agent, key, "Database", "decision", "- Use MySQL 8.\n- Keep one primary.", dry_run=dry_run)
        assert (answer["outcome"], answer["changes"], answer["dropped"]) == ("conflict", [], ["- Use PostgreSQL 15."])
        conflict = answer["conflict"]
        assert conflict["old_text"] == note_file(agent, key) and "- Use MySQL 8." in conflict["new_text"]
        assert conflict["choices"] == ["supersede", "keep_both"] and conflict["keep_both_id"] == f"{key}.project"
        assert "nothing written" in answer["report"][0]
    assert written(agent) == before
    kept = save(agent, key, "Database", "decision", "- Use MySQL 8.", scope="tool", choice="keep_both")
    assert (kept["outcome"], kept["note_id"], kept["kept_beside"]) == ("kept_both", f"{key}.tool", key)
    assert "PostgreSQL 15" in note_file(agent, key) and "| Scope | tool |" in note_file(agent, f"{key}.tool")
    replaced = save(agent, key, "Database", "decision", "- Use MySQL 8.", choice="supersede")
    assert (replaced["outcome"], replaced["superseded"]) == ("superseded", f"{key}~1")
    assert "MySQL 8" in note_file(agent, key) and "PostgreSQL 15" in note_file(agent, f"{key}~1")
    assert "| Status | superseded |" in note_file(agent, f"{key}~1")
    # mem_update by the same policy: dropping the decision's statement is a conflict again
    update = agent.answer("mem_update", note_id=key, what="- Use SQLite.")
    assert update["outcome"] == "conflict" and "MySQL 8" in update["conflict"]["old_text"]
    assert "MySQL 8" in note_file(agent, key)


def test_two_saves_cannot_reverse_a_decision_by_making_it_a_fact_first(agent):
    key = "project/reversed/queue"
    queue = "- Use RabbitMQ for the order queue."
    save(agent, key, "Queue", "decision", queue)
    before = written(agent)
    retyped = save(agent, key, "Queue", "fact", queue)  # nothing dropped: only the type changes
    assert (retyped["outcome"], retyped["changes"], retyped["dropped"]) == ("conflict", [], [])
    assert (retyped["conflict"]["type"], retyped["conflict"]["new_type"]) == ("decision", "fact")
    assert "changes its type from decision to fact" in retyped["report"][0]
    dropped = save(agent, key, "Queue", "fact", "- Use Kafka for the order queue.")
    assert dropped["outcome"] == "conflict" and dropped["conflict"]["dropped"] == [queue]
    for what in (
        "- Do not use RabbitMQ for the order queue; use Kafka.",
        "- Use RabbitMQ for the order queue (replaced by Kafka).",
        "- Use RabbitMQ for the order queue — no longer.",
    ):
        assert save(agent, key, "Queue", "decision", what)["conflict"]["dropped"] == [queue]
    assert agent.answer("mem_update", note_id=key, type="fact")["outcome"] == "conflict"
    assert written(agent) == before and "| Type | decision |" in note_file(agent, key)
    kept = save(agent, key, "Queue", "decision", "- Use RabbitMQ for the order queue, for its dead-letter queues.")
    assert (kept["outcome"], kept["dropped"]) == ("updated", [])


@pytest.mark.parametrize("key", HOSTILE_KEYS)
def test_hostile_topic_keys_are_tool_errors_and_nothing_is_written(agent, key):
    before = written(agent)
    message = agent.refusal("mem_save", title="T", type="fact", scope="ops", what="x", topic_key=key)
    assert "invalid topic key" in message and "nothing written" in message
    read = "unknown note a~1" if key == "a~1" else "invalid note ID"  # a~1 is a note ID, of a note that is not there
    assert read in agent.refusal("mem_get", note_id=key) and read in agent.refusal("mem_update", note_id=key, what="y")
    assert written(agent) == before


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("mem_save", {"type": "opinion"}, "type: Input should be 'preference', 'fact', 'decision'"),
        ("mem_save", {"scope": "team"}, "scope: Input should be 'global', 'project', 'tool' or 'ops'"),
        ("mem_save", {"choice": "overwrite"}, "choice: Input should be 'supersede' or 'keep_both'"),
        ("mem_save", {"type": None}, "type: Input should be"),
        ("mem_save", {"title": ""}, "title: String should have at least 1 character"),
        ("mem_save", {"what": ["a", "b"]}, "what: Input should be a valid string"),
        ("mem_save", {"dry_run": "true"}, "dry_run: Input should be a valid boolean"),
        ("mem_save", {"dryrun": True}, "unknown argument(s) dryrun"),
        ("mem_save", {"title": "a\x00b"}, "title holds a NUL byte"),
        ("mem_save", {"title": "x" * 5000}, "title is too long"),
        ("mem_save", {"what": "## Heading\n\ntext"}, "what"),
        ("mem_save", {"session_id": "../../x"}, "invalid session ID"),
        ("mem_update", {"note_id": "project/bad-args/missing", "what": "y"}, "unknown note project/bad-args/missing"),
        ("mem_update", {"note_id": "project/bad-args/base", "scope": "everywhere"}, "scope: Input should be"),
        ("mem_search", {"query": "x", "type": "note"}, "type: Input should be"),
        ("mem_search", {"query": "x", "status": "stale"}, "status: Input should be 'active' or 'superseded'"),
        ("mem_suggest_topic_key", {"scope": "ops", "type": "fact", "title": "  "}, "a note needs a title"),
        ("mem_context", {"session_id": "../x"}, "invalid session ID"),
        ("mem_session_summary", {"session_id": "2020-01-01-0000-nobody", "goal": "x"}, "unknown session"),
        ("mem_session_summary", {"session_id": "2020-01-01-0000-nobody"}, "the session summary is empty"),
    ],
)
def test_bad_enums_and_arguments_are_clear_tool_errors_and_nothing_is_written(agent, tool, arguments, says):
    save(agent, "project/bad-args/base", "Base", "fact", "- A base note.")
    before = written(agent)
    call = {"title": "T", "type": "fact", "scope": "ops", "what": "x"} if tool == "mem_save" else {}
    message = agent.refusal(tool, **(call | arguments))
    assert says in message and "nothing written" in message, message
    assert written(agent) == before


def test_a_credential_in_any_text_is_refused_and_nothing_is_written(agent):
    save(agent, "ops/secrets/deploy", "Deploy", "config", "- Deploy with the CI token from the vault.")
    before = written(agent)
    for field in ("what", "why", "where", "learned", "title", "project"):
        call = {
            "title": "Deploy",
            "type": "config",
            "scope": "ops",
            "what": "x",
            "topic_key": "ops/secrets/deploy",
            field: f"token {GITHUB_TOKEN}",
        }
        message = agent.refusal("mem_save", **call)
        assert "refusing to write a credential" in message and "nothing written" in message, field
        assert GITHUB_TOKEN not in message and "--allow-secrets" not in message
    assert "credential" in agent.refusal("mem_update", note_id="ops/secrets/deploy", what=f"use {GITHUB_TOKEN}")
    slack = "xoxb-" + "123456789012-1234567890123-abcdefghijklmnop"  # a topic key's segment as it stands
    for field, value, named in (
        ("topic_key", f"ops/{slack}", "topic key"),
        ("session_id", f"2026-06-01-0930-{slack}", "session"),
    ):
        call = {"title": "Deploy", "type": "config", "scope": "ops", "what": "x", field: value}
        message = agent.refusal("mem_save", **call)
        assert f"{named} line 1: Slack token xoxb***" in message and slack[5:] not in message, message
    assert written(agent) == before
    sid = register(agent, topic="Secret summary")
    before = written(agent)
    assert "credential" in agent.refusal("mem_session_summary", session_id=sid, discoveries=[f"token {GITHUB_TOKEN}"])
    assert written(agent) == before


SUMMARY_BLOCK = """## Session Summary

Session: {sid}
Goal: Compare the dry runs
Discoveries: both faces share the plan
Next Steps: ship it
"""


@pytest.mark.parametrize("case", ["create", "update", "supersede", "mem_update", "summary"])
def test_dry_run_answers_the_patch_the_command_line_prints_and_writes_nothing(agent, case):
    key = f"global/dry-run/{case.replace('_', '-')}"
    note_type = "preference" if case == "supersede" else "fact"
    if case != "create":
        save(agent, key, "Dry run", note_type, "- First statement.", scope="global", why="Because.")
    sid = register(agent, topic="Dry run summary") if case == "summary" else ""
    before = written(agent)
    if case == "summary":
        answer = agent.answer(
            "mem_session_summary",
            session_id=sid,
            goal="Compare the dry runs",
            discoveries="both faces share the plan",
            next_steps=["ship it"],
            dry_run=True,
        )
        printed = cli(agent, "note", "apply", "-", "--dry-run", stdin=SUMMARY_BLOCK.format(sid=sid))
    elif case == "mem_update":
        answer = agent.answer("mem_update", note_id=key, what="- First statement.\n- Second.", dry_run=True)
        printed = cli(agent, "note", "update", key, "--what", "- First statement.\n- Second.", "--dry-run")
    else:
        what = "- Another statement." if case == "supersede" else "- First statement.\n- 第二點。"
        answer = save(agent, key, "Dry run", note_type, what, scope="global", dry_run=True)
        printed = cli(
            agent,
            "note",
            "save",
            "--title",
            "Dry run",
            "--type",
            note_type,
            "--scope",
            "global",
            "--what",
            what,
            "--topic-key",
            key,
            "--dry-run",
        )
    assert printed.returncode == 0, printed.stderr
    assert answer["dry_run"] is True and answer["changes"] and answer["diff"] == printed.stdout
    assert answer["notes"][-1] == "dry run: nothing written" and "message" not in answer
    assert written(agent) == before


async def test_two_clients_saving_the_same_key_at_once_lose_nothing(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    state = tmp_path / "state"
    env = server_env(state)
    async with connect(server_command(root), env) as first, connect(server_command(root), env) as second:

        async def saves(session, name: str) -> list[str]:
            outcomes = []
            for i in range(4):
                for key, note_type in (("global/race/editor", "preference"), ("ops/race/port", "fact")):
                    result = await session.call_tool(
                        "mem_save",
                        {
                            "title": "Race",
                            "type": note_type,
                            "scope": "global",
                            "topic_key": key,
                            "what": f"- {name} said {i}.",
                        },
                    )
                    assert not result.is_error, result.content[0].text
                    outcomes.append(json.loads(result.content[0].text)["outcome"])
            return outcomes

        outcomes = await asyncio.gather(saves(first, "alpha"), saves(second, "beta"))
    said = [f"- {name} said {i}." for name in ("alpha", "beta") for i in range(4)]
    assert "conflict" not in outcomes[0] + outcomes[1]
    # every preference is a note of its own: the topic's current one, or one it superseded, linked in a chain
    editors = {p.name: p.read_text(encoding="utf-8") for p in (root / "notes" / "global" / "race").iterdir()}
    assert sorted(editors) == sorted(["editor.md"] + [f"editor~{n}.md" for n in range(1, 8)])
    assert sorted(line for text in editors.values() for line in said if line in text) == sorted(said)
    assert sum("| Status | active |" in text for text in editors.values()) == 1
    # every fact save is the note or one of its kept revisions
    kept = [(root / "notes" / "ops" / "race" / "port.md").read_text(encoding="utf-8")]
    kept += [p.read_text(encoding="utf-8") for p in state.glob("roots/*/revisions/notes/ops/race/port/*.md")]
    assert all(any(line in text for text in kept) for line in said)
    doctor = subprocess.run(
        [sys.executable, "-m", "memboard", "doctor", "--root", str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert doctor.stdout == "no problems found\n", doctor.stdout


def test_session_context_shows_the_sessions_notes_and_the_related_active_ones(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    with running(root, tmp_path / "state") as agent:
        source = register(agent, topic="Earlier work")
        sid = register(agent, topic="Shop database", snapshot="## Files / Artifacts\n\n- notes/ops/named/backup.md\n")
        agent.answer("session_continue", source_id=source, session_id=sid)
        other = register(agent, topic="Unrelated")
        save(
            agent,
            "project/shop/database",
            "Use PostgreSQL",
            "decision",
            "- PostgreSQL 15.",
            project="shop",
            session_id=sid,
        )
        save(agent, "project/shop/cache", "Use Redis", "decision", "- Redis 7.", project="shop")
        save(agent, "ops/named/backup", "Backups", "config", "- Nightly.", scope="ops")
        save(agent, "tool/linked/parser", "Parser", "gotcha", "- CRLF.", scope="tool", session_id=source)
        save(agent, "global/pref/lang", "Language", "preference", "English.", scope="global")
        save(agent, "global/pref/lang", "Language", "preference", "中文。", scope="global")  # supersedes: one active
        save(agent, "project/web/router", "Router", "decision", "- Use a router.", project="web", session_id=other)

        notes = agent.answer("session_context", session_id=sid)["notes"]
        assert [n["id"] for n in notes["session"]] == ["project/shop/database"]
        assert [n["id"] for n in notes["related"]] == [
            "ops/named/backup",
            "tool/linked/parser",
            "project/shop/cache",
            "global/pref/lang",
        ]
        assert (notes["total"], notes["omitted"]) == (4, 0)
        assert set(notes["related"][0]) == {
            "id",
            "path",
            "title",
            "type",
            "scope",
            "topic_key",
            "status",
            "supersedes",
            "superseded_by",
            "project",
            "session",
            "created",
            "updated",
            "problem",
        }
        assert [n["id"] for n in agent.answer("session_context", session_id=other)["notes"]["related"]] == [
            "global/pref/lang"
        ]

        context = agent.answer("mem_context", session_id=sid, limit=2)
        assert [n["id"] for n in context["session"]] == ["project/shop/database"]
        assert [n["id"] for n in context["related"]] == ["project/shop/cache", "global/pref/lang"]
        assert [n["id"] for n in agent.answer("mem_context", project="web")["related"]] == [
            "project/web/router",
            "global/pref/lang",
        ]
        everything = agent.answer("mem_context", limit=3)
        assert (everything["total"], everything["omitted"], len(everything["related"])) == (6, 3, 3)
        assert all(n["status"] == "active" for n in everything["related"])


def test_a_note_tool_on_a_root_that_goes_away_is_an_error_of_that_call(tmp_path: Path):
    root = tmp_path / "memory"
    root.mkdir()
    with running(root, tmp_path / "state") as agent:
        assert agent.answer("mem_context")["related"] == []
        root.rmdir()
        assert "does not exist" in agent.refusal("mem_context")
        assert "does not exist" in agent.refusal("mem_save", title="Lost", type="fact", scope="ops", what="x")
    assert not root.exists()


def test_a_sync_tool_s_copy_of_a_note_is_no_note_for_mem_context_or_mem_search(agent):
    """`<key>-laptop.md` (OneDrive's naming, a note ID by form) naming the original's topic key is a conflict copy:
    mem_context and mem_search show the original only."""
    key = "copies-demo/decision/db"
    save(agent, key, "Pick the database", "decision", "- PostgreSQL.", project="copies-demo")
    original = agent.root / "notes" / f"{key}.md"
    copy = original.with_name("db-laptop.md")
    copy.write_text(original.read_text(encoding="utf-8").replace("PostgreSQL.", "PostgreSQL copyword."), "utf-8")
    context = agent.answer("mem_context", project="copies-demo")
    assert [n["id"] for n in context["related"] if n["id"].startswith("copies-demo/")] == [key]
    assert agent.answer("mem_search", query="copyword")["hits"] == []
