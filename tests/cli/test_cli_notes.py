"""Typed notes from the outside (seed 001): `memboard note save|update|show|list|search|apply` through the `cli`
fixture, and in processes of their own where saves race."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import runner
from tests.support.doctor import needing
from tests.support.faults import memboard_module
from tests.support.roots import row_line
from tests.support.tree import tree

SID = "2026-05-30-1000-claude-code"
KEY = "project/db/engine"


def save(
    cli,
    title: str,
    note_type: str,
    what: str,
    key: str | None = KEY,
    *extra: str,
    scope: str = "project",
    env: dict | None = None,
):
    """Run `note save` with the given values (and extra arguments)."""
    args = ["note", "save", "--title", title, "--type", note_type, "--scope", scope, "--what", what]
    if key is not None:
        args += ["--topic-key", key]
    return cli(*args, *extra, env=env)


def note_file(root: Path, note_id: str) -> str:
    """A note's file as text."""
    return (root / "notes" / f"{note_id}.md").read_text(encoding="utf-8")


def shown(cli, note_id: str) -> dict:
    """`note show --json` of a note."""
    res = cli("note", "show", note_id, "--json")
    assert res.code == 0, res.err
    return json.loads(res.out)


def test_save_writes_one_file_per_topic_key_in_the_documented_form(cli, root):
    res = save(
        cli,
        "Use PostgreSQL",
        "decision",
        "- Use PostgreSQL 15.",
        KEY,
        "--why",
        "Row locks.",
        "--project",
        "shop",
        "--session",
        SID,
    )
    assert res.code == 0, res.err
    assert res.out == f"saved note {KEY} (decision, project)\n"
    assert (
        note_file(root, KEY)
        == f"""# Use PostgreSQL

## Metadata

| Field | Value |
|---|---|
| Title | Use PostgreSQL |
| Type | decision |
| Scope | project |
| Topic Key | {KEY} |
| Status | active |
| Supersedes | - |
| Superseded By | - |
| Project | shop |
| Session | {SID} |
| Created | 2026-06-01 09:30 |
| Updated | 2026-06-01 09:30 |

## What

- Use PostgreSQL 15.

## Why

Row locks.

## Where

## Learned
"""
    )
    view = shown(cli, KEY)
    assert view["note"]["status"] == "active" and view["what"] == "- Use PostgreSQL 15." and view["revisions"] == 1


def test_without_a_key_one_is_derived_from_scope_type_and_title(cli, root):
    res = cli("note", "key", "--scope", "tool", "--type", "gotcha", "--title", "Café: CRLF breaks the parser")
    assert (res.code, res.out) == (0, "tool/gotcha/cafe-crlf-breaks-the-parser\n")
    assert save(cli, "Café: CRLF breaks the parser", "gotcha", "It does.", None, scope="tool").code == 0
    assert (root / "notes" / "tool" / "gotcha" / "cafe-crlf-breaks-the-parser.md").is_file()
    first = cli("note", "key", "--scope", "global", "--type", "fact", "--title", "選擇 Trilium 作為事實源").out
    again = cli("note", "key", "--scope", "global", "--type", "fact", "--title", "選擇 Trilium 作為事實源").out
    other = cli("note", "key", "--scope", "global", "--type", "fact", "--title", "放棄 Trilium 作為事實源").out
    assert first == again and first != other and first.startswith("global/fact/trilium-")


