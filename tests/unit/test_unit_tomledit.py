"""The comment-keeping TOML editor (`memboard.core.files.tomledit`) shared by every TOML file memboard edits."""

from __future__ import annotations

import tomllib

import pytest

from memboard.core.errors import MemboardError, Refused
from memboard.core.files import tomledit

CODEX = (
    "# Codex settings\n"
    'model = "gpt-5"  # the default\n'
    "\n"
    "[features]\n"
    "web_search = true\n"
    "\n"
    "# servers I use\n"
    "[mcp_servers.docs]\n"
    'command = "docs-mcp"\n'
)


def test_a_new_file_is_written_with_tomli_w(tmp_path):
    edit = tomledit.plan_set(tmp_path / "config.toml", ("features", "hooks"), True)
    assert edit.before is None and edit.after == b"[features]\nhooks = true\n"
    tomledit.apply(edit)
    assert (tmp_path / "config.toml").read_bytes() == edit.after


def test_a_dotted_key_joins_its_table_and_everything_else_stays(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CODEX)
    edit = tomledit.plan_set(path, ("features", "hooks"), True)
    assert edit.before == CODEX.encode()
    assert edit.after.decode() == CODEX.replace("web_search = true\n", "web_search = true\nhooks = true\n")
    tomledit.apply(edit)
    assert tomllib.loads(path.read_text())["features"] == {"web_search": True, "hooks": True}


def test_a_table_is_added_after_the_others_with_comments_kept(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CODEX)
    after = tomledit.plan_set(path, ("mcp_servers", "memboard"), {"command": "memboard", "args": ["mcp"]}).after
    assert after.decode().startswith(CODEX)
    assert tomllib.loads(after.decode())["mcp_servers"] == {
        "docs": {"command": "docs-mcp"},
        "memboard": {"command": "memboard", "args": ["mcp"]},
    }


def test_setting_a_table_again_updates_it_in_place(tmp_path):
    path = tmp_path / "config.toml"
    text = '[mcp_servers.memboard]\n# ours\ncommand = "old"  # path\nargs = ["mcp"]\nstale = 1\n\n[other]\nx = 1\n'
    path.write_text(text)
    after = tomledit.plan_set(path, ("mcp_servers", "memboard"), {"command": "new", "args": ["mcp"]}).after.decode()
    assert after == text.replace('"old"', '"new"').replace("stale = 1\n", "")


def test_the_same_value_changes_no_byte(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CODEX)
    edit = tomledit.plan_set(path, ("model",), "gpt-5")
    assert not edit.changed and edit.after == CODEX.encode()


def test_crlf_and_bom_are_kept(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xef\xbb\xbf" + CODEX.replace("\n", "\r\n").encode())
    after = tomledit.plan_set(path, ("features", "hooks"), True).after
    assert after.startswith(b"\xef\xbb\xbf") and b"hooks = true\r\n" in after
    assert after.count(b"\n") == after.count(b"\r\n")


def test_a_key_that_is_not_a_table_is_refused(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('features = "all"\n')
    with pytest.raises(Refused, match="features is not a table"):
        tomledit.plan_set(path, ("features", "hooks"), True)


def test_broken_toml_is_refused_in_one_line(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("model = [\n")
    with pytest.raises(Refused) as info:
        tomledit.plan_set(path, ("model",), "x")
    assert "is not valid TOML" in str(info.value) and "\n" not in str(info.value)


def test_a_file_changed_after_planning_is_not_overwritten(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(CODEX)
    edit = tomledit.plan_set(path, ("features", "hooks"), True)
    path.write_text(CODEX + "[hand]\nedit = true\n")  # another writer, between plan and apply
    with pytest.raises(MemboardError, match="changed while memboard was writing it; nothing was written"):
        tomledit.apply(edit)
    assert path.read_text() == CODEX + "[hand]\nedit = true\n"


SERVER = ("mcp_servers", "memboard")
ENTRY = {"command": "/bin/memboard", "args": ["mcp"]}


@pytest.mark.parametrize(
    "text",
    [
        CODEX,
        "",
        "# only a comment\n",
        'model = "gpt-5"',  # no final newline: it gets one, nothing else changes
        "[mcp_servers]\n# servers below\n\n[mcp_servers.docs]\ncommand = 'docs'\n",
        "a = 1\r\n\r\n[b]\r\nc = 2\r\n",
        "\ufeffa = 1\n",
    ],
)
def test_a_table_added_at_the_end_is_removed_to_the_same_bytes(text):
    data = text.encode()
    after = tomledit.add_table(data, SERVER, ENTRY)
    assert (
        after.startswith(data.rstrip(b"\r\n"))
        and tomllib.loads(after.decode("utf-8-sig"))["mcp_servers"]["memboard"] == ENTRY
    )
    back = tomledit.remove_value(after, SERVER)
    assert back == (data if data.endswith(b"\n") or not data else data + b"\n")


def test_removing_a_table_keeps_the_comments_around_and_inside_it():
    text = (
        "a = 1\n\n[mcp_servers.memboard]\n# my note\ncommand = 'x'\nargs = [\n  'mcp',\n]\n\n"
        "[mcp_servers.memboard.env]\nX = '1'\n\n# heading of z\n[z]\nb = 2\n"
    )
    out = tomledit.remove_value(text.encode(), SERVER).decode()
    assert out == "a = 1\n# my note\n\n\n# heading of z\n[z]\nb = 2\n"


def test_removing_an_inline_table_goes_through_tomlkit_and_an_absent_one_changes_nothing():
    out = tomledit.remove_value(b"[mcp_servers]\nmemboard = { command = 'x' }\nother = 1\n", SERVER)
    assert tomllib.loads(out.decode()) == {"mcp_servers": {"other": 1}}
    assert tomledit.remove_value(b"[mcp_servers.docs]\ncommand = 'd'\n", SERVER) is None
    assert (
        tomledit.remove_value(tomledit.add_table(None, SERVER, ENTRY), SERVER) == b""
    )  # nothing left: delete the file


def test_a_removal_that_would_drop_a_comment_is_refused():
    dotted = b"mcp_servers.memboard.command = 'x'\n# kept\nmcp_servers.memboard.args = []\n"
    assert tomledit.remove_value(dotted, SERVER) == b"# kept\n"
    text = b"[mcp_servers]\nmemboard = { command = 'x' }\n# a comment tomlkit would drop with the emptied table\n"
    with pytest.raises(Refused, match="keep every comment"):
        tomledit.remove_value(text, SERVER)
