"""SessionStart and manual registration: defaults, IDs, write-then-verify-then-report."""

from __future__ import annotations

import json
import os
import stat

import pytest

from tests.support.roots import HEADER, SEPARATOR, idle_line, row_line

SID = "2026-06-01-0930-cursor-main-agent"
SESSION_START_ROW = (
    f"| {SID} | cursor-main-agent | 未設定 | sessionStart 自動註冊，尚未整理主題。 | sessionStart, cursor-agent "
    "| idle | - | 2026-06-01 09:30 | 2026-06-01 09:30 |"
)


def test_register_writes_exact_seed_defaults_as_idle(cli, root):
    res = cli("register")
    assert res.code == 0, res.err
    assert res.out == f"Your Memory Session ID is: {SID}\n"
    assert (root / "index.md").read_text(encoding="utf-8") == HEADER + SEPARATOR + SESSION_START_ROW + "\n"


def test_register_creates_no_session_file(cli, root):
    assert cli("register").code == 0
    assert sorted(p.name for p in root.iterdir()) == ["index.md"]


def test_register_appends_only_the_new_row_to_an_existing_index(cli, root, mem):
    before = mem.index(row_line("2026-05-01-1000-cursor-main-agent"), preamble="# Index\n\nnotes\n\n")
    assert cli("register").code == 0
    after = (root / "index.md").read_bytes()
    assert after == before + (SESSION_START_ROW + "\n").encode("utf-8")


def test_register_inserts_after_table_when_text_follows(cli, root, mem):
    before = mem.index(row_line("2026-05-01-1000-cursor-main-agent"), preamble="")
    (root / "index.md").write_bytes(before + b"\nfooter\n")
    assert cli("register").code == 0
    text = (root / "index.md").read_text(encoding="utf-8")
    assert text.endswith(SESSION_START_ROW + "\n\nfooter\n")


def test_register_adds_table_to_index_without_one(cli, root):
    (root / "index.md").write_text("# My notes\n\nNo table yet.\n", encoding="utf-8")
    assert cli("register").code == 0
    text = (root / "index.md").read_text(encoding="utf-8")
    assert text.startswith("# My notes\n\nNo table yet.\n\n" + HEADER + SEPARATOR)
    assert SESSION_START_ROW in text


def test_register_default_agent_and_agent_option(cli, root):
    assert (
        cli("register", "--agent", "claude-agent").out.strip()
        == "Your Memory Session ID is: 2026-06-01-0930-claude-agent"
    )
    rows = json.loads(cli("list", "--json").out)
    assert rows[0]["agent"] == "claude-agent"


def test_agent_name_comes_from_config_not_topic(cli, root):
    """Agent names are stable (default, --agent or config), never invented from the task."""
    cfg = os.environ["MEMBOARD_CONFIG"]
    with open(cfg, "w", encoding="utf-8") as fh:
        fh.write('agent_name = "codex-agent"\n')
    res = cli("register", "--manual", "--topic", "fix the login bug")
    assert res.code == 0, res.err
    row = json.loads(cli("list", "--json").out)[0]
    assert row["agent"] == "codex-agent" and row["id"].endswith("-codex-agent")


@pytest.mark.parametrize("name", ["Fix Login Bug", "fix_login", "-x", "x-", "a/b", "名字", "a" * 81])
def test_invalid_agent_names_are_refused(cli, root, name):
    res = cli("register", f"--agent={name}")
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1
    assert list(root.iterdir()) == []


def test_same_minute_registrations_get_suffixes(cli, root):
    ids = [cli("register").out.strip().rsplit(" ", 1)[1] for _ in range(3)]
    assert ids == [SID, SID + "-2", SID + "-3"]


def test_same_minute_suffix_skips_ids_taken_by_snapshots_and_archives(cli, root):
    (root / "sessions").mkdir()
    (root / "sessions" / f"{SID}.md").write_text("# Session\n", encoding="utf-8")
    (root / "archive" / f"{SID}-2").mkdir(parents=True)
    assert cli("register").out.strip().endswith(SID + "-3")


def test_manual_registration_writes_template_snapshot_and_active_row(cli, root):
    res = cli("register", "--manual", "--topic", "Index parser", "--summary", "Built the line parser.")
    assert res.code == 0, res.err
    assert res.out.strip().splitlines()[-1] == f"Your Memory Session ID is: {SID}"
    row = json.loads(cli("list", "--json").out)[0]
    assert row == {
        "id": SID,
        "agent": "cursor-main-agent",
        "topic": "Index parser",
        "summary": "Built the line parser.",
        "keywords": "manual-registration, cursor-agent, session-snapshot",
        "status": "active",
        "referenced_by": [],
        "started_at": "2026-06-01 09:30",
        "updated_at": "2026-06-01 09:30",
        "line": 3,
        "problem": None,
        "has_snapshot": True,
    }
    snap = (root / "sessions" / f"{SID}.md").read_text(encoding="utf-8")
    assert snap.startswith(f"# Session: {SID}\n\n## Metadata\n")
    assert "| Topic | Index parser |" in snap and "| Status | active |" in snap
    assert "## Current Context\n\nBuilt the line parser.\n" in snap


def test_manual_registration_defaults(cli, root):
    assert cli("register", "--manual").code == 0
    row = json.loads(cli("list", "--json").out)[0]
    assert row["topic"] == "未設定"
    assert row["summary"] == "手動補註冊，已建立 session snapshot。"
    assert row["keywords"] == "manual-registration, cursor-agent, session-snapshot"
    assert row["status"] == "active"


