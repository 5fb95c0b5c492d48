"""`hook_context = "digest"`: the Session ID and a budgeted digest in the hook's additional context (issue 28 §4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.hooks import claude_payload, codex_payload, cursor_payload, encoded
from tests.support.roots import index_text, row_line

SID = "2026-06-01-0930-claude-main-agent"
TRICKY = 'Use `rg` | not grep <b>&</b> {"json": [1, 2]} \\ "quoted" </script>'


def note(title: str, kind: str, scope: str, what: str, project: str = "-", status: str = "active") -> str:
    """A typed note file in memboard's form."""
    key = f"{scope}/{kind}/{title.lower().replace(' ', '-')}"
    return (
        f"# {title}\n\n## Metadata\n\n| Field | Value |\n|---|---|\n| Title | {title} |\n| Type | {kind} |\n"
        f"| Scope | {scope} |\n| Topic Key | {key} |\n| Status | {status} |\n| Project | {project} |\n"
        f"| Updated | 2026-05-30 10:00 |\n\n## What\n\n{what}\n\n## Why\n\nBecause.\n"
    )


@pytest.fixture
def project(tmp_path, root):
    """A git project with a MEMORY.md, a session-memory current.md, and notes in the root."""
    proj = tmp_path / "shop"
    (proj / ".git").mkdir(parents=True)
    (proj / "MEMORY.md").write_text(f"# Identity\nKim's shop agent.\n{TRICKY}\n", encoding="utf-8")
    (proj / ".session-memory").mkdir()
    (proj / ".session-memory" / "current.md").write_text(
        "# Current\n## 当前思路\n- 完成 hook digest\n", encoding="utf-8"
    )
    notes = root / "notes"
    for rel, text in {
        "global/preference/tabs.md": note("Tabs", "preference", "global", f"- Tabs, always. {TRICKY}"),
        "project/preference/shop-style.md": note("Shop style", "preference", "project", "- Short PRs.", "shop"),
        "project/preference/other.md": note("Other project", "preference", "project", "- Not here.", "vault"),
        "global/decision/db.md": note("Database", "decision", "global", "- PostgreSQL."),
        "global/preference/old.md": note("Old", "preference", "global", "- Gone.", status="superseded"),
    }.items():
        (notes / rel).parent.mkdir(parents=True, exist_ok=True)
        (notes / rel).write_text(text, encoding="utf-8")
    return proj


def digest_on(budget: int | None = None) -> None:
    """Set hook_context digest (and the budget) in this test's config file."""
    lines = ['hook_context = "digest"\n'] + ([f"hook_context_bytes = {budget}\n"] if budget else [])
    with open(os.environ["MEMBOARD_CONFIG"], "w", encoding="utf-8") as fh:
        fh.writelines(lines)


def context(res, tool: str = "claude") -> str:
    """The additional context of the hook's JSON answer."""
    body = json.loads(res.out)
    return body["additional_context"] if tool == "cursor" else body["hookSpecificOutput"]["additionalContext"]


def test_id_stays_the_default(cli, root, project):
    res = cli("hook", "claude", input=encoded(claude_payload(cwd=str(project))))
    assert context(res) == f"Your Memory Session ID is: {SID}"


def test_the_digest_holds_the_hot_layer_and_the_preferences_that_apply_here(cli, root, project):
    digest_on()
    res = cli("hook", "claude", input=encoded(claude_payload(cwd=str(project))))
    text = context(res)
    lines = text.splitlines()
    assert lines[0] == f"Your Memory Session ID is: {SID}"
    assert f"Hot memory ({project / 'MEMORY.md'}):" in lines and TRICKY in lines
    assert "- 完成 hook digest" in lines
    prefs = lines[lines.index("Preferences:") + 1 : -1]
    assert sorted(p.split(" (")[0] for p in prefs) == ["- Shop style", "- Tabs"]
    assert any(TRICKY in p for p in prefs)
    assert lines[-1].startswith(f"More: `memboard show {SID}`")
    assert len(text.encode("utf-8")) <= 2000


@pytest.mark.parametrize("budget", [200, 333, 500, 777])
def test_the_budget_cuts_at_line_ends_only(cli, root, project, budget):
    digest_on(budget)
    full_lines = set((project / "MEMORY.md").read_text(encoding="utf-8").splitlines())
    res = cli("hook", "claude", input=encoded(claude_payload(cwd=str(project))))
    text = context(res)
    assert len(text.encode("utf-8")) <= budget
    lines = text.splitlines()
    assert lines[0] == f"Your Memory Session ID is: {SID}" and lines[-1].startswith("More: ")
    hot = lines[lines.index(f"Hot memory ({project / 'MEMORY.md'}):") + 1 :] if len(lines) > 2 else []
    for line in hot[: len(full_lines)]:  # every hot line shown is a whole line of the file
        if line.startswith(("Session memory", "Preferences", "More")):
            break
        assert line in full_lines