def test_same_key_updates_the_same_note_and_keeps_the_previous_text_as_a_revision(cli, root):
    assert save(cli, "Port", "config", "- The API listens on 8080.").code == 0
    first = note_file(root, KEY)
    res = save(cli, "Port", "config", "- The API listens on 8080.\n- Metrics on 9100.", KEY, "--json")
    assert res.code == 0, res.err
    out = json.loads(res.out)
    assert (out["outcome"], out["added"], out["dropped"], out["revision"]) == (
        "updated",
        ["- Metrics on 9100."],
        [],
        True,
    )
    assert sorted(p.name for p in (root / "notes" / "project" / "db").iterdir()) == ["engine.md"]
    assert "- Metrics on 9100." in note_file(root, KEY)
    view = shown(cli, KEY)
    assert view["previous"] == first and view["revisions"] >= 2
    # a low-risk type that drops a statement is updated in place; the dropped text stays in the revision
    res = save(cli, "Port", "config", "- The API listens on 9090.", KEY, "--json")
    out = json.loads(res.out)
    assert (out["outcome"], out["dropped"]) == ("updated", ["- The API listens on 8080.", "- Metrics on 9100."])
    assert "8080" not in note_file(root, KEY) and "8080" in shown(cli, KEY)["previous"]
    assert (
        save(cli, "Port", "config", "- The API listens on 9090.").out
        == f"note {KEY} already says this; nothing to change\n"
    )


def test_a_new_preference_supersedes_the_old_with_links_both_ways(cli, root):
    key = "global/preference/theme"
    assert save(cli, "Theme", "preference", "Dark theme.", key, scope="global").code == 0
    res = save(cli, "Theme", "preference", "Light theme.", key, "--json", scope="global")
    out = json.loads(res.out)
    assert (out["outcome"], out["superseded"], out["dropped"]) == ("superseded", f"{key}~1", ["Dark theme."])
    notes = {n["id"]: n for n in json.loads(cli("note", "list", "--json").out)}
    assert notes[key]["status"] == "active" and notes[key]["supersedes"] == [f"{key}~1"]
    assert notes[f"{key}~1"]["status"] == "superseded" and notes[f"{key}~1"]["superseded_by"] == [key]
    assert "Dark theme." in note_file(root, f"{key}~1") and "Light theme." in note_file(root, key)
    assert save(cli, "Theme", "preference", "Solarized.", key, scope="global").code == 0
    notes = {n["id"]: n for n in json.loads(cli("note", "list", "--json").out)}
    assert notes[key]["supersedes"] == [f"{key}~2"]
    assert notes[f"{key}~2"]["supersedes"] == [f"{key}~1"] and notes[f"{key}~2"]["superseded_by"] == [key]
    assert notes[f"{key}~1"]["superseded_by"] == [f"{key}~2"]
    assert [n["id"] for n in json.loads(cli("note", "list", "--status", "active", "--json").out)] == [key]
    assert cli("doctor").out == "no problems found\n"


def test_a_changed_decision_is_refused_with_both_texts_until_a_choice_is_made(cli, root, whole_tree):
    assert save(cli, "Database", "decision", "- Use PostgreSQL 15.\n- Keep one primary.").code == 0
    before = whole_tree()
    res = save(cli, "Database", "decision", "- Use MySQL 8.\n- Keep one primary.")
    assert res.code == 1 and res.out == ""
    assert len(res.err.splitlines()) == 1 and "decision conflict" in res.err and "nothing written" in res.err
    res = save(cli, "Database", "decision", "- Use MySQL 8.\n- Keep one primary.", KEY, "--json")
    assert res.code == 1
    conflict = json.loads(res.out)["conflict"]
    assert conflict["dropped"] == ["- Use PostgreSQL 15."] and conflict["choices"] == ["supersede", "keep_both"]
    assert "PostgreSQL 15" in conflict["old_text"] and "MySQL 8" in conflict["new_text"]
    assert whole_tree() == before
    # keeping earlier statements and adding is an update, no conflict
    assert save(cli, "Database", "decision", "- Use PostgreSQL 15.\n- Keep one primary.\n- Add a replica.").code == 0
    res = save(cli, "Database", "decision", "- Use MySQL 8.", KEY, "--choice", "keep_both", "--json", scope="tool")
    out = json.loads(res.out)
    assert (res.code, out["outcome"], out["note_id"], out["kept_beside"]) == (0, "kept_both", f"{KEY}.tool", KEY)
    assert "PostgreSQL 15" in note_file(root, KEY) and "| Scope | tool |" in note_file(root, f"{KEY}.tool")
    res = save(cli, "Database", "decision", "- Use MySQL 8.", KEY, "--choice", "supersede")
    assert res.code == 0, res.err
    assert "MySQL 8" in note_file(root, KEY) and "| Status | superseded |" in note_file(root, f"{KEY}~1")


