"""Credentials never reach the memory: every text-carrying write is scanned and refused."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from memboard.core.errors import MemboardError
from memboard.core.files.root import MemoryRoot
from memboard.core.ops.manual import plan_manual
from memboard.core.ops.update import plan_update
from memboard.core.secrets import SecretFound, scan
from tests.support.tree import tree

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
    before = tree(root, links=False)
    snapshot = "## Decisions\n\n- use the deploy key\n\n## Files / Artifacts\n\n" + PEM + "\n"
    res = cli("update", sid, "--snapshot", "-", input=snapshot)
    assert res.code == 1
    assert len(res.err.strip().splitlines()) == 1
    assert "snapshot line 7: private key" in res.err
    assert "MIIEow" not in res.err
    assert tree(root, links=False) == before


@pytest.mark.parametrize("flag", ["--summary", "--keywords", "--topic"])
def test_update_scans_every_text_field(cli, root, flag):
    cli("register")
    before = tree(root, links=False)
    res = cli("update", "2026-06-01-0930-cursor-main-agent", flag, f"key {SLACK}")
    assert res.code == 1 and "Slack token" in res.err and SLACK not in res.err
    assert tree(root, links=False) == before


def test_allow_secrets_is_an_explicit_override(cli, root):
    res = cli("register", "--manual", "--summary", "password=hunter2", "--allow-secrets")
    assert res.code == 0, res.err
    assert "password=hunter2" in (root / "index.md").read_text(encoding="utf-8")


def test_continue_scans_the_text_it_carries(cli, root):
    cli("register", "--manual", "--topic", f"uses {OPENAI}", "--allow-secrets", "--agent", "src")
    cli("register", "--agent", "cur")
    before = tree(root, links=False)
    res = cli("continue", "2026-06-01-0930-src", "--as", "2026-06-01-0930-cur")
    assert res.code == 1 and "OpenAI API key" in res.err and OPENAI not in res.err
    assert tree(root, links=False) == before
    res = cli("continue", "2026-06-01-0930-src", "--agent", "new")
    assert res.code == 1 and tree(root, links=False) == before
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
    plan = plan_update(
        mroot,
        "2026-06-01-0930-cursor-main-agent",
        datetime(2026, 6, 1, 9, 31),
        summary=f"jwt {JWT}",
        allow_secrets=True,
    )
    assert plan.changes


# The credential kinds people paste into notes, after the public default rules of gitleaks.
# Values are assembled from pieces so that this file is not itself a leak to other scanners.
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
AZURE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu" + "Fq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
GCP_JSON = (
    '{"type": "service_account", "private_key_id": "3f2a", "private_key": "-----BEGIN '
    + 'PRIVATE KEY-----\\nMIIEvQIBADAN\\n-----END PRIVATE KEY-----\\n"}'
)
NEW_KINDS = [
    # connection strings with a password
    ("connection string with a password", "db: postgres://app:" + "s3cr3tPw@db.internal:5432/app", "s3cr3tPw"),
    ("connection string with a password", "DATABASE_URL=postgresql://svc:" + "Tr0ub4dor@10.0.0.5/prod", "Tr0ub4dor"),
    ("connection string with a password", "mysql://root:" + "hunter22@localhost:3306/shop", "hunter22"),
    (
        "connection string with a password",
        "mongodb+srv://admin:" + "Xq9v2LmP@cluster0.ab1cd.mongodb.net/db",
        "Xq9v2LmP",
    ),
    ("connection string with a password", "cache at redis://:" + "r3disPass@cache:6379/0", "r3disPass"),
    ("connection string with a password", "broker amqp://worker:" + "rabbit-77@mq.local:5672/", "rabbit-77"),
    # cloud keys
    ("AWS secret access key", "aws_secret_access_key = " + AWS_SECRET, AWS_SECRET),
    ("AWS secret access key", '"SecretAccessKey": "' + AWS_SECRET + '"', AWS_SECRET),
    ("AWS secret access key", f"keys: {AWS} {AWS_SECRET}", AWS_SECRET),
    ("private key", "sa.json: " + GCP_JSON, "MIIEvQIBADAN"),
    (
        "Azure storage account key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + AZURE_KEY + ";EndpointSuffix=core.windows.net",
        AZURE_KEY,
    ),
    (
        "Google OAuth client secret",
        "client secret GOCSPX-" + "1aB2cD3eF4gH5iJ6kL7mN8oP9qR0",
        "1aB2cD3eF4gH5iJ6kL7mN8oP9qR0",
    ),
    # source hosts and package registries
    ("GitLab token", "glpat-" + "xYz12AbC34dEf56GhI78 for CI", "xYz12AbC34dEf56GhI78"),
    ("npm token", "NPM_TOKEN npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    (
        "npm token",
        "//registry.npmjs.org/:_authToken=" + "4f1d2c3b-aaaa-bbbb-cccc-1234567890ab",
        "4f1d2c3b-aaaa-bbbb-cccc-1234567890ab",
    ),
    (
        "PyPI token",
        "twine pypi-" + "AgEIcHlwaS5vcmcCJDk0ZmM3YjQ0LTk2NzUtNGRiZC05MWU3LTUxNWIzYjU3YmQwZQACKlsz",
        "CJDk0ZmM3YjQ0LTk2NzUtNGRiZC05MWU3LTUxNWIzYjU3YmQwZQACKlsz",
    ),
    # payments and messaging
    ("Stripe key", "charge with sk_live_" + "51HxYzAbCdEfGhIjKlMnOpQr", "51HxYzAbCdEfGhIjKlMnOpQr"),
    ("Stripe key", "restricted rk_live_" + "51HxYzAbCdEfGhIjKlMnOpQr", "51HxYzAbCdEfGhIjKlMnOpQr"),
    ("Slack token", "bot xoxb-" + "2048-4096-AbCdEfGhIjKlMnOp", "2048-4096-AbCdEfGhIjKlMnOp"),
    ("Twilio API key", "twilio SK" + "0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),
    (
        "SendGrid API key",
        "mail SG." + "ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
        "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
    ),
    # webhook URLs that carry their secret
    (
        "Slack webhook URL",
        "alerts go to https://hooks.slack.com/services/T0" + "1ABCDEF/B02GHIJKL/aBcDeFgHiJkLmNoPqRsTuVwX",
        "aBcDeFgHiJkLmNoPqRsTuVwX",
    ),
    ("Discord webhook URL", "https://discord.com/api/webhooks/1234567890" + "12345678/" + "Ab" * 34, "Ab" * 34),
    # tokens of the generic forms
    ("JSON Web Token", f"id_token {JWT}", JWT),
    ("credential assignment", "DB_PASSWORD=" + "pr0d-Passw0rd!", "pr0d-Passw0rd!"),
    ("credential assignment", '"password": "' + "Summer2026!x" + '"', "Summer2026!x"),
]


@pytest.mark.parametrize("kind,text,value", NEW_KINDS, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(NEW_KINDS)])
def test_scanner_catches_the_credentials_people_paste_into_notes(kind, text, value):
    found = scan("notes\n" + text, "snapshot")
    assert kind in [m.kind for m in found], found
    assert all(m.line == 2 for m in found)
    described = " ".join(m.describe() for m in found)
    assert value not in described and value[4:] not in described


@pytest.mark.parametrize("kind,text,value", NEW_KINDS[::3], ids=[k for k, _, _ in NEW_KINDS[::3]])
def test_each_new_kind_is_refused_by_the_cli_and_overridable(cli, root, kind, text, value):
    res = cli(
        "register", "--manual", "--summary", "see snapshot", "--snapshot", "-", input=f"## Decisions\n\n- {text}\n"
    )
    assert res.code == 1 and kind in res.err and value not in res.err, res.err
    assert len(res.err.strip().splitlines()) == 1
    assert list(root.iterdir()) == []
    res = cli(
        "register",
        "--manual",
        "--summary",
        "see snapshot",
        "--snapshot",
        "-",
        "--allow-secrets",
        input=f"## Decisions\n\n- {text}\n",
    )
    assert res.code == 0, res.err
    assert value in next((root / "sessions").iterdir()).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "text",
    [
        # prose
        "We decided the password reset flow needs a second look; the token refresh is fine.",
        "Secret management moves to the vault next sprint. Key rotation is monthly.",
        "Tests pass: 3/5 on CI, token budget: 4096, api key: rotate monthly",
        "Authorization: Basic auth is disabled; use OAuth instead",
        # IDs
        "continues from 2026-05-01-0900-cursor-main-agent and 2026-05-02-1015-claude-main-agent-2",
        "conversation 8f1c2d3e-4b5a-4c6d-9e8f-0a1b2c3d4e5f, request req_01HXYZ4A2B3C4D5E6F7G8H9J0K",
        "ticket SK-1234 and SKU 0042; order #99812",
        # hashes (next to an AWS key ID too: a hash is not its secret)
        "fixed in 3f786850e387550fdab836ed7e6dc881de23001b (sha1)",
        "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        # paths and URLs without a secret
        "edit /home/u/proj/src/auth/password_reset.py and C:\\Users\\u\\secrets\\README.md",
        "clone git@github.com:org/repo.git or https://github.com/org/repo, docs at https://user@example.com/wiki",
        "local db: postgres://localhost:5432/app, postgres://app@db/app, postgres://user:password@localhost/app",
        "template: postgres://${DB_USER}:${DB_PASS}@${DB_HOST}/app and mysql://root:<password>@localhost",
        "| Session ID | Agent Name | Topic | Summary | Keywords | Status |",
        "api_key=$API_KEY, password = os.environ['DB_PASSWORD'], token: {{ secrets.TOKEN }}",
    ],
)
def test_scanner_leaves_prose_ids_hashes_and_paths_alone(text):
    """Only the one real credential on the line is reported, not the text around it."""
    found = scan(text + " and DATABASE_URL=postgres://svc:" + "Tr0ub4dor@db/prod")
    assert [m.kind for m in found] == ["connection string with a password"], found


def test_a_hash_beside_an_aws_key_id_is_not_taken_for_its_secret():
    text = f"the IAM user {AWS} was deleted in commit 9fceb02d0ae598e95dc970b74767f19372d61af8"
    assert [m.kind for m in scan(text)] == ["AWS access key"]
    assert [m.kind for m in scan(text + f" (its secret was {AWS_SECRET})")] == [
        "AWS access key",
        "AWS secret access key",
    ]


@pytest.mark.parametrize("kind,text,value", NEW_KINDS, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(NEW_KINDS)])
def test_every_kind_refuses_the_plan_and_allow_secrets_overrides_it(root, kind, text, value):
    mroot = MemoryRoot(root)
    snapshot = f"## Decisions\n\n- {text}\n"
    with pytest.raises(SecretFound) as info:
        plan_manual(mroot, datetime(2026, 6, 1, 9, 30), "alpha", "Deploy", "see snapshot", snapshot)
    assert kind in [m.kind for m in info.value.matches] and value not in str(info.value)
    plan = plan_manual(
        mroot, datetime(2026, 6, 1, 9, 30), "alpha", "Deploy", "see snapshot", snapshot, allow_secrets=True
    )
    assert value.encode("utf-8") in plan.changes[0].after


# -- invisible characters ------------------------------------------------------------------------------------------

INVISIBLE = {
    "zero-width space": "\u200b",
    "zero-width non-joiner": "\u200c",
    "zero-width joiner": "\u200d",
    "word joiner": "\u2060",
    "BOM": "\ufeff",
    "soft hyphen": "\u00ad",
    "right-to-left override": "\u202e",
    "tag letter": "\U000e0041",
    "Mongolian vowel separator": "\u180e",
}


@pytest.mark.parametrize("char", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_an_invisible_character_inside_a_token_does_not_hide_it(char):
    """`gh<invisible>p_…` shows as a GitHub token and is one: format characters are taken out before matching; the
    refusal shows the token as matched (masked) and says it held one, never the character itself."""
    found = scan(f"deploy with gh{char}p_{GITHUB[4:]}", "summary")
    assert [m.kind for m in found] == ["GitHub token"]
    described = found[0].describe()
    assert described == "summary line 1: GitHub token ghp_***(40 chars; 1 invisible character inside)"
    assert char not in described and GITHUB[4:] not in described


def test_invisible_characters_anywhere_in_a_token_are_counted_and_lines_keep_their_numbers():
    split = "x\u200b" + "ox" + "\u2060" + "b-" + SLACK[5:20] + "\u00ad" + SLACK[20:]
    found = scan(f"first\n\u200bsecond\nthird {split}", "snapshot")
    assert [(m.line, m.kind) for m in found] == [(3, "Slack token")]
    assert found[0].masked == f"xoxb***({len(SLACK)} chars; 3 invisible characters inside)"


@pytest.mark.parametrize("char", ["\u200b", "\u2060", "\ufeff"])
def test_an_invisible_character_between_words_still_parts_them(char):
    """Taken out, a zero-width space between two words would join them (`tokenghp_…` is no token at a word's
    start): a line that held invisible characters is matched as written too, and a token found both ways once."""
    found = scan(f"token{char}{GITHUB} and gh{char}p_{GITHUB[4:]}")
    assert [m.kind for m in found] == ["GitHub token", "GitHub token"]
    assert sorted(m.masked for m in found) == ["ghp_***(40 chars)", "ghp_***(40 chars; 1 invisible character inside)"]


def test_text_with_invisible_characters_and_no_secret_is_left_alone():
    assert scan("整理\u200b記憶 with a soft\u00adhyphen, a \u2066bidi isolate\u2069 and an emoji 👩\u200d💻") == []


def test_update_refuses_a_token_split_by_a_zero_width_space_and_writes_nothing(cli, root):
    assert cli("register").code == 0
    before = tree(root, links=False)
    res = cli("update", "2026-06-01-0930-cursor-main-agent", "--summary", f"deploy: gh\u200bp_{GITHUB[4:]}")
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1
    assert "summary line 1: GitHub token ghp_***(40 chars; 1 invisible character inside)" in res.err
    assert GITHUB[4:] not in res.err and "\u200b" not in res.err
    assert tree(root, links=False) == before


# -- identifiers: agent names, conversation IDs, topic keys, Session IDs ------------------------------------------

AGENT_REFUSAL = f"agent name line 1: Slack token xoxb***({len(SLACK)} chars)"


@pytest.mark.parametrize(
    "argv",
    [
        ["register", "--agent", SLACK],
        ["register", "--manual", "--agent", SLACK, "--summary", "ok"],
        ["register", "--manual", "--agent", SLACK, "--dry-run"],
        ["continue", "2026-06-01-0930-source", "--agent", SLACK],
    ],
    ids=["register", "register-manual", "dry-run", "continue"],
)
def test_a_token_for_an_agent_name_is_refused_with_one_line_naming_the_field(cli, root, argv):
    """An agent name lands in index.md, in the Session ID, the snapshot's file name and its text: it is scanned
    like every other text (a Slack token is all lowercase letters, digits and hyphens: a well-formed agent name)."""
    assert cli("register", "--agent", "source").code == 0
    before = tree(root, links=False)
    res = cli(*argv)
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1, res.err
    assert AGENT_REFUSAL in res.err and SLACK[5:] not in res.err and "Your Memory Session ID" not in res.out
    assert tree(root, links=False) == before


def test_allow_secrets_overrides_the_agent_name_check_too(cli, root):
    res = cli("register", "--agent", SLACK, "--allow-secrets")
    assert res.code == 0, res.err
    assert f"| 2026-06-01-0930-{SLACK} | {SLACK} |" in (root / "index.md").read_text(encoding="utf-8")


def test_config_set_refuses_a_token_agent_name_and_a_hand_written_one_is_refused_at_register(cli, root):
    config = Path(os.environ["MEMBOARD_CONFIG"])
    res = cli("config", "set", "agent_name", SLACK, use_root=False)
    assert res.code == 1 and AGENT_REFUSAL in res.err and SLACK[5:] not in res.err
    assert not config.exists()
    config.write_text(f'agent_name = "{SLACK}"\n', encoding="utf-8")  # by hand
    res = cli("register")
    assert res.code == 1 and AGENT_REFUSAL in res.err
    assert list(root.iterdir()) == []


def test_a_note_s_topic_key_and_session_are_scanned_but_a_key_made_from_its_title_is_not(cli, root):
    base = ["note", "save", "--title", "Deploy", "--type", "config", "--scope", "ops", "--what", "x"]
    res = cli(*base, "--topic-key", f"ops/{SLACK}")
    assert res.code == 1 and f"topic key line 1: Slack token xoxb***({len(SLACK)} chars)" in res.err
    res = cli(*base, "--session", f"2026-06-01-0930-{SLACK}")
    assert res.code == 1 and "session line 1: Slack token" in res.err and SLACK[5:] not in res.err
    assert not (root / "notes").exists()
    # a title of prose whose slug looks like a key (`sk-` and 20 more) is not refused for its derived key
    res = cli("note", "save", "--title", "sk-learn pipeline notes for us", "--type", "fact", "--scope", "tool")
    assert res.code == 0, res.err
    assert (root / "notes" / "tool" / "fact" / "sk-learn-pipeline-notes-for-us.md").is_file()
