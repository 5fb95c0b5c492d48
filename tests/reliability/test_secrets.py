"""Credentials never reach the memory: every text-carrying write is scanned and refused."""

from __future__ import annotations

from datetime import datetime

import pytest

from memboard.core.errors import MemboardError
from memboard.core.ops.register import plan_manual
from memboard.core.ops.update import plan_update
from memboard.core.root import MemoryRoot
from memboard.core.secrets import SecretFound, scan

from .rootstate import image

# Built by concatenation so this file does not itself look like a leaked credential.
AWS = "AKIA" + "IOSFODNN7" + "EXAMPLE"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
SLACK = "xoxb-" + "123456789012-1234567890123-abcdefghijklmnop"
OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
ANTHROPIC = "sk-ant-api03-" + "Zy9xWv8uTs7rQp6oNm5lKj4iHg3fEd2c"
GOOGLE = "AIza" + "SyD-1234567890abcdefghijklmnopqrstu"
JWT = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"

KINDS = [
    ("private key", f"key:\n{PEM}", PEM.splitlines()[1]),
    ("AWS access key", f"used {AWS} for the bucket", AWS),
    ("GitHub token", f"token {GITHUB} works", GITHUB),
    ("GitHub token", f"pat {GITHUB_PAT}", GITHUB_PAT),
    ("Slack token", f"slack {SLACK}", SLACK),
    ("OpenAI API key", f"export KEY {OPENAI}", OPENAI),
    ("Anthropic API key", f"claude {ANTHROPIC}", ANTHROPIC),
    ("Google API key", f"maps {GOOGLE}", GOOGLE),
    ("JSON Web Token", f"session {JWT}", JWT),
    ("bearer token", "curl -H 'Authorization: Bearer abcDEF123456ghiJKL789mnoPQR'", "abcDEF123456ghiJKL789mnoPQR"),
    ("credential assignment", "password=hunter2", "hunter2"),
    ("credential assignment", "db secret: S3cr3t!value", "S3cr3t!value"),
    ("credential assignment", 'api_key = "k-9f8e7d6c5b4a"', "k-9f8e7d6c5b4a"),
    ("credential assignment", "TOKEN = deadbeefcafe", "deadbeefcafe"),
]


@pytest.mark.parametrize("kind,text,value", KINDS)
def test_scanner_finds_each_kind_and_masks_the_value(kind, text, value):
    found = scan("first line\n" + text, "summary")
    assert [m.kind for m in found][:1] == [kind]
    assert found[0].line >= 2
    described = found[0].describe()
    assert value not in described and value[4:] not in described
    assert f"summary line {found[0].line}: {kind}" in described


@pytest.mark.parametrize(
    "text",
    [
        "Password: required for the admin page",
        "token: 4096 per request",
        "tokens: 5000",
        "secret: ${SECRET}",
        "password = <your password>",
        "set api_key = $OPENAI_API_KEY in the shell",
        "the task-management-for-the-whole-project was refactored",
        "max_token=4096 and session_token_count: 3",
        "the key rotation decision is recorded",
    ],
)
def test_scanner_leaves_prose_and_placeholders_alone(text):
    assert scan(text) == []


def test_refusal_is_a_memboard_error_raised_by_the_plan_builders(root):
    mroot = MemoryRoot(root)
    with pytest.raises(SecretFound) as info:
        plan_manual(mroot, datetime(2026, 6, 1, 9, 30), "alpha", "Deploy", f"used {AWS}")
    assert isinstance(info.value, MemboardError) and info.value.exit_code == 1
    assert "summary line 1: AWS access key" in str(info.value)
    assert list(root.iterdir()) == []


def test_register_manual_refuses_a_secret_in_topic_and_writes_nothing(cli, root):
    res = cli("register", "--manual", "--topic", f"rotate {GITHUB}", "--summary", "ok")
    assert res.code == 1
    assert len(res.err.strip().splitlines()) == 1
    assert "topic line 1: GitHub token" in res.err and "--allow-secrets" in res.err
    assert GITHUB not in res.err and "Your Memory Session ID" not in res.out
    assert list(root.iterdir()) == []


def test_update_refuses_a_private_key_in_the_snapshot_naming_its_line(cli, root):
    assert cli("register").code == 0
    sid = "2026-06-01-0930-cursor-main-agent"
    before = image(root)
    snapshot = "## Decisions\n\n- use the deploy key\n\n## Files / Artifacts\n\n" + PEM + "\n"
    res = cli("update", sid, "--snapshot", "-", input=snapshot)
    assert res.code == 1
    assert len(res.err.strip().splitlines()) == 1
    assert "snapshot line 7: private key" in res.err
    assert "MIIEow" not in res.err
    assert image(root) == before


@pytest.mark.parametrize("flag", ["--summary", "--keywords", "--topic"])
def test_update_scans_every_text_field(cli, root, flag):
    cli("register")
    before = image(root)
    res = cli("update", "2026-06-01-0930-cursor-main-agent", flag, f"key {SLACK}")
    assert res.code == 1 and "Slack token" in res.err and SLACK not in res.err
    assert image(root) == before


def test_allow_secrets_is_an_explicit_override(cli, root):
    res = cli("register", "--manual", "--summary", "password=hunter2", "--allow-secrets")
    assert res.code == 0, res.err
    assert "password=hunter2" in (root / "index.md").read_text(encoding="utf-8")


def test_continue_scans_the_text_it_carries(cli, root):
    cli("register", "--manual", "--topic", f"uses {OPENAI}", "--allow-secrets", "--agent", "src")
    cli("register", "--agent", "cur")
    before = image(root)
    res = cli("continue", "2026-06-01-0930-src", "--as", "2026-06-01-0930-cur")
    assert res.code == 1 and "OpenAI API key" in res.err and OPENAI not in res.err
    assert image(root) == before
    res = cli("continue", "2026-06-01-0930-src", "--agent", "new")
    assert res.code == 1 and image(root) == before
    res = cli("continue", "2026-06-01-0930-src", "--as", "2026-06-01-0930-cur", "--allow-secrets")
    assert res.code == 0, res.err


def test_dry_run_refuses_too(cli, root):
    res = cli("register", "--manual", "--summary", f"{ANTHROPIC}", "--dry-run")
    assert res.code == 1 and "Anthropic API key" in res.err
    assert list(root.iterdir()) == []


def test_update_plan_builder_refuses_for_the_board(root, cli):
    cli("register")
    mroot = MemoryRoot(root)
    with pytest.raises(SecretFound):
        plan_update(mroot, "2026-06-01-0930-cursor-main-agent", datetime(2026, 6, 1, 9, 31), summary=f"jwt {JWT}")
    plan = plan_update(mroot, "2026-06-01-0930-cursor-main-agent", datetime(2026, 6, 1, 9, 31), summary=f"jwt {JWT}", allow_secrets=True)
    assert plan.changes