SHOP = "- Use PostgreSQL 15 for the shop database"
SHOP_ZH = "- 商店数据库使用 PostgreSQL 15"


@pytest.mark.parametrize(
    ("reversed_text", "statement"),
    [
        ("- Do not use PostgreSQL 15 for the shop database; use MySQL 8", SHOP),
        ("- Use PostgreSQL 15 for the shop database; use MySQL 8 instead", SHOP),
        ("- Use PostgreSQL 15 for the shop database — no longer", SHOP),
        ("- Use PostgreSQL 15 for the shop database (replaced by MySQL 8)", SHOP),
        ("- Use PostgreSQL 15 for the shop database, not MySQL 8", SHOP),
        ("- 商店数据库使用 PostgreSQL 15，改用 MySQL 8", SHOP_ZH),
        ("- 商店数据库使用 PostgreSQL 15 而不是 MySQL", SHOP_ZH),
    ],
)
def test_a_decision_reversed_in_its_own_words_is_a_conflict_not_an_update(
    cli, root, whole_tree, reversed_text, statement
):
    assert save(cli, "Database", "decision", f"{SHOP}\n{SHOP_ZH}").code == 0
    before = whole_tree()
    res = save(cli, "Database", "decision", f"{SHOP}\n{SHOP_ZH}".replace(statement, reversed_text), KEY, "--json")
    assert res.code == 1 and "decision conflict" in res.err and "nothing written" in res.err
    out = json.loads(res.out)
    assert out["outcome"] == "conflict" and out["conflict"]["dropped"] == [statement]
    assert whole_tree() == before
    clarified = f"{SHOP}, for its row locks\n{SHOP_ZH}，因为需要行锁"
    res = save(cli, "Database", "decision", clarified, KEY, "--json")
    assert res.code == 0 and (json.loads(res.out)["outcome"], json.loads(res.out)["dropped"]) == ("updated", [])


@pytest.mark.parametrize(
    ("was", "becomes"),
    [("decision", "fact"), ("decision", "preference"), ("preference", "fact"), ("preference", "decision")],
)
def test_a_decision_or_preference_saved_as_another_type_is_a_conflict(cli, root, whole_tree, was, becomes):
    queue = "- Use RabbitMQ for the order queue."
    assert save(cli, "Queue", was, queue).code == 0
    before = whole_tree()
    res = save(cli, "Queue", becomes, queue, KEY, "--json")  # the same statements: only the type changes
    assert res.code == 1 and f"changes its type from {was} to {becomes}" in res.err and "nothing written" in res.err
    conflict = json.loads(res.out)["conflict"]
    assert (conflict["type"], conflict["new_type"], conflict["dropped"]) == (was, becomes, [])
    assert whole_tree() == before
    # a second save, now dropping the statement, is checked against the note as it still is
    res = save(cli, "Queue", becomes, "- Use Kafka for the order queue.", KEY, "--json")
    assert res.code == 1 and json.loads(res.out)["conflict"]["dropped"] == [queue]
    assert cli("note", "update", KEY, "--type", becomes).code == 1
    assert whole_tree() == before
    res = save(cli, "Queue", becomes, queue, KEY, "--choice", "supersede", "--json")
    assert res.code == 0 and json.loads(res.out)["outcome"] == "superseded"
    assert f"| Type | {was} |" in note_file(root, f"{KEY}~1") and f"| Type | {becomes} |" in note_file(root, KEY)
    res = cli("note", "update", f"{KEY}~1", "--type", becomes)  # the note moved aside keeps its type too
    assert res.code == 1 and f"keeps its type ({was}" in res.err


