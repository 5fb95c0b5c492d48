"""`memboard facts get|set|todo add|todo done|touch` from the command line (issue 25 §1, §3, §7, §8, §9)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from memboard.core.hierarchy import facts as F

TODAY = "2026-06-01"  # the suite's fixed clock (tests/conftest.py FIXED_NOW)
FACTS = (
    "# memory/facts.yaml\n"
    "# Last updated: 2026-01-01\n"
    "contact: &contact\n"
    "  email: kim@x.com  # mail\n"
    "identity:\n"
    "  <<: *contact\n"
    "  name: Kim\n"
    "paths: {docs: ~/docs}\n"
    "todos:\n"
    "  - call Sam\n"
    "  - buy milk\n"
)
git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def workspace(tmp_path: Path, facts: bytes | str = FACTS, name: str = "ws") -> Path:
    """A workspace with MEMORY.md and memory/facts.yaml holding facts."""
    ws = tmp_path / name
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Memory\n")
    (ws / "memory" / "facts.yaml").write_bytes(facts.encode() if isinstance(facts, str) else facts)
    return ws


def facts_of(ws: Path) -> bytes:
    """The workspace's facts.yaml."""
    return (ws / "memory" / "facts.yaml").read_bytes()


def test_get_prints_the_value_and_json(cli, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    r = cli("facts", "get", "identity.name", "--workspace", str(ws), use_root=False)
    assert (r.code, r.out) == (0, "Kim\n")
    r = cli("facts", "get", "identity.email", "--workspace", str(ws), "--json", use_root=False)
    assert json.loads(r.out) == {
        "key": "identity.email",
        "value": "kim@x.com",
        "line": 4,
        "source": "kim@x.com",
        "comment": "mail",
        "alias": "contact",
    }
    r = cli("facts", "get", "identity.nope", "--workspace", str(ws), use_root=False)
    assert r.code == 1 and r.err.count("\n") == 1 and "no key identity.nope" in r.err


def test_no_workspace_is_one_line(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OPENCLAW_WORKSPACE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    r = cli("facts", "get", "a", use_root=False)
    assert (r.code, r.err) == (1, "memboard: no hierarchy workspace; pass --workspace DIR\n")


def test_workspace_resolution_order(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("OPENCLAW_WORKSPACE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    openclaw = workspace(home / ".openclaw", "a: home\n", "workspace")
    assert cli("facts", "get", "a", use_root=False).out == "home\n"
    above = workspace(tmp_path, "a: above\n", "above")  # its memory/ is the memory root
    assert cli("--root", str(above / "memory"), "facts", "get", "a", use_root=False).out == "above\n"
    monkeypatch.setenv("MEMBOARD_ROOT", str(above / "memory"))
    assert cli("facts", "get", "a", use_root=False).out == "above\n"
    env = workspace(tmp_path, "a: env\n", "env")
    monkeypatch.setenv("OPENCLAW_WORKSPACE_DIR", str(env))
    assert cli("facts", "get", "a", use_root=False).out == "env\n"
    configured = workspace(tmp_path, "a: config\n", "configured")
    assert cli("config", "set", "hierarchy_workspace", str(configured), use_root=False).code == 0
    assert cli("facts", "get", "a", use_root=False).out == "config\n"
    assert cli("facts", "get", "a", "--workspace", str(openclaw), use_root=False).out == "home\n"


def test_set_changes_two_lines(cli, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    r = cli("facts", "set", "contact.email", "no", "--workspace", str(ws), use_root=False)
    assert r.code == 0, r.err
    assert facts_of(ws) == FACTS.replace("2026-01-01", TODAY).replace("kim@x.com", '"no"').encode()
    again = cli("facts", "set", "contact.email", "no", "--workspace", str(ws), use_root=False)
    assert (again.code, again.out) == (0, "nothing to change\n")


def test_nothing_to_change_keeps_last_updated(cli, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    r = cli("facts", "set", "identity.name", "Kim", "--workspace", str(ws), use_root=False)
    assert (r.code, r.out) == (0, "nothing to change\n")
    assert facts_of(ws) == FACTS.encode()


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["identity.email", "x"], 1, "identity.email comes from *contact (line 6); edit &contact at line 3"),
        (["identity", "x"], 1, "identity is a mapping; set one of its keys"),
        (["todos", "x"], 1, "todos is a sequence; set one of its keys"),
        (["identity.city", "x"], 1, "no key identity.city in memory/facts.yaml (pass --create to add it)"),
        (["paths.more", "x", "--create"], 1, "paths is a flow mapping (line 8); edit it by hand"),
        (["identity.name", "a\nb"], 2, "a value holds a line break; facts.yaml values are one line"),
        (["identity.name", "AKIAIOSFODNN7EXAMPLF"], 1, None),
        (["identity.name", "a: b", "--raw"], 1, "--raw 'a: b' is not one single-line YAML scalar"),
    ],
)
def test_refusals_write_nothing(cli, tmp_path: Path, args: list[str], code: int, message: str | None) -> None:
    ws = workspace(tmp_path)
    r = cli("facts", "set", *args, "--workspace", str(ws), use_root=False)
    assert r.code == code and r.err.count("\n") == 1, r.err
    if message is not None:
        assert r.err == f"memboard: {message}\n"
    assert facts_of(ws) == FACTS.encode()


def test_invalid_and_duplicate_files_are_refused(cli, tmp_path: Path) -> None:
    for text, words in [("a: [\n", "not valid YAML"), ("a: 1\na: 2\n", "twice")]:
        ws = workspace(tmp_path, text, f"ws{len(text)}")
        r = cli("facts", "set", "a", "3", "--workspace", str(ws), use_root=False)
        assert r.code == 1 and words in r.err and facts_of(ws) == text.encode()


def test_allow_secrets_writes(cli, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    key = "AKIAIOSFODNN7EXAMPLF"
    assert cli("facts", "set", "identity.name", key, "--workspace", str(ws), use_root=False).code == 1
    r = cli("facts", "set", "identity.name", key, "--allow-secrets", "--workspace", str(ws), use_root=False)
    assert r.code == 0 and f"  name: {key}\n".encode() in facts_of(ws)


def test_create_adds_lines_at_the_end_of_the_parent(cli, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    r = cli("facts", "set", "identity.city", "Paris", "--create", "--workspace", str(ws), use_root=False)
    assert r.code == 0, r.err
    assert (
        facts_of(ws)
        == FACTS.replace("2026-01-01", TODAY).replace("  name: Kim\n", "  name: Kim\n  city: Paris\n").encode()
    )


def test_todo_add_and_done_move_the_item_to_todays_log(cli, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    assert cli("facts", "todo", "add", "pay rent: $50", "--workspace", str(ws), use_root=False).code == 0
    assert F.get(facts_of(ws), "todos.2")["value"] == "pay rent: $50"
    log = ws / "memory" / f"{TODAY}.md"
    log.write_bytes(b"# 2026-06-01\r\n\r\nmorning notes")
    r = cli("facts", "todo", "done", "1", "--workspace", str(ws), use_root=False)
    assert r.code == 0, r.err
    assert b"call Sam" not in facts_of(ws)
    assert log.read_bytes() == b"# 2026-06-01\r\n\r\nmorning notes\r\n\r\n- [x] call Sam\r\n"
    r = cli("facts", "todo", "done", "pay rent: $50", "--workspace", str(ws), use_root=False)
    assert r.code == 0 and log.read_bytes().endswith(b"- [x] call Sam\r\n\r\n- [x] pay rent: $50\r\n")
    missing = cli("facts", "todo", "done", "9", "--workspace", str(ws), use_root=False)
    assert missing.code == 1


def test_todo_done_starts_a_new_log(cli, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    assert cli("facts", "todo", "done", "buy milk", "--workspace", str(ws), use_root=False).code == 0
    assert (ws / "memory" / f"{TODAY}.md").read_bytes() == b"# 2026-06-01\n\n- [x] buy milk\n"


def test_touch(cli, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    assert cli("facts", "touch", "--workspace", str(ws), use_root=False).code == 0
    assert facts_of(ws) == FACTS.replace("2026-01-01", TODAY).encode()
    assert cli("facts", "touch", "--workspace", str(ws), use_root=False).out == "nothing to change\n"


def test_set_json(cli, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    r = cli("facts", "set", "identity.name", "3.10", "--json", "--workspace", str(ws), use_root=False)
    got = json.loads(r.out)
    assert got["key"] == "identity.name" and got["value"] == "3.10" and got["source"] == '"3.10"'
    assert got["changed"] is True and got["dry_run"] is False and got["changes"] == ["modify memory/facts.yaml"]


def test_hand_edit_of_another_key_is_kept(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """§7: another writer edits facts.yaml after memboard read it; the set is made again on the fresh file."""
    ws = workspace(tmp_path)
    real = F.set_value
    calls: list[bytes] = []

    def racing(data: bytes, *args: object, **kwargs: object) -> F.Edit:
        calls.append(data)
        edit = real(data, *args, **kwargs)  # type: ignore[arg-type]
        if len(calls) == 1:  # the hand edit lands between memboard's read and its rename
            facts_of_ws = facts_of(ws).replace(b"  name: Kim\n", b"  name: Kimberly\n")
            (ws / "memory" / "facts.yaml").write_bytes(facts_of_ws)
        return edit

    monkeypatch.setattr(F, "set_value", racing)
    r = cli("facts", "set", "contact.email", "kim@y.org", "--workspace", str(ws), use_root=False)
    assert r.code == 0, r.err
    assert len(calls) >= 2
    after = facts_of(ws)
    assert b"  name: Kimberly\n" in after and b"  email: kim@y.org  # mail\n" in after


CASES = {
    "crlf": FACTS.replace("\n", "\r\n").encode(),
    "bom": b"\xef\xbb\xbf" + FACTS.encode(),
    "no final newline": FACTS.encode().rstrip(b"\n"),
    "bom crlf no final newline": b"\xef\xbb\xbf" + FACTS.replace("\n", "\r\n").encode().rstrip(b"\r\n"),
}
COMMANDS = [
    ["facts", "set", "contact.email", "a: b"],
    ["facts", "set", "identity.city", "Paris", "--create"],
    ["facts", "set", "new.group", "1", "--create"],
    ["facts", "todo", "add", "on"],
    ["facts", "todo", "done", "2"],
    ["facts", "touch"],
]


@git
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[1:3]))
def test_dry_run_patch_reproduces_the_write(cli, tmp_path: Path, case: str, command: list[str]) -> None:
    """§9: `git -C <workspace> apply` of a --dry-run writes exactly what the command writes."""
    ws = workspace(tmp_path, CASES[case], "ws")
    copy = workspace(tmp_path, CASES[case], "copy")
    dry = cli(*command, "--dry-run", "--workspace", str(copy), use_root=False)
    assert dry.code == 0, dry.err
    assert f"patch base: {copy}\n" in dry.err
    patch = tmp_path / "p.patch"
    patch.write_bytes(dry.out.encode())
    assert facts_of(copy) == CASES[case]  # a dry run writes nothing
    real = cli(*command, "--workspace", str(ws), use_root=False)
    assert real.code == 0, real.err
    subprocess.run(["git", "-C", str(copy), "apply", str(patch)], check=True, capture_output=True)
    for path in sorted((ws / "memory").iterdir()):
        assert (copy / "memory" / path.name).read_bytes() == path.read_bytes(), path.name
    assert sorted(p.name for p in (copy / "memory").iterdir()) == sorted(p.name for p in (ws / "memory").iterdir())


def test_todo_done_beside_an_appender_loses_no_line(cli, tmp_path: Path) -> None:
    """§7: OpenClaw appends to today's log without a lock while todo done appends its line: every line stays."""
    import os
    import threading
    import time

    ws = workspace(tmp_path)
    log = ws / "memory" / f"{TODAY}.md"
    log.write_bytes(b"# 2026-06-01\n\nstart\n")
    stop = threading.Event()
    written: list[str] = []

    def appender() -> None:
        n = 0
        while not stop.is_set() and n < 400:
            line = f"flush line {n}\n"
            fd = os.open(log, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)
            written.append(line)
            n += 1
            time.sleep(0.001)

    thread = threading.Thread(target=appender)
    thread.start()
    try:
        for item in ("call Sam", "buy milk"):
            r = cli("facts", "todo", "done", item, "--workspace", str(ws), use_root=False)
            assert r.code == 0, r.err
    finally:
        stop.set()
        thread.join()
    text = log.read_text()
    assert all(line in text for line in written)
    assert "- [x] call Sam\n" in text and "- [x] buy milk\n" in text
    assert b"call Sam" not in facts_of(ws) and b"buy milk" not in facts_of(ws)


def test_raw_writes_the_scalar_as_given(cli, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    r = cli("facts", "set", "identity.name", "'Kim L'", "--raw", "--workspace", str(ws), use_root=False)
    assert r.code == 0, r.err
    assert b"  name: 'Kim L'\n" in facts_of(ws)
    assert cli("facts", "get", "identity.name", "--workspace", str(ws), use_root=False).out == "Kim L\n"


def test_missing_facts_file_is_refused(cli, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws / "memory" / "facts.yaml").unlink()
    for args in (["get", "a"], ["set", "a", "1", "--create"], ["todo", "add", "x"], ["touch"]):
        r = cli("facts", *args, "--workspace", str(ws), use_root=False)
        assert r.code == 1 and "no memory/facts.yaml" in r.err and r.err.count("\n") == 1
    assert not (ws / "memory" / "facts.yaml").exists()