def test_a_resumed_conversation_sees_its_row_and_the_sessions_it_continues(cli, root, project):
    digest_on()
    assert cli("hook", "claude", input=encoded(claude_payload(cwd=str(project)))).code == 0
    index = root / "index.md"
    source = row_line(
        "2026-05-20-1000-agent-src", refs=SID, topic='Source `rg` <b> {"json": 1}', summary="Parser work."
    )
    index.write_text(index.read_text(encoding="utf-8") + source + "\n", encoding="utf-8")
    res = cli("hook", "claude", input=encoded(claude_payload(cwd=str(project), source="resume")))
    lines = context(res).splitlines()
    sessions = lines[lines.index("Sessions:") + 1 : lines.index("Sessions:") + 3]
    assert sessions[0].startswith(f"- {SID} (this session, idle): 未設定")
    assert sessions[1] == '- 2026-05-20-1000-agent-src (continued, active): Source `rg` <b> {"json": 1} — Parser work.'


def test_a_new_chat_whose_id_no_line_holds_gets_its_digest_without_a_parse_of_the_index(
    cli, root, project, monkeypatch
):
    # a new chat's ID is in no line of the index it was registered in: no row continues it, and the digest
    # finds that by one substring search (a 100k-row index is 20 MB), never by parsing the table again
    digest_on()
    (root / "index.md").write_text(index_text([row_line("2026-05-20-1000-agent-src", summary="Parser work.")]), "utf-8")
    monkeypatch.setattr("memboard.cli.hook_digest.IndexFile", None)  # (a parse would fail: the digest left out)
    res = cli("hook", "claude", input=encoded(claude_payload(cwd=str(project))))
    lines = context(res).splitlines()
    assert lines[0] == f"Your Memory Session ID is: {SID}" and "Sessions:" not in lines
    assert f"Hot memory ({project / 'MEMORY.md'}):" in lines and "Preferences:" in lines


def test_a_new_chat_searches_the_index_no_more_than_its_registration_did(cli, root, project, monkeypatch):
    # the registration's collision check already searched the table for the new ID and found it in no line: the
    # digest takes that answer instead of searching the 20 MB of a 100k-row index once more
    digest_on()
    (root / "index.md").write_text(index_text([row_line("2026-05-20-1000-agent-src", summary="Parser work.")]), "utf-8")

    def searched(_text):
        raise AssertionError("the digest searched the index again")

    monkeypatch.setattr("memboard.cli.hook_digest.encode", searched)  # (a search would fail: the digest left out)
    res = cli("hook", "claude", input=encoded(claude_payload(cwd=str(project))))
    lines = context(res).splitlines()
    assert lines[0] == f"Your Memory Session ID is: {SID}" and "Sessions:" not in lines
    assert f"Hot memory ({project / 'MEMORY.md'}):" in lines and "Preferences:" in lines


def test_a_new_chat_whose_id_a_row_already_lists_sees_that_row(cli, root, project):
    # a row written by hand that lists the coming Session ID under Referenced By: the new chat continues it
    digest_on()
    source = row_line("2026-05-20-1000-agent-src", refs=SID, summary="Parser work.")
    (root / "index.md").write_text(index_text([source]), "utf-8")
    res = cli("hook", "claude", input=encoded(claude_payload(cwd=str(project))))
    lines = context(res).splitlines()
    assert lines[0] == f"Your Memory Session ID is: {SID}"
    assert lines[lines.index("Sessions:") + 1].startswith("- 2026-05-20-1000-agent-src (continued, active): ")


@pytest.mark.parametrize(
    ("tool", "payload"),
    [("codex", codex_payload), ("cursor", cursor_payload)],
)
def test_every_agent_gets_the_digest_in_its_own_shape(cli, root, project, tool, payload):
    digest_on()
    body = payload(cwd=str(project)) if tool == "codex" else payload(workspace_roots=[str(project)])
    res = cli("hook", tool, input=encoded(body))
    text = context(res, tool)
    assert text.startswith("Your Memory Session ID is: 2026-06-01-0930-") and TRICKY in text


def test_a_broken_budget_in_the_config_leaves_the_id_alone(cli, root, project):
    with open(os.environ["MEMBOARD_CONFIG"], "w", encoding="utf-8") as fh:
        fh.write('hook_context = "digest"\nhook_context_bytes = "lots"\n')
    res = cli("hook", "claude", input=encoded(claude_payload(cwd=str(project))))
    assert context(res) == f"Your Memory Session ID is: {SID}"


def test_the_real_hook_prints_one_ascii_json_line_whatever_the_text_holds(root, project, tmp_path):
    digest_on()
    (root / "index.md").write_text(index_text([row_line("2026-05-01-0900-agent-a")]), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "memboard", "hook", "claude", "--root", str(root)],
        input=encoded(claude_payload(cwd=str(project))),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout.endswith(b"\n") and proc.stdout.count(b"\n") == 1
    assert proc.stdout.isascii()
    text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert TRICKY in text and "- 完成 hook digest" in text