def test_a_fact_may_become_a_decision_and_a_note_of_a_hand_written_type_is_asked_about(cli, root, whole_tree):
    assert save(cli, "Queue", "fact", "- Orders go through RabbitMQ.").code == 0
    res = save(cli, "Queue", "decision", "- Orders go through RabbitMQ.", KEY, "--json")
    assert res.code == 0 and json.loads(res.out)["outcome"] == "updated"
    path = root / "notes" / "project" / "db" / "layers.md"
    path.write_text(note_file(root, KEY).replace("| Type | decision |", "| Type | architecture |"), encoding="utf-8")
    before = whole_tree()
    res = save(cli, "Queue", "decision", "- Orders go through RabbitMQ.", "project/db/layers", "--json")
    assert res.code == 1 and "changes its type from architecture to decision" in res.err
    assert json.loads(res.out)["conflict"]["new_type"] == "decision" and whole_tree() == before


def test_a_conflict_in_a_dry_run_also_exits_1_and_a_dry_run_writes_nothing(cli, root, whole_tree):
    assert save(cli, "Database", "decision", "- Use PostgreSQL.").code == 0
    before = whole_tree()
    assert save(cli, "Database", "decision", "- Use MySQL.", KEY, "--dry-run").code == 1
    res = save(cli, "Database", "decision", "- Use MySQL.", KEY, "--dry-run", "--choice", "supersede")
    assert res.code == 0 and f"+++ b/notes/{KEY}~1.md" in res.out and "dry run: nothing written" in res.err
    assert whole_tree() == before


HOSTILE_KEYS = [
    "..",
    "../x",
    "/abs",
    "/etc/passwd",
    "a//b",
    "a/",
    "A/b",
    "a/../b",
    "a/./b",
    ".hidden",
    "a/.x",
    "a.",
    "con",
    "a/nul.md",
    "筆記/x",
    "ｆｕｌｌ",
    "a b",
    "a\\b",
    "a~1",
    "a:b",
    "x" * 65,
    "/".join(["a"] * 11),
    "a/" * 70 + "a",
    "tab\there",
    "new\nline",
]


@pytest.mark.parametrize("key", HOSTILE_KEYS)
def test_hostile_topic_keys_are_usage_errors_and_write_nothing(cli, root, whole_tree, key):
    before = whole_tree()
    res = save(cli, "T", "fact", "x", key)
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1 and "invalid topic key" in res.err
    assert cli("note", "show", key).code == (1 if key == "a~1" else 2)  # a~1 is a note ID, of a note that is not there
    assert whole_tree() == before


def test_secrets_in_any_text_are_refused_and_nothing_is_written(cli, root, whole_tree):
    before = whole_tree()
    for option in ("--what", "--why", "--where", "--learned", "--title"):
        args = [
            "note",
            "save",
            "--title",
            "T",
            "--type",
            "fact",
            "--scope",
            "global",
            option,
            "db password=Hunter2Hunter2",
        ]
        res = cli(*args)
        assert res.code == 1 and "credential" in res.err and "Hunter2" not in res.err, (option, res.err)
    block = "## Memory Update\n\n- title: T\n- type: fact\n- scope: ops\n\n### What\n\npostgres://app:s3cretpw@db:5432/app\n"
    assert cli("note", "apply", "-", input=block).code == 1
    assert whole_tree() == before
    assert (
        cli(
            "note",
            "save",
            "--title",
            "T",
            "--type",
            "fact",
            "--scope",
            "global",
            "--what",
            "password=Hunter2Hunter2",
            "--allow-secrets",
        ).code
        == 0
    )


