"""The hook (through its fast path) and files other tools or older versions left behind:
a conflicted index.md fails the hook open; a conversation an older memboard mapped in the
root is still found; nothing of the hook's own lands in the root."""

from __future__ import annotations

import json

from tests.support.hooks import CONVERSATION, claude_payload, encoded, local, log_lines, map_lines
from tests.support.roots import rows_of

SID = "2026-06-01-0930-claude-main-agent"
OLD = "2026-05-20-0800-claude-main-agent"
HEADER = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n"
SEPARATOR = "|---|---|---|---|---|---|---|---|---|\n"


def row(sid: str, topic: str = "未設定") -> str:
    """An idle index row."""
    return f"| {sid} | claude-main-agent | {topic} | s | k | idle | - | 2026-05-20 08:00 | 2026-05-20 08:00 |\n"


def legacy_map(root, conversation: str, sid: str) -> None:
    """A conversation-map shard as an older memboard wrote it, under <root>/.memboard/conversations/."""
    from memboard.core.formats.conversations import HEADER as MAP_HEADER
    from memboard.core.formats.conversations import legacy_shard_path

    path = root / legacy_shard_path(conversation)
    path.parent.mkdir(parents=True)
    path.write_bytes(MAP_HEADER + f"{conversation}\t{sid}\tclaude\t2026-05-20 08:00\n".encode())


def test_a_conflicted_index_fails_the_hook_open(cli, root):
    text = (
        "# Memory Index\n\n"
        + HEADER
        + SEPARATOR
        + "<<<<<<< HEAD\n"
        + row(OLD, "ours")
        + "=======\n"
        + row(OLD, "theirs")
        + ">>>>>>> b\n"
    )
    (root / "index.md").write_text(text, encoding="utf-8")
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert (res.code, res.out) == (0, "")
    assert (root / "index.md").read_text(encoding="utf-8") == text
    assert map_lines(root) == []
    logged = log_lines(local(root))
    assert len(logged) == 1 and "failed open" in logged[0] and "merge-conflict markers (lines 5, 7, 9)" in logged[0]


def test_a_mapped_conversation_whose_row_sits_in_a_conflict_gets_no_id(cli, root):
    (root / "index.md").write_text("# Memory Index\n\n" + HEADER + SEPARATOR + row(OLD), encoding="utf-8")
    legacy_map(root, CONVERSATION, OLD)
    (root / "index.md").write_text(
        (root / "index.md").read_text(encoding="utf-8") + "<<<<<<< HEAD\n" + row(SID) + "=======\n>>>>>>> b\n",
        encoding="utf-8",
    )
    res = cli("hook", "claude", input=encoded(claude_payload(source="resume")))
    assert (res.code, res.out) == (0, "")
    assert "merge-conflict markers" in log_lines(local(root))[0]


def test_a_conversation_mapped_by_an_older_memboard_keeps_its_session(cli, root):
    (root / "index.md").write_text("# Memory Index\n\n" + HEADER + SEPARATOR + row(OLD), encoding="utf-8")
    legacy_map(root, CONVERSATION, OLD)
    res = cli("hook", "claude", input=encoded(claude_payload(source="resume")))
    assert res.code == 0
    assert json.loads(res.out)["hookSpecificOutput"]["additionalContext"] == f"Your Memory Session ID is: {OLD}"
    assert rows_of(root) == [row(OLD).rstrip("\n")]  # idempotent across the upgrade: no second row
    who = cli("whoami", "--conversation", CONVERSATION)
    assert (who.code, who.out.strip()) == (0, f"Your Memory Session ID is: {OLD}")


def test_a_new_mapping_after_the_upgrade_wins_over_the_old_one(cli, root):
    (root / "index.md").write_text("# Memory Index\n\n" + HEADER + SEPARATOR, encoding="utf-8")
    legacy_map(root, CONVERSATION, OLD)  # its row is gone (organized away)
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert json.loads(res.out)["hookSpecificOutput"]["additionalContext"] == f"Your Memory Session ID is: {SID}"
    assert [line[:2] for line in map_lines(root)] == [[CONVERSATION, SID]]
    assert cli("whoami", "--conversation", CONVERSATION).out.strip() == f"Your Memory Session ID is: {SID}"
