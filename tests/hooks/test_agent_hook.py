"""`memboard hook cursor|claude|codex` as the agents run it: a subprocess fed real-shaped JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.hooks import (
    CONVERSATION,
    claude_payload,
    codex_payload,
    cursor_payload,
    encoded,
    local,
    log_lines,
    map_lines,
)
from tests.support.roots import index_text, row_line, rows_of

SID = "2026-06-01-0930-claude-main-agent"
CLAUDE_OK = {
    "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": f"Your Memory Session ID is: {SID}"}
}


def test_claude_session_start_registers_an_idle_row_and_answers_in_claude_json(cli, root):
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert res.code == 0, res.err
    assert json.loads(res.out) == CLAUDE_OK
    assert rows_of(root) == [
        f"| {SID} | claude-main-agent | 未設定 | sessionStart 自動註冊，尚未整理主題。 | sessionStart, claude-agent | idle | - | 2026-06-01 09:30 | 2026-06-01 09:30 |"
    ]
    assert [line[:3] for line in map_lines(root)] == [[CONVERSATION, SID, "claude"]]
    assert not (root / "sessions").exists()
    assert res.err == ""


@pytest.mark.parametrize("boms", [0, 1, 2])
def test_cursor_session_start_accepts_leading_boms_and_answers_additional_context(cli, root, boms):
    res = cli("hook", "cursor", input=encoded(cursor_payload(), boms=boms))
    assert res.code == 0, res.err
    assert json.loads(res.out) == {"additional_context": "Your Memory Session ID is: 2026-06-01-0930-cursor-main-agent"}
    assert len(rows_of(root)) == 1 and "| cursor-main-agent |" in rows_of(root)[0]
    assert "| sessionStart, cursor-agent | idle |" in rows_of(root)[0]
    assert map_lines(root)[0][:3] == [CONVERSATION, "2026-06-01-0930-cursor-main-agent", "cursor"]


def test_cursor_uses_conversation_id_when_session_id_is_missing(cli, root):
    payload = cursor_payload()
    del payload["session_id"]
    res = cli("hook", "cursor", input=encoded(payload))
    assert res.code == 0 and "Your Memory Session ID is:" in res.out
    assert map_lines(root)[0][0] == CONVERSATION


def test_codex_session_start_answers_like_claude_with_its_own_agent_name(cli, root):
    res = cli("hook", "codex", input=encoded(codex_payload()))
    assert res.code == 0, res.err
    body = json.loads(res.out)
    assert body["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert (
        body["hookSpecificOutput"]["additionalContext"] == "Your Memory Session ID is: 2026-06-01-0930-codex-main-agent"
    )
    assert "| codex-main-agent |" in rows_of(root)[0]
    assert "| sessionStart, codex-agent | idle |" in rows_of(root)[0]  # the agent's own name, as Cursor's rows have


def test_resume_and_compact_of_the_same_conversation_reuse_the_session(cli, root):
    first = cli("hook", "claude", input=encoded(claude_payload()))
    again = cli(
        "hook", "claude", input=encoded(claude_payload(source="resume")), env={"MEMBOARD_NOW": "2026-06-01 11:00"}
    )
    compact = cli(
        "hook", "claude", input=encoded(claude_payload(source="compact")), env={"MEMBOARD_NOW": "2026-06-02 08:00"}
    )
    assert json.loads(first.out) == json.loads(again.out) == json.loads(compact.out) == CLAUDE_OK
    assert len(rows_of(root)) == 1
    assert len(map_lines(root)) == 1


def test_a_new_conversation_gets_its_own_row(cli, root):
    cli("hook", "claude", input=encoded(claude_payload()))
    other = cli("hook", "claude", input=encoded(claude_payload("11111111-2222-3333-4444-555555555555")))
    assert "2026-06-01-0930-claude-main-agent-2" in other.out
    assert len(rows_of(root)) == 2 and len(map_lines(root)) == 2


def test_cursor_running_the_claude_hook_too_gets_the_same_session(cli, root):
    cursor = cli("hook", "cursor", input=encoded(cursor_payload(), boms=1))
    claude = cli("hook", "claude", input=encoded(cursor_payload()))
    sid = "2026-06-01-0930-cursor-main-agent"
    assert json.loads(cursor.out)["additional_context"].endswith(sid)
    assert json.loads(claude.out)["hookSpecificOutput"]["additionalContext"].endswith(sid)
    assert len(rows_of(root)) == 1 and len(map_lines(root)) == 1


def _spawn(root, tool: str, payload: bytes, env: dict | None = None) -> subprocess.Popen:
    """Start one hook process (stdin fed, output captured)."""
    full = dict(os.environ)
    full.update(env or {})
    proc = subprocess.Popen(
        [sys.executable, "-m", "memboard", "hook", tool, "--root", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=full,
    )
    assert proc.stdin is not None
    proc.stdin.write(payload)
    proc.stdin.close()
    return proc


def test_concurrent_hooks_for_one_conversation_make_one_row(root):
    procs = [_spawn(root, ("claude", "cursor")[i % 2], encoded(claude_payload())) for i in range(6)]
    outs = [p.stdout.read().decode() for p in procs]
    codes = [p.wait(timeout=60) for p in procs]
    assert codes == [0] * 6
    ids = {o.strip().rsplit("Your Memory Session ID is: ", 1)[-1].split('"')[0] for o in outs}
    assert len(ids) == 1 and all("Your Memory Session ID is:" in o for o in outs), outs
    assert len(rows_of(root)) == 1
    assert len(map_lines(root)) == 1


def test_concurrent_hooks_for_different_conversations_lose_no_row(root):
    procs = [_spawn(root, "claude", encoded(claude_payload(f"conv-{i}"))) for i in range(6)]
    outs = [p.stdout.read().decode() for p in procs]
    assert [p.wait(timeout=60) for p in procs] == [0] * 6
    assert all("Your Memory Session ID is:" in o for o in outs), outs
    assert len(rows_of(root)) == 6
    assert len({r.split("|")[1] for r in rows_of(root)}) == 6
    assert sorted(l[0] for l in map_lines(root)) == [f"conv-{i}" for i in range(6)]


def test_a_payload_without_conversation_id_still_registers_but_is_not_mapped(cli, root):
    payload = claude_payload()
    del payload["session_id"], payload["transcript_path"], payload["source"]
    res = cli("hook", "claude", input=encoded(payload))
    assert json.loads(res.out) == CLAUDE_OK
    assert len(rows_of(root)) == 1 and map_lines(root) == []
    assert "without a conversation ID" in log_lines(local(root))[0]


def test_missing_optional_fields_are_fine(cli, root):
    res = cli("hook", "claude", input=encoded({"session_id": "abc"}))
    assert json.loads(res.out) == CLAUDE_OK
    assert map_lines(root)[0][:2] == ["abc", SID]


@pytest.mark.parametrize(
    "stdin",
    [
        b"",
        b"   \n",
        b"not json at all",
        b"\xff\xfe\x00garbage",
        b"[1, 2, 3]",
        b'"just a string"',
        b'{"session_id": "a',
        b"\xef\xbb\xbf\xef\xbb\xbf",
    ],
    ids=["empty", "blank", "text", "binary", "array", "string", "truncated", "only-boms"],
)
def test_garbage_on_stdin_fails_open_without_an_id(cli, root, stdin):
    res = cli("hook", "cursor", input=stdin)
    assert res.code == 0
    assert res.out == "{}\n" and res.err == ""  # Cursor parses the hook's stdout as JSON: an empty answer
    assert not (root / "index.md").exists()
    logged = log_lines(local(root))
    assert len(logged) == 1 and "failed open, no Session ID reported" in logged[0]


@pytest.mark.parametrize(
    "bad", [{"session_id": "a\nb"}, {"session_id": "x" * 500}, {"session_id": ["a"]}, {"session_id": "#comment"}]
)
def test_an_unusable_conversation_id_fails_open(cli, root, bad):
    res = cli("hook", "claude", input=encoded(bad))
    assert (res.code, res.out) == (0, "")
    assert rows_of(root) == [] and map_lines(root) == []
    assert "not a usable conversation ID" in log_lines(local(root))[0]


def test_a_numeric_conversation_id_is_used_as_text(cli, root):
    res = cli("hook", "claude", input=encoded({"session_id": 12345}))
    assert json.loads(res.out) == CLAUDE_OK
    assert map_lines(root)[0][0] == "12345"


def test_another_event_is_ignored_without_a_row(cli, root):
    res = cli("hook", "claude", input=encoded(claude_payload(hook_event_name="Stop")))
    assert (res.code, res.out) == (0, "")
    assert not (root / "index.md").exists()
    assert "is not SessionStart" in log_lines(local(root))[0]


def test_root_that_is_a_file_logs_to_the_state_folder(cli, tmp_path, state_dir):
    blocker = tmp_path / "memory-file"
    blocker.write_text("not a folder")
    res = cli("hook", "claude", "--root", str(blocker), input=encoded(claude_payload()), use_root=False)
    assert (res.code, res.out, res.err) == (0, "", "")
    logged = log_lines(state_dir)
    assert len(logged) == 1 and "is not a folder" in logged[0]
    assert blocker.read_text() == "not a folder"


def test_missing_root_logs_to_the_state_folder(cli, tmp_path, state_dir):
    res = cli("hook", "cursor", "--root", str(tmp_path / "nowhere"), input=encoded(cursor_payload()), use_root=False)
    assert (res.code, res.out) == (0, "{}\n")
    assert "does not exist" in log_lines(state_dir)[0]
    assert not (tmp_path / "nowhere").exists()


def test_no_root_configured_at_all_fails_open(cli, tmp_path, state_dir):
    res = cli("hook", "claude", input=encoded({"session_id": "s", "cwd": str(tmp_path / "empty")}), use_root=False)
    assert (res.code, res.out) == (0, "")
    assert "memboard config set root" in log_lines(state_dir)[0]


def test_payload_cwd_with_a_memory_folder_is_used_when_nothing_else_names_a_root(cli, tmp_path):
    project = tmp_path / "proj"
    (project / "memory").mkdir(parents=True)
    res = cli("hook", "claude", input=encoded(claude_payload(cwd=str(project))), use_root=False)
    assert json.loads(res.out) == CLAUDE_OK
    assert len(rows_of(project / "memory")) == 1


def test_unwritable_index_fails_open_and_reports_nothing(cli, root):
    (root / "index.md").mkdir()  # a folder where the index file belongs: nothing can be written
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert (res.code, res.out) == (0, "")
    assert map_lines(root) == []
    assert "failed open" in log_lines(local(root))[0]


def test_unwritable_local_state_of_the_root_fails_open_and_logs_to_the_state_folder(cli, root, state_dir):
    local(root).parent.mkdir(parents=True)
    local(root).write_text("a file where the root's state folder belongs")
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert (res.code, res.out) == (0, "")
    assert rows_of(root) == []  # the map line comes first: nothing is written in the root without it
    assert "failed open" in log_lines(state_dir)[0] and "local state" in log_lines(state_dir)[0]


def test_the_hook_writes_nothing_of_its_own_into_the_root(cli, root):
    (root / ".memboard").write_text("whatever an older tool left here")
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert json.loads(res.out) == CLAUDE_OK
    assert sorted(p.name for p in root.iterdir()) == [".memboard", "index.md"]
    assert len(map_lines(root)) == 1


def test_a_held_lock_makes_the_hook_give_up_quickly(cli, root, state_dir):
    from memboard.core.files.lock import locked
    from memboard.core.files.root import MemoryRoot

    with locked(MemoryRoot(root)):
        start = time.monotonic()
        res = cli("hook", "claude", input=encoded(claude_payload()), env={"MEMBOARD_HOOK_LOCK_TIMEOUT": "0.3"})
        elapsed = time.monotonic() - start
    assert (res.code, res.out) == (0, "")
    assert elapsed < 20
    assert "locked by another writer" in log_lines(local(root))[0]
    assert rows_of(root) == []


def test_agent_name_from_flag_and_from_config(cli, root, state_dir):
    res = cli("hook", "claude", "--agent", "review-agent", input=encoded(claude_payload("one")))
    assert "2026-06-01-0930-review-agent" in res.out
    (state_dir / "config.toml").write_text('agent_name = "team-agent"\n')
    res = cli("hook", "cursor", input=encoded(cursor_payload("two")))
    assert "2026-06-01-0930-team-agent" in res.out
    res = cli("hook", "cursor", "--agent", "Bad Name", input=encoded(cursor_payload("three")))
    assert (res.code, res.out) == (0, "{}\n")
    assert "invalid agent name" in log_lines(local(root))[-1]


def test_a_row_organized_away_gets_a_new_session_and_the_map_follows(cli, root):
    first = cli("hook", "claude", input=encoded(claude_payload()))
    assert cli("organize").code == 0  # deletes the idle row
    assert rows_of(root) == []
    again = cli(
        "hook", "claude", input=encoded(claude_payload(source="resume")), env={"MEMBOARD_NOW": "2026-06-03 10:00"}
    )
    new_sid = "2026-06-03-1000-claude-main-agent"
    assert json.loads(first.out) == CLAUDE_OK
    assert json.loads(again.out)["hookSpecificOutput"]["additionalContext"] == f"Your Memory Session ID is: {new_sid}"
    assert len(rows_of(root)) == 1 and new_sid in rows_of(root)[0]
    assert [l[1] for l in map_lines(root)] == [SID, new_sid]
    who = cli("whoami", "--conversation", CONVERSATION)
    assert (who.code, who.out.strip()) == (0, f"Your Memory Session ID is: {new_sid}")


def test_whoami_reports_live_unknown_and_gone(cli, root):
    cli("hook", "claude", input=encoded(claude_payload()))
    live = cli("whoami", "--conversation", CONVERSATION, "--json")
    assert live.code == 0
    assert json.loads(live.out) == {"conversation": CONVERSATION, "session_id": SID, "state": "live", "status": "idle"}
    unknown = cli("whoami", "--conversation", "never-seen")
    assert unknown.code == 1 and unknown.out == ""
    assert unknown.err.strip() == "memboard: no Memory Session ID recorded for conversation never-seen"
    cli("organize")
    gone = cli("whoami", "--conversation", CONVERSATION)
    assert gone.code == 1 and "no longer in index.md" in gone.err and len(gone.err.strip().splitlines()) == 1
    bad = cli("whoami", "--conversation", "a\tb")
    assert bad.code == 2


def test_existing_index_bytes_are_preserved_around_the_new_row(cli, root):
    original = (
        "\ufeff# Memory Index\r\n\r\nNotes 整理 memory.\r\n\r\n"
        "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\r\n"
        "|---|---|---|---|---|---|---|---|---|\r\n"
        "| 2026-05-01-0900-cursor-main-agent | cursor-main-agent | a \\| b | 中文 | k | active | - | 2026-05-01 09:00 | 2026-05-01 09:00 |\r\n"
        "| broken row |\r\n"
        "\r\nAfter the table.\r\n"
    )
    (root / "index.md").write_bytes(original.encode("utf-8"))
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert json.loads(res.out) == CLAUDE_OK
    after = (root / "index.md").read_bytes().decode("utf-8")
    new_row = f"| {SID} | claude-main-agent | 未設定 | sessionStart 自動註冊，尚未整理主題。 | sessionStart, claude-agent | idle | - | 2026-06-01 09:30 | 2026-06-01 09:30 |\r\n"
    assert after == original.replace("| broken row |\r\n", "| broken row |\r\n" + new_row)


HEAVY = ("textual", "rich", "mistletoe")


def test_the_hook_imports_nothing_heavy(root):
    env = dict(os.environ)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memboard", "hook", "claude", "--root", str(root)],
        input=encoded(claude_payload()),
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0 and b"Your Memory Session ID is:" in proc.stdout
    imported = {
        line.split("|")[-1].strip() for line in proc.stderr.decode().splitlines() if line.startswith("import time:")
    }
    assert "memboard.cli.hook" in imported and "filelock" in imported  # the trace is real
    assert not {m for m in imported if m.split(".")[0] in HEAVY}


def test_the_hook_loads_only_what_it_uses_and_reads_the_index_to_plan_and_to_verify(root):
    # argparse (only for arguments a hook does not send), difflib (only to merge onto a file changed
    # underneath), the patch maker, the result types of every other operation, snapshot and note revisions and
    # the move of an older memboard's state stay unloaded; index.md is read once, under the lock, to plan the
    # row, opened once to append it (an old index: its signature guards the append) and once to read the
    # appended bytes back
    (root / "index.md").write_text(index_text([row_line("2026-05-01-0900-agent-a")]), encoding="utf-8")
    old = time.time() - 60
    os.utime(root / "index.md", (old, old))
    script = (
        "import builtins, io, os, sys\n"
        "root, payload = sys.argv[1:3]\n"
        "sys.argv = ['memboard', 'hook', 'claude', '--root', root]\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(payload.encode()))\n"
        "opened, real_open, real_os_open = [], builtins.open, os.open\n"
        "def counting(file, *a, **k):\n"
        "    if str(file).endswith('index.md'): opened.append(str(file))\n"
        "    return real_open(file, *a, **k)\n"
        "def os_counting(file, *a, **k):\n"
        "    if str(file).endswith('index.md'): opened.append(str(file))\n"
        "    return real_os_open(file, *a, **k)\n"
        "builtins.open, os.open = counting, os_counting\n"
        "from memboard.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "unused = ('argparse', 'difflib', 'memboard.core.diff', 'memboard.core.results', 'memboard.core.files.revisions',"
        " 'memboard.core.files.legacystate', 'memboard.core.formats.topic')\n"
        "loaded = sorted(m for m in unused if m in sys.modules)\n"
        "print(code, loaded, len(opened))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(root), json.dumps(claude_payload())], capture_output=True, timeout=60
    )
    assert proc.stdout.decode().strip().splitlines()[-1] == "0 [] 3"
    assert "claude-main-agent" in (root / "index.md").read_text(encoding="utf-8")


def test_the_hook_path_in_process_leaves_heavy_modules_unloaded(root):
    script = (
        "import io, sys\n"
        "sys.argv = ['memboard', 'hook', 'codex', '--root', sys.argv[1]]\n"
        'sys.stdin = io.TextIOWrapper(io.BytesIO(b\'{"session_id": "x"}\'))\n'
        "from memboard.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'mistletoe'))\n"
        "print(code, heavy, 'memboard.core.ops.session_start' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True, timeout=60)
    assert proc.stdout.decode().strip().splitlines()[-1] == "0 [] True"


def test_a_hook_process_leaves_once_its_answer_is_out(root):
    """Run as the console script runs it (main() of the process), the hook ends its process once the answer is
    flushed: the answer arrives whole on a block-buffered pipe, the exit status is 0, and the interpreter's
    teardown (here an atexit hook) never runs."""
    script = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('torn down\\n'))\n"
        "sys.argv = ['memboard', 'hook', 'claude', '--root', sys.argv[1]]\n"
        "from memboard.cli import main\n"
        "sys.exit(main())\n"
    )
    env = dict(os.environ, PYTHONUNBUFFERED="")
    proc = subprocess.run(
        [sys.executable, "-c", script, str(root)],
        input=encoded(claude_payload()),
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert (proc.returncode, json.loads(proc.stdout), proc.stderr) == (0, CLAUDE_OK, b"")
    assert len(rows_of(root)) == 1


@pytest.mark.skipif(os.name == "nt", reason="a pipe without a reader is POSIX's EPIPE")
def test_a_hook_whose_reader_left_still_exits_0_and_logs_the_session(root):
    reader, writer = os.pipe()
    os.close(reader)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "memboard", "hook", "claude", "--root", str(root)],
            input=encoded(claude_payload()),
            stdout=writer,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    finally:
        os.close(writer)
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert len(rows_of(root)) == 1
    assert f"registered {SID} but could not print the answer" in log_lines(local(root))[0]


def test_a_broken_config_fails_open(cli, root, state_dir):
    (state_dir / "config.toml").write_text("agent_name = [broken\n")
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert (res.code, res.out) == (0, "")
    assert rows_of(root) == []
    assert "is not valid TOML" in log_lines(local(root))[0]  # --root still says where to log
    res = cli("hook", "claude", input=encoded(claude_payload()), use_root=False)
    assert (res.code, res.out) == (0, "")
    assert "is not valid TOML" in log_lines(state_dir)[0]  # nothing names a root: the local log


def test_root_before_the_command_and_option_spellings_work(cli, root):
    res = cli("--root", str(root), "hook", "claude", input=encoded(claude_payload("a")), use_root=False)
    assert json.loads(res.out) == CLAUDE_OK
    res = cli("hook", f"--root={root}", "codex", "--agent=x-agent", input=encoded(codex_payload("b")), use_root=False)
    assert "2026-06-01-0930-x-agent" in res.out
    assert len(rows_of(root)) == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["hook", "vim"],
        ["hook", "vim", "--agent", "x"],
        ["hook", "cursor", "--no-such-option"],
        ["hook"],
    ],
)
def test_an_unknown_tool_or_bad_arguments_fail_open_with_one_log_line(cli, root, argv):
    """A hook never fails the agent: exit 0, nothing on stdout, no row, one log line."""
    res = cli(*argv, input=encoded(claude_payload()))
    assert (res.code, res.out, res.err) == (0, "{}\n" if "cursor" in argv else "", "")
    assert not (root / "index.md").exists()
    lines = log_lines(local(root))
    assert len(lines) == 1 and "ignored" in lines[0], lines


def test_an_unknown_tool_after_a_leading_root_fails_open_too(cli, root):
    res = cli("--root", str(root), "hook", "vim", input=b"{}", use_root=False)
    assert (res.code, res.out) == (0, "")
    assert "unknown tool 'vim'" in log_lines(local(root))[0]


def test_an_archived_session_is_reported_and_the_next_start_gets_a_new_row(cli, root):
    cli("hook", "claude", input=encoded(claude_payload()))
    snapshot = "## Current Context\n\nWorked on the hook.\n\n## Decisions\n\n- Keep it fail-open.\n"
    assert cli("update", SID, "--snapshot", "-", "--topic", "hooks", input=snapshot).code == 0
    archived = cli("archive", SID)
    assert archived.code == 0, archived.err
    assert (root / "archive" / SID).is_dir()
    who = cli("whoami", "--conversation", CONVERSATION, "--json")
    assert who.code == 1 and json.loads(who.out)["state"] == "archived"
    again = cli(
        "hook", "claude", input=encoded(claude_payload(source="resume")), env={"MEMBOARD_NOW": "2026-06-05 08:00"}
    )
    assert "2026-06-05-0800-claude-main-agent" in again.out
    assert [l[1] for l in map_lines(root)] == [SID, "2026-06-05-0800-claude-main-agent"]


@pytest.mark.skipif(os.name == "nt", reason="pseudo-terminals are POSIX")
def test_a_terminal_on_stdin_fails_open_at_once(root):
    import pty

    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "memboard", "hook", "claude", "--root", str(root)],
            stdin=follower,
            capture_output=True,
            timeout=30,
        )
    finally:
        os.close(leader)
        os.close(follower)
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert "stdin is a terminal" in log_lines(local(root))[0]


SLACK = "xoxb-" + "123456789012-1234567890123-abcdefghijklmnop"  # (assembled: this file leaks nothing)


@pytest.mark.parametrize("where", ["config", "--agent", "conversation"])
def test_a_token_for_an_agent_name_or_a_conversation_fails_the_hook_open_with_one_log_line(cli, root, where):
    """A hook whose agent name (config agent_name, --agent) or conversation ID is a credential writes nothing: no
    row, no map line, no Session ID on stdout, exit 0, and one log line naming the field with the value masked."""
    argv, payload = ["hook", "claude"], claude_payload()
    if where == "config":
        Path(os.environ["MEMBOARD_CONFIG"]).write_text(f'agent_name = "{SLACK}"\n', encoding="utf-8")
    elif where == "--agent":
        argv += ["--agent", SLACK]
    else:
        payload = claude_payload(session_id=SLACK)
    res = cli(*argv, input=encoded(payload))
    assert (res.code, res.out, res.err) == (0, "", "")
    assert not (root / "index.md").exists() and map_lines(root) == []
    lines = log_lines(local(root))
    field = "conversation ID" if where == "conversation" else "agent name"
    assert len(lines) == 1, lines
    assert (
        f"failed open, no Session ID reported: SecretFound: refusing to write a credential into memory: "
        f"{field} line 1: Slack token xoxb***({len(SLACK)} chars); nothing written"
    ) in lines[0]
    assert SLACK[5:] not in lines[0] and "--allow-secrets" not in lines[0]


@pytest.mark.parametrize("tool", ["claude", "codex"])
def test_a_failed_claude_or_codex_hook_prints_nothing_and_cursor_bad_arguments_print_an_empty_answer(cli, root, tool):
    assert cli("hook", tool, input=b"garbage").out == ""
    res = cli("hook", "cursor", "--no-such-option", input=encoded(cursor_payload()))
    assert (res.code, res.out, res.err) == (0, "{}\n", "")


def test_a_row_an_older_hook_registered_with_cursor_agent_is_reused_as_it_is(cli, root):
    assert cli("hook", "claude", input=encoded(claude_payload())).code == 0
    index = root / "index.md"
    index.write_text(index.read_text(encoding="utf-8").replace("claude-agent", "cursor-agent"), encoding="utf-8")
    res = cli("hook", "claude", input=encoded(claude_payload(source="resume")))
    assert json.loads(res.out) == CLAUDE_OK
    assert len(rows_of(root)) == 1 and "| sessionStart, cursor-agent | idle |" in rows_of(root)[0]
    assert json.loads(cli("show", SID, "--json").out)["row"]["keywords"] == "sessionStart, cursor-agent"