def _spawn(root: Path, *args: str) -> subprocess.Popen:
    """Start `memboard ARGS --root root` without waiting."""
    cmd = [sys.executable, "-m", *memboard_module(dict(os.environ)), *args, "--root", str(root)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_concurrent_saves_on_different_keys_lose_nothing(root):
    procs = [
        _spawn(
            root,
            "note",
            "save",
            "--title",
            f"N{i}",
            "--type",
            "fact",
            "--scope",
            "ops",
            "--topic-key",
            f"ops/n{i}",
            "--what",
            f"fact number {i}",
        )
        for i in range(8)
    ]
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    for i in range(8):
        assert f"fact number {i}" in note_file(root, f"ops/n{i}")


def test_concurrent_saves_on_the_same_key_lose_nothing(root):
    procs = [
        _spawn(
            root,
            "note",
            "save",
            "--title",
            "Shared",
            "--type",
            "fact",
            "--scope",
            "ops",
            "--topic-key",
            "ops/shared",
            "--what",
            f"writer {i} was here",
        )
        for i in range(6)
    ]
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert sorted(p.name for p in (root / "notes" / "ops").iterdir()) == ["shared.md"]
    kept = [note_file(root, "ops/shared")]
    state = Path(os.environ["MEMBOARD_STATE_DIR"])
    kept += [p.read_text(encoding="utf-8") for p in state.glob("roots/*/revisions/notes/ops/shared/*.md")]
    for i in range(6):
        assert any(f"writer {i} was here" in text for text in kept), i
    assert not list(root.rglob("*.memboard-tmp"))


BLOCK = """Some text the agent printed before the block.

## Memory Update

- title: 決定筆記同步流程
- type: decision
- scope: project
- topic_key: memory/sync-flow
- project: ai-context
- session: 2026-05-30-1000-claude-code

### What

- Sync the vault nightly.
- Keep `wiki/tools/obsidian-sync.md` as the entry point.

### Why

```sh
## not a heading: code
rsync -a vault/ backup/
```

### Learned

同步 fails when the laptop sleeps.

## After the block

Text after it is not part of it.
"""


def test_a_memory_update_block_round_trips(cli, root):
    res = cli("note", "apply", "-", input=BLOCK)
    assert res.code == 0, res.err
    text = note_file(root, "memory/sync-flow")
    assert "| Session | 2026-05-30-1000-claude-code |" in text and "rsync -a vault/ backup/" in text
    assert "After the block" not in text
    printed = cli("note", "show", "memory/sync-flow", "--block").out
    start = BLOCK.index("## Memory Update")
    assert printed == BLOCK[start : BLOCK.index("## After")].rstrip("\n") + "\n"
    res = cli("note", "apply", "-", "--json", input=printed)
    assert res.code == 0 and json.loads(res.out)["notes"][0]["outcome"] == "unchanged"
    assert note_file(root, "memory/sync-flow") == text
    fenced = "Here is the update:\n\n````markdown\n" + printed + "````\n"
    assert json.loads(cli("note", "apply", "-", "--json", input=fenced).out)["notes"][0]["outcome"] == "unchanged"


def test_apply_is_all_or_nothing_and_bad_blocks_are_usage_errors(cli, root, whole_tree):
    assert save(cli, "Database", "decision", "- Use PostgreSQL.").code == 0
    before = whole_tree()
    two = (
        "## Memory Update\n- title: A\n- type: fact\n- scope: ops\n- what: new fact\n\n"
        f"## Memory Update\n- title: Database\n- type: decision\n- scope: project\n- topic_key: {KEY}\n- what: Use MySQL.\n"
    )
    res = cli("note", "apply", "-", input=two)
    assert res.code == 1 and "decision conflict" in res.err
    assert whole_tree() == before
    for bad in (
        "no block here\n",
        "## Memory Update\n- titel: x\n- type: fact\n- scope: ops\n",
        "## Memory Update\n- title: x\n- type: fact\n",
        "## Memory Update\n- title: x\n- type: guess\n- scope: ops\n",
    ):
        res = cli("note", "apply", "-", input=bad)
        assert res.code == 2 and len(res.err.strip().splitlines()) == 1, (bad, res.err)
    assert whole_tree() == before
    res = cli("note", "apply", "-", "--choice", "supersede", input=two)
    assert res.code == 0 and "new fact" in note_file(root, "ops/fact/a") and "Use MySQL." in note_file(root, KEY)


def block(title: str, note_type: str, what: str, key: str = KEY) -> str:
    """A Memory Update block saving one note."""
    return f"## Memory Update\n- title: {title}\n- type: {note_type}\n- scope: project\n- topic_key: {key}\n- what: {what}\n\n"


def test_apply_compares_every_block_with_the_note_before_the_whole_apply(cli, root, whole_tree):
    assert save(cli, "Queue", "decision", "- Use RabbitMQ for the order queue.").code == 0
    before = whole_tree()
    # made a fact with nothing dropped, then dropped as a fact: RabbitMQ must not become Kafka
    two = block("Queue", "fact", "Use RabbitMQ for the order queue.") + block("Queue", "fact", "Use Kafka instead.")
    res = cli("note", "apply", "-", "--json", input=two)
    assert res.code == 1 and "decision conflict" in res.err
    outcomes = [n["outcome"] for n in json.loads(res.out)["notes"]]
    assert outcomes == ["conflict", "conflict"] and whole_tree() == before
    # a statement one block adds and a later block takes out again was never on disk: no conflict
    grown = block("Queue", "decision", "Use RabbitMQ for the order queue. Keep one broker.")
    back = block("Queue", "decision", "Use RabbitMQ for the order queue, with one vhost.")
    res = cli("note", "apply", "-", "--json", input=grown + back)
    assert res.code == 0, res.err
    assert [n["outcome"] for n in json.loads(res.out)["notes"]] == ["updated", "updated"]
    assert "Use RabbitMQ for the order queue, with one vhost." in note_file(root, KEY)
    # a block settled by a choice is what the blocks after it are compared with
    chosen = block("Queue", "decision", "Use Kafka for the order queue.") + "- choice: supersede\n\n"
    res = cli(
        "note", "apply", "-", input=chosen + block("Queue", "decision", "Use Kafka for the order queue, 3 brokers.")
    )
    assert res.code == 0, res.err
    assert "3 brokers" in note_file(root, KEY) and "vhost" in note_file(root, f"{KEY}~1")


def test_a_session_summary_block_merges_into_the_snapshot_and_the_row(cli, root, mem):
    mem.index(row_line(SID, summary="Started."))
    mem.snapshot(SID)
    block = f"""## Session Summary

Session: {SID}
Goal: 把筆記搬進 memboard
Instructions: answer in English
Discoveries: the parser drops CRLF
Accomplished: wrote the note store
Next Steps: wire the MCP tools
Relevant Notes/Files: notes/memory/sync-flow.md
"""
    res = cli("note", "apply", "-", input=block)
    assert res.code == 0, res.err
    snap = mem.snap(SID)
    for line in (
        "- Goal: 把筆記搬進 memboard",
        "- Accomplished: wrote the note store",
        "- Discovery: the parser drops CRLF",
        "- Instruction: answer in English",
        "- wire the MCP tools",
        "- notes/memory/sync-flow.md",
        "- Use plain Markdown.",
        "- Write tests.",
    ):
        assert line in snap, line
    row = mem.rows(cli)[SID]
    assert row["status"] == "active" and row["summary"] == "把筆記搬進 memboard — Accomplished: wrote the note store"


def test_search_finds_notes_by_two_character_chinese_words_and_says_their_kind(cli, root, mem):
    mem.index(row_line(SID, topic="同步 Obsidian vault"))
    res = cli("note", "apply", "-", input=BLOCK)
    assert res.code == 0, res.err
    hits = json.loads(cli("search", "同步", "--json").out)
    assert {(h["kind"], h["id"]) for h in hits} == {("session", SID), ("note", "memory/sync-flow")}
    note = next(h for h in hits if h["kind"] == "note")
    assert (note["where"], note["section"], note["path"], note["type"], note["scope"], note["project"]) == (
        "note",
        "Title",
        "notes/memory/sync-flow.md",
        "decision",
        "project",
        "ai-context",
    )
    assert "type" not in next(h for h in hits if h["kind"] == "session")
    assert [h["kind"] for h in json.loads(cli("search", "同步", "--kind", "note", "--json").out)] == ["note"]
    assert [h["kind"] for h in json.loads(cli("search", "同步", "--kind", "session", "--json").out)] == ["session"]
    assert [h["id"] for h in json.loads(cli("note", "search", "筆記", "--json").out)] == ["memory/sync-flow"]
    assert json.loads(cli("note", "search", "筆記", "--type", "fact", "--json").out) == []
    assert "memory/sync-flow  active" in cli("note", "search", "rsync").out


def test_note_search_puts_active_notes_first_and_sees_new_saves(cli, root):
    key = "global/preference/editor"
    for text in ("Use vim for 同步 edits, always.", "Use emacs for 同步 edits."):
        assert save(cli, "Editor", "preference", text, key, scope="global").code == 0
    ids = [h["id"] for h in json.loads(cli("note", "search", "同步", "--json").out)]
    assert ids == [key, f"{key}~1"]
    assert [h["id"] for h in json.loads(cli("note", "search", "同步", "--status", "superseded", "--json").out)] == [
        f"{key}~1"
    ]
    assert save(cli, "Other", "fact", "同步 again", "ops/other", scope="ops").code == 0
    assert "ops/other" in [h["id"] for h in json.loads(cli("search", "同步", "--json").out)]


def test_update_by_note_id_changes_only_the_given_values(cli, root):
    assert save(cli, "Port", "config", "- 8080", KEY, "--project", "shop").code == 0
    res = cli("note", "update", KEY, "--learned", "Check the firewall.", "--json")
    assert res.code == 0 and json.loads(res.out)["outcome"] == "updated"
    text = note_file(root, KEY)
    assert "- 8080" in text and "Check the firewall." in text and "| Project | shop |" in text
    assert cli("note", "update", "nope/none", "--why", "x").code == 1


def test_existing_commands_leave_notes_alone(cli, root, mem):
    mem.index(
        row_line("2026-01-01-0900-old-agent", updated="2026-01-01 09:00"), row_line(SID, updated="2026-05-30 10:00")
    )
    mem.snapshot(SID)
    assert cli("note", "apply", "-", input=BLOCK).code == 0
    notes_before = tree(root / "notes")
    assert cli("organize").code == 0
    assert cli("archive", SID).code == 0
    assert cli("doctor", "--fix").code == 0
    assert tree(root / "notes") == notes_before
    assert "note" not in cli("doctor").out


def test_doctor_finds_note_problems_and_fixes_links(cli, root):
    key = "global/preference/theme"
    assert save(cli, "Theme", "preference", "Dark.", key, scope="global").code == 0
    assert save(cli, "Theme", "preference", "Light.", key, scope="global").code == 0
    path = root / "notes" / f"{key}.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace(f"| Supersedes | {key}~1 |", "| Supersedes | - |"), encoding="utf-8"
    )
    (root / "notes" / "Bad Name.md").write_text("# x\n", encoding="utf-8")
    broken = root / "notes" / "ops" / "broken.md"
    broken.parent.mkdir(parents=True)
    broken.write_text(note_file(root, key).replace("| Type | preference |", "| Type | opinion |"), encoding="utf-8")
    kinds = {f["kind"] for f in json.loads(cli("doctor", "--json").out)}
    assert {"note_one_sided_link", "note_name", "note_metadata"} <= kinds
    assert needing(cli("doctor", "--fix")) == 2  # the name and the metadata are left for a hand
    assert f"| Supersedes | {key}~1 |" in path.read_text(encoding="utf-8")
    assert "| Topic Key | ops/broken |" in broken.read_text(encoding="utf-8")
    left = {f["kind"]: f["fix"] for f in json.loads(cli("doctor", "--json").out)}
    assert set(left) == {"note_name", "note_metadata"} and set(left.values()) == {None}