def test_manual_registration_never_borrows_an_existing_row(cli, root, mem):
    """Without its own ID the agent gets a new row, even if an idle or active row looks like it."""
    before = mem.index(idle_line(SID), row_line("2026-06-01-0929-cursor-main-agent"))
    res = cli("register", "--manual")
    assert res.code == 0
    assert res.out.strip().endswith(SID + "-2")
    after = (root / "index.md").read_bytes()
    assert after.startswith(before)
    assert len(json.loads(cli("list", "--json").out)) == 3


def test_manual_registration_merges_snapshot_input(cli, root):
    text = "## Decisions\n\n- Use filelock.\n\n## Next Actions\n\n- Ship it.\n"
    res = cli("register", "--manual", "--snapshot", "-", input=text)
    assert res.code == 0, res.err
    snap = (root / "sessions" / f"{SID}.md").read_text(encoding="utf-8")
    assert "## Decisions\n\n- Use filelock.\n\n## Files" in snap
    assert "- Ship it." in snap and f"| Session ID | {SID} |" in snap


def test_snapshot_input_without_sections_is_refused(cli, root):
    res = cli("register", "--manual", "--snapshot", "-", input="just prose\n")
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1
    assert list(root.iterdir()) == []


def test_session_start_refuses_manual_only_options(cli, root):
    res = cli("register", "--topic", "x")
    assert res.code == 2 and list(root.iterdir()) == []


# -- report only after verified writes ---------------------------------------------------


@pytest.mark.parametrize("args", [("register",), ("register", "--manual")])
@pytest.mark.parametrize("mode", ["raise", "kill"])
def test_no_session_id_when_a_write_step_fails(cli, root, args, mode):
    res = cli(*args, env={"FAULT_AFTER_STEP": "1", "FAULT_MODE": mode})
    assert res.code != 0
    assert "Session ID is" not in res.out + res.err
    if mode == "raise":
        assert res.code == 1 and len(res.err.strip().splitlines()) == 1


def test_manual_registration_fault_leaves_snapshot_without_row_for_doctor(cli, root):
    """Snapshot first, then the row: a crash in between leaves a state doctor repairs."""
    res = cli("register", "--manual", env={"FAULT_AFTER_STEP": "1"})
    assert res.code == 1
    assert (root / "sessions" / f"{SID}.md").exists() and not (root / "index.md").exists()
    kinds = [f["kind"] for f in json.loads(cli("doctor", "--json").out)]
    assert kinds == ["orphan_snapshot"]


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="permissions do not bind root")
def test_no_session_id_when_index_is_not_writable(cli, root):
    root.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        res = cli("register")
    finally:
        root.chmod(stat.S_IRWXU)
    assert res.code == 1 and "Session ID is" not in res.out
    assert len(res.err.strip().splitlines()) == 1


def test_no_session_id_when_index_path_is_a_folder(cli, root):
    (root / "index.md").mkdir()
    res = cli("register")
    assert res.code == 1 and "Session ID is" not in res.out
    assert len(res.err.strip().splitlines()) == 1


def test_no_session_id_when_the_write_cannot_happen(cli, root):
    """sessions/ is a file: the snapshot cannot be written, so no ID is reported and no row added."""
    (root / "sessions").write_text("not a folder", encoding="utf-8")
    res = cli("register", "--manual")
    assert res.code == 1 and "Session ID is" not in res.out + res.err
    assert len(res.err.strip().splitlines()) == 1
    assert not (root / "index.md").exists()


def test_no_session_id_when_verification_fails(cli_process, root, tmp_path):
    """A write that lands but does not verify reports incomplete, not an ID (a process: sitecustomize breaks it)."""
    hook = tmp_path / "sitecustomize.py"
    hook.write_text(
        "import memboard.core.files.execute as a\n"
        "orig = a._verify_change\n"
        "a._verify_change = lambda root, ch: 'index.md does not hold the planned bytes'\n",
        encoding="utf-8",
    )
    env = {"PYTHONPATH": str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    res = cli_process("register", env=env)
    assert res.code == 1
    assert "Session ID is" not in res.out + res.err
    assert "verification failed" in res.err


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_rewrites_keep_the_index_file_mode(cli, root, mem):
    mem.index(row_line("2026-05-01-1000-cursor-main-agent"))
    (root / "index.md").chmod(0o664)
    assert cli("register").code == 0
    assert stat.S_IMODE((root / "index.md").stat().st_mode) == 0o664


def test_register_imports_nothing_heavy(root):
    """SessionStart registration runs on every new chat: no Textual, Rich or mistletoe import."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memboard", "register", "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    imported = {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert not imported & {"textual", "rich", "mistletoe"}
    assert "memboard" in imported


def test_manual_registration_with_continues_from_links_both_sides(cli, root, mem):
    src = "2026-05-01-1000-claude-agent"
    mem.index(row_line(src))
    res = cli("register", "--manual", "--snapshot", "-", input=f"## Continues From\n\n- {src}\n")
    assert res.code == 0, res.err
    rows = mem.rows(cli)
    assert rows[src]["referenced_by"] == [SID]
    assert f"## Continues From\n\n- {src}\n" in mem.snap(SID)


def test_no_environment_variable_breaks_a_write(cli, root):
    """Crash tests install their faults in the process (tests/support/faults.py); memboard reads no fault switch."""
    res = cli("register", env={"MEMBOARD_FAULT_AFTER_STEP": "1", "MEMBOARD_FAULT_MODE": "kill"})
    assert res.code == 0 and "Your Memory Session ID is: 2026-06-01-0930-cursor-main-agent" in res.out