@pytest.mark.parametrize("step", [1, 2])
def test_a_supersede_stopped_midway_is_recognised_and_undone_by_doctor(cli, root, step):
    key = "global/preference/theme"
    assert save(cli, "Theme", "preference", "Dark.", key, scope="global").code == 0
    assert save(cli, "Theme", "preference", "Light.", key, scope="global").code == 0
    before = tree(root / "notes")
    res = save(
        cli,
        "Theme",
        "preference",
        "Solarized.",
        key,
        env={"FAULT_AFTER_STEP": str(step), "FAULT_MODE": "kill"},
        scope="global",
    )
    assert res.code != 0
    assert "theme~2.md" in {p.name for p in (root / "notes" / "global" / "preference").iterdir()}
    kinds = {f["kind"] for f in json.loads(cli("doctor", "--json").out)}
    assert "note_interrupted_supersede" in kinds
    assert cli("doctor", "--fix").code == 0
    assert tree(root / "notes") == before
    assert cli("doctor").out == "no problems found\n"


def _git(cwd: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Run git isolated from the user's and the system's configuration."""
    env = dict(os.environ, HOME=str(cwd.parent), GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, env=env, timeout=60)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("what", ["Light.", "Dark.\n\nAlso at night."])
def test_git_apply_of_a_save_dry_run_writes_exactly_what_the_save_writes(tmp_path, what):
    """A supersede (a new file, a changed one) and an update, on a hand-edited note: CRLF, BOM, an extra row
    and section, no final newline."""
    key = "global/preference/theme"
    hand = (
        "\ufeff# Theme\r\n\r\n## Metadata\r\n\r\n| Field | Value |\r\n|---|---|\r\n| Title | Theme |\r\n"
        "| Type | preference |\r\n| Scope | global |\r\n| Topic Key | global/preference/theme |\r\n| Status | active |\r\n"
        "| Reviewer | ana |\r\n\r\n## What\r\n\r\nDark.\r\n\r\n## Links\r\n\r\n- [[other]]"
    ).encode("utf-8")
    previewed, real = tmp_path / "previewed", tmp_path / "real"
    for folder in (previewed, real):
        (folder / "notes" / "global" / "preference").mkdir(parents=True)
        (folder / "notes" / f"{key}.md").write_bytes(hand)
    argv = ["note", "save", "--title", "Theme", "--type", "preference", "--scope", "global", "--what", what]
    dry = runner.run([*argv, "--dry-run", "--root", str(previewed)])
    assert dry.code == 0, dry.err
    assert tree(previewed) == {f"notes/{key}.md": hand}
    done = runner.run([*argv, "--root", str(real)])
    assert done.code == 0, done.err
    assert _git(previewed, "init", "-q").returncode == 0
    applied = _git(previewed, "apply", "--whitespace=nowarn", "-", stdin=dry.out)
    assert applied.returncode == 0, applied.stderr
    after = tree(real)
    assert tree(previewed, skip=(".git",)) == after and after[f"notes/{key}.md"] != hand
    kept = after.get(f"notes/{key}~1.md", after[f"notes/{key}.md"]).decode("utf-8")
    assert "| Reviewer | ana |" in kept and "- [[other]]" in kept and kept.startswith("\ufeff") and "\r\n" in kept


@pytest.mark.parametrize(
    "copy", ["use-uv.sync-conflict-20260531-101500-ABCDEF7.md", "use-uv.conflict1.md", "use-uv.md..path1"]
)
def test_note_show_of_a_sync_conflict_copy_names_the_note_it_copies(cli, root, copy):
    """A copy is never taken for a note: `note show` of a copy's name (a Syncthing name is no note ID; rclone's
    `<key>.conflict1` is one, and was shown as a note) says which note it copies and what merges it, exit 1."""
    saved = cli("note", "save", "--title", "Use uv", "--type", "fact", "--scope", "global", "--what", "uv is fast.")
    assert saved.code == 0, saved.err
    folder = root / "notes" / "global" / "fact"
    (folder / copy).write_bytes((folder / "use-uv.md").read_bytes())
    for ref in (f"notes/global/fact/{copy}", f"global/fact/{copy.removesuffix('.md')}"):
        res = cli("note", "show", ref)
        assert res.code == 1, (ref, res.code, res.out, res.err)
        assert "is a sync-conflict copy of the note global/fact/use-uv" in res.err and "doctor --fix" in res.err
        assert res.err.count("\n") == 1 and res.out == ""
